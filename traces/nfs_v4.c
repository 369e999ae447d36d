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

/*
 * Steppers: the part of an operation's arguments or result after its fixed
 * bytes. They return -1 where they cannot step over what they met.
 */

static int
step_bitmap(struct cursor *c)
{
	skip_bitmap4(c);
	return 0;
}

static int
step_fattr(struct cursor *c)
{
	skip_fattr4(c);
	return 0;
}

static int
step_opaque(struct cursor *c)
{
	skip_opaque(c, XDR_ANY);
	return 0;
}

static int
step_two_opaque(struct cursor *c)
{
	skip_opaque(c, XDR_ANY);
	skip_opaque(c, XDR_ANY);
	return 0;
}

/* A counted array of n-byte items. */
static void
skip_array(struct cursor *c, size_t n)
{
	uint32_t count = cur_u32(c);

	cur_skip(c, (size_t)count * n);
}

/* TEST_STATEID4args (RFC 8881 section 18.48): stateid4<>. */
static int
test_stateid_args(struct cursor *c)
{
	skip_array(c, 16);
	return 0;
}

/* TEST_STATEID4resok: nfsstat4<>. */
static int
test_stateid_res(struct cursor *c)
{
	skip_array(c, 4);
	return 0;
}

/* CREATE4args (section 16.4). */
static int
create_args(struct cursor *c)
{
	uint32_t t = cur_u32(c);

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
lock_args(struct cursor *c)
{
	if (cur_u32(c) != 0) { /* new_lock_owner */
		cur_skip(c, 32);
		skip_opaque(c, XDR_ANY);
	} else {
		cur_skip(c, 20);
	}
	return 0;
}

/*
 * client_owner4 (RFC 8881 section 18.35) and nfs_client_id4 (section
 * 16.33): a verifier and an opaque name.
 */
static void
skip_client_owner(struct cursor *c)
{
	cur_skip(c, 8);
	skip_opaque(c, XDR_ANY);
}

/* state_protect4_a and _r (RFC 8881 section 18.35): SP4_SSV not stepped. */
static int
skip_state_protect(struct cursor *c)
{
	uint32_t t = cur_u32(c);

	if (t == 1) { /* SP4_MACH_CRED */
		skip_bitmap4(c);
		skip_bitmap4(c);
	} else if (t != 0) {
		return -1;
	}
	return 0;
}

/* EXCHANGE_ID4args (RFC 8881 section 18.35). */
static int
exchange_id_args(struct cursor *c)
{
	skip_client_owner(c);
	cur_skip(c, 4); /* flags */
	if (skip_state_protect(c) < 0)
		return -1;
	skip_impl_id(c);
	return 0;
}

/* EXCHANGE_ID4resok (RFC 8881 section 18.35.4) after its first fields. */
static int
exchange_id_res(struct cursor *c)
{
	if (skip_state_protect(c) < 0)
		return -1;
	cur_skip(c, 8); /* server_owner4 */
	skip_opaque(c, XDR_ANY);
	skip_opaque(c, XDR_ANY); /* server_scope */
	skip_impl_id(c);
	return 0;
}

/* CREATE_SESSION4args (RFC 8881 section 18.36). */
static int
create_session_args(struct cursor *c)
{
	cur_skip(c, 16);
	skip_channel_attrs(c);
	skip_channel_attrs(c);
	cur_skip(c, 4);
	skip_cb_sec_parms(c);
	return 0;
}

/* CREATE_SESSION4resok (RFC 8881 section 18.36) after its first fields. */
static int
create_session_res(struct cursor *c)
{
	skip_channel_attrs(c);
	skip_channel_attrs(c);
	return 0;
}

/* BACKCHANNEL_CTL4args (RFC 8881 section 18.33). */
static int
backchannel_ctl_args(struct cursor *c)
{
	cur_skip(c, 4);
	skip_cb_sec_parms(c);
	return 0;
}

/* SETCLIENTID4args (section 16.33). */
static int
setclientid_args(struct cursor *c)
{
	skip_client_owner(c);
	cur_skip(c, 4); /* cb_program */
	skip_opaque(c, XDR_ANY);
	skip_opaque(c, XDR_ANY);
	cur_skip(c, 4);
	return 0;
}

/* OPEN4args (section 16.16). */
static int
open_args(struct cursor *c)
{
	uint32_t t;

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

/* OPEN4resok (section 16.16.5) after stateid, change_info4, rflags. */
static int
open_res(struct cursor *c)
{
	uint32_t t;

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

static int
getfh_res(struct cursor *c)
{
	skip_opaque(c, NFS4_FHSIZE);
	return 0;
}

/* SECINFO4resok (section 16.31): secinfo4<>. */
static int
secinfo_res(struct cursor *c)
{
	uint32_t n = cur_u32(c);

	for (uint32_t i = 0; i < n && c->err == CUR_OK; i++)
		if (cur_u32(c) == RPC_AUTH_GSS) {
			skip_opaque(c, XDR_ANY);
			cur_skip(c, 8);
		}
	return 0;
}

/* netloc4 (RFC 7862 section 15.2.1.1 and 4.1.1): a name, URL or netaddr4. */
static void
skip_netloc(struct cursor *c)
{
	uint32_t t = cur_u32(c);

	if (t == 1 || t == 2) /* NL4_NAME, NL4_URL */
		skip_opaque(c, XDR_ANY);
	else if (t == 3) { /* NL4_NETADDR: netid and address */
		skip_opaque(c, XDR_ANY);
		skip_opaque(c, XDR_ANY);
	} else if (c->err == CUR_OK)
		c->err = CUR_MALFORMED;
}

static void
skip_netlocs(struct cursor *c)
{
	uint32_t n = cur_u32(c);

	for (uint32_t i = 0; i < n && c->err == CUR_OK; i++)
		skip_netloc(c);
}

/* write_response4 (RFC 7862 section 15.2.1.1): wr_callback_id<1>, ... */
static void
skip_write_response(struct cursor *c)
{
	if (cur_u32(c) != 0)
		cur_skip(c, 16); /* stateid4 */
	cur_skip(c, 20);         /* count, committed, verifier */
}

/* COPY4args (RFC 7862 section 15.2) after stateids, offsets, count, flags. */
static int
copy_args(struct cursor *c)
{
	skip_netlocs(c);
	return 0;
}

/* COPY4resok: write_response4 and copy_requirements4. */
static int
copy_res(struct cursor *c)
{
	skip_write_response(c);
	cur_skip(c, 8);
	return 0;
}

/* NFS4ERR_OFFLOAD_NO_REQS (10094) carries the copy_requirements4. */
static void
copy_fail(struct cursor *c, uint32_t status)
{
	if (status == 10094)
		cur_skip(c, 8);
}

/* COPY_NOTIFY4args (RFC 7862 section 15.3) after its stateid. */
static int
copy_notify_args(struct cursor *c)
{
	skip_netloc(c);
	return 0;
}

/* COPY_NOTIFY4resok after its lease time and stateid: netloc4<>. */
static int
copy_notify_res(struct cursor *c)
{
	skip_netlocs(c);
	return 0;
}

/* LAYOUTERROR4args (RFC 7862 section 15.6) after offset, length, stateid. */
static int
layouterror_args(struct cursor *c)
{
	skip_array(c, 24); /* device_error4: deviceid4, status, opnum */
	return 0;
}

/* LAYOUTSTATS4args (RFC 7862 section 15.7) up to its layoutupdate4. */
static int
layoutstats_args(struct cursor *c)
{
	cur_skip(c, 4); /* layouttype4 */
	skip_opaque(c, XDR_ANY);
	return 0;
}

/* OFFLOAD_STATUS4resok (RFC 7862 section 15.9) after its count. */
static int
offload_status_res(struct cursor *c)
{
	skip_array(c, 4); /* osr_complete<1> */
	return 0;
}

/* WRITE_SAME4resok (RFC 7862 section 15.12): write_response4. */
static int
write_same_res(struct cursor *c)
{
	skip_write_response(c);
	return 0;
}

/* LISTXATTRS4resok (RFC 8276 section 8.4.3) after its cookie. */
static int
listxattrs_res(struct cursor *c)
{
	uint32_t n = cur_u32(c);

	for (uint32_t i = 0; i < n && c->err == CUR_OK; i++)
		skip_opaque(c, XDR_ANY);
	cur_skip(c, 4); /* eof */
	return 0;
}

/*
 * Transfers: READ, READ_PLUS, WRITE and COMMIT, whose fields fill the
 * operation's call.
 */

/* COMMIT4args (section 16.3): an offset and a count. */
static int
commit_args(struct cursor *c, struct nfs_call *k)
{
	k->offset = cur_u64(c);
	k->count = cur_u32(c);
	if (c->err == CUR_OK)
		k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT;
	return 0;
}

/*
 * READ4args (section 16.23) and READ_PLUS4args (RFC 7862 section 15.10):
 * a stateid, then an offset and a count as COMMIT's.
 */
static int
read_args(struct cursor *c, struct nfs_call *k)
{
	cur_skip(c, 16);
	return commit_args(c, k);
}

/* WRITE4args (section 16.36): the data need be claimed, not captured. */
static int
write_args(struct cursor *c, struct nfs_call *k)
{
	uint32_t len;

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

/* WRITE4resok (section 16.36). */
static int
write_res(struct cursor *c, struct nfs_call *k)
{
	k->reply_count = cur_u32(c);
	k->committed = cur_u32(c);
	cur_skip(c, 8);
	if (c->err == CUR_OK)
		k->have |= NFS_HAVE_REPLY_COUNT | NFS_HAVE_COMMITTED;
	return 0;
}

/* READ4resok (section 16.23): the data need be claimed, not captured. */
static int
read_res(struct cursor *c, struct nfs_call *k)
{
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

/*
 * The bytes of [off, off + len) that lie in what call k asked for: a hole
 * may reach past it (RFC 7862 section 15.10.3).
 */
static uint64_t
within(const struct nfs_call *k, uint64_t off, uint64_t len)
{
	uint64_t lo = k->offset, hi = k->offset + k->count, end = off + len;

	if (!(k->have & NFS_HAVE_COUNT))
		return len;
	if (end < off)
		end = UINT64_MAX;
	if (off < lo)
		off = lo;
	if (end > hi)
		end = hi;
	return end > off ? end - off : 0;
}

/*
 * READ_PLUS4resok (RFC 7862 section 15.10): eof and a list of contents,
 * data segments (offset and opaque data) and holes (offset and length).
 * What the reply returned, reply_data_len, is the bytes the data segments
 * carry plus the bytes the holes stand for within what was asked, as a
 * READ would have returned them. It is known when every segment's length
 * was captured; the data need be claimed, not captured.
 */
static int
read_plus_res(struct cursor *c, struct nfs_call *k)
{
	uint64_t done = 0, off, len;
	uint32_t n, i;

	k->eof = cur_u32(c);
	n = cur_u32(c);
	if (c->err != CUR_OK)
		return -1;
	k->have |= NFS_HAVE_EOF;
	for (i = 0; i < n && c->err == CUR_OK; i++) {
		uint32_t type = cur_u32(c);

		if (type == 0) { /* NFS4_CONTENT_DATA */
			cur_skip(c, 8);
			len = cur_u32(c);
			if (c->err != CUR_OK)
				break;
			done += len;
			cur_fixed(c, (size_t)len);
		} else if (type == 1) { /* NFS4_CONTENT_HOLE */
			off = cur_u64(c);
			len = cur_u64(c);
			if (c->err != CUR_OK)
				break;
			done += within(k, off, len);
		}
		/* Any other content type has no body (default: void). */
	}
	/*
	 * Every length is known when the loop went through: at worst the
	 * capture was cut in the last segment's data.
	 */
	if (i == n && c->err != CUR_MALFORMED) {
		k->reply_data_len =
		    done > UINT32_MAX ? UINT32_MAX : (uint32_t)done;
		k->have |= NFS_HAVE_REPLY_DATA;
	}
	return c->err == CUR_OK ? 0 : -1;
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

/* How an operation's arguments move the current file handle. */
enum { FH_KEEP, FH_SET, FH_UNKNOWN };

/*
 * One operation. Its arguments: arg_skip fixed bytes, then the handle with
 * FH_SET, then step_args or, for a transfer, args, which fills the call.
 * A successful result: res_skip fixed bytes, then step_res or res; a
 * failed one: fail. Without ARGS (or RES) in known, the arguments (or the
 * result) are not stepped over and end the COMPOUND's decoding.
 */
struct v4op {
	uint8_t known; /* ARGS, RES */
	uint8_t kind;  /* NFS_K_ */
	uint8_t fh;    /* FH_ */
	uint8_t arg_skip;
	uint8_t res_skip;
	int (*step_args)(struct cursor *);
	int (*step_res)(struct cursor *);
	int (*args)(struct cursor *, struct nfs_call *);
	int (*res)(struct cursor *, struct nfs_call *);
	void (*fail)(struct cursor *, uint32_t);
};

enum { ARGS = 1, RES = 2, BOTH = ARGS | RES };

/*
 * Sizes are XDR's: stateid4 16 bytes, clientid4, verifier4, offset4 and
 * length4 8, change_info4 20, nfstime4 12, deviceid4 16, count4 4.
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
        .step_args = create_args,
        .res_skip = 20,
        .step_res = step_bitmap},
    [OP_DELEGPURGE] = {.known = BOTH, .arg_skip = 8},
    [OP_DELEGRETURN] = {.known = BOTH, .arg_skip = 16},
    [OP_GETATTR] = {.known = BOTH,
        .step_args = step_bitmap,
        .step_res = step_fattr},
    [OP_GETFH] = {.known = BOTH, .step_res = getfh_res},
    [OP_LINK] = {.known = BOTH, .step_args = step_opaque, .res_skip = 20},
    [OP_LOCK] = {.known = BOTH,
        .arg_skip = 24,
        .step_args = lock_args,
        .res_skip = 16,
        .fail = lock_fail},
    [OP_LOCKT] = {.known = BOTH,
        .arg_skip = 28,
        .step_args = step_opaque,
        .fail = lock_fail},
    [OP_LOCKU] = {.known = BOTH, .arg_skip = 40, .res_skip = 16},
    [OP_LOOKUP] = {.known = BOTH, .fh = FH_UNKNOWN, .step_args = step_opaque},
    [OP_LOOKUPP] = {.known = BOTH, .fh = FH_UNKNOWN},
    [OP_NVERIFY] = {.known = BOTH, .step_args = step_fattr},
    [OP_OPEN] = {.known = BOTH,
        .fh = FH_UNKNOWN,
        .step_args = open_args,
        .res_skip = 40,
        .step_res = open_res},
    [OP_OPENATTR] = {.known = BOTH, .arg_skip = 4},
    [OP_OPEN_CONFIRM] = {.known = BOTH, .arg_skip = 20, .res_skip = 16},
    [OP_OPEN_DOWNGRADE] = {.known = BOTH, .arg_skip = 28, .res_skip = 16},
    [OP_PUTFH] = {.known = BOTH, .fh = FH_SET},
    [OP_PUTPUBFH] = {.known = BOTH, .fh = FH_UNKNOWN},
    [OP_PUTROOTFH] = {.known = BOTH, .fh = FH_UNKNOWN},
    [OP_READ] = {.known = BOTH,
        .kind = NFS_K_READ,
        .args = read_args,
        .res = read_res},
    [OP_READDIR] = {.known = ARGS, .arg_skip = 24, .step_args = step_bitmap},
    [OP_READLINK] = {.known = BOTH, .step_res = step_opaque},
    [OP_REMOVE] = {.known = BOTH, .step_args = step_opaque, .res_skip = 20},
    [OP_RENAME] = {.known = BOTH, .step_args = step_two_opaque, .res_skip = 40},
    [OP_RENEW] = {.known = BOTH, .arg_skip = 8},
    [OP_RESTOREFH] = {.known = BOTH, .fh = FH_UNKNOWN},
    [OP_SAVEFH] = {.known = BOTH},
    [OP_SECINFO] = {.known = BOTH,
        .step_args = step_opaque,
        .step_res = secinfo_res},
    [OP_SETATTR] = {.known = BOTH,
        .arg_skip = 16,
        .step_args = step_fattr,
        .step_res = step_bitmap,
        .fail = setattr_fail},
    [OP_SETCLIENTID] = {.known = BOTH,
        .step_args = setclientid_args,
        .res_skip = 16,
        .fail = setclientid_fail},
    [OP_SETCLIENTID_CONFIRM] = {.known = BOTH, .arg_skip = 16},
    [OP_VERIFY] = {.known = BOTH, .step_args = step_fattr},
    [OP_WRITE] = {.known = BOTH,
        .kind = NFS_K_WRITE,
        .args = write_args,
        .res = write_res},
    [OP_RELEASE_LOCKOWNER] = {.known = BOTH,
        .arg_skip = 8,
        .step_args = step_opaque},
    [OP_BACKCHANNEL_CTL] = {.known = BOTH, .step_args = backchannel_ctl_args},
    [OP_BIND_CONN_TO_SESSION] = {.known = BOTH, .arg_skip = 24, .res_skip = 24},
    [OP_EXCHANGE_ID] = {.known = BOTH,
        .step_args = exchange_id_args,
        .res_skip = 16,
        .step_res = exchange_id_res},
    [OP_CREATE_SESSION] = {.known = BOTH,
        .step_args = create_session_args,
        .res_skip = 24,
        .step_res = create_session_res},
    [OP_DESTROY_SESSION] = {.known = BOTH, .arg_skip = 16},
    [OP_FREE_STATEID] = {.known = BOTH, .arg_skip = 16},
    [OP_SECINFO_NO_NAME] = {.known = BOTH,
        .arg_skip = 4,
        .step_res = secinfo_res},
    [OP_SEQUENCE] = {.known = BOTH, .arg_skip = 32, .res_skip = 36},
    [OP_TEST_STATEID] = {.known = BOTH,
        .step_args = test_stateid_args,
        .step_res = test_stateid_res},
    [OP_DESTROY_CLIENTID] = {.known = BOTH, .arg_skip = 8},
    [OP_RECLAIM_COMPLETE] = {.known = BOTH, .arg_skip = 4},
    /* NFSv4.2, RFC 7862 section 15 */
    [OP_ALLOCATE] = {.known = BOTH, .arg_skip = 32},
    [OP_COPY] = {.known = BOTH,
        .arg_skip = 64,
        .step_args = copy_args,
        .step_res = copy_res,
        .fail = copy_fail},
    [OP_COPY_NOTIFY] = {.known = BOTH,
        .arg_skip = 16,
        .step_args = copy_notify_args,
        .res_skip = 28,
        .step_res = copy_notify_res},
    [OP_DEALLOCATE] = {.known = BOTH, .arg_skip = 32},
    [OP_IO_ADVISE] = {.known = BOTH,
        .arg_skip = 32,
        .step_args = step_bitmap,
        .step_res = step_bitmap},
    [OP_LAYOUTERROR] = {.known = BOTH,
        .arg_skip = 32,
        .step_args = layouterror_args},
    [OP_LAYOUTSTATS] = {.known = BOTH,
        .arg_skip = 80,
        .step_args = layoutstats_args},
    [OP_OFFLOAD_CANCEL] = {.known = BOTH, .arg_skip = 16},
    [OP_OFFLOAD_STATUS] = {.known = BOTH,
        .arg_skip = 16,
        .res_skip = 8,
        .step_res = offload_status_res},
    [OP_READ_PLUS] = {.known = BOTH,
        .kind = NFS_K_READ,
        .args = read_args,
        .res = read_plus_res},
    [OP_SEEK] = {.known = BOTH, .arg_skip = 28, .res_skip = 12},
    [OP_WRITE_SAME] = {.known = BOTH,
        .arg_skip = 64,
        .step_args = step_opaque,
        .step_res = write_same_res},
    [OP_CLONE] = {.known = BOTH, .arg_skip = 56},
    /* RFC 8276 section 8 */
    [OP_GETXATTR] = {.known = BOTH,
        .step_args = step_opaque,
        .step_res = step_opaque},
    [OP_SETXATTR] = {.known = BOTH,
        .arg_skip = 4,
        .step_args = step_two_opaque,
        .res_skip = 20},
    [OP_LISTXATTRS] = {.known = BOTH,
        .arg_skip = 12,
        .res_skip = 8,
        .step_res = listxattrs_res},
    [OP_REMOVEXATTR] = {.known = BOTH,
        .step_args = step_opaque,
        .res_skip = 20},
};

static const struct v4op *
row(uint32_t op)
{
	return op < NFS_NOPS ? &v4ops[op] : NULL;
}

/* An operation's arguments; -1 where they cannot be stepped over. */
static int
op_args(
    struct cursor *c, const struct v4op *r, struct nfs_op *o, uint64_t *curfh)
{
	if (!(r->known & ARGS))
		return -1;
	cur_skip(c, r->arg_skip);
	if (r->fh == FH_SET) /* PUTFH4args (section 16.20) */
		*curfh = nfsmodel_fh(c, NFS4_FHSIZE);
	if (r->step_args != NULL && r->step_args(c) < 0)
		return -1;
	if (r->args != NULL && r->args(c, &o->c) < 0)
		return -1;
	if (r->fh == FH_UNKNOWN)
		*curfh = 0;
	return 0;
}

/* A successful operation's result; -1 where it cannot be stepped over. */
static int
op_res(struct cursor *c, const struct v4op *r, struct nfs_op *o)
{
	if (!(r->known & RES))
		return -1;
	cur_skip(c, r->res_skip);
	if (r->step_res != NULL && r->step_res(c) < 0)
		return -1;
	if (r->res != NULL && r->res(c, &o->c) < 0)
		return -1;
	return 0;
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
	if ((p = nfsmodel_pending_new(n)) == NULL)
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
		if (r == NULL || op_args(c, r, o, &curfh) < 0)
			break;
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
		if (op_res(c, r, o) < 0)
			return;
	}
}
