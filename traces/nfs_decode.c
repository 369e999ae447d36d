/*
 * nfs_decode.c - from captured packets to whole RPC messages: link layers,
 * IPv4 and IPv6, UDP and TCP, and ONC RPC record marking over TCP (RFC 5531
 * section 11) reassembled per direction. The messages go to nfs_rpc.c.
 * Every byte is read through the cursor (cursor.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "nfs_impl.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define IPPROTO_TCP_   6
#define IPPROTO_UDP_   17

/*
 * The largest record buffered. NFS servers cap transfers at a few MiB; a
 * record mark announcing more is taken as a lost record boundary.
 */
#define RM_MAX_RECORD (8u << 20)
#define RM_LAST       0x80000000u
/* The smallest RPC message: a reply of xid, type, stat, verifier, accept. */
#define RM_MIN_MESSAGE 24
#define OOO_MAX_SEGS   64
#define OOO_MAX_BYTES  (4u << 20)
/* A sequence jump larger than this is a new stream, not a lost segment. */
#define SEQ_MAX_GAP (64u << 20)

enum { RM_MARK, RM_BODY, RM_RESYNC };

struct ooo_seg {
	uint32_t seq;
	size_t cap, len;
	uint8_t *data;
};

/* One direction of a connection. */
struct half {
	int seq_known;
	uint32_t next_seq;
	int state;
	uint8_t mark[4];
	unsigned mark_have;
	uint32_t frag_left;
	int frag_last;
	int align; /* seq % 4 of the record marks; -1 unknown */
	/* the message being assembled: a captured prefix of a claimed length */
	uint8_t *buf;
	size_t buf_alloc;
	size_t msg_cap;
	size_t msg_len;
	int msg_gap; /* bytes are missing after msg_cap */
	uint32_t msg_segs;
	uint64_t msg_seg; /* the last segment counted in msg_segs */
	struct ooo_seg ooo[OOO_MAX_SEGS];
	unsigned nooo;
	size_t ooo_bytes;
	int fin;
};

struct nfs_conn {
	struct nfs_conn *next;
	uint8_t af; /* 4 or 6 */
	uint8_t proto;
	uint8_t src[16], dst[16]; /* of the first packet seen */
	uint16_t sport, dport;
	uint64_t id;
	uint64_t stream;
	uint64_t last_frame; /* when a packet last came */
	struct half half[2]; /* [0] from src to dst */
};

/* An IP packet's addresses, protocol and payload. */
struct ip_info {
	uint8_t af;
	uint8_t proto;
	const uint8_t *src, *dst;
};

struct nfs_decoder *
nfs_decoder_new(void)
{
	return calloc(1, sizeof(struct nfs_decoder));
}

void
nfs_decoder_on_call(struct nfs_decoder *d,
    void (*fn)(const struct nfs_call *, void *), void *arg)
{
	d->on_call = fn;
	d->on_call_arg = arg;
}

struct nfs_stats *
nfs_decoder_stats(struct nfs_decoder *d)
{
	return &d->st;
}

int
nfs_link_supported(int linktype)
{
	switch (linktype) {
	case NFS_LINK_NULL:
	case NFS_LINK_EN10MB:
	case NFS_LINK_RAW_DLT:
	case NFS_LINK_RAW_DLT14:
	case NFS_LINK_RAW:
	case NFS_LINK_LOOP:
	case NFS_LINK_LINUX_SLL:
	case NFS_LINK_IPV4:
	case NFS_LINK_IPV6:
	case NFS_LINK_LINUX_SLL2:
		return 1;
	default:
		return 0;
	}
}

static unsigned
conn_hash(uint8_t af, const uint8_t *a, const uint8_t *b, uint16_t pa,
    uint16_t pb, uint8_t proto)
{
	size_t n = af == 6 ? 16 : 4;
	uint64_t h = 0xcbf29ce484222325ULL ^ proto;

	/* Symmetric in the two ends, so both directions meet. */
	uint64_t ha = pa, hb = pb;

	for (size_t i = 0; i < n; i++) {
		ha = (ha ^ a[i]) * 0x100000001b3ULL;
		hb = (hb ^ b[i]) * 0x100000001b3ULL;
	}
	h ^= ha + hb;
	h ^= h >> 31;
	return (unsigned)(h % NFS_CONN_BUCKETS);
}

