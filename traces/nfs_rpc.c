/*
 * nfs_rpc.c - ONC RPC framing (RFC 5531): calls and replies, matched by
 * (connection, xid) in a bounded table, handed to the NFS decoders by
 * version (nfs_v23.c, nfs_v4.c) and, once answered or given up on,
 * reported per operation. Every byte is read through the cursor.
 */
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "nfs_impl.h"

#define RPC_PROG_NFS 100003
#define RPC_MAX_AUTH 400 /* RFC 5531 section 8.2: opaque_auth body */
#define RPC_AUTH_GSS 6   /* RFC 2203: arguments may be wrapped */

static unsigned
bucket(uint64_t conn, uint32_t xid)
{
	uint64_t h = (conn * 0x9e3779b97f4a7c15ULL) ^ xid;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (unsigned)(h % NFS_TABLE_BUCKETS);
}

static struct nfs_pending *
table_find(struct nfs_decoder *d, uint64_t conn, uint32_t xid)
{
	struct nfs_pending *p;

	for (p = d->table[bucket(conn, xid)]; p != NULL; p = p->hnext)
		if (p->conn == conn && p->xid == xid)
			return p;
	return NULL;
}

/* Takes p out of the hash chain and the age list; the caller frees it. */
static void
table_unlink(struct nfs_decoder *d, struct nfs_pending *p)
{
	struct nfs_pending **pp = &d->table[bucket(p->conn, p->xid)];

	while (*pp != p)
		pp = &(*pp)->hnext;
	*pp = p->hnext;
	if (p->older != NULL)
		p->older->newer = p->newer;
	else
		d->oldest = p->newer;
	if (p->newer != NULL)
		p->newer->older = p->older;
	else
		d->newest = p->older;
	d->pending--;
}

/* Reports every operation of a call that is done with, and frees it. */
static void
emit(struct nfs_decoder *d, struct nfs_pending *p)
{
	if (d->on_call != NULL && p->prog == RPC_PROG_NFS)
		for (uint32_t i = 0; i < p->nops; i++)
			d->on_call(&p->ops[i].c, d->on_call_arg);
	free(p);
}

/* Counts a call never answered, settles it by its request, reports it. */
static void
give_up(struct nfs_decoder *d, struct nfs_pending *p)
{
	if (p->prog == RPC_PROG_NFS) {
		d->st.loss.calls_without_reply++;
		for (uint32_t i = 0; i < p->nops; i++)
			nfsmodel_unanswered(d, &p->ops[i]);
	}
	emit(d, p);
}

static void
table_insert(struct nfs_decoder *d, struct nfs_pending *p)
{
	unsigned b = bucket(p->conn, p->xid);

	/* The table is bounded: the oldest call gives way, unanswered. */
	if (d->pending >= NFS_TABLE_MAX) {
		struct nfs_pending *old = d->oldest;

		table_unlink(d, old);
		d->st.loss.table_evictions++;
		give_up(d, old);
	}
	p->hnext = d->table[b];
	d->table[b] = p;
	p->newer = NULL;
	p->older = d->newest;
	if (d->newest != NULL)
		d->newest->newer = p;
	else
		d->oldest = p;
	d->newest = p;
	d->pending++;
}

/* Builds the pending call for an NFS call; NULL when out of memory. */
static struct nfs_pending *
nfs_call(struct nfs_decoder *d, struct cursor *c, const struct nfs_msg *m,
    uint32_t vers, uint32_t proc, int wrapped)
{
	struct nfs_pending *p;
	struct nfs_call base;

	memset(&base, 0, sizeof(base));
	base.call_frame = m->frame;
	base.stream = m->stream;
	base.call_ns = m->ts_ns;
	base.xid = 0;
	base.vers = vers;
	base.proc = proc;
	base.op_index = -1;
	base.client_port = m->sport;
	base.server_port = m->dport;
	base.call_segments = m->segments;

	if (vers != 4 || proc == 0)
		return nfsv23_call(d, c, &base, wrapped);
	if (proc == 1 && !wrapped)
		return nfsv4_call(d, c, &base);
	p = nfsmodel_pending_new(1);
	if (p == NULL)
		return NULL;
	p->nops = 1;
	p->ops[0].c = base;
	p->ops[0].c.op = "?";
	return p;
}

static void
count_err(struct nfs_decoder *d, enum cur_err e)
{
	if (e == CUR_TRUNCATED)
		d->st.loss.truncated++;
	else if (e == CUR_MALFORMED)
		d->st.loss.malformed++;
}

/* Skips an opaque_auth (RFC 5531 section 8.2); returns its flavor. */
static uint32_t
skip_auth(struct cursor *c)
{
	uint32_t flavor = cur_u32(c), len;

	cur_opaque(c, RPC_MAX_AUTH, &len);
	return flavor;
}

