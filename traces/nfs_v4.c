/*
 * nfs_v4.c - NFSv4 COMPOUND calls and their results (RFC 7530 section 16.2):
 * the operations in one table, by opcode, each row saying how to step over
 * the operation's arguments and its result, and which are READ, WRITE and
 * COMMIT, whose fields are decoded. An operation without a row ends the
 * decoding of its COMPOUND: what follows it cannot be found. Every byte is
 * read through the cursor.
 */
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "nfs_impl.h"

#define RPC_AUTH_GSS 6          /* RFC 2203 */
#define NFS4_FHSIZE  128        /* RFC 7530 section 2.2 */
#define XDR_ANY      UINT32_MAX /* no limit but the message's own length */
#define NFS4_MAX_OPS 256        /* operations kept per COMPOUND */

enum { V4_OK = 0 };

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

/* Decoders of the part of an operation's arguments after the fixed one. */

/* READ4args (section 16.23) and READ_PLUS4args (RFC 7862 section 15.10). */
static int
read_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	struct nfs_call *k = &o->c;

	(void)curfh;
	cur_skip(c, 16); /* stateid4 */
	k->offset = cur_u64(c);
	k->count = cur_u32(c);
	if (c->err == CUR_OK)
		k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT;
	return 0;
}

/* WRITE4args (section 16.36): the data need be claimed, not captured. */
static int
write_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	struct nfs_call *k = &o->c;
	uint32_t len;

	(void)curfh;
	cur_skip(c, 16);
	k->offset = cur_u64(c);
	k->stable = cur_u32(c);
	len = cur_u32(c);
	if (c->err != CUR_OK)
		return 0;
	k->count = k->write_data_len = len;
	k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT | NFS_HAVE_STABLE |
	    NFS_HAVE_DATA_LEN;
	cur_fixed(c, len);
	return 0;
}

/* COMMIT4args (section 16.3). */
static int
commit_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	struct nfs_call *k = &o->c;

	(void)curfh;
	k->offset = cur_u64(c);
	k->count = cur_u32(c);
	if (c->err == CUR_OK)
		k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT;
	return 0;
}

/* PUTFH4args (section 16.20): the handle becomes the current one. */
static int
putfh_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o;
	*curfh = nfsrpc_fh(c, NFS4_FHSIZE);
	return 0;
}

static int
bitmap_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o, (void)curfh;
	skip_bitmap4(c);
	return 0;
}

static int
fattr_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o, (void)curfh;
	skip_fattr4(c);
	return 0;
}

static int
opaque_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o, (void)curfh;
	skip_opaque(c, XDR_ANY);
	return 0;
}

static int
two_opaque_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o, (void)curfh;
	skip_opaque(c, XDR_ANY);
	skip_opaque(c, XDR_ANY);
	return 0;
}

/* TEST_STATEID4args (RFC 8881 section 18.48): stateid4<>. */
static int
test_stateid_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	uint32_t n = cur_u32(c);

	(void)o, (void)curfh;
	cur_skip(c, (size_t)n * 16);
	return 0;
}

/* CREATE4args (section 16.4). */
static int
create_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	uint32_t t = cur_u32(c);

	(void)o, (void)curfh;
	if (t == 5) /* NF4LNK */
		skip_opaque(c, XDR_ANY);
	else if (t == 3 || t == 4) /* NF4BLK, NF4CHR */
		cur_skip(c, 8);
	skip_opaque(c, XDR_ANY);
	skip_fattr4(c);
	return 0;
}

/* LOCK4args (section 16.10) after its type, reclaim, offset and length. */
static int
lock_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o, (void)curfh;
	if (cur_u32(c) != 0) { /* new_lock_owner */
		cur_skip(c, 32);
		skip_opaque(c, XDR_ANY);
	} else {
		cur_skip(c, 20);
	}
	return 0;
}

/* EXCHANGE_ID4args (RFC 8881 section 18.35). */
static int
exchange_id_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	uint32_t t;

	(void)o, (void)curfh;
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
}

/* CREATE_SESSION4args (RFC 8881 section 18.36). */
static int
create_session_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o, (void)curfh;
	cur_skip(c, 16);
	skip_channel_attrs(c);
	skip_channel_attrs(c);
	cur_skip(c, 4);
	skip_cb_sec_parms(c);
	return 0;
}

/* BACKCHANNEL_CTL4args (RFC 8881 section 18.33). */
static int
backchannel_ctl_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o, (void)curfh;
	cur_skip(c, 4);
	skip_cb_sec_parms(c);
	return 0;
}