static void conn_remove(struct nfs_decoder *d, struct nfs_conn *c);
static void half_end(struct nfs_decoder *d, struct nfs_conn *c, int dir);

static void
half_free(struct half *h)
{
	free(h->buf);
	for (unsigned i = 0; i < h->nooo; i++)
		free(h->ooo[i].data);
}

/*
 * Connections that never say goodbye (UDP, a capture that began or ended
 * mid-stream, a lost FIN) would pile up in a long live capture: when the
 * table is full, those idle longer than the average go, with what they
 * held half assembled.
 */
static void
conn_prune(struct nfs_decoder *d)
{
	uint64_t sum = 0, n = 0, mean;

	for (unsigned b = 0; b < NFS_CONN_BUCKETS; b++)
		for (struct nfs_conn *c = d->conns[b]; c != NULL; c = c->next) {
			sum += d->frame - c->last_frame;
			n++;
		}
	mean = n > 0 ? sum / n : 0;
	for (unsigned b = 0; b < NFS_CONN_BUCKETS; b++) {
		struct nfs_conn *c = d->conns[b], *next;

		for (; c != NULL; c = next) {
			next = c->next;
			if (d->frame - c->last_frame >= mean) {
				half_end(d, c, 0);
				half_end(d, c, 1);
				conn_remove(d, c);
				d->st.loss.conns_evicted++;
			}
		}
	}
}

/*
 * Finds the connection of a packet and which direction it travels, making
 * one when it is new. NULL when out of memory.
 */
static struct nfs_conn *
conn_get(struct nfs_decoder *d, const struct ip_info *ip, uint16_t sport,
    uint16_t dport, int *dir)
{
	size_t n = ip->af == 6 ? 16 : 4;
	unsigned b =
	    conn_hash(ip->af, ip->src, ip->dst, sport, dport, ip->proto);
	struct nfs_conn *c;

	for (c = d->conns[b]; c != NULL; c = c->next) {
		if (c->af != ip->af || c->proto != ip->proto)
			continue;
		if (c->sport == sport && c->dport == dport &&
		    memcmp(c->src, ip->src, n) == 0 &&
		    memcmp(c->dst, ip->dst, n) == 0) {
			*dir = 0;
			c->last_frame = d->frame;
			return c;
		}
		if (c->sport == dport && c->dport == sport &&
		    memcmp(c->src, ip->dst, n) == 0 &&
		    memcmp(c->dst, ip->src, n) == 0) {
			*dir = 1;
			c->last_frame = d->frame;
			return c;
		}
	}
	if (d->nconns >= NFS_CONN_MAX)
		conn_prune(d);
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	d->nconns++;
	c->af = ip->af;
	c->proto = ip->proto;
	memcpy(c->src, ip->src, n);
	memcpy(c->dst, ip->dst, n);
	c->sport = sport;
	c->dport = dport;
	c->id = ++d->next_conn;
	c->stream = d->next_stream++;
	c->last_frame = d->frame;
	c->half[0].align = c->half[1].align = -1;
	c->next = d->conns[b];
	d->conns[b] = c;
	*dir = 0;
	return c;
}

static void
conn_remove(struct nfs_decoder *d, struct nfs_conn *c)
{
	unsigned b =
	    conn_hash(c->af, c->src, c->dst, c->sport, c->dport, c->proto);
	struct nfs_conn **pp = &d->conns[b];

	while (*pp != c)
		pp = &(*pp)->next;
	*pp = c->next;
	d->nconns--;
	half_free(&c->half[0]);
	half_free(&c->half[1]);
	free(c);
}

static void
deliver(struct nfs_decoder *d, struct nfs_conn *c, int dir, const uint8_t *buf,
    size_t cap, size_t len, uint32_t segs)
{
	struct nfs_msg m;

	m.conn = c->id;
	m.stream = c->stream;
	m.sport = dir == 0 ? c->sport : c->dport;
	m.dport = dir == 0 ? c->dport : c->sport;
	m.ts_ns = d->ts_ns;
	m.frame = d->frame;
	m.segments = segs;
	nfsrpc_message(d, &m, buf, cap, len);
}

static void
msg_reset(struct half *h)
{
	h->msg_cap = h->msg_len = 0;
	h->msg_gap = 0;
	h->msg_segs = 0;
	h->msg_seg = 0;
}

