/*
 * nfs_rpc.c - ONC RPC calls and replies (RFC 5531) carrying NFS v2, v3 and
 * v4: decodes the arguments and results of READ, WRITE and COMMIT, matches
 * replies to calls by (connection, xid) in a bounded table, and folds each
 * call into the statistics. Every byte is read through the cursor.
 */
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "nfs_impl.h"

#define RPC_PROG_NFS 100003
#define RPC_MAX_AUTH 400        /* RFC 5531 section 8.2: opaque_auth body */
#define RPC_AUTH_GSS 6          /* RFC 2203: arguments may be wrapped */
#define NFS3_FHSIZE  64         /* RFC 1813 section 2.5 */
#define NFS2_FHSIZE  32         /* RFC 1094 section 2.3.3 */
#define NFS4_FHSIZE  128        /* RFC 7530 section 2.2 */
#define XDR_ANY      UINT32_MAX /* no limit but the message's own length */
#define NFS4_MAX_OPS 256        /* operations kept per COMPOUND */

enum { V4_OK = 0 };

/* NFSv4 opcodes this file decodes by number (RFC 7530 section 16). */
enum {
	OP_ACCESS = 3,
	OP_CLOSE,
	OP_COMMIT,
	OP_CREATE,
	OP_DELEGPURGE,
	OP_DELEGRETURN,
	OP_GETATTR,
	OP_GETFH,
	OP_LINK,
	OP_LOCK,
	OP_LOCKT,
	OP_LOCKU,
	OP_LOOKUP,
	OP_LOOKUPP,
	OP_NVERIFY,
	OP_OPEN,
	OP_OPENATTR,
	OP_OPEN_CONFIRM,
	OP_OPEN_DOWNGRADE,
	OP_PUTFH,
	OP_PUTPUBFH,
	OP_PUTROOTFH,
	OP_READ,
	OP_READDIR,
	OP_READLINK,
	OP_REMOVE,
	OP_RENAME,
	OP_RENEW,
	OP_RESTOREFH,
	OP_SAVEFH,
	OP_SECINFO,
	OP_SETATTR,
	OP_SETCLIENTID,
	OP_SETCLIENTID_CONFIRM,
	OP_VERIFY,
	OP_WRITE,
	OP_RELEASE_LOCKOWNER,
	/* RFC 8881 section 18 */
	OP_BACKCHANNEL_CTL,
	OP_BIND_CONN_TO_SESSION,
	OP_EXCHANGE_ID,
	OP_CREATE_SESSION,
	OP_DESTROY_SESSION,
	OP_FREE_STATEID,
	OP_GET_DIR_DELEGATION,
	OP_GETDEVICEINFO,
	OP_GETDEVICELIST,
	OP_LAYOUTCOMMIT,
	OP_LAYOUTGET,
	OP_LAYOUTRETURN,
	OP_SECINFO_NO_NAME,
	OP_SEQUENCE,
	OP_SET_SSV,
	OP_TEST_STATEID,
	OP_WANT_DELEGATION,
	OP_DESTROY_CLIENTID,
	OP_RECLAIM_COMPLETE,
};

static const char *const v4_names[NFS_NOPS] = {
    "NULL",
    "1",
    "2",
    "ACCESS",
    "CLOSE",
    "COMMIT",
    "CREATE",
    "DELEGPURGE",
    "DELEGRETURN",
    "GETATTR",
    "GETFH",
    "LINK",
    "LOCK",
    "LOCKT",
    "LOCKU",
    "LOOKUP",
    "LOOKUPP",
    "NVERIFY",
    "OPEN",
    "OPENATTR",
    "OPEN_CONFIRM",
    "OPEN_DOWNGRADE",
    "PUTFH",
    "PUTPUBFH",
    "PUTROOTFH",
    "READ",
    "READDIR",
    "READLINK",
    "REMOVE",
    "RENAME",
    "RENEW",
    "RESTOREFH",
    "SAVEFH",
    "SECINFO",
    "SETATTR",
    "SETCLIENTID",
    "SETCLIENTID_CONFIRM",
    "VERIFY",
    "WRITE",
    "RELEASE_LOCKOWNER",
    "BACKCHANNEL_CTL",
    "BIND_CONN_TO_SESSION",
    "EXCHANGE_ID",
    "CREATE_SESSION",
    "DESTROY_SESSION",
    "FREE_STATEID",
    "GET_DIR_DELEGATION",
    "GETDEVICEINFO",
    "GETDEVICELIST",
    "LAYOUTCOMMIT",
    "LAYOUTGET",
    "LAYOUTRETURN",
    "SECINFO_NO_NAME",
    "SEQUENCE",
    "SET_SSV",
    "TEST_STATEID",
    "WANT_DELEGATION",
    "DESTROY_CLIENTID",
    "RECLAIM_COMPLETE",
};

/* RFC 1094 section 2.2 */
static const char *const v2_names[18] = {
    "NULL",
    "GETATTR",
    "SETATTR",
    "ROOT",
    "LOOKUP",
    "READLINK",
    "READ",
    "WRITECACHE",
    "WRITE",
    "CREATE",
    "REMOVE",
    "RENAME",
    "LINK",
    "SYMLINK",
    "MKDIR",
    "RMDIR",
    "READDIR",
    "STATFS",
};

