/*
 * vublk.c - the vhost-user-blk device (vm/vdisk.h) for UML's virtio_uml
 * (arch/um/drivers/virtio_uml.c, vhost_user.h): the vhost-user messages it
 * sends (features, the guest's memory as file descriptors, the split
 * virtqueue's addresses, in-band kicks, GET_CONFIG for struct
 * virtio_blk_config), the virtio-blk requests (virtio 1.1, section 5.2.6:
 * a 16-byte header, the data, a status byte) and their completions, sent
 * as VRING_CALL messages on the slave channel (in-band notifications, so
 * that the calls are messages the guest's time-travel code sees, not
 * signals on a pipe).
 *
 * Everything read from the guest's memory is checked against the memory
 * the guest gave (a region's bounds) and the ring's size before it is used:
 * a guest bug is an error, never a wild access.
 *
 * The host I/O of a request is done when the request is taken from the
 * ring; the guest learns of it (used ring, status, call) only at the
 * completion time the model gives, from vublk_complete.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vdisk.h"
#include "../model/le.h"
#include "../model/msgio.h"

/* vhost_user.h */
#define VU_F_PROTOCOL_FEATURES 30
#define VU_PF_SLAVE_REQ        5
#define VU_PF_CONFIG           9
#define VU_PF_INBAND           14
#define VU_FLAG_REPLY          (1u << 2)
#define VU_FLAG_NEED_REPLY     (1u << 3)
#define VU_VERSION             1

enum {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_RESET_OWNER = 4,
	VU_SET_MEM_TABLE = 5,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_GET_VRING_BASE = 11,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_SET_VRING_ERR = 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
	VU_SET_SLAVE_REQ_FD = 21,
	VU_GET_CONFIG = 24,
	VU_SET_CONFIG = 25,
	VU_VRING_KICK = 35,
	VU_SLAVE_VRING_CALL = 4,
};

/* virtio_blk.h, virtio_config.h, virtio_ring.h */
#define VIRTIO_BLK_F_SIZE_MAX   1
#define VIRTIO_BLK_F_SEG_MAX    2
#define VIRTIO_BLK_F_BLK_SIZE   6
#define VIRTIO_BLK_F_FLUSH      9
#define VIRTIO_RING_F_INDIRECT  28
#define VIRTIO_F_VERSION_1      32
#define VIRTIO_BLK_T_IN         0
#define VIRTIO_BLK_T_OUT        1
#define VIRTIO_BLK_T_FLUSH      4
#define VIRTIO_BLK_T_GET_ID     8
#define VIRTIO_BLK_S_OK         0
#define VIRTIO_BLK_S_IOERR      1
#define VIRTIO_BLK_S_UNSUPP     2
#define VRING_DESC_F_NEXT       1
#define VRING_DESC_F_WRITE      2
#define VRING_DESC_F_INDIRECT   4
#define VIRTIO_BLK_CONFIG_BYTES 128

#define MAX_REGIONS 8
#define MAX_FDS     8
#define MAX_PAYLOAD 4096
#define RING_MAX    256
/* A request's descriptors: header, seg_max segments, status. */
#define MAX_SEGS (254 + 2)

struct region {
	uint64_t guest, size, user;
	unsigned char *map;
};

struct req {
	uint16_t head;
	uint8_t *status;
	uint32_t written;
	int64_t done_ns;
};

struct vublk {
	struct vdisk_model m;
	struct vdisk_model_state ms;
	int img;
	uint64_t sectors;
	uint64_t features, protocol;
	int slave;
	struct region reg[MAX_REGIONS];
	unsigned nreg;
	/* The one virtqueue. */
	uint32_t num;
	uint64_t desc_ua, avail_ua, used_ua;
	unsigned char *desc, *avail, *used;
	int enabled;
	uint16_t last_avail, used_idx;
	/* Requests in the device, by completion time then arrival. */
	struct req inflight[RING_MAX];
	unsigned ninflight;
	struct vublk_stats st;
};

static void
seterr(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
}