/* Drops a half-assembled message: the capture lost part of it. */
static void
lose_sync(struct nfs_decoder *d, struct half *h)
{
	if (h->msg_len > 0 || h->mark_have > 0 || h->state == RM_BODY)
		d->st.loss.truncated++;
	msg_reset(h);
	h->mark_have = 0;
	h->state = RM_RESYNC;
	d->st.loss.resyncs++;
}

/* Appends n claimed bytes, the first k of them captured, to the message. */
static int
msg_append(struct half *h, const uint8_t *p, size_t k, size_t n)
{
	if (!h->msg_gap && k > 0) {
		if (h->msg_cap + k > h->buf_alloc) {
			size_t want = h->buf_alloc ? h->buf_alloc : 4096;
			uint8_t *nb;

			while (want < h->msg_cap + k)
				want *= 2;
			nb = realloc(h->buf, want);
			if (nb == NULL)
				return -1;
			h->buf = nb;
			h->buf_alloc = want;
		}
		memcpy(h->buf + h->msg_cap, p, k);
		h->msg_cap += k;
	}
	if (k < n)
		h->msg_gap = 1;
	h->msg_len += n;
	return 0;
}

/*
 * Runs the record-marking state machine (RFC 5531 section 11) over len
 * stream bytes starting at sequence number seq, of which the first cap are
 * captured and the rest are known to exist but were not captured.
 */
static void
rm_feed(struct nfs_decoder *d, struct nfs_conn *c, int dir, uint32_t seq,
    const uint8_t *p, size_t cap, size_t len)
{
	struct half *h = &c->half[dir];

	d->segment++;
	while (len > 0) {
		size_t n, k;

		switch (h->state) {
		case RM_MARK:
			if (cap == 0) {
				/* The record mark was not captured. */
				lose_sync(d, h);
				break;
			}
			if (h->mark_have == 0)
				h->align = (int)(seq % 4);
			if (h->msg_seg != d->segment) {
				h->msg_segs++;
				h->msg_seg = d->segment;
			}
			while (h->mark_have < 4 && cap > 0) {
				h->mark[h->mark_have++] = *p++;
				cap--;
				len--;
				seq++;
			}
			if (h->mark_have < 4)
				break;
			h->mark_have = 0;
			{
				uint32_t m = (uint32_t)h->mark[0] << 24 |
				    (uint32_t)h->mark[1] << 16 |
				    (uint32_t)h->mark[2] << 8 | h->mark[3];

				h->frag_last = (m & RM_LAST) != 0;
				h->frag_left = m & ~RM_LAST;
			}
			if (h->frag_left > RM_MAX_RECORD ||
			    h->msg_len + h->frag_left > RM_MAX_RECORD) {
				d->st.loss.malformed++;
				d->st.loss.bad_record_marks++;
				msg_reset(h);
				h->state = RM_RESYNC;
				d->st.loss.resyncs++;
				break;
			}
			h->state = RM_BODY;
			if (h->frag_left == 0 && h->frag_last) {
				/* An empty last fragment ends the record. */
				deliver(d, c, dir, h->buf, h->msg_cap,
				    h->msg_len, h->msg_segs);
				msg_reset(h);
				h->state = RM_MARK;
			} else if (h->frag_left == 0) {
				h->state = RM_MARK;
			}
			break;
		case RM_BODY:
			n = len < h->frag_left ? len : h->frag_left;
			k = cap < n ? cap : n;
			if (h->msg_seg != d->segment) {
				h->msg_segs++;
				h->msg_seg = d->segment;
			}
			if (h->msg_len == 0 && h->frag_last &&
			    n == h->frag_left) {
				/* A whole record in this segment: no copy. */
				deliver(d, c, dir, p, k, n, h->msg_segs);
				msg_reset(h);
			} else {
				if (msg_append(h, p, k, n) < 0) {
					lose_sync(d, h);
					break;
				}
				if (n == h->frag_left && h->frag_last) {
					deliver(d, c, dir, h->buf, h->msg_cap,
					    h->msg_len, h->msg_segs);
					msg_reset(h);
				}
			}
			h->frag_left -= (uint32_t)n;
			if (k > 0) /* p is NULL for bytes not captured */
				p += k;
			cap -= k;
			len -= n;
			seq += (uint32_t)n;
			if (h->frag_left == 0)
				h->state = RM_MARK;
			break;
		default: /* RM_RESYNC */
			/*
			 * Look for the next plausible record mark among the
			 * captured bytes, at the alignment the marks had.
			 */
			for (k = 0; k + 4 <= cap; k++) {
				uint32_t m;

				if (h->align >= 0 &&
				    (int)((seq + k) % 4) != h->align)
					continue;
				m = (uint32_t)p[k] << 24 |
				    (uint32_t)p[k + 1] << 16 |
				    (uint32_t)p[k + 2] << 8 | p[k + 3];
				if (!(m & RM_LAST) ||
				    (m & ~RM_LAST) < RM_MIN_MESSAGE ||
				    (m & ~RM_LAST) > RM_MAX_RECORD)
					continue;
				if (nfsrpc_plausible(
				        d, c->id, p + k + 4, cap - k - 4))
					break;
			}
			if (k + 4 > cap) {
				d->st.loss.bytes_skipped += len;
				return;
			}
			d->st.loss.bytes_skipped += k;
			p += k;
			cap -= k;
			len -= k;
			seq += (uint32_t)k;
			h->state = RM_MARK;
			msg_reset(h);
			break;
		}
	}
}