/* SETCLIENTID4args (section 16.33). */
static int
setclientid_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	(void)o, (void)curfh;
	cur_skip(c, 8);
	skip_opaque(c, XDR_ANY);
	cur_skip(c, 4);
	skip_opaque(c, XDR_ANY);
	skip_opaque(c, XDR_ANY);
	cur_skip(c, 4);
	return 0;
}

/* OPEN4args (section 16.16). */
static int
open_args(struct cursor *c, struct nfs_op *o, uint64_t *curfh)
{
	uint32_t t;

	(void)o, (void)curfh;
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
	return 0;
}

/* Decoders of the part of a successful result after the fixed one. */

/* WRITE4resok (section 16.36). */
static int
write_res(struct cursor *c, struct nfs_op *o)
{
	struct nfs_call *k = &o->c;

	k->reply_count = cur_u32(c);
	k->committed = cur_u32(c);
	cur_skip(c, 8);
	if (c->err == CUR_OK)
		k->have |= NFS_HAVE_REPLY_COUNT | NFS_HAVE_COMMITTED;
	return 0;
}

/* READ4resok (section 16.23): the data need be claimed, not captured. */
static int
read_res(struct cursor *c, struct nfs_op *o)
{
	struct nfs_call *k = &o->c;
	uint32_t len;

	k->eof = cur_u32(c);
	len = cur_u32(c);
	if (c->err != CUR_OK)
		return -1;
	k->reply_data_len = len;
	k->have |= NFS_HAVE_EOF | NFS_HAVE_REPLY_DATA;
	cur_fixed(c, len);
	return 0;
}

static int
bitmap_res(struct cursor *c, struct nfs_op *o)
{
	(void)o;
	skip_bitmap4(c);
	return 0;
}

static int
fattr_res(struct cursor *c, struct nfs_op *o)
{
	(void)o;
	skip_fattr4(c);
	return 0;
}

static int
fh_res(struct cursor *c, struct nfs_op *o)
{
	(void)o;
	skip_opaque(c, NFS4_FHSIZE);
	return 0;
}

static int
opaque_res(struct cursor *c, struct nfs_op *o)
{
	(void)o;
	skip_opaque(c, XDR_ANY);
	return 0;
}

/* CREATE_SESSION4resok (RFC 8881 section 18.36) after its first fields. */
static int
create_session_res(struct cursor *c, struct nfs_op *o)
{
	(void)o;
	skip_channel_attrs(c);
	skip_channel_attrs(c);
	return 0;
}

/* EXCHANGE_ID4resok (RFC 8881 section 18.35.4) after its first fields. */
static int
exchange_id_res(struct cursor *c, struct nfs_op *o)
{
	uint32_t t = cur_u32(c); /* state_protect4_r */

	(void)o;
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
}

/* TEST_STATEID4resok (RFC 8881 section 18.48): nfsstat4<>. */
static int
test_stateid_res(struct cursor *c, struct nfs_op *o)
{
	uint32_t n = cur_u32(c);

	(void)o;
	cur_skip(c, (size_t)n * 4);
	return 0;
}

/* SECINFO4resok (section 16.31): secinfo4<>. */
static int
secinfo_res(struct cursor *c, struct nfs_op *o)
{
	uint32_t n = cur_u32(c);

	(void)o;
	for (uint32_t i = 0; i < n && c->err == CUR_OK; i++)
		if (cur_u32(c) == RPC_AUTH_GSS) {
			skip_opaque(c, XDR_ANY);
			cur_skip(c, 8);
		}
	return 0;
}

/* OPEN4resok (section 16.16.5) after stateid, change_info4, rflags. */
static int
open_res(struct cursor *c, struct nfs_op *o)
{
	uint32_t t;

	(void)o;
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
}

/* Results that carry detail on failure. */

static void
setattr_fail(struct cursor *c, uint32_t status)
{
	(void)status;
	skip_bitmap4(c);
}

/* LOCK4denied (section 16.10) with NFS4ERR_DENIED. */
static void
lock_fail(struct cursor *c, uint32_t status)
{
	if (status == 10010) {
		cur_skip(c, 28);
		skip_opaque(c, XDR_ANY);
	}
}

/* clientaddr4 (section 16.33) with NFS4ERR_CLID_INUSE. */
static void
setclientid_fail(struct cursor *c, uint32_t status)
{
	if (status == 10017) {
		skip_opaque(c, XDR_ANY);
		skip_opaque(c, XDR_ANY);
	}
}

/* How an operation moves the current file handle. */
enum { FH_KEEP, FH_UNKNOWN };

