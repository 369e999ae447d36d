/*
 * probe_rump.c - the probes of an FFS image in a NetBSD rump kernel, read
 * from the memory the kernel's process shares (model/rumpshm.h). Each run
 * boots a fresh kernel whose counters start at zero; a kernel's last sample
 * is taken after its unmount, and the counters of the kernels that ended
 * are carried, so that the probe's counts run on across runs as one disk's
 * would.
 *
 * exact: every transfer, as blkev events (issue and completion, a sector
 * of 512 bytes), into the same accumulator as the Linux exact probe: the
 * same histograms, sequential runs and latencies. hw.iostats over the same
 * phase is kept beside them, as diskstats is on Linux.
 *
 * interval: hw.iostats sampled every interval, the mean transfer of each
 * interval weighted by its transfers, as iostat(8) shows KB/t.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/clock.h"
#include "../model/rumpshm.h"
#include "traces.h"

struct nb {
	struct rumpshm *shm;
	/* hw.iostats: the kernel seen last, its last counters, and those of
	   the kernels before it, added up. */
	uint64_t gen;
	struct devstats last, ended;
	int have_iostats;
	struct devstats base, prev; /* cumulative: at the mark, the tick */
	struct hist means[DIR_N];
	struct blkev_acc *acc; /* exact */
	uint32_t dev;
};

static void
add_counts(struct devstats *d, const struct devstats *s)
{
	for (int k = 0; k < DIR_N; k++) {
		d->xfer[k].ops += s->xfer[k].ops;
		d->xfer[k].bytes += s->xfer[k].bytes;
	}
	d->busy_ns += s->busy_ns;
}

/* The counters so far, all kernels together. */
static int
iostats(struct nb *s, struct devstats *cum, char *err, size_t errlen)
{
	unsigned char buf[RUMPSHM_IOSTATS];
	struct devstats now;
	uint64_t gen;
	size_t len = rumpshm_iostats_get(s->shm, &gen, buf, sizeof(buf));

	if (iostat_netbsd_parse(buf, len, NULL, &now, err, errlen) == -1)
		return -1;
	if (gen != s->gen) {
		add_counts(&s->ended, &s->last);
		s->gen = gen;
	}
	s->last = now;
	memset(cum, 0, sizeof(*cum));
	add_counts(cum, &s->ended);
	add_counts(cum, &now);
	return 0;
}

static void
counts_delta(
    struct devstats *d, const struct devstats *a, const struct devstats *b)
{
	for (int k = 0; k < DIR_N; k++) {
		d->xfer[k].ops = a->xfer[k].ops - b->xfer[k].ops;
		d->xfer[k].bytes = a->xfer[k].bytes - b->xfer[k].bytes;
	}
	d->busy_ns = a->busy_ns - b->busy_ns;
}

/* The probe's state, its shared memory given to open in p->priv. */
static struct nb *
nb_new(struct probe *p, char *err, size_t errlen)
{
	struct nb *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		snprintf(err, errlen, "cannot allocate probe state");
		return NULL;
	}
	s->shm = p->priv;
	p->priv = s;
	return s;
}

static void nb_close(struct probe *p);

static int
iv_open(struct probe *p, char *err, size_t errlen)
{
	struct nb *s = nb_new(p, err, errlen);
	char why[160];

	if (s == NULL)
		return -1;
	if (iostats(s, &s->base, why, sizeof(why)) == -1) {
		snprintf(err, errlen,
		    "the NetBSD kernel keeps no disk statistics for the image "
		    "(%s): its rumpblk lacks ubcreplay's patch "
		    "(contrib/rump-patches/rumpblk-iostat.patch)",
		    why);
		nb_close(p);
		return -1;
	}
	s->have_iostats = 1;
	s->prev = s->base;
	return 0;
}

static int
iv_tick(struct probe *p, char *err, size_t errlen)
{
	struct nb *s = p->priv;
	struct devstats now;

	if (iostats(s, &now, err, errlen) == -1)
		return -1;
	for (int k = 0; k < DIR_N; k++) {
		uint64_t ops = now.xfer[k].ops - s->prev.xfer[k].ops;
		uint64_t bytes = now.xfer[k].bytes - s->prev.xfer[k].bytes;

		if (ops > 0)
			hist_add(&s->means[k], bytes / ops, ops);
	}
	s->prev = now;
	return 0;
}

static int
iv_mark(struct probe *p, struct devstats *out, char *err, size_t errlen)
{
	struct nb *s = p->priv;

	if (iv_tick(p, err, errlen) == -1)
		return -1;
	if (out != NULL) {
		memset(out, 0, sizeof(*out));
		counts_delta(out, &s->prev, &s->base);
		for (int k = 0; k < DIR_N; k++)
			out->xfer[k].size = s->means[k];
	}
	memset(s->means, 0, sizeof(s->means));
	s->base = s->prev;
	return 0;
}