/* Feeds queued out-of-order segments that now follow on. */
static void
ooo_drain(struct nfs_decoder *d, struct nfs_conn *c, int dir)
{
	struct half *h = &c->half[dir];
	for (;;) {
		unsigned i, best = h->nooo;

		for (i = 0; i < h->nooo; i++) {
			int32_t delta = (int32_t)(h->ooo[i].seq - h->next_seq);

			if (delta <= 0) {
				best = i;
				break;
			}
		}
		if (best == h->nooo)
			break;
		{
			struct ooo_seg s = h->ooo[best];
			uint32_t skip = h->next_seq - s.seq;

			h->ooo[best] = h->ooo[--h->nooo];
			h->ooo_bytes -= s.cap;
			if (skip < s.len) {
				size_t ks = skip < s.cap ? skip : s.cap;

				rm_feed(d, c, dir, h->next_seq, s.data + ks,
				    s.cap - ks, s.len - skip);
				h->next_seq += (uint32_t)(s.len - skip);
			}
			free(s.data);
		}
	}
}

/*
 * Gives up waiting for the bytes before the earliest queued segment: they
 * are fed as missing, which loses the record boundary if one fell there.
 */
static void
ooo_skip_gap(struct nfs_decoder *d, struct nfs_conn *c, int dir)
{
	struct half *h = &c->half[dir];
	uint32_t first = 0, gap = UINT32_MAX;

	for (unsigned i = 0; i < h->nooo; i++) {
		uint32_t g = h->ooo[i].seq - h->next_seq;

		if (g < gap) {
			gap = g;
			first = h->ooo[i].seq;
		}
	}
	if (h->nooo == 0)
		return;
	rm_feed(d, c, dir, h->next_seq, NULL, 0, gap);
	h->next_seq = first;
	ooo_drain(d, c, dir);
}

static void
ooo_add(struct nfs_decoder *d, struct nfs_conn *c, int dir, uint32_t seq,
    const uint8_t *p, size_t cap, size_t len)
{
	struct half *h = &c->half[dir];
	struct ooo_seg *s;

	d->st.loss.out_of_order_segments++;
	while (h->nooo > 0 &&
	    (h->nooo == OOO_MAX_SEGS || h->ooo_bytes + cap > OOO_MAX_BYTES))
		ooo_skip_gap(d, c, dir);
	s = &h->ooo[h->nooo];
	s->data = malloc(cap > 0 ? cap : 1);
	if (s->data == NULL)
		return;
	if (cap > 0)
		memcpy(s->data, p, cap);
	s->seq = seq;
	s->cap = cap;
	s->len = len;
	h->nooo++;
	h->ooo_bytes += cap;
}