/*
 * One operation. Its arguments: arg_skip fixed bytes, then args if set;
 * a successful result: res_skip fixed bytes, then res if set; a failed
 * one: fail if set. args and res return -1 where they cannot step over
 * what they met. Without ARGS (or RES) in known, the arguments (or the
 * result) are not stepped over and end the COMPOUND's decoding.
 */
struct v4op {
	uint8_t known; /* ARGS, RES */
	uint8_t kind;  /* NFS_K_ */
	uint8_t fh;    /* FH_ after the operation's arguments */
	uint8_t arg_skip;
	uint8_t res_skip;
	int (*args)(struct cursor *, struct nfs_op *, uint64_t *);
	int (*res)(struct cursor *, struct nfs_op *);
	void (*fail)(struct cursor *, uint32_t);
};

enum { ARGS = 1, RES = 2, BOTH = ARGS | RES };

/*
 * Sizes are XDR's: stateid4 16 bytes, clientid4, verifier4, offset4 and
 * length4 8, change_info4 20, nfstime4 12.
 */
static const struct v4op v4ops[NFS_NOPS] = {
    [OP_ACCESS] = {.known = BOTH, .arg_skip = 4, .res_skip = 8},
    [OP_CLOSE] = {.known = BOTH, .arg_skip = 20, .res_skip = 16},
    [OP_COMMIT] = {.known = BOTH,
        .kind = NFS_K_COMMIT,
        .args = commit_args,
        .res_skip = 8},
    [OP_CREATE] = {.known = BOTH,
        .fh = FH_UNKNOWN,
        .args = create_args,
        .res_skip = 20,
        .res = bitmap_res},
    [OP_DELEGPURGE] = {.known = BOTH, .arg_skip = 8},
    [OP_DELEGRETURN] = {.known = BOTH, .arg_skip = 16},
    [OP_GETATTR] = {.known = BOTH, .args = bitmap_args, .res = fattr_res},
    [OP_GETFH] = {.known = BOTH, .res = fh_res},
    [OP_LINK] = {.known = BOTH, .args = opaque_args, .res_skip = 20},
    [OP_LOCK] = {.known = BOTH,
        .arg_skip = 24,
        .args = lock_args,
        .res_skip = 16,
        .fail = lock_fail},
    [OP_LOCKT] = {.known = BOTH,
        .arg_skip = 28,
        .args = opaque_args,
        .fail = lock_fail},
    [OP_LOCKU] = {.known = BOTH, .arg_skip = 40, .res_skip = 16},
    [OP_LOOKUP] = {.known = BOTH, .fh = FH_UNKNOWN, .args = opaque_args},
    [OP_LOOKUPP] = {.known = BOTH, .fh = FH_UNKNOWN},
    [OP_NVERIFY] = {.known = BOTH, .args = fattr_args},
    [OP_OPEN] = {.known = BOTH,
        .fh = FH_UNKNOWN,
        .args = open_args,
        .res_skip = 40,
        .res = open_res},
    [OP_OPENATTR] = {.known = BOTH, .arg_skip = 4},
    [OP_OPEN_CONFIRM] = {.known = BOTH, .arg_skip = 20, .res_skip = 16},
    [OP_OPEN_DOWNGRADE] = {.known = BOTH, .arg_skip = 28, .res_skip = 16},
    [OP_PUTFH] = {.known = BOTH, .args = putfh_args},
    [OP_PUTPUBFH] = {.known = BOTH, .fh = FH_UNKNOWN},
    [OP_PUTROOTFH] = {.known = BOTH, .fh = FH_UNKNOWN},
    [OP_READ] = {.known = BOTH,
        .kind = NFS_K_READ,
        .args = read_args,
        .res = read_res},
    [OP_READDIR] = {.known = ARGS, .arg_skip = 24, .args = bitmap_args},
    [OP_READLINK] = {.known = BOTH, .res = opaque_res},
    [OP_REMOVE] = {.known = BOTH, .args = opaque_args, .res_skip = 20},
    [OP_RENAME] = {.known = BOTH, .args = two_opaque_args, .res_skip = 40},
    [OP_RENEW] = {.known = BOTH, .arg_skip = 8},
    [OP_RESTOREFH] = {.known = BOTH, .fh = FH_UNKNOWN},
    [OP_SAVEFH] = {.known = BOTH},
    [OP_SECINFO] = {.known = BOTH, .args = opaque_args, .res = secinfo_res},
    [OP_SETATTR] = {.known = BOTH,
        .arg_skip = 16,
        .args = fattr_args,
        .res = bitmap_res,
        .fail = setattr_fail},
    [OP_SETCLIENTID] = {.known = BOTH,
        .args = setclientid_args,
        .res_skip = 16,
        .fail = setclientid_fail},
    [OP_SETCLIENTID_CONFIRM] = {.known = BOTH, .arg_skip = 16},
    [OP_VERIFY] = {.known = BOTH, .args = fattr_args},
    [OP_WRITE] = {.known = BOTH,
        .kind = NFS_K_WRITE,
        .args = write_args,
        .res = write_res},
    [OP_RELEASE_LOCKOWNER] = {.known = BOTH,
        .arg_skip = 8,
        .args = opaque_args},
    [OP_BACKCHANNEL_CTL] = {.known = BOTH, .args = backchannel_ctl_args},
    [OP_BIND_CONN_TO_SESSION] = {.known = BOTH, .arg_skip = 24, .res_skip = 24},
    [OP_EXCHANGE_ID] = {.known = BOTH,
        .args = exchange_id_args,
        .res_skip = 16,
        .res = exchange_id_res},
    [OP_CREATE_SESSION] = {.known = BOTH,
        .args = create_session_args,
        .res_skip = 24,
        .res = create_session_res},
    [OP_DESTROY_SESSION] = {.known = BOTH, .arg_skip = 16},
    [OP_FREE_STATEID] = {.known = BOTH, .arg_skip = 16},
    [OP_SECINFO_NO_NAME] = {.known = BOTH, .arg_skip = 4, .res = secinfo_res},
    [OP_SEQUENCE] = {.known = BOTH, .arg_skip = 32, .res_skip = 36},
    [OP_TEST_STATEID] = {.known = BOTH,
        .args = test_stateid_args,
        .res = test_stateid_res},
    [OP_DESTROY_CLIENTID] = {.known = BOTH, .arg_skip = 8},
    [OP_RECLAIM_COMPLETE] = {.known = BOTH, .arg_skip = 4},
};

