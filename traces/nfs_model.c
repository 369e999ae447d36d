/*
 * nfs_model.c - what the decoded calls mean, apart from how they were
 * decoded: the statistics, and per file handle the run of READs and of
 * WRITEs (whether each call began where the one before it on the file
 * ended, by its reply where one came) and the bytes written between
 * COMMITs (acknowledged by the reply, or as asked for until it comes).
 */
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "nfs_impl.h"

/* FNV-1a of a file handle; never 0, which marks a free slot. */
uint64_t
nfsmodel_fh_key(const uint8_t *fh, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint32_t i = 0; i < len; i++) {
		h ^= fh[i];
		h *= 0x100000001b3ULL;
	}
	return h != 0 ? h : 1;
}

uint64_t
nfsmodel_fh(struct cursor *c, uint32_t max)
{
	uint32_t len;
	const uint8_t *p = cur_opaque(c, max, &len);

	return p != NULL ? nfsmodel_fh_key(p, len) : 0;
}

struct nfs_pending *
nfsmodel_pending_new(uint32_t nops)
{
	return calloc(1,
	    sizeof(struct nfs_pending) + (size_t)nops * sizeof(struct nfs_op));
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
op_slot(struct nfs_decoder *d, const struct nfs_op *o)
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
run_add(
    struct nfs_xfer *x, struct nfs_fh_slot *s, int dir, const struct nfs_op *o)
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
settle(
    struct nfs_decoder *d, const struct nfs_op *o, int by_reply, uint64_t done)
{
	struct nfs_fh_slot *s = op_slot(d, o);
	int dir = o->kind == NFS_K_READ ? DIR_READ : DIR_WRITE;
	struct nfs_run *r;

	if (s == NULL)
		return;
	/* Its bytes count as acknowledged if no COMMIT came before them. */
	if (o->kind == NFS_K_WRITE && by_reply && o->seq > s->commit_seq) {
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
void
nfsmodel_call(struct nfs_decoder *d, struct nfs_op *o, uint64_t fh)
{
	const struct nfs_call *c = &o->c;
	struct nfs_stats *st = &d->st;
	struct nfs_fh_slot *s;
	int known = (c->have & NFS_HAVE_COUNT) != 0;
	int dir = o->kind == NFS_K_READ ? DIR_READ : DIR_WRITE;
	struct nfs_xfer *x = &st->xfer[dir];

	o->seq = ++d->seq;
	if (o->kind == NFS_K_COMMIT) {
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
	if (o->kind == NFS_K_WRITE && (c->have & NFS_HAVE_STABLE) &&
	    c->stable < NFS_NSTABLE)
		st->stable[c->stable]++;
	if (fh == 0 || !known || !(c->have & NFS_HAVE_OFFSET))
		return;
	s = fh_slot(d, fh);
	o->fh = fh;
	run_add(x, s, dir, o);
	/* Counted as asked for until the reply says otherwise. */
	if (o->kind == NFS_K_WRITE) {
		s->since_commit += c->count;
		s->by_request++;
	}
}

/* Counts the reply side of a READ, WRITE or COMMIT. */
void
nfsmodel_reply(struct nfs_decoder *d, const struct nfs_op *o)
{
	const struct nfs_call *c = &o->c;
	struct nfs_stats *st = &d->st;
	int64_t lat = c->reply_ns - c->call_ns;
	struct nfs_xfer *x;
	uint64_t done;

	if (lat < 0)
		lat = 0;
	if (o->kind == NFS_K_COMMIT) {
		st->commit_replies++;
		hist_add(&st->commit_latency_ns, (uint64_t)lat, 1);
		return;
	}
	x = &st->xfer[o->kind == NFS_K_READ ? DIR_READ : DIR_WRITE];
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
	if (o->kind == NFS_K_READ && (c->have & NFS_HAVE_REPLY_DATA))
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
	if (o->kind == NFS_K_WRITE && (c->have & NFS_HAVE_COMMITTED) &&
	    c->committed < NFS_NSTABLE)
		st->committed[c->committed]++;
}

void
nfsmodel_count_op(struct nfs_stats *st, uint32_t vers, uint32_t op)
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

void
nfsmodel_unanswered(struct nfs_decoder *d, const struct nfs_op *o)
{
	if (o->kind == NFS_K_READ || o->kind == NFS_K_WRITE)
		settle(d, o, 0, 0);
}

void
nfsmodel_free(struct nfs_decoder *d)
{
	for (int i = 0; i < NFS_FH_SLOTS; i++)
		for (int k = 0; k < DIR_N; k++)
			free(d->fh[i].run[k]);
}