/* A TCP segment's payload, in sequence order or not. */
static void
tcp_payload(struct nfs_decoder *d, struct nfs_conn *c, int dir, uint32_t seq,
    const uint8_t *p, size_t cap, size_t len)
{
	struct half *h = &c->half[dir];
	int32_t delta;

	if (!h->seq_known) {
		/* Joined mid-stream: find a record mark first. */
		h->seq_known = 1;
		h->next_seq = seq;
		h->state = RM_RESYNC;
	}
	delta = (int32_t)(seq - h->next_seq);
	if (delta < 0) {
		uint32_t old = h->next_seq - seq;

		if (old >= len) {
			d->st.loss.duplicate_segments++;
			return;
		}
		/* Overlaps what was fed: keep the new part only. */
		p += old < cap ? old : cap;
		cap = old < cap ? cap - old : 0;
		len -= old;
		seq = h->next_seq;
	} else if (delta > 0 && (uint32_t)delta > SEQ_MAX_GAP) {
		/* Not a lost segment but a stream we lost track of. */
		lose_sync(d, h);
		h->next_seq = seq;
	} else if (delta > 0) {
		ooo_add(d, c, dir, seq, p, cap, len);
		return;
	}
	rm_feed(d, c, dir, seq, p, cap, len);
	h->next_seq = seq + (uint32_t)len;
	if (h->nooo > 0)
		ooo_drain(d, c, dir);
}

/* Ends one direction: what is queued and half assembled is lost. */
static void
half_end(struct nfs_decoder *d, struct nfs_conn *c, int dir)
{
	struct half *h = &c->half[dir];

	while (h->nooo > 0)
		ooo_skip_gap(d, c, dir);
	if (h->state == RM_BODY || h->mark_have > 0)
		d->st.loss.truncated++;
	msg_reset(h);
	h->mark_have = 0;
	h->state = RM_MARK;
}

/* A packet the cursor could not read through, counted by why. */
static void
packet_err(struct nfs_decoder *d, enum cur_err e)
{
	if (e == CUR_TRUNCATED)
		d->st.loss.packets_truncated++;
	else if (e == CUR_MALFORMED)
		d->st.loss.packets_malformed++;
}

/* TCP (RFC 9293 section 3.1) */
static void
tcp(struct nfs_decoder *d, const struct ip_info *ip, struct cursor *cur)
{
	uint16_t sport = cur_u16(cur), dport = cur_u16(cur);
	uint32_t seq = cur_u32(cur);
	uint8_t off, flags;
	struct nfs_conn *c;
	int dir;
	size_t hlen;

	cur_skip(cur, 4); /* ack */
	off = cur_u8(cur);
	flags = cur_u8(cur);
	cur_skip(cur, 6); /* window, checksum, urgent pointer */
	hlen = (size_t)(off >> 4) * 4;
	if (cur->err == CUR_OK && hlen < 20)
		cur->err = CUR_MALFORMED;
	cur_skip(cur, hlen > 20 ? hlen - 20 : 0);
	if (cur->err != CUR_OK) {
		packet_err(d, cur->err);
		return;
	}
	c = conn_get(d, ip, sport, dport, &dir);
	if (c == NULL)
		return;
	if (flags & 0x02) { /* SYN: a new stream starts at a mark */
		struct half *h = &c->half[dir];

		if (h->seq_known && (h->msg_len > 0 || h->nooo > 0))
			half_end(d, c, dir);
		h->seq_known = 1;
		h->next_seq = seq + 1;
		h->state = RM_MARK;
		h->align = (int)((seq + 1) % 4);
		msg_reset(h);
	}
	if (cur->len > 0)
		tcp_payload(d, c, dir, seq, cur->p, cur->cap, cur->len);
	if (flags & 0x04) { /* RST: the connection is over */
		half_end(d, c, 0);
		half_end(d, c, 1);
		conn_remove(d, c);
		return;
	}
	if (flags & 0x01) { /* FIN */
		c->half[dir].fin = 1;
		if (c->half[!dir].fin) {
			half_end(d, c, 0);
			half_end(d, c, 1);
			conn_remove(d, c);
		}
	}
}

/* UDP (RFC 768): one RPC message per datagram, no record marks. */
static void
udp(struct nfs_decoder *d, const struct ip_info *ip, struct cursor *cur)
{
	uint16_t sport = cur_u16(cur), dport = cur_u16(cur);
	uint16_t ulen = cur_u16(cur);
	struct nfs_conn *c;
	struct nfs_msg m;
	int dir;
	size_t claimed;

	cur_skip(cur, 2);
	if (cur->err != CUR_OK) {
		packet_err(d, cur->err);
		return;
	}
	if (ulen < 8) {
		d->st.loss.packets_malformed++;
		return;
	}
	/*
	 * The UDP length may claim more than this IP packet holds when the
	 * datagram was fragmented: the rest counts as not captured.
	 */
	claimed = (size_t)ulen - 8;
	c = conn_get(d, ip, sport, dport, &dir);
	if (c == NULL)
		return;
	m.conn = c->id;
	m.stream = c->stream;
	m.sport = sport;
	m.dport = dport;
	m.ts_ns = d->ts_ns;
	m.frame = d->frame;
	m.segments = 1;
	nfsrpc_message(
	    d, &m, cur->p, cur->cap < claimed ? cur->cap : claimed, claimed);
}

