/*
 * run.c - one run of the main job: the target's fresh run directory, the
 * workload's set-up, then its phase, a sync (--fsync end) and a removal
 * (unless --keep), each measured between two marks of the probe. The marks
 * chain from the probe's opening to the end of the last run, so the runs
 * and what lay between them (kept in j->between) add up to everything the
 * devices did while the tool watched.
 */
#include <stdio.h>
#include <string.h>

#include "../model/stop.h"
#include "job.h"

static int64_t
tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

int
job_phase_result(struct probe *probe, const char *name,
    const struct replay_outcome *out, struct phase_result *p, char *err,
    size_t errlen)
{
	const struct rusage *ru = &out->ru;

	p->name = name;
	p->failed = out->report.failed;
	snprintf(p->error, sizeof(p->error), "%s", out->report.error);
	p->elapsed_ns = out->elapsed_ns;
	p->user_ns = tv_ns(&ru->ru_utime);
	p->sys_ns = tv_ns(&ru->ru_stime);
	p->maxrss_kib = ru->ru_maxrss;
	p->inblock = (uint64_t)ru->ru_inblock;
	p->oublock = (uint64_t)ru->ru_oublock;
	p->majflt = (uint64_t)ru->ru_majflt;
	p->minflt = (uint64_t)ru->ru_minflt;
	p->nswap = (uint64_t)ru->ru_nswap;
	p->nvcsw = (uint64_t)ru->ru_nvcsw;
	p->nivcsw = (uint64_t)ru->ru_nivcsw;
	p->entries = out->report.entries;
	p->bytes = out->report.bytes;
	p->app_ops = out->report.app_ops;
	p->app_bytes = out->report.app_bytes;
	p->app_size = out->report.app_size;
	p->app_unseen = out->report.app_unseen;
	if (result_phase_devices(p, probe->target->ndev) == -1) {
		snprintf(err, errlen, "cannot allocate the %s phase's devices",
		    name);
		return -1;
	}
	return probe_mark(probe, p->dev, err, errlen);
}

const char *
job_unsupported(
    const struct job_workload *wl, const struct job_target_ops *tops)
{
	static char why[128];

	if (wl->work[tops->fs] != NULL)
		return NULL;
	snprintf(why, sizeof(why), "a %s workload cannot run on a%s target",
	    wl->kind, tops->fs == JOB_NETBSD ? " NetBSD FFS" : "n ordinary");
	return why;
}

/*
 * A measured phase: the probe's trace names it, the mark ends it, and its
 * transfers go to attribution.
 */
static int
phase(struct job *j, const char *name, replay_fn fn, struct run_result *run,
    char *err, size_t errlen)
{
	struct phase_result *p = &run->phase[run->nphase++];
	struct replay_outcome out;
	char label[64];

	snprintf(label, sizeof(label), "run %d %s", j->run, name);
	probe_label(j->probe, label);
	/* A phase that could not be run is in its run as failed, and why. */
	if (j->tops->phase(j, fn, j, 1, &out, err, errlen) == -1) {
		p->name = name;
		p->failed = 1;
		snprintf(p->error, sizeof(p->error), "%s", err);
		return -1;
	}
	if (job_phase_result(j->probe, name, &out, p, err, errlen) == -1)
		return -1;
	job_attrib_phase(j, run);
	return 0;
}

/*
 * The workload's set-up: what the recorded command found in place, made
 * and synced before the run's first mark, so that none of it is counted.
 */
static int
setup(struct job *j, char *err, size_t errlen)
{
	replay_fn fn = j->wl->setup[j->tops->fs];
	struct replay_outcome out;

	if (fn == NULL)
		return 0;
	if (j->tops->phase(j, fn, j, 0, &out, err, errlen) == -1)
		return -1;
	if (!out.report.failed &&
	    j->tops->phase(j, j->tops->sync, j, 0, &out, err, errlen) == -1)
		return -1;
	if (out.report.failed) {
		snprintf(err, errlen, "%s", out.report.error);
		return -1;
	}
	return 0;
}