static void
nb_close(struct probe *p)
{
	struct nb *s = p->priv;

	if (s == NULL)
		return;
	blkev_acc_free(s->acc);
	free(s);
	p->priv = NULL;
}

/* The transfers shared since the last call, into the accumulator. */
static void
drain(struct nb *s)
{
	struct rumpbio b;

	while (rumpshm_take(s->shm, &b)) {
		struct blkev e = {.ts_ns = b.ts_ns,
		    .dev = s->dev,
		    .kind = b.kind == 'I' ? BLKEV_ISSUE : BLKEV_COMPLETE,
		    .flags = (b.op & RUMPBIO_WRITE ? BLKEV_OP_WRITE
		                                   : BLKEV_OP_READ) |
		        (b.op & RUMPBIO_SYNC ? BLKEV_SYNC : 0),
		    .sector = (uint64_t)b.off / 512,
		    .bytes = b.len,
		    .error = b.error};

		/* A completion is matched to its issue by its sector. */
		e.nr_sector = (uint32_t)(b.len / 512);
		if (e.kind == BLKEV_COMPLETE && e.nr_sector == 0)
			e.nr_sector = 1;
		/*
		 * rumpblk hands each buffer the filesystem wrote to the host
		 * as it is, with no queue that merges or splits: the
		 * filesystem's submission is the request.
		 */
		if (e.kind == BLKEV_ISSUE) {
			struct blkev q = e;

			q.kind = BLKEV_QUEUE;
			blkev_acc_add(s->acc, &q);
		}
		blkev_acc_add(s->acc, &e);
	}
}

static int
ex_open(struct probe *p, char *err, size_t errlen)
{
	struct nb *s = nb_new(p, err, errlen);
	struct rumpbio b;
	char why[160];

	if (s == NULL)
		return -1;
	s->dev = BLKEV_DEV(p->target->dev[0].major, p->target->dev[0].minor);
	/* What came before the probe (the trial mount) is not counted. */
	while (rumpshm_take(s->shm, &b))
		;
	if ((s->acc = blkev_acc_new(&s->dev, 1, clock_now_ns())) == NULL) {
		snprintf(err, errlen, "out of memory");
		nb_close(p);
		return -1;
	}
	if (iostats(s, &s->base, why, sizeof(why)) == 0)
		s->have_iostats = 1;
	else
		snprintf(
		    p->why, sizeof(p->why), "no hw.iostats beside it: %s", why);
	return 0;
}

/*
 * Each tick also reads hw.iostats, so that a kernel's last sample (after
 * its unmount) is seen before the next kernel's first replaces it.
 */
static int
ex_tick(struct probe *p, char *err, size_t errlen)
{
	struct nb *s = p->priv;
	struct devstats now;

	drain(s);
	return s->have_iostats ? iostats(s, &now, err, errlen) : 0;
}

static int
ex_mark(struct probe *p, struct devstats *out, char *err, size_t errlen)
{
	struct nb *s = p->priv;
	struct devstats now, d;

	drain(s);
	blkev_acc_mark(s->acc, clock_now_ns(), out);
	if (!s->have_iostats)
		return 0;
	if (iostats(s, &now, err, errlen) == -1)
		return -1;
	if (out != NULL) {
		memset(&d, 0, sizeof(d));
		counts_delta(&d, &now, &s->base);
		out->has_kern = 1;
		for (int k = 0; k < DIR_N; k++) {
			out->kern_ops[k] = d.xfer[k].ops;
			out->kern_bytes[k] = d.xfer[k].bytes;
		}
	}
	s->base = now;
	return 0;
}

static struct blkev_acc *
ex_acc(struct probe *p)
{
	return ((struct nb *)p->priv)->acc;
}

static const struct probe_ops probe_rumpbio_ops = {
    .name = "rumpbio",
    .resolution = PROBE_EXACT,
    .open = ex_open,
    .tick = ex_tick,
    .mark = ex_mark,
    .close = nb_close,
    .acc = ex_acc,
};

static const struct probe_ops probe_iostat_ops = {
    .name = "iostat",
    .resolution = PROBE_INTERVAL,
    .open = iv_open,
    .tick = iv_tick,
    .mark = iv_mark,
    .close = nb_close,
};

struct probe *
probe_open_netbsd(const char *want, const struct target *t, struct rumpshm *shm,
    int64_t interval_ns, char *err, size_t errlen)
{
	static const struct probe_ops *const table[] = {
	    &probe_rumpbio_ops, &probe_iostat_ops, NULL};

	return probe_open_from(table, "for a NetBSD FFS target", want, t,
	    interval_ns, shm, err, errlen);
}