static void
transport(struct nfs_decoder *d, const struct ip_info *ip, struct cursor *cur)
{
	if (ip->proto == IPPROTO_TCP_)
		tcp(d, ip, cur);
	else if (ip->proto == IPPROTO_UDP_)
		udp(d, ip, cur);
	else
		d->st.packets_other++;
}

/* IPv4 (RFC 791 section 3.1) */
static void
ipv4(struct nfs_decoder *d, struct cursor *cur)
{
	struct ip_info ip;
	struct cursor pl;
	uint8_t vihl = cur_u8(cur);
	uint16_t total, frag;
	size_t hlen = (size_t)(vihl & 0x0f) * 4;

	cur_skip(cur, 1);
	total = cur_u16(cur);
	cur_skip(cur, 2);
	frag = cur_u16(cur);
	cur_skip(cur, 1);
	ip.proto = cur_u8(cur);
	cur_skip(cur, 2);
	ip.src = cur_bytes(cur, 4);
	ip.dst = cur_bytes(cur, 4);
	ip.af = 4;
	if (cur->err == CUR_OK && ((vihl >> 4) != 4 || hlen < 20))
		cur->err = CUR_MALFORMED;
	cur_skip(cur, hlen > 20 ? hlen - 20 : 0);
	/*
	 * A total length of 0 is what segmentation offload leaves behind:
	 * the packet then runs to the end of the frame.
	 */
	if (cur->err == CUR_OK && total != 0 && total < hlen)
		cur->err = CUR_MALFORMED;
	if (cur->err != CUR_OK) {
		packet_err(d, cur->err);
		return;
	}
	if ((frag & 0x1fff) != 0) {
		d->st.loss.ip_fragments++;
		return;
	}
	/* Link-layer padding after the IP packet is not payload. */
	cur_sub(cur, total != 0 ? total - hlen : cur_left(cur), &pl);
	if (pl.err != CUR_OK) {
		packet_err(d, pl.err);
		return;
	}
	transport(d, &ip, &pl);
}

/* IPv6 (RFC 8200 section 3, extension headers section 4) */
static void
ipv6(struct nfs_decoder *d, struct cursor *cur)
{
	struct ip_info ip;
	struct cursor pl;
	uint8_t v = cur_u8(cur), next;
	uint16_t plen;

	cur_skip(cur, 3);
	plen = cur_u16(cur);
	next = cur_u8(cur);
	cur_skip(cur, 1);
	ip.src = cur_bytes(cur, 16);
	ip.dst = cur_bytes(cur, 16);
	ip.af = 6;
	if (cur->err == CUR_OK && (v >> 4) != 6)
		cur->err = CUR_MALFORMED;
	if (cur->err != CUR_OK) {
		packet_err(d, cur->err);
		return;
	}
	/* A payload length of 0 is a jumbogram or offload: to the end. */
	cur_sub(cur, plen != 0 ? plen : cur_left(cur), &pl);
	for (int i = 0; i < 8 && pl.err == CUR_OK; i++) {
		uint8_t nh, elen;

		if (next == 0 || next == 43 || next == 60) {
			nh = cur_u8(&pl);
			elen = cur_u8(&pl);
			cur_skip(&pl, (size_t)elen * 8 + 6);
			next = nh;
		} else if (next == 44) { /* fragment */
			uint16_t off;

			nh = cur_u8(&pl);
			cur_skip(&pl, 1);
			off = cur_u16(&pl);
			cur_skip(&pl, 4);
			if (pl.err == CUR_OK && (off & 0xfff8) != 0) {
				d->st.loss.ip_fragments++;
				return;
			}
			next = nh;
		} else if (next == 51) { /* authentication header */
			nh = cur_u8(&pl);
			elen = cur_u8(&pl);
			cur_skip(&pl, (size_t)elen * 4 + 6);
			next = nh;
		} else {
			break;
		}
	}
	if (pl.err != CUR_OK) {
		packet_err(d, pl.err);
		return;
	}
	ip.proto = next;
	transport(d, &ip, &pl);
}

