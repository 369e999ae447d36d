/*
 * workload_dd.c - dd's copy as the job's workload (job_dd): the phase
 * "copy", the source read on the host, written to a host file or device
 * (the ends) or to a file in the run directory of an FFS image's NetBSD
 * kernel. What dd counts does not fit the report, which is the same for
 * every workload, so the copy leaves it in a page shared with the parent
 * (the phase's child, or the kernel's process, both forks of this one).
 * With o->ntp, the clock's offset against the server is taken just before
 * the copy and just after the sync; its change is the run's lossage.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

struct dd {
	struct replay_dd dd; /* this run's: o->dd as it is at its start */
	struct replay_dd_job job;
	struct replay_dd_counts *counts; /* shared with the copy */
	struct sntp_lossage loss;
};

static int
dd_open(struct job *j, char *err, size_t errlen)
{
	struct dd *d = calloc(1, sizeof(*d));

	if (d == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	j->wpriv = d;
	d->job.dd = &d->dd;
	return (d->job.counts = d->counts =
	               replay_dd_counts_new(err, errlen)) == NULL
	    ? -1
	    : 0;
}

static void
dd_close(struct job *j)
{
	struct dd *d = j->wpriv;

	if (d != NULL)
		replay_dd_counts_free(d->counts);
	free(d);
	j->wpriv = NULL;
}

/* A run that breaks off before its copy counted nothing. */
static void
dd_fill(struct job *j)
{
	struct dd *d = j->wpriv;

	d->dd = *j->o->dd;
	memset(d->counts, 0, sizeof(*d->counts));
	memset(&d->loss, 0, sizeof(d->loss));
}

static void
dd_around(struct job *j, int after)
{
	struct dd *d = j->wpriv;

	if (!after)
		sntp_lossage_begin(&d->loss, j->o->ntp, JOB_DD_NTP_TIMEOUT_NS);
	else
		sntp_lossage_end(&d->loss);
}

static void
dd_host(void *arg, struct replay_report *rep)
{
	replay_dd_copy(&((struct dd *)((struct job *)arg)->wpriv)->job, rep);
}

/* In the kernel's process: the destination is made in the run directory. */
static void
dd_netbsd(void *arg, struct replay_report *rep)
{
	const struct job *j = arg;
	struct dd *d = j->wpriv;
	char out[PATH_MAX];

	snprintf(out, sizeof(out), "%s/%s", j->rundir, JOB_DD_OUT);
	d->dd.out = out;
	replay_dd_copy_rump(&d->job, rep);
	d->dd.out = j->o->dd->out;
}

/* One transfer, as docs/json.md describes it: dd's operands. */
static json_t *
dd_json(const struct job *j, const uint64_t first[2])
{
	const struct replay_dd *dd = j->o->dd;

	(void)first;
	return json_pack("{s:s,s:s,s:I,s:o,s:I,s:I,s:b,s:b,s:b,s:s?}", "if",
	    dd->in, "of", dd->out, "bs_bytes", (json_int_t)dd->bs_bytes,
	    "count",
	    dd->have_count ? json_integer((json_int_t)dd->count) : json_null(),
	    "skip", (json_int_t)dd->skip, "seek", (json_int_t)dd->seek,
	    "iflag_direct", dd->idirect, "oflag_direct", dd->odirect,
	    "drop_caches", j->o->drop_caches, "ntp", j->o->ntp);
}

void
job_dd_last(const struct job *j, struct replay_dd_counts *counts,
    struct sntp_lossage *loss)
{
	const struct dd *d = j->wpriv;

	*counts = *d->counts;
	*loss = d->loss;
}

const struct job_workload job_dd = {
    .kind = "dd",
    .phase = "copy",
    .open = dd_open,
    .close = dd_close,
    .fill = dd_fill,
    .around = dd_around,
    .json = dd_json,
    .work = {[JOB_HOST] = dd_host, [JOB_NETBSD] = dd_netbsd},
};
