/*
 * workload_tar.c - an archive extracted (job_tar): read through before any
 * run (a missing file, or one that is not an archive, goes no further),
 * named fully (the child works inside the run directory), then extracted
 * in the phase "extract", on the host or in a NetBSD rump kernel.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "job.h"

struct tar {
	char archive[PATH_MAX]; /* absolute */
	struct replay_archive_info info;
	struct replay_tar_job job; /* this run's */
};

/* --timing paces a trace; an archive has no recorded times. */
static const char *
tar_refuse(const struct job_opts *o)
{
	static char why[PATH_MAX + 64];

	if (!o->timing)
		return NULL;
	snprintf(why, sizeof(why), "--timing: '%s' is not a workload trace",
	    o->archive);
	return why;
}

static int
tar_open(struct job *j, char *err, size_t errlen)
{
	struct tar *t = job_wpriv_new(j, sizeof(*t), err, errlen);

	return t == NULL ||
	        replay_archive_identify(j->o->archive, &t->info, err, errlen) ==
	            -1 ||
	        job_input_path(j, "archive", t->archive, err, errlen) == -1
	    ? -1
	    : 0;
}

static void
tar_fill(struct job *j)
{
	struct tar *t = j->wpriv;

	t->job = (struct replay_tar_job){.archive = t->archive,
	    .rundir = j->rundir,
	    .fsync = j->o->fsync,
	    .info = &t->info,
	    .progress = j->o->progress,
	    .run = j->run};
}

/* The archive's entries and bytes are what the first run extracted. */
static json_t *
tar_json(const struct job *j, const uint64_t first[2])
{
	const struct tar *t = j->wpriv;
	const struct job_opts *o = j->o;

	return json_pack("{s:s,s:s,s:s,s:I,s:I,s:s,s:b,s:b}", "archive",
	    o->archive, "format", t->info.format, "filter", t->info.filter,
	    "entries", (json_int_t)first[0], "bytes", (json_int_t)first[1],
	    "fsync", job_fsync_name(o->fsync), "drop_caches", o->drop_caches,
	    "keep", o->keep);
}

static void
tar_host(void *arg, struct replay_report *rep)
{
	replay_tar_extract(
	    &((struct tar *)((struct job *)arg)->wpriv)->job, rep);
}

static void
tar_netbsd(void *arg, struct replay_report *rep)
{
	replay_tar_extract_rump(
	    &((struct tar *)((struct job *)arg)->wpriv)->job, rep);
}

const struct job_workload job_tar = {
    .kind = "tar",
    .phase = "extract",
    .refuse = tar_refuse,
    .open = tar_open,
    .close = job_wpriv_free,
    .fill = tar_fill,
    .json = tar_json,
    .work = {[JOB_HOST] = tar_host, [JOB_NETBSD] = tar_netbsd},
};