static void
ethertype(struct nfs_decoder *d, uint16_t type, struct cursor *cur)
{
	if (type == ETHERTYPE_IPV4)
		ipv4(d, cur);
	else if (type == ETHERTYPE_IPV6)
		ipv6(d, cur);
	else
		d->st.packets_other++;
}

/* The IP version in the first nibble, for links that do not say. */
static void
raw_ip(struct nfs_decoder *d, struct cursor *cur)
{
	if (cur->cap == 0) {
		packet_err(d, cur->len == 0 ? CUR_MALFORMED : CUR_TRUNCATED);
		return;
	}
	if ((cur->p[0] >> 4) == 4)
		ipv4(d, cur);
	else if ((cur->p[0] >> 4) == 6)
		ipv6(d, cur);
	else
		d->st.packets_other++;
}

/* BSD loopback: an address family; AF_INET6 differs between systems. */
static void
loopback(struct nfs_decoder *d, struct cursor *cur, int network_order)
{
	const uint8_t *f = cur_bytes(cur, 4);
	uint32_t fam;

	if (f == NULL) {
		packet_err(d, cur->err);
		return;
	}
	if (!network_order && f[0] != 0) /* written little-endian */
		fam = (uint32_t)f[3] << 24 | (uint32_t)f[2] << 16 |
		    (uint32_t)f[1] << 8 | f[0];
	else
		fam = (uint32_t)f[0] << 24 | (uint32_t)f[1] << 16 |
		    (uint32_t)f[2] << 8 | f[3];
	if (fam == 2)
		ipv4(d, cur);
	else if (fam == 10 || fam == 24 || fam == 28 || fam == 30)
		ipv6(d, cur);
	else
		d->st.packets_other++;
}

void
nfs_decoder_packet(struct nfs_decoder *d, int linktype, int64_t ts_ns,
    const uint8_t *pkt, size_t caplen, size_t wirelen)
{
	struct cursor cur;
	uint16_t type;

	d->frame++;
	d->ts_ns = ts_ns;
	d->st.packets++;
	cur_init(&cur, pkt, caplen, wirelen < caplen ? caplen : wirelen);
	/* The headers that end in an EtherType break out to read on. */
	switch (linktype) {
	case NFS_LINK_EN10MB: /* IEEE 802.3, with 802.1Q/802.1ad tags */
		cur_skip(&cur, 12);
		type = cur_u16(&cur);
		while (cur.err == CUR_OK &&
		    (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ)) {
			cur_skip(&cur, 2);
			type = cur_u16(&cur);
		}
		break;
	case NFS_LINK_LINUX_SLL: /* 16-byte cooked header */
		cur_skip(&cur, 14);
		type = cur_u16(&cur);
		break;
	case NFS_LINK_LINUX_SLL2: /* 20 bytes, protocol first */
		type = cur_u16(&cur);
		cur_skip(&cur, 18);
		break;
	case NFS_LINK_NULL:
		loopback(d, &cur, 0);
		return;
	case NFS_LINK_LOOP:
		loopback(d, &cur, 1);
		return;
	case NFS_LINK_RAW:
	case NFS_LINK_RAW_DLT:
	case NFS_LINK_RAW_DLT14:
		raw_ip(d, &cur);
		return;
	case NFS_LINK_IPV4:
		ipv4(d, &cur);
		return;
	case NFS_LINK_IPV6:
		ipv6(d, &cur);
		return;
	default:
		d->st.packets_other++;
		return;
	}
	if (cur.err != CUR_OK) {
		packet_err(d, cur.err);
		return;
	}
	ethertype(d, type, &cur);
}

void
nfs_decoder_finish(struct nfs_decoder *d)
{
	for (unsigned b = 0; b < NFS_CONN_BUCKETS; b++)
		while (d->conns[b] != NULL) {
			struct nfs_conn *c = d->conns[b];

			half_end(d, c, 0);
			half_end(d, c, 1);
			conn_remove(d, c);
		}
	nfsrpc_finish(d);
}

void
nfs_decoder_free(struct nfs_decoder *d)
{
	if (d == NULL)
		return;
	for (unsigned b = 0; b < NFS_CONN_BUCKETS; b++)
		while (d->conns[b] != NULL)
			conn_remove(d, d->conns[b]);
	nfsrpc_free(d);
	free(d);
}