/* RFC 1813 section 3.3 */
static const char *const v3_names[22] = {
    "NULL",
    "GETATTR",
    "SETATTR",
    "LOOKUP",
    "ACCESS",
    "READLINK",
    "READ",
    "WRITE",
    "CREATE",
    "MKDIR",
    "SYMLINK",
    "MKNOD",
    "REMOVE",
    "RMDIR",
    "RENAME",
    "LINK",
    "READDIR",
    "READDIRPLUS",
    "FSSTAT",
    "FSINFO",
    "PATHCONF",
    "COMMIT",
};

const char *
nfs_v4_op_name(uint32_t op)
{
	return op < NFS_NOPS && op > 2 ? v4_names[op] : NULL;
}

const char *
nfs_proc_name(uint32_t vers, uint32_t proc)
{
	if (vers == 2 && proc < 18)
		return v2_names[proc];
	if (vers == 3 && proc < 22)
		return v3_names[proc];
	if (vers == 4 && proc == 0)
		return "NULL";
	if (vers == 4 && proc == 1)
		return "COMPOUND";
	return NULL;
}

/* The kind of transfer an operation is, for the statistics. */
enum { K_OTHER, K_READ, K_WRITE, K_COMMIT };

/* One operation of a call while it waits for its reply. */
struct op {
	struct nfs_call c;
	int kind;
	uint64_t seq; /* d->seq when folded */
	uint64_t fh;  /* its file's key when followed on the file; else 0 */
};

struct nfs_pending {
	struct nfs_pending *hnext; /* hash chain */
	struct nfs_pending *older, *newer;
	uint64_t conn;
	uint32_t xid;
	uint32_t prog, vers, proc;
	int wrapped; /* RPCSEC_GSS: arguments and results sealed */
	uint32_t nops;
	struct op ops[];
};

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

/* FNV-1a of a file handle; never 0, which marks a free slot. */
static uint64_t
fh_key(const uint8_t *fh, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint32_t i = 0; i < len; i++) {
		h ^= fh[i];
		h *= 0x100000001b3ULL;
	}
	return h != 0 ? h : 1;
}

static struct nfs_fh_slot *
fh_slot(struct nfs_decoder *d, uint64_t key)
{
	struct nfs_fh_slot *s = &d->fh[key % NFS_FH_SLOTS];

	/* Direct-mapped: a colliding handle takes the slot over. */
	if (s->key != key) {
		struct nfs_run *run[DIR_N] = {
		    s->run[DIR_READ], s->run[DIR_WRITE]};

		memset(s, 0, sizeof(*s));
		s->key = key;
		s->born = d->seq;
		for (int i = 0; i < DIR_N; i++)
			if ((s->run[i] = run[i]) != NULL)
				run[i]->n = 0;
		d->st.file_handles++;
	}
	return s;
}

/* The slot of op o's file, if o is followed there and the slot still its. */
static struct nfs_fh_slot *
op_slot(struct nfs_decoder *d, const struct op *o)
{
	struct nfs_fh_slot *s = &d->fh[o->fh % NFS_FH_SLOTS];

	return o->fh != 0 && s->key == o->fh && o->seq >= s->born ? s : NULL;
}

/* Judges call c against where the call before it on the file ended. */
static void
run_judge(struct nfs_xfer *x, const struct nfs_run_call *prev,
    const struct nfs_run_call *c)
{
	x->followed++;
	if (c->offset == prev->end)
		x->sequential++;
	if (prev->by_reply)
		x->judged_by_reply++;
	else
		x->judged_by_request++;
}

/*
 * Drops the calls at the head that are settled and whose successor has
 * been judged; the last one stays, for the next call to be judged by.
 */
static void
run_trim(struct nfs_run *r)
{
	uint32_t k = 0;

	while (r->n - k > 1 && r->c[k].settled)
		k++;
	if (k > 0) {
		memmove(r->c, r->c + k, (r->n - k) * sizeof(r->c[0]));
		r->n -= k;
	}
}

/* Settles call i of r at end, and judges the call after it by that. */
static void
run_settle(
    struct nfs_xfer *x, struct nfs_run *r, uint32_t i, uint64_t end, int by)
{
	r->c[i].end = end;
	r->c[i].settled = 1;
	r->c[i].by_reply = (uint8_t)by;
	if (i + 1 < r->n)
		run_judge(x, &r->c[i], &r->c[i + 1]);
	run_trim(r);
}

/*
 * Adds a READ or WRITE to its file's run. It is judged now if the call
 * before it is settled, else when that one is.
 */
static void
run_add(struct nfs_xfer *x, struct nfs_fh_slot *s, int dir, const struct op *o)
{
	struct nfs_run *r = s->run[dir];
	struct nfs_run_call *c;

	if (r == NULL && (r = s->run[dir] = calloc(1, sizeof(*r))) == NULL)
		return;
	/* Too many awaiting replies: the oldest ends where it asked to. */
	if (r->n == NFS_RUN_MAX)
		run_settle(x, r, 0, r->c[0].end, 0);
	c = &r->c[r->n++];
	c->seq = o->seq;
	c->offset = o->c.offset;
	c->end = o->c.offset + o->c.count;
	c->settled = c->by_reply = 0;
	if (r->n > 1 && r->c[r->n - 2].settled) {
		run_judge(x, &r->c[r->n - 2], c);
		run_trim(r);
	}
}