/* An RPC call (RFC 5531 section 9, call_body). */
static void
rpc_call(struct nfs_decoder *d, struct cursor *c, const struct nfs_msg *m,
    uint32_t xid)
{
	uint32_t rpcvers = cur_u32(c), prog = cur_u32(c), vers = cur_u32(c);
	uint32_t proc = cur_u32(c), flavor;
	struct nfs_pending *p, *old;

	flavor = skip_auth(c); /* credential */
	skip_auth(c);          /* verifier */
	if (c->err != CUR_OK) {
		count_err(d, c->err);
		return;
	}
	if (rpcvers != 2) {
		d->st.loss.malformed++;
		return;
	}
	old = table_find(d, m->conn, xid);
	if (old != NULL) {
		/* A retransmission: the first call stands. */
		return;
	}
	if (prog != RPC_PROG_NFS) {
		/* Kept so that its reply is not taken for a stray one. */
		p = nfsmodel_pending_new(0);
		if (p == NULL)
			return;
	} else {
		if (vers > 4)
			vers = 0;
		d->st.rpc_calls++;
		d->st.calls_by_vers[vers]++;
		/*
		 * RPCSEC_GSS integrity and privacy wrap the arguments
		 * (RFC 2203 section 5.3.2); they are not decoded.
		 */
		p = nfs_call(d, c, m, vers, proc, flavor == RPC_AUTH_GSS);
		if (p == NULL)
			return;
		for (uint32_t i = 0; i < p->nops; i++)
			p->ops[i].c.xid = xid;
		count_err(d, c->err);
	}
	p->conn = m->conn;
	p->xid = xid;
	p->prog = prog;
	p->vers = vers;
	p->proc = proc;
	p->wrapped = flavor == RPC_AUTH_GSS;
	table_insert(d, p);
}

/* An RPC reply (RFC 5531 section 9, reply_body). */
static void
rpc_reply(struct nfs_decoder *d, struct cursor *c, const struct nfs_msg *m,
    uint32_t xid)
{
	struct nfs_pending *p = table_find(d, m->conn, xid);
	uint32_t stat, accept = 0;

	if (p == NULL) {
		d->st.loss.replies_without_call++;
		return;
	}
	table_unlink(d, p);
	if (p->prog != RPC_PROG_NFS) {
		emit(d, p);
		return;
	}
	d->st.rpc_replies++;
	for (uint32_t i = 0; i < p->nops; i++) {
		p->ops[i].c.reply_frame = m->frame;
		p->ops[i].c.reply_ns = m->ts_ns;
		p->ops[i].c.reply_segments = m->segments;
		p->ops[i].c.have |= NFS_HAVE_REPLY;
	}
	stat = cur_u32(c);
	if (stat == 0) { /* MSG_ACCEPTED */
		skip_auth(c);
		accept = cur_u32(c);
	}
	if (c->err == CUR_OK && (stat != 0 || accept != 0))
		d->st.rpc_errors++;
	else if (c->err == CUR_OK && p->vers == 4 && p->proc == 1)
		nfsv4_reply(c, p);
	else if (c->err == CUR_OK && !p->wrapped && p->nops == 1 &&
	    (p->vers == 2 || p->vers == 3 || p->proc == 0))
		nfsv23_reply(c, &p->ops[0]);
	count_err(d, c->err);
	for (uint32_t i = 0; i < p->nops; i++)
		if (p->ops[i].kind != NFS_K_OTHER)
			nfsmodel_reply(d, &p->ops[i]);
	emit(d, p);
}

void
nfsrpc_message(struct nfs_decoder *d, const struct nfs_msg *m,
    const uint8_t *buf, size_t cap, size_t len)
{
	struct cursor c;
	uint32_t xid, type;

	cur_init(&c, buf, cap, len);
	xid = cur_u32(&c);
	type = cur_u32(&c);
	if (c.err != CUR_OK) {
		count_err(d, c.err);
		return;
	}
	if (type == 0)
		rpc_call(d, &c, m, xid);
	else if (type == 1)
		rpc_reply(d, &c, m, xid);
	else
		d->st.loss.malformed++;
}

int
nfsrpc_plausible(
    struct nfs_decoder *d, uint64_t conn, const uint8_t *p, size_t cap)
{
	struct cursor c;
	uint32_t xid, type, v;

	cur_init(&c, p, cap, cap);
	xid = cur_u32(&c);
	type = cur_u32(&c);
	v = cur_u32(&c);
	if (c.err != CUR_OK)
		return 0;
	if (type == 0) {
		/* rpcvers 2, a program, a small version number */
		cur_u32(&c);
		return v == 2 && cur_u32(&c) < 16 && c.err == CUR_OK;
	}
	return type == 1 && v <= 1 && table_find(d, conn, xid) != NULL;
}

void
nfsrpc_finish(struct nfs_decoder *d)
{
	while (d->oldest != NULL) {
		struct nfs_pending *p = d->oldest;

		table_unlink(d, p);
		give_up(d, p);
	}
}

void
nfsrpc_free(struct nfs_decoder *d)
{
	while (d->oldest != NULL) {
		struct nfs_pending *p = d->oldest;

		table_unlink(d, p);
		free(p);
	}
	nfsmodel_free(d);
}