static const struct v4op *
row(uint32_t op)
{
	return op < NFS_NOPS ? &v4ops[op] : NULL;
}

/* COMPOUND4args: tag, minorversion, argarray (section 16.2). */
struct nfs_pending *
nfsv4_call(struct nfs_decoder *d, struct cursor *c, const struct nfs_call *base)
{
	struct nfs_pending *p;
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
	if ((p = nfsrpc_pending_new(n)) == NULL)
		return NULL;
	for (i = 0; i < n && c->err == CUR_OK; i++) {
		struct nfs_op *o = &p->ops[i];
		uint32_t op = cur_u32(c);
		const struct v4op *r = row(op);

		if (c->err != CUR_OK)
			break;
		o->c = *base;
		o->c.op_index = (int32_t)i;
		o->c.op = nfsname_v4(op);
		o->opnum = op;
		o->kind = r != NULL ? r->kind : NFS_K_OTHER;
		p->nops = i + 1;
		nfsmodel_count_op(&d->st, 4, op);
		if (r == NULL || !(r->known & ARGS))
			break;
		cur_skip(c, r->arg_skip);
		if (r->args != NULL && r->args(c, o, &curfh) < 0)
			break;
		if (r->fh == FH_UNKNOWN)
			curfh = 0;
		o->c.call_truncated = c->err == CUR_TRUNCATED;
		if (o->kind != NFS_K_OTHER && c->err != CUR_MALFORMED)
			nfsmodel_call(d, o, curfh);
	}
	return p;
}

/*
 * COMPOUND4res (section 16.2): per operation its opcode, status and
 * result, up to the first that failed.
 */
void
nfsv4_reply(struct cursor *c, struct nfs_pending *p)
{
	uint32_t n, i, tag;

	cur_skip(c, 4); /* overall status */
	cur_opaque(c, XDR_ANY, &tag);
	n = cur_u32(c);
	for (i = 0; i < n && i < p->nops && c->err == CUR_OK; i++) {
		struct nfs_op *o = &p->ops[i];
		uint32_t op = cur_u32(c), status = cur_u32(c);
		const struct v4op *r = row(op);

		if (c->err != CUR_OK)
			return;
		if (r == NULL || op != o->opnum) {
			c->err = CUR_MALFORMED;
			return;
		}
		o->c.reply_status = status;
		o->c.have |= NFS_HAVE_STATUS;
		if (status != V4_OK) {
			if (r->fail != NULL)
				r->fail(c, status);
			return;
		}
		if (!(r->known & RES))
			return;
		cur_skip(c, r->res_skip);
		if (r->res != NULL && r->res(c, o) < 0)
			return;
	}
}