/*
 * Settles op o on its file once its reply is known: by the reply, done
 * bytes acknowledged or returned; or, with by_reply 0, by its request
 * (no reply, or one without a count).
 */
static void
settle(struct nfs_decoder *d, const struct op *o, int by_reply, uint64_t done)
{
	struct nfs_fh_slot *s = op_slot(d, o);
	int dir = o->kind == K_READ ? DIR_READ : DIR_WRITE;
	struct nfs_run *r;

	if (s == NULL)
		return;
	/* Its bytes count as acknowledged if no COMMIT came before them. */
	if (o->kind == K_WRITE && by_reply && o->seq > s->commit_seq) {
		s->since_commit = s->since_commit - o->c.count + done;
		s->by_request--;
		s->by_reply++;
	}
	if ((r = s->run[dir]) == NULL)
		return;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->c[i].seq == o->seq && !r->c[i].settled) {
			run_settle(&d->st.xfer[dir], r, i,
			    by_reply ? o->c.offset + done : r->c[i].end,
			    by_reply);
			return;
		}
}

/* Counts the request side of a READ, WRITE or COMMIT as the call is seen. */
static void
fold_call(struct nfs_decoder *d, struct op *o, uint64_t fh)
{
	const struct nfs_call *c = &o->c;
	struct nfs_stats *st = &d->st;
	struct nfs_fh_slot *s;
	int known = (c->have & NFS_HAVE_COUNT) != 0;
	int dir = o->kind == K_READ ? DIR_READ : DIR_WRITE;
	struct nfs_xfer *x = &st->xfer[dir];

	o->seq = ++d->seq;
	if (o->kind == K_COMMIT) {
		st->commits++;
		if (fh != 0) {
			s = fh_slot(d, fh);
			hist_add(
			    &st->bytes_between_commits, s->since_commit, 1);
			st->bytes_between += s->since_commit;
			st->between_by_reply += s->by_reply;
			st->between_by_request += s->by_request;
			s->since_commit = s->by_reply = s->by_request = 0;
			s->commit_seq = o->seq;
		}
		return;
	}
	x->calls++;
	if (!known) {
		x->size_unknown++;
	} else {
		x->bytes_requested += c->count;
		hist_add(&x->size_requested, c->count, 1);
	}
	if (o->kind == K_WRITE && (c->have & NFS_HAVE_STABLE) &&
	    c->stable < NFS_NSTABLE)
		st->stable[c->stable]++;
	if (fh == 0 || !known || !(c->have & NFS_HAVE_OFFSET))
		return;
	s = fh_slot(d, fh);
	o->fh = fh;
	run_add(x, s, dir, o);
	/* Counted as asked for until the reply says otherwise. */
	if (o->kind == K_WRITE) {
		s->since_commit += c->count;
		s->by_request++;
	}
}

/* Counts the reply side of a READ, WRITE or COMMIT. */
static void
fold_reply(struct nfs_decoder *d, const struct op *o)
{
	const struct nfs_call *c = &o->c;
	struct nfs_stats *st = &d->st;
	int64_t lat = c->reply_ns - c->call_ns;
	struct nfs_xfer *x;
	uint64_t done;

	if (lat < 0)
		lat = 0;
	if (o->kind == K_COMMIT) {
		st->commit_replies++;
		hist_add(&st->commit_latency_ns, (uint64_t)lat, 1);
		return;
	}
	x = &st->xfer[o->kind == K_READ ? DIR_READ : DIR_WRITE];
	x->replies++;
	hist_add(&x->latency_ns, (uint64_t)lat, 1);
	if (!(c->have & NFS_HAVE_STATUS)) {
		settle(d, o, 0, 0);
		return;
	}
	if (c->reply_status != 0) {
		/* Nothing was written or read. */
		x->errors++;
		settle(d, o, 1, 0);
		return;
	}
	if (o->kind == K_READ && (c->have & NFS_HAVE_REPLY_DATA))
		done = c->reply_data_len;
	else if (c->have & NFS_HAVE_REPLY_COUNT)
		done = c->reply_count;
	else {
		settle(d, o, 0, 0);
		return;
	}
	settle(d, o, 1, done);
	x->bytes_done += done;
	hist_add(&x->size_done, done, 1);
	if ((c->have & NFS_HAVE_COUNT) && done < c->count)
		x->short_replies++;
	if (o->kind == K_WRITE && (c->have & NFS_HAVE_COMMITTED) &&
	    c->committed < NFS_NSTABLE)
		st->committed[c->committed]++;
}