struct vublk *
vublk_open(
    const char *image, const struct vdisk_model *m, char *err, size_t errlen)
{
	struct vublk *d;
	struct stat sb;

	if ((d = calloc(1, sizeof(*d))) == NULL) {
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	d->m = *m;
	d->slave = -1;
	if ((d->img = open(image, O_RDWR | O_CLOEXEC)) == -1 ||
	    fstat(d->img, &sb) == -1) {
		snprintf(err, errlen, "cannot open '%s': %s", image,
		    strerror(errno));
		if (d->img != -1)
			close(d->img);
		free(d);
		return NULL;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size < 512) {
		snprintf(err, errlen,
		    "'%s': not a disk image (a regular file of 512 bytes or more)",
		    image);
		close(d->img);
		free(d);
		return NULL;
	}
	d->sectors = (uint64_t)sb.st_size / 512;
	return d;
}

static void
unmap_all(struct vublk *d)
{
	unsigned i;

	for (i = 0; i < d->nreg; i++)
		munmap(d->reg[i].map, d->reg[i].size);
	d->nreg = 0;
	d->desc = d->avail = d->used = NULL;
}

void
vublk_close(struct vublk *d)
{
	if (d == NULL)
		return;
	unmap_all(d);
	if (d->slave != -1)
		close(d->slave);
	close(d->img);
	free(d);
}

int
vublk_slave_fd(const struct vublk *d)
{
	return d->slave;
}

void
vublk_stats(const struct vublk *d, struct vublk_stats *s)
{
	*s = d->st;
}

/*
 * The guest's bytes at address a, len long, or NULL: a guest-physical
 * address (descriptors) or, with user set, one in the master's address
 * space (the rings; virtio_uml makes the two the same, but says both).
 */
static unsigned char *
guest(struct vublk *d, uint64_t a, uint64_t len, int user)
{
	unsigned i;

	for (i = 0; i < d->nreg; i++) {
		struct region *r = &d->reg[i];
		uint64_t base = user ? r->user : r->guest;

		if (a >= base && a - base <= r->size &&
		    len <= r->size - (a - base))
			return r->map + (a - base);
	}
	return NULL;
}

/* Resolves the rings once memory and addresses are both known. */
static void
map_rings(struct vublk *d)
{
	d->desc = d->avail = d->used = NULL;
	if (d->num == 0 || d->nreg == 0 || d->desc_ua == 0)
		return;
	d->desc = guest(d, d->desc_ua, 16ULL * d->num, 1);
	d->avail = guest(d, d->avail_ua, 4 + 2ULL * d->num, 1);
	d->used = guest(d, d->used_ua, 4 + 8ULL * d->num, 1);
}

static int
reply(int fd, uint32_t request, const void *payload, uint32_t size)
{
	unsigned char buf[12 + VIRTIO_BLK_CONFIG_BYTES + 12];
	uint32_t hdr[3] = {request, VU_VERSION | VU_FLAG_REPLY, size};

	if (size > sizeof(buf) - 12)
		return -1;
	memcpy(buf, hdr, 12);
	memcpy(buf + 12, payload, size);
	return msgio_write(fd, buf, 12 + size);
}

/* One descriptor (after indirection), checked. */
struct seg {
	unsigned char *p;
	uint32_t len;
	int write;
};

/*
 * The chain at head, flattened into segs; the number of segments, or -1
 * when the chain is malformed (out of the ring, out of memory, a loop).
 */
static int
chain(struct vublk *d, uint16_t head, struct seg *segs, int max)
{
	const unsigned char *tab = d->desc;
	uint32_t tabn = d->num, i = head, hops = 0;
	int n = 0, indirect = 0;

	for (;;) {
		const unsigned char *e;
		uint16_t flags;
		uint64_t addr;
		uint32_t len;

		if (i >= tabn || ++hops > tabn + RING_MAX)
			return -1;
		e = tab + 16ULL * i;
		addr = le64(e);
		len = le32(e + 8);
		flags = le16(e + 12);
		if (flags & VRING_DESC_F_INDIRECT) {
			if (indirect || len % 16 != 0 || len == 0 ||
			    (tab = guest(d, addr, len, 0)) == NULL)
				return -1;
			indirect = 1;
			tabn = len / 16;
			i = 0;
			hops = 0;
			continue;
		}
		if (n == max || (segs[n].p = guest(d, addr, len, 0)) == NULL)
			return -1;
		segs[n].len = len;
		segs[n].write = (flags & VRING_DESC_F_WRITE) != 0;
		n++;
		if (!(flags & VRING_DESC_F_NEXT))
			return n;
		i = le16(e + 14);
	}
}

/* Keeps inflight sorted by completion time, arrival order among equals. */
static void
hold(struct vublk *d, const struct req *r)
{
	unsigned i = d->ninflight;

	while (i > 0 && d->inflight[i - 1].done_ns > r->done_ns) {
		d->inflight[i] = d->inflight[i - 1];
		i--;
	}
	d->inflight[i] = *r;
	d->ninflight++;
}

/*
 * Takes one request from the ring at now: does its host I/O and holds its
 * completion. -1 on a malformed request (the guest's bug).
 */
static int
take(struct vublk *d, uint16_t head, int64_t now_ns, char *err, size_t errlen)
{
	struct seg segs[MAX_SEGS];
	struct req r = {.head = head};
	uint64_t off, bytes = 0;
	uint32_t type;
	uint8_t status = VIRTIO_BLK_S_OK;
	int n, i, flush = 0;

	n = chain(d, head, segs, MAX_SEGS);
	if (n < 2 || segs[0].write || segs[0].len < 16 || !segs[n - 1].write ||
	    segs[n - 1].len < 1) {
		snprintf(err, errlen,
		    "malformed virtio-blk request at descriptor %u", head);
		return -1;
	}
	type = le32(segs[0].p);
	off = le64(segs[0].p + 8);
	r.status = segs[n - 1].p + segs[n - 1].len - 1;
	for (i = 1; i < n - 1; i++)
		bytes += segs[i].len;
	switch (type) {
	case VIRTIO_BLK_T_IN:
	case VIRTIO_BLK_T_OUT:
		if (off > d->sectors || bytes > (d->sectors - off) * 512) {
			status = VIRTIO_BLK_S_IOERR;
			break;
		}
		off *= 512;
		for (i = 1; i < n - 1 && status == VIRTIO_BLK_S_OK; i++) {
			ssize_t got;

			if (segs[i].write != (type == VIRTIO_BLK_T_IN)) {
				status = VIRTIO_BLK_S_IOERR;
				break;
			}
			got = type == VIRTIO_BLK_T_IN
			    ? pread(d->img, segs[i].p, segs[i].len, (off_t)off)
			    : pwrite(
			          d->img, segs[i].p, segs[i].len, (off_t)off);
			if (got != (ssize_t)segs[i].len)
				status = VIRTIO_BLK_S_IOERR;
			off += segs[i].len;
		}
		if (type == VIRTIO_BLK_T_IN) {
			r.written = (uint32_t)bytes;
			d->st.reads++;
			d->st.read_bytes += bytes;
		} else {
			d->st.writes++;
			d->st.write_bytes += bytes;
		}
		break;
	case VIRTIO_BLK_T_FLUSH:
		/*
		 * The image's bytes reach the host's page cache at once; what
		 * the host does with them after is not the guest's disk.
		 */
		flush = 1;
		d->st.flushes++;
		break;
	case VIRTIO_BLK_T_GET_ID:
		if (n < 3 || !segs[1].write) {
			status = VIRTIO_BLK_S_IOERR;
			break;
		}
		memset(segs[1].p, 0, segs[1].len);
		memcpy(segs[1].p, "ubcreplay-vublk",
		    segs[1].len < 15 ? segs[1].len : 15);
		r.written = segs[1].len;
		d->st.other++;
		break;
	default:
		status = VIRTIO_BLK_S_UNSUPP;
		d->st.other++;
		break;
	}
	*r.status = status;
	r.written += 1;
	r.done_ns = vdisk_model_done_ns(&d->m, &d->ms, now_ns,
	    type == VIRTIO_BLK_T_IN || type == VIRTIO_BLK_T_OUT ? bytes : 0,
	    flush);
	hold(d, &r);
	return 0;
}

/* Takes requests from the ring while the device has room for them. */
static int
take_avail(struct vublk *d, int64_t now_ns, char *err, size_t errlen)
{
	uint16_t idx;

	if (!d->enabled || d->avail == NULL || d->desc == NULL ||
	    d->used == NULL)
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	idx = le16(d->avail + 2);
	if ((uint16_t)(idx - d->last_avail) > d->num) {
		snprintf(err, errlen,
		    "the guest's avail index %u is %u ahead of ours", idx,
		    (uint16_t)(idx - d->last_avail));
		return -1;
	}
	while (d->last_avail != idx && d->ninflight < d->m.depth) {
		uint16_t head =
		    le16(d->avail + 4 + 2 * (d->last_avail % d->num));

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (take(d, head, now_ns, err, errlen) == -1)
			return -1;
		d->last_avail++;
	}
	return 0;
}

int64_t
vublk_next_ns(const struct vublk *d)
{
	return d->ninflight > 0 ? d->inflight[0].done_ns : -1;
}

int
vublk_complete(struct vublk *d, int64_t now_ns, char *err, size_t errlen)
{
	uint32_t msg[5];
	unsigned n = 0, i;

	while (n < d->ninflight && d->inflight[n].done_ns <= now_ns) {
		const struct req *r = &d->inflight[n];
		unsigned char *e = d->used + 4 + 8 * (d->used_idx % d->num);
		uint32_t id = r->head;

		memcpy(e, &id, 4);
		memcpy(e + 4, &r->written, 4);
		d->used_idx++;
		if (r->done_ns > d->st.last_done_ns)
			d->st.last_done_ns = r->done_ns;
		n++;
	}
	if (n == 0)
		return 0;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(d->used + 2, &d->used_idx, 2);
	d->ninflight -= n;
	for (i = 0; i < d->ninflight; i++)
		d->inflight[i] = d->inflight[i + n];
	/* Room freed: requests waiting in the ring are taken now. */
	if (take_avail(d, now_ns, err, errlen) == -1)
		return -1;
	if (d->slave == -1) {
		seterr(err, errlen,
		    "the guest gave no slave channel (VHOST_USER_PROTOCOL_F_SLAVE_REQ)");
		return -1;
	}
	msg[0] = VU_SLAVE_VRING_CALL;
	msg[1] = VU_VERSION | VU_FLAG_NEED_REPLY;
	msg[2] = 8;
	msg[3] = 0;
	msg[4] = 0;
	if (msgio_write(d->slave, msg, sizeof(msg)) == -1) {
		snprintf(err, errlen,
		    "cannot send VRING_CALL on the slave channel: %s",
		    strerror(errno));
		return -1;
	}
	return 1;
}

int
vublk_call_done(struct vublk *d, char *err, size_t errlen)
{
	unsigned char buf[12 + 8];

	if (msgio_read(d->slave, buf, sizeof(buf), -1) != MSGIO_WHOLE) {
		seterr(err, errlen, "the guest closed the slave channel");
		return -1;
	}
	if (le32(buf) != VU_SLAVE_VRING_CALL || le32(buf + 8) != 8 ||
	    le64(buf + 12) != 0) {
		seterr(err, errlen, "the guest refused VRING_CALL");
		return -1;
	}
	return 0;
}

static void
config(const struct vublk *d, unsigned char *c)
{
	uint32_t v;
	uint16_t q;

	memset(c, 0, VIRTIO_BLK_CONFIG_BYTES);
	memcpy(c, &d->sectors, 8);
	v = d->m.size_max;
	memcpy(c + 8, &v, 4);
	v = d->m.seg_max;
	memcpy(c + 12, &v, 4);
	v = d->m.blk_size;
	memcpy(c + 20, &v, 4);
	c[24] = 0;
	c[32] = 1; /* wce: a write cache, flushed by FLUSH */
	q = (uint16_t)d->m.num_queues;
	memcpy(c + 34, &q, 2);
}

static uint64_t
offered(const struct vublk *d)
{
	uint64_t f = 1ULL << VIRTIO_F_VERSION_1 |
	    1ULL << VU_F_PROTOCOL_FEATURES | 1ULL << VIRTIO_RING_F_INDIRECT |
	    1ULL << VIRTIO_BLK_F_SEG_MAX | 1ULL << VIRTIO_BLK_F_BLK_SIZE |
	    1ULL << VIRTIO_BLK_F_FLUSH;

	if (d->m.size_max != 0)
		f |= 1ULL << VIRTIO_BLK_F_SIZE_MAX;
	return f;
}

int
vublk_message(struct vublk *d, int fd, int64_t now_ns, char *err, size_t errlen)
{
	unsigned char buf[12 + MAX_PAYLOAD];
	char cbuf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
	int fds[MAX_FDS], nfds = 0, rc = 1, i;
	struct iovec iov = {buf, 12};
	struct msghdr mh = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = cbuf,
	    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	uint32_t req, flags, size;
	const unsigned char *p = buf + 12;
	ssize_t n;
	size_t got;

	err[0] = '\0';
	do
		n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n == 0) {
		seterr(err, errlen, "closed");
		return -1;
	}
	if (n == -1) {
		snprintf(err, errlen, "vhost-user: cannot read: %s",
		    strerror(errno));
		return -1;
	}
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS) {
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (; k > 0 && nfds < MAX_FDS; k--, nfds++)
				memcpy(&fds[nfds],
				    CMSG_DATA(cm) + sizeof(int) * (size_t)nfds,
				    sizeof(int));
		}
	for (got = (size_t)n; got < 12; got += (size_t)n) {
		n = recv(fd, buf + got, 12 - got, 0);
		if (n == -1 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0) {
			seterr(err, errlen,
			    "vhost-user: a message shorter than its header");
			rc = -1;
			goto out;
		}
	}
	req = le32(buf);
	flags = le32(buf + 4);
	size = le32(buf + 8);
	if (size > MAX_PAYLOAD) {
		snprintf(err, errlen, "vhost-user: request %u claims %u bytes",
		    req, size);
		rc = -1;
		goto out;
	}
	for (got = 0; got < size;) {
		n = recv(fd, buf + 12 + got, size - got, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			seterr(err, errlen, "vhost-user: truncated message");
			rc = -1;
			goto out;
		}
		got += (size_t)n;
	}
	switch (req) {
	case VU_GET_FEATURES: {
		uint64_t f = offered(d);

		rc = reply(fd, req, &f, 8) == 0 ? 1 : -1;
		flags &= ~VU_FLAG_NEED_REPLY;
		break;
	}
	case VU_GET_PROTOCOL_FEATURES: {
		uint64_t f = 1ULL << VU_PF_SLAVE_REQ | 1ULL << VU_PF_CONFIG |
		    1ULL << VU_PF_INBAND;

		rc = reply(fd, req, &f, 8) == 0 ? 1 : -1;
		flags &= ~VU_FLAG_NEED_REPLY;
		break;
	}
	case VU_SET_FEATURES:
	case VU_SET_PROTOCOL_FEATURES:
		if (size < 8)
			goto short_payload;
		if (req == VU_SET_FEATURES)
			d->features = le64(p);
		else
			d->protocol = le64(p);
		break;
	case VU_GET_QUEUE_NUM: {
		uint64_t q = d->m.num_queues;

		rc = reply(fd, req, &q, 8) == 0 ? 1 : -1;
		flags &= ~VU_FLAG_NEED_REPLY;
		break;
	}
	case VU_SET_OWNER:
	case VU_RESET_OWNER:
	case VU_SET_VRING_ERR:
	case VU_SET_VRING_CALL:
	case VU_SET_VRING_KICK:
	case VU_SET_CONFIG:
		break;
	case VU_SET_MEM_TABLE: {
		uint32_t num, k;

		if (size < 8)
			goto short_payload;
		num = le32(p);
		if (num > MAX_REGIONS || num > (uint32_t)nfds ||
		    size < 8 + 32 * num) {
			seterr(err, errlen,
			    "vhost-user: SET_MEM_TABLE with more regions than descriptors");
			rc = -1;
			goto out;
		}
		unmap_all(d);
		for (k = 0; k < num; k++) {
			const unsigned char *e = p + 8 + 32 * k;
			struct region *r = &d->reg[k];
			void *m;

			r->guest = le64(e);
			r->size = le64(e + 8);
			r->user = le64(e + 16);
			m = mmap(NULL, r->size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fds[k], (off_t)le64(e + 24));
			if (m == MAP_FAILED) {
				snprintf(err, errlen,
				    "cannot map the guest's memory: %s",
				    strerror(errno));
				rc = -1;
				goto out;
			}
			r->map = m;
			d->nreg = k + 1;
		}
		map_rings(d);
		break;
	}
	case VU_SET_VRING_NUM:
	case VU_SET_VRING_BASE:
	case VU_SET_VRING_ENABLE:
	case VU_GET_VRING_BASE:
	case VU_VRING_KICK:
		if (size < 8)
			goto short_payload;
		if (le32(p) != 0) {
			snprintf(err, errlen,
			    "vhost-user: virtqueue %u (one queue)", le32(p));
			rc = -1;
			goto out;
		}
		if (req == VU_SET_VRING_NUM) {
			if (le32(p + 4) == 0 || le32(p + 4) > RING_MAX ||
			    (le32(p + 4) & (le32(p + 4) - 1))) {
				seterr(err, errlen,
				    "vhost-user: a ring size that is not a power of two up to 256");
				rc = -1;
				goto out;
			}
			d->num = le32(p + 4);
			map_rings(d);
		} else if (req == VU_SET_VRING_BASE) {
			d->last_avail = d->used_idx = (uint16_t)le32(p + 4);
		} else if (req == VU_SET_VRING_ENABLE) {
			d->enabled = le32(p + 4) != 0;
		} else if (req == VU_GET_VRING_BASE) {
			uint32_t st[2] = {0, d->last_avail};

			d->enabled = 0;
			rc = reply(fd, req, st, 8) == 0 ? 1 : -1;
			flags &= ~VU_FLAG_NEED_REPLY;
		} else if (take_avail(d, now_ns, err, errlen) == -1) {
			rc = -1;
			goto out;
		}
		break;
	case VU_SET_VRING_ADDR:
		if (size < 40)
			goto short_payload;
		if (le32(p) != 0) {
			seterr(err, errlen,
			    "vhost-user: virtqueue address for a second queue");
			rc = -1;
			goto out;
		}
		d->desc_ua = le64(p + 8);
		d->used_ua = le64(p + 16);
		d->avail_ua = le64(p + 24);
		map_rings(d);
		/* Without PROTOCOL_FEATURES, a ring is enabled at once. */
		if (!(d->features & 1ULL << VU_F_PROTOCOL_FEATURES))
			d->enabled = 1;
		break;
	case VU_SET_SLAVE_REQ_FD:
		if (nfds < 1) {
			seterr(err, errlen,
			    "vhost-user: SET_SLAVE_REQ_FD without a descriptor");
			rc = -1;
			goto out;
		}
		if (d->slave != -1)
			close(d->slave);
		d->slave = fds[0];
		fds[0] = -1;
		break;
	case VU_GET_CONFIG: {
		unsigned char c[VIRTIO_BLK_CONFIG_BYTES],
		    out[12 + VIRTIO_BLK_CONFIG_BYTES];
		uint32_t off, len;

		if (size < 12)
			goto short_payload;
		off = le32(p);
		len = le32(p + 4);
		if (off > VIRTIO_BLK_CONFIG_BYTES ||
		    len > VIRTIO_BLK_CONFIG_BYTES - off) {
			seterr(err, errlen,
			    "vhost-user: GET_CONFIG beyond virtio_blk_config");
			rc = -1;
			goto out;
		}
		config(d, c);
		memcpy(out, p, 12);
		memcpy(out + 12, c + off, len);
		rc = reply(fd, req, out, 12 + len) == 0 ? 1 : -1;
		flags &= ~VU_FLAG_NEED_REPLY;
		break;
	}
	default:
		snprintf(
		    err, errlen, "vhost-user: request %u not supported", req);
		rc = -1;
		goto out;
	}
	if (rc == 1 && (flags & VU_FLAG_NEED_REPLY)) {
		uint64_t zero = 0;

		rc = reply(fd, req, &zero, 8) == 0 ? 1 : -1;
	}
	if (rc == -1 && err[0] == '\0')
		snprintf(err, errlen, "vhost-user: cannot reply: %s",
		    strerror(errno));
	goto out;
short_payload:
	snprintf(err, errlen,
	    "vhost-user: request %u with a short payload (%u bytes)", req,
	    size);
	rc = -1;
out:
	for (i = 0; i < nfds; i++)
		if (fds[i] != -1)
			close(fds[i]);
	return rc;
}