const char *
job_refused(const struct job *j)
{
	const char *why = job_unsupported(j->wl, j->tops);

	if (why == NULL && j->wl->refuse != NULL)
		why = j->wl->refuse(j->o);
	if (why == NULL && j->tops->refuse != NULL)
		why = j->tops->refuse(j->o);
	return why;
}

int
job_open(struct job *j, char *err, size_t errlen)
{
	if (j->wl->open != NULL && j->wl->open(j, err, errlen) == -1)
		return -1;
	return j->tops->open(j, err, errlen) == -1 ? -2 : 0;
}

void
job_close(struct job *j)
{
	if (j->tops != NULL)
		j->tops->close(j);
	if (j->wl != NULL && j->wl->close != NULL)
		j->wl->close(j);
}

int
job_run(struct job *j, int idx, struct run_result *run)
{
	char err[768];
	const char *what;
	struct devstats before[DEVSTATS_MAXDEV];
	struct phase_result *p;

	run->status = "failed";
	j->run = idx;
	j->warning[0] = '\0';
	j->kept = 0;
	j->go_on = 0;
	/* Filled first: a target's begin may fork what runs it. */
	if (j->wl->fill != NULL)
		j->wl->fill(j);
	/* The source may be in the host's cache, whatever the target. */
	if (j->o->drop_caches && replay_drop_caches(err, sizeof(err)) == -1)
		goto broken;
	if (j->tops->begin(j, err, sizeof(err)) == -1)
		goto broken;
	if (setup(j, err, sizeof(err)) == -1)
		goto cleanup;
	probe_label(j->probe, "between");
	if (probe_mark(j->probe, before, err, sizeof(err)) == -1)
		goto cleanup;
	for (size_t i = 0; i < j->probe->target->ndev; i++)
		devstats_add(&j->between[i], &before[i]);
	if (j->wl->around != NULL)
		j->wl->around(j, 0);

	if (phase(j, j->wl->phase, j->wl->work[j->tops->fs], run, err,
	        sizeof(err)) == -1)
		goto cleanup;
	p = &run->phase[run->nphase - 1];
	what = p->failed ? p->error : NULL;
	if (j->go_on)
		goto died;
	/* Someone else's doing explains the workload's failure best. */
	if (j->tops->check != NULL && j->tops->check(j, err, sizeof(err)) == -1)
		what = err;
	if (what == NULL && j->o->fsync == FSYNC_END) {
		if (phase(j, "sync", j->tops->sync, run, err, sizeof(err)) ==
		    -1)
			goto cleanup;
		p = &run->phase[run->nphase - 1];
		what = p->failed ? p->error : NULL;
		if (j->go_on)
			goto died;
	}
	if (j->wl->around != NULL)
		j->wl->around(j, 1);
	/* What the blocks hold, read while every file is still there. */
	if (what == NULL && job_attrib_read(j, run, err, sizeof(err)) == -1)
		goto cleanup;
	if (j->o->keep) {
		j->kept = 1;
	} else if (j->tops->remove != NULL) {
		if (phase(j, "remove", j->tops->remove, run, err,
		        sizeof(err)) == -1)
			goto cleanup;
		p = &run->phase[run->nphase - 1];
		if (j->go_on) {
			what = p->error;
			goto died;
		}
		if (p->failed && !j->scratch)
			snprintf(j->warning, sizeof(j->warning),
			    "run directory '%s' left behind: %s", j->rundir,
			    p->error);
		if (what == NULL && p->failed)
			what = p->error;
	}
	job_attrib_end(j, run);
	j->tops->end(j, 1);
	if (what != NULL) {
		snprintf(run->error, sizeof(run->error), "%s", what);
		return -1;
	}
	run->status = "ok";
	return 0;

	/*
	 * The target's kernel died in a phase, which says how: the run
	 * directory was in it, and the target's end says what is left.
	 */
died:
	j->kept = j->o->keep;
	job_attrib_end(j, run);
	j->tops->end(j, 0);
	snprintf(run->error, sizeof(run->error), "%s", what);
	return -1;

cleanup:
	job_attrib_end(j, run);
	j->tops->end(j, 0);
broken:
	if (stop_signal())
		run->status = "interrupted";
	snprintf(run->error, sizeof(run->error), "%s", err);
	return -1;
}
