/*
 * nfs_v23.c - calls of one operation: NFSv2 (RFC 1094) and v3 (RFC 1813)
 * procedures, with the arguments and results of READ, WRITE and COMMIT
 * decoded, and NFSv4's NULL procedure. Every byte is read through the
 * cursor.
 */
#include "cursor.h"
#include "nfs_impl.h"

#define NFS3_FHSIZE 64         /* RFC 1813 section 2.5 */
#define NFS2_FHSIZE 32         /* RFC 1094 section 2.3.3 */
#define XDR_ANY     UINT32_MAX /* no limit but the message's own length */

static int
kind(uint32_t vers, uint32_t proc)
{
	if (vers == 3)
		return proc == 6 ? NFS_K_READ
		    : proc == 7  ? NFS_K_WRITE
		    : proc == 21 ? NFS_K_COMMIT
		                 : NFS_K_OTHER;
	if (vers == 2)
		return proc == 6 ? NFS_K_READ
		    : proc == 8  ? NFS_K_WRITE
		                 : NFS_K_OTHER;
	return NFS_K_OTHER;
}

/* NFSv2 and v3 call arguments (RFC 1094 section 2.2, RFC 1813 section 3.3). */
static void
v23_args(struct cursor *c, struct nfs_op *o, uint64_t *fh)
{
	struct nfs_call *k = &o->c;
	uint32_t len;

	if (o->kind == NFS_K_OTHER)
		return;
	if (k->vers == 2) {
		const uint8_t *p = cur_fixed(c, NFS2_FHSIZE);

		*fh = p != NULL ? nfsmodel_fh_key(p, NFS2_FHSIZE) : 0;
		if (o->kind == NFS_K_READ) { /* readargs */
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
	*fh = nfsmodel_fh(c, NFS3_FHSIZE);
	k->offset = cur_u64(c);
	k->count = cur_u32(c);
	if (c->err != CUR_OK)
		return;
	k->have |= NFS_HAVE_OFFSET | NFS_HAVE_COUNT;
	if (o->kind == NFS_K_WRITE) { /* WRITE3args: stable, data */
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
void
nfsv23_reply(struct cursor *c, struct nfs_op *o)
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
	if (o->kind == NFS_K_OTHER)
		return;
	if (k->vers == 2) {
		if (status != 0)
			return;
		cur_skip(c, 68); /* fattr, RFC 1094 section 2.3.5 */
		if (o->kind == NFS_K_READ) {
			cur_opaque(c, XDR_ANY, &len);
			if (c->err == CUR_OK || c->err == CUR_TRUNCATED) {
				k->reply_count = k->reply_data_len = len;
				k->have |=
				    NFS_HAVE_REPLY_COUNT | NFS_HAVE_REPLY_DATA;
			}
		} else if (o->kind == NFS_K_WRITE && c->err == CUR_OK &&
		    (k->have & NFS_HAVE_COUNT)) {
			k->reply_count = k->count;
			k->committed = NFS_FILE_SYNC;
			k->have |= NFS_HAVE_REPLY_COUNT | NFS_HAVE_COMMITTED;
		}
		return;
	}
	switch (o->kind) {
	case NFS_K_READ: /* READ3res, section 3.3.6 */
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
	case NFS_K_WRITE: /* WRITE3res, section 3.3.7 */
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

struct nfs_pending *
nfsv23_call(struct nfs_decoder *d, struct cursor *c,
    const struct nfs_call *base, int wrapped)
{
	struct nfs_pending *p = nfsmodel_pending_new(1);
	struct nfs_op *o;
	uint32_t vers = base->vers, proc = base->proc;
	uint64_t fh = 0;

	if (p == NULL)
		return NULL;
	p->nops = 1;
	o = &p->ops[0];
	o->c = *base;
	o->opnum = proc;
	o->c.op = nfs_proc_name(vers, proc);
	if (o->c.op == NULL)
		o->c.op = "?";
	if (vers == 4)
		o->c.op_index = 0;
	o->kind = kind(vers, proc);
	nfsmodel_count_op(&d->st, vers, proc);
	if (!wrapped)
		v23_args(c, o, &fh);
	o->c.call_truncated = c->err == CUR_TRUNCATED;
	if (o->kind != NFS_K_OTHER)
		nfsmodel_call(d, o, fh);
	return p;
}