/* Counts a call never answered, settles it by its request, reports it. */
static void
give_up(struct nfs_decoder *d, struct nfs_pending *p)
{
	if (p->prog == RPC_PROG_NFS) {
		d->st.loss.calls_without_reply++;
		for (uint32_t i = 0; i < p->nops; i++)
			if (p->ops[i].kind == K_READ ||
			    p->ops[i].kind == K_WRITE)
				settle(d, &p->ops[i], 0, 0);
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

/* Skips an NFSv4 fattr4: a bitmap4 and an opaque attribute list. */
static void
skip_fattr4(struct cursor *c)
{
	uint32_t n = cur_u32(c), len;

	if (n > 64 && c->err == CUR_OK)
		c->err = CUR_MALFORMED;
	cur_skip(c, (size_t)n * 4);
	cur_opaque(c, XDR_ANY, &len);
}

static void
skip_bitmap4(struct cursor *c)
{
	uint32_t n = cur_u32(c);

	if (n > 64 && c->err == CUR_OK)
		c->err = CUR_MALFORMED;
	cur_skip(c, (size_t)n * 4);
}

static void
skip_opaque(struct cursor *c, uint32_t max)
{
	uint32_t len;

	cur_opaque(c, max, &len);
}

/* Skips channel_attrs4 (RFC 8881 section 18.36): six counts, rdma_ird<1>. */
static void
skip_channel_attrs(struct cursor *c)
{
	cur_skip(c, 24);
	if (cur_u32(c) != 0)
		cur_skip(c, 4);
}

/* Skips callback_sec_parms4<> (RFC 8881 section 18.36). */
static void
skip_cb_sec_parms(struct cursor *c)
{
	uint32_t n = cur_u32(c);

	for (uint32_t i = 0; i < n && c->err == CUR_OK; i++) {
		uint32_t flavor = cur_u32(c);

		if (flavor == 1) { /* AUTH_SYS: authsys_parms */
			cur_skip(c, 4);
			skip_opaque(c, 255);
			cur_skip(c, 8);
			skip_bitmap4(c); /* gids<16>: a counted u32 array */
		} else if (flavor == RPC_AUTH_GSS) {
			cur_skip(c, 4);
			skip_opaque(c, XDR_ANY);
			skip_opaque(c, XDR_ANY);
		} else if (flavor != 0 && c->err == CUR_OK) {
			c->err = CUR_MALFORMED;
		}
	}
}

/* Skips nfs_impl_id4<1> (RFC 8881 section 18.35). */
static void
skip_impl_id(struct cursor *c)
{
	if (cur_u32(c) != 0) {
		skip_opaque(c, XDR_ANY);
		skip_opaque(c, XDR_ANY);
		cur_skip(c, 12); /* nfstime4 */
	}
}

/* Reads a file handle and returns its key (0 when it was not captured). */
static uint64_t
read_fh(struct cursor *c, uint32_t max)
{
	uint32_t len;
	const uint8_t *p = cur_opaque(c, max, &len);

	return p != NULL ? fh_key(p, len) : 0;
}

/*
 * NFSv4 READ, WRITE and COMMIT arguments (RFC 7530 section 16): fills the
 * transfer fields. The data of a WRITE need be claimed, not captured.
 */
static void
v4_args(struct cursor *c, struct op *o)
{
	struct nfs_call *k = &o->c;
	uint32_t len;

	switch (o->kind) {
	case K_READ: /* section 16.23 */
		cur_skip(c, 16);
		k->offset = cur_u64(c);
		k->count = cur_u32(c);
		if (c->err == CUR_OK)
			k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT;
		return;
	case K_WRITE: /* section 16.36 */
		cur_skip(c, 16);
		k->offset = cur_u64(c);
		k->stable = cur_u32(c);
		len = cur_u32(c);
		if (c->err != CUR_OK)
			return;
		k->count = k->write_data_len = len;
		k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT | NFS_HAVE_STABLE |
		    NFS_HAVE_DATA_LEN;
		/* The data need be claimed, not captured. */
		cur_fixed(c, len);
		return;
	case K_COMMIT: /* section 16.3 */
		k->offset = cur_u64(c);
		k->count = cur_u32(c);
		if (c->err == CUR_OK)
			k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT;
		return;
	default:
		return;
	}
}

/*
 * The other NFSv4 operations' arguments (RFC 7530 section 16, RFC 8881
 * section 18), stepped over while tracking the current file handle. Returns
 * -1 for an operation it cannot step over, which ends the decoding of the
 * COMPOUND.
 */
static int
v4_other_args(struct cursor *c, uint32_t op, uint64_t *curfh)
{
	uint32_t n, t;

	switch (op) {
	case OP_GETFH:
	case OP_LOOKUPP:
	case OP_PUTPUBFH:
	case OP_PUTROOTFH:
	case OP_READLINK:
	case OP_RESTOREFH:
	case OP_SAVEFH:
		if (op != OP_GETFH && op != OP_READLINK && op != OP_SAVEFH)
			*curfh = 0;
		return 0;
	case OP_ACCESS:
	case OP_SECINFO_NO_NAME:
	case OP_OPENATTR:
	case OP_RECLAIM_COMPLETE:
		cur_skip(c, 4);
		return 0;
	case OP_CLOSE:
	case OP_OPEN_CONFIRM:
		cur_skip(c, 20);
		return 0;
	case OP_DELEGPURGE:
	case OP_RENEW:
	case OP_DESTROY_CLIENTID:
		cur_skip(c, 8);
		return 0;
	case OP_DELEGRETURN:
	case OP_FREE_STATEID:
	case OP_DESTROY_SESSION:
		cur_skip(c, 16);
		return 0;
	case OP_OPEN_DOWNGRADE:
		cur_skip(c, 28);
		return 0;
	case OP_SEQUENCE: /* RFC 8881 section 18.46 */
		cur_skip(c, 32);
		return 0;
	case OP_SETCLIENTID_CONFIRM:
		cur_skip(c, 16);
		return 0;
	case OP_GETATTR:
		skip_bitmap4(c);
		return 0;
	case OP_NVERIFY:
	case OP_VERIFY:
		skip_fattr4(c);
		return 0;
	case OP_SETATTR: /* section 16.32 */
		cur_skip(c, 16);
		skip_fattr4(c);
		return 0;
	case OP_PUTFH: /* section 16.20 */
		*curfh = read_fh(c, NFS4_FHSIZE);
		return 0;
	case OP_LOOKUP: /* section 16.13 */
		skip_opaque(c, XDR_ANY);
		*curfh = 0;
		return 0;
	case OP_LINK:
	case OP_REMOVE:
	case OP_SECINFO:
		skip_opaque(c, XDR_ANY);
		return 0;
	case OP_RENAME:
		skip_opaque(c, XDR_ANY);
		skip_opaque(c, XDR_ANY);
		return 0;
	case OP_READDIR: /* section 16.24 */
		cur_skip(c, 24);
		skip_bitmap4(c);
		return 0;
	case OP_TEST_STATEID:
		n = cur_u32(c);
		cur_skip(c, (size_t)n * 16);
		return 0;
	case OP_RELEASE_LOCKOWNER:
		cur_skip(c, 8);
		skip_opaque(c, XDR_ANY);
		return 0;
	case OP_CREATE: /* section 16.4 */
		t = cur_u32(c);
		if (t == 5) /* NF4LNK */
			skip_opaque(c, XDR_ANY);
		else if (t == 3 || t == 4) /* NF4BLK, NF4CHR */
			cur_skip(c, 8);
		skip_opaque(c, XDR_ANY);
		skip_fattr4(c);
		*curfh = 0;
		return 0;
	case OP_LOCK: /* section 16.10 */
		cur_skip(c, 24);
		if (cur_u32(c) != 0) { /* new_lock_owner */
			cur_skip(c, 32);
			skip_opaque(c, XDR_ANY);
		} else {
			cur_skip(c, 20);
		}
		return 0;
	case OP_LOCKT:
		cur_skip(c, 28);
		skip_opaque(c, XDR_ANY);
		return 0;
	case OP_LOCKU:
		cur_skip(c, 40);
		return 0;
	case OP_EXCHANGE_ID: /* RFC 8881 section 18.35 */
		cur_skip(c, 8);
		skip_opaque(c, XDR_ANY);
		cur_skip(c, 4);
		t = cur_u32(c); /* state_protect4_a */
		if (t == 1) {
			skip_bitmap4(c);
			skip_bitmap4(c);
		} else if (t != 0) {
			return -1; /* SP4_SSV: not stepped over */
		}
		skip_impl_id(c);
		return 0;
	case OP_CREATE_SESSION: /* RFC 8881 section 18.36 */
		cur_skip(c, 16);
		skip_channel_attrs(c);
		skip_channel_attrs(c);
		cur_skip(c, 4);
		skip_cb_sec_parms(c);
		return 0;
	case OP_BACKCHANNEL_CTL: /* RFC 8881 section 18.33 */
		cur_skip(c, 4);
		skip_cb_sec_parms(c);
		return 0;
	case OP_BIND_CONN_TO_SESSION: /* RFC 8881 section 18.34 */
		cur_skip(c, 24);
		return 0;
	case OP_SETCLIENTID: /* section 16.33 */
		cur_skip(c, 8);
		skip_opaque(c, XDR_ANY);
		cur_skip(c, 4);
		skip_opaque(c, XDR_ANY);
		skip_opaque(c, XDR_ANY);
		cur_skip(c, 4);
		return 0;
	case OP_OPEN:            /* section 16.16 */
		cur_skip(c, 20); /* seqid, share_access, share_deny,
		                    open_owner clientid */
		skip_opaque(c, XDR_ANY);
		if (cur_u32(c) == 1) { /* OPEN4_CREATE */
			t = cur_u32(c);
			if (t == 0 || t == 1) {
				skip_fattr4(c);
			} else if (t == 2) {
				cur_skip(c, 8);
			} else if (t == 3) { /* EXCLUSIVE4_1 */
				cur_skip(c, 8);
				skip_fattr4(c);
			} else if (c->err == CUR_OK) {
				c->err = CUR_MALFORMED;
			}
		}
		t = cur_u32(c); /* open_claim4 */
		if (t == 0 || t == 3)
			skip_opaque(c, XDR_ANY);
		else if (t == 1)
			cur_skip(c, 4);
		else if (t == 2) {
			cur_skip(c, 16);
			skip_opaque(c, XDR_ANY);
		} else if (t == 5)
			cur_skip(c, 16);
		else if (t != 4 && t != 6 && c->err == CUR_OK)
			c->err = CUR_MALFORMED;
		*curfh = 0;
		return 0;
	default:
		return -1;
	}
}

/* Steps over an NFSv4 operation's result after its status. */
static int
v4_other_res(struct cursor *c, uint32_t op, uint32_t status)
{
	uint32_t n, t;

	if (status != V4_OK) {
		/* A few results carry detail even on failure. */
		if (op == OP_SETATTR)
			skip_bitmap4(c);
		else if ((op == OP_LOCK || op == OP_LOCKT) && status == 10010) {
			cur_skip(c, 28);
			skip_opaque(c, XDR_ANY);
		} else if (op == OP_SETCLIENTID && status == 10017) {
			skip_opaque(c, XDR_ANY);
			skip_opaque(c, XDR_ANY);
		}
		return 0;
	}
	switch (op) {
	case OP_DELEGPURGE:
	case OP_DELEGRETURN:
	case OP_LOCKT:
	case OP_LOOKUP:
	case OP_LOOKUPP:
	case OP_NVERIFY:
	case OP_OPENATTR:
	case OP_PUTFH:
	case OP_PUTPUBFH:
	case OP_PUTROOTFH:
	case OP_RENEW:
	case OP_RESTOREFH:
	case OP_SAVEFH:
	case OP_SETCLIENTID_CONFIRM:
	case OP_VERIFY:
	case OP_RELEASE_LOCKOWNER:
	case OP_DESTROY_SESSION:
	case OP_FREE_STATEID:
	case OP_RECLAIM_COMPLETE:
	case OP_DESTROY_CLIENTID:
		return 0;
	case OP_ACCESS:
		cur_skip(c, 8);
		return 0;
	case OP_CLOSE:
	case OP_LOCK:
	case OP_LOCKU:
	case OP_OPEN_CONFIRM:
	case OP_OPEN_DOWNGRADE:
		cur_skip(c, 16);
		return 0;
	case OP_LINK:
	case OP_REMOVE:
		cur_skip(c, 20); /* change_info4 */
		return 0;
	case OP_RENAME:
		cur_skip(c, 40);
		return 0;
	case OP_CREATE:
		cur_skip(c, 20);
		skip_bitmap4(c);
		return 0;
	case OP_GETATTR:
		skip_fattr4(c);
		return 0;
	case OP_GETFH:
		skip_opaque(c, NFS4_FHSIZE);
		return 0;
	case OP_READLINK:
		skip_opaque(c, XDR_ANY);
		return 0;
	case OP_SETATTR:
		skip_bitmap4(c);
		return 0;
	case OP_SETCLIENTID:
		cur_skip(c, 16);
		return 0;
	case OP_SEQUENCE: /* RFC 8881 section 18.46 */
		cur_skip(c, 36);
		return 0;
	case OP_BACKCHANNEL_CTL:
		return 0;
	case OP_BIND_CONN_TO_SESSION:
		cur_skip(c, 24);
		return 0;
	case OP_CREATE_SESSION:
		cur_skip(c, 24);
		skip_channel_attrs(c);
		skip_channel_attrs(c);
		return 0;
	case OP_EXCHANGE_ID: /* RFC 8881 section 18.35.4 */
		cur_skip(c, 16);
		t = cur_u32(c); /* state_protect4_r */
		if (t == 1) {
			skip_bitmap4(c);
			skip_bitmap4(c);
		} else if (t != 0) {
			return -1;
		}
		cur_skip(c, 8); /* server_owner4 */
		skip_opaque(c, XDR_ANY);
		skip_opaque(c, XDR_ANY); /* server_scope */
		skip_impl_id(c);
		return 0;
	case OP_TEST_STATEID:
		n = cur_u32(c);
		cur_skip(c, (size_t)n * 4);
		return 0;
	case OP_SECINFO:
	case OP_SECINFO_NO_NAME:
		n = cur_u32(c);
		for (uint32_t i = 0; i < n && c->err == CUR_OK; i++)
			if (cur_u32(c) == RPC_AUTH_GSS) {
				skip_opaque(c, XDR_ANY);
				cur_skip(c, 8);
			}
		return 0;
	case OP_OPEN:            /* section 16.16.5 */
		cur_skip(c, 40); /* stateid, change_info4, rflags */
		skip_bitmap4(c);
		t = cur_u32(c); /* open_delegation4 */
		if (t == 1 || t == 2) {
			cur_skip(c, 20); /* stateid, recall */
			if (t == 2)
				cur_skip(c, 12); /* space_limit */
			cur_skip(c, 12);         /* nfsace4 */
			skip_opaque(c, XDR_ANY);
		} else if (t == 3) { /* OPEN_DELEGATE_NONE_EXT */
			uint32_t why = cur_u32(c);

			if (why == 1 || why == 2)
				cur_skip(c, 4);
		} else if (t != 0 && c->err == CUR_OK) {
			c->err = CUR_MALFORMED;
		}
		return 0;
	default:
		return -1;
	}
}

static int
op_kind(uint32_t vers, uint32_t op)
{
	if (vers == 4)
		return op == OP_READ  ? K_READ
		    : op == OP_WRITE  ? K_WRITE
		    : op == OP_COMMIT ? K_COMMIT
		                      : K_OTHER;
	if (vers == 3)
		return op == 6 ? K_READ
		    : op == 7  ? K_WRITE
		    : op == 21 ? K_COMMIT
		               : K_OTHER;
	if (vers == 2)
		return op == 6 ? K_READ : op == 8 ? K_WRITE : K_OTHER;
	return K_OTHER;
}

static struct nfs_pending *
pending_new(uint32_t nops)
{
	return calloc(
	    1, sizeof(struct nfs_pending) + (size_t)nops * sizeof(struct op));
}

static void
count_op(struct nfs_stats *st, uint32_t vers, uint32_t op)
{
	if (vers == 2 && op < 18)
		st->ops_v2[op]++;
	else if (vers == 3 && op < 22)
		st->ops_v3[op]++;
	else if (vers == 4 && op < NFS_NOPS)
		st->ops_v4[op]++;
	else if (vers == 4)
		st->ops_v4_other++;
}

/* NFSv2 and v3 call arguments (RFC 1094 section 2.2, RFC 1813 section 3.3). */
static void
v23_args(struct cursor *c, struct op *o, uint64_t *fh)
{
	struct nfs_call *k = &o->c;
	uint32_t len;

	if (o->kind == K_OTHER)
		return;
	if (k->vers == 2) {
		const uint8_t *p = cur_fixed(c, NFS2_FHSIZE);

		*fh = p != NULL ? fh_key(p, NFS2_FHSIZE) : 0;
		if (o->kind == K_READ) { /* readargs */
			k->offset = cur_u32(c);
			k->count = cur_u32(c);
			cur_skip(c, 4);
			if (c->err == CUR_OK)
				k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT;
			return;
		}
		/* writeargs: beginoffset, offset, totalcount, data */
		cur_skip(c, 4);
		k->offset = cur_u32(c);
		cur_skip(c, 4);
		len = cur_u32(c);
		if (c->err != CUR_OK)
			return;
		/* Version 2 writes reach stable storage before the reply. */
		k->count = k->write_data_len = len;
		k->stable = NFS_FILE_SYNC;
		k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT | NFS_HAVE_STABLE |
		    NFS_HAVE_DATA_LEN;
		return;
	}
	*fh = read_fh(c, NFS3_FHSIZE);
	k->offset = cur_u64(c);
	k->count = cur_u32(c);
	if (c->err != CUR_OK)
		return;
	k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT;
	if (o->kind == K_WRITE) { /* WRITE3args: stable, data */
		k->stable = cur_u32(c);
		if (c->err == CUR_OK)
			k->have |= NFS_HAVE_STABLE;
		len = cur_u32(c);
		if (c->err == CUR_OK) {
			k->write_data_len = len;
			k->have |= NFS_HAVE_DATA_LEN;
		}
	}
}

/* Skips post_op_attr (RFC 1813 section 2.6). */
static void
skip_post_op_attr(struct cursor *c)
{
	if (cur_u32(c) != 0)
		cur_skip(c, 84); /* fattr3 */
}

/* Skips wcc_data: pre_op_attr then post_op_attr. */
static void
skip_wcc_data(struct cursor *c)
{
	if (cur_u32(c) != 0)
		cur_skip(c, 24); /* wcc_attr */
	skip_post_op_attr(c);
}

/* NFSv2 and v3 results for READ, WRITE and COMMIT. */
static void
v23_res(struct cursor *c, struct op *o)
{
	struct nfs_call *k = &o->c;
	uint32_t status, len;

	if (k->proc == 0)
		return; /* NULL returns nothing */
	status = cur_u32(c);
	if (c->err != CUR_OK)
		return;
	k->reply_status = status;
	k->have |= NFS_HAVE_STATUS;
	if (o->kind == K_OTHER)
		return;
	if (k->vers == 2) {
		if (status != 0)
			return;
		cur_skip(c, 68); /* fattr, RFC 1094 section 2.3.5 */
		if (o->kind == K_READ) {
			cur_opaque(c, XDR_ANY, &len);
			if (c->err == CUR_OK || c->err == CUR_TRUNCATED) {
				k->reply_count = k->reply_data_len = len;
				k->have |=
				    NFS_HAVE_REPLY_COUNT | NFS_HAVE_REPLY_DATA;
			}
		} else if (o->kind == K_WRITE && c->err == CUR_OK &&
		    (k->have & NFS_HAVE_COUNT)) {
			k->reply_count = k->count;
			k->committed = NFS_FILE_SYNC;
			k->have |= NFS_HAVE_REPLY_COUNT | NFS_HAVE_COMMITTED;
		}
		return;
	}
	switch (o->kind) {
	case K_READ: /* READ3res, section 3.3.6 */
		skip_post_op_attr(c);
		if (status != 0)
			return;
		k->reply_count = cur_u32(c);
		k->eof = cur_u32(c);
		if (c->err != CUR_OK)
			return;
		k->have |= NFS_HAVE_REPLY_COUNT | NFS_HAVE_EOF;
		len = cur_u32(c);
		if (c->err == CUR_OK) {
			k->reply_data_len = len;
			k->have |= NFS_HAVE_REPLY_DATA;
		}
		return;
	case K_WRITE: /* WRITE3res, section 3.3.7 */
		skip_wcc_data(c);
		if (status != 0)
			return;
		k->reply_count = cur_u32(c);
		k->committed = cur_u32(c);
		if (c->err == CUR_OK)
			k->have |= NFS_HAVE_REPLY_COUNT | NFS_HAVE_COMMITTED;
		return;
	default: /* COMMIT3res carries nothing we report */
		return;
	}
}

/* Builds the pending call for an NFS call; NULL when out of memory. */
static struct nfs_pending *
nfs_call(struct nfs_decoder *d, struct cursor *c, const struct nfs_msg *m,
    uint32_t vers, uint32_t proc, int wrapped)
{
	struct nfs_pending *p;
	struct nfs_call base;
	uint64_t fh = 0;

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

	if (vers != 4 || proc == 0) {
		p = pending_new(1);
		if (p == NULL)
			return NULL;
		p->nops = 1;
		p->ops[0].c = base;
		p->ops[0].c.op = nfs_proc_name(vers, proc);
		if (p->ops[0].c.op == NULL)
			p->ops[0].c.op = "?";
		if (vers == 4)
			p->ops[0].c.op_index = 0;
		p->ops[0].kind = op_kind(vers, proc);
		if (vers == 4)
			count_op(&d->st, 4, 0);
		else
			count_op(&d->st, vers, proc);
		if (!wrapped)
			v23_args(c, &p->ops[0], &fh);
		p->ops[0].c.call_truncated = c->err == CUR_TRUNCATED;
		if (p->ops[0].kind != K_OTHER)
			fold_call(d, &p->ops[0], fh);
		return p;
	}
	if (proc != 1 || wrapped) {
		p = pending_new(1);
		if (p == NULL)
			return NULL;
		p->nops = 1;
		p->ops[0].c = base;
		p->ops[0].c.op = "?";
		return p;
	}

	/* COMPOUND4args: tag, minorversion, argarray (section 16.2). */
	{
		uint32_t n, i, tag;
		uint64_t curfh = 0;

		cur_opaque(c, XDR_ANY, &tag);
		cur_skip(c, 4);
		n = cur_u32(c);
		if (c->err != CUR_OK)
			n = 0;
		if (n > NFS4_MAX_OPS)
			n = NFS4_MAX_OPS;
		/* Each operation takes at least its 4-byte opcode. */
		if (n > cur_left(c) / 4)
			n = (uint32_t)(cur_left(c) / 4);
		p = pending_new(n);
		if (p == NULL)
			return NULL;
		for (i = 0; i < n && c->err == CUR_OK; i++) {
			struct op *o = &p->ops[i];
			uint32_t op = cur_u32(c);

			if (c->err != CUR_OK)
				break;
			o->c = base;
			o->c.op_index = (int32_t)i;
			o->c.op = op < NFS_NOPS ? v4_names[op] : "?";
			o->c.proc = 1;
			o->kind = op_kind(4, op);
			p->nops = i + 1;
			count_op(&d->st, 4, op);
			if (o->kind != K_OTHER) {
				v4_args(c, o);
			} else if (v4_other_args(c, op, &curfh) < 0) {
				break;
			}
			o->c.call_truncated = c->err == CUR_TRUNCATED;
			if (o->kind != K_OTHER && c->err != CUR_MALFORMED)
				fold_call(d, o, curfh);
		}
		return p;
	}
}

/* NFSv4 COMPOUND4res (section 16.2): per operation status and results. */
static void
v4_res(struct cursor *c, struct nfs_pending *p)
{
	uint32_t n, i, tag;

	cur_skip(c, 4); /* overall status */
	cur_opaque(c, XDR_ANY, &tag);
	n = cur_u32(c);
	for (i = 0; i < n && i < p->nops && c->err == CUR_OK; i++) {
		struct op *o = &p->ops[i];
		struct nfs_call *k = &o->c;
		uint32_t op = cur_u32(c), status = cur_u32(c), len;

		if (c->err != CUR_OK)
			return;
		if (k->op == NULL || op >= NFS_NOPS ||
		    strcmp(k->op, v4_names[op]) != 0) {
			c->err = CUR_MALFORMED;
			return;
		}
		k->reply_status = status;
		k->have |= NFS_HAVE_STATUS;
		if (o->kind == K_WRITE) {
			if (status != V4_OK)
				continue;
			k->reply_count = cur_u32(c);
			k->committed = cur_u32(c);
			cur_skip(c, 8);
			if (c->err == CUR_OK)
				k->have |=
				    NFS_HAVE_REPLY_COUNT | NFS_HAVE_COMMITTED;
		} else if (o->kind == K_READ) {
			if (status != V4_OK)
				continue;
			k->eof = cur_u32(c);
			len = cur_u32(c);
			if (c->err != CUR_OK)
				return;
			k->reply_data_len = len;
			k->have |= NFS_HAVE_EOF | NFS_HAVE_REPLY_DATA;
			cur_fixed(c, len);
		} else if (o->kind == K_COMMIT) {
			if (status == V4_OK)
				cur_skip(c, 8);
		} else if (v4_other_res(c, op, status) < 0) {
			return;
		}
		if (status != V4_OK)
			return;
	}
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
		p = pending_new(0);
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
		v4_res(c, p);
	else if (c->err == CUR_OK && !p->wrapped && p->nops == 1 &&
	    (p->vers == 2 || p->vers == 3 || p->proc == 0))
		v23_res(c, &p->ops[0]);
	count_err(d, c->err);
	for (uint32_t i = 0; i < p->nops; i++)
		if (p->ops[i].kind != K_OTHER)
			fold_reply(d, &p->ops[i]);
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
	for (int i = 0; i < NFS_FH_SLOTS; i++)
		for (int k = 0; k < DIR_N; k++)
			free(d->fh[i].run[k]);
}
