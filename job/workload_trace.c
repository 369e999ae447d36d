/*
 * workload_trace.c - a recorded workload trace replayed (job_trace): every
 * record checked before any run, what the recorded command found in place
 * made before each run's first mark (not measured), then the operations
 * in the phase "replay", on the host or in a NetBSD rump kernel (the
 * trace's job says which).
 */
#include <limits.h>
#include <stdio.h>

#include "job.h"

struct trace {
	char trace[PATH_MAX]; /* absolute */
	struct replay_wtrace_info info;
	struct replay_wtrace_job job; /* this run's */
};

static int
trace_open(struct job *j, char *err, size_t errlen)
{
	struct trace *t = job_wpriv_new(j, sizeof(*t), err, errlen);

	return t == NULL ||
	        replay_wtrace_identify(j->o->archive, &t->info, err, errlen) ==
	            -1 ||
	        job_input_path(j, "trace", t->trace, err, errlen) == -1
	    ? -1
	    : 0;
}

static void
trace_fill(struct job *j)
{
	struct trace *t = j->wpriv;

	t->job = (struct replay_wtrace_job){.trace = t->trace,
	    .rundir = j->rundir,
	    .info = &t->info,
	    .timing = j->o->timing,
	    .netbsd = j->tops->fs == JOB_NETBSD};
}

static json_t *
trace_json(const struct job *j, const uint64_t first[2])
{
	const struct trace *t = j->wpriv;
	const struct job_opts *o = j->o;

	return json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:s,s:b,s:b}",
	    "trace", o->archive, "format", "ubcreplay workload trace",
	    "operations", (json_int_t)t->info.ops, "threads",
	    (json_int_t)t->info.threads, "recorded_ns",
	    (json_int_t)t->info.duration_ns, "entries", (json_int_t)first[0],
	    "bytes", (json_int_t)first[1], "recorded_write_bytes",
	    (json_int_t)t->info.write_bytes, "timing", o->timing, "fsync",
	    job_fsync_name(o->fsync), "drop_caches", o->drop_caches, "keep",
	    o->keep);
}

/* The same for either target: the run's job says where it runs. */
static void
trace_setup(void *arg, struct replay_report *rep)
{
	replay_wtrace_setup(
	    &((struct trace *)((struct job *)arg)->wpriv)->job, rep);
}

static void
trace_run(void *arg, struct replay_report *rep)
{
	replay_wtrace_run(
	    &((struct trace *)((struct job *)arg)->wpriv)->job, rep);
}

const struct job_workload job_trace = {
    .kind = "trace",
    .phase = "replay",
    .open = trace_open,
    .close = job_wpriv_free,
    .fill = trace_fill,
    .json = trace_json,
    .setup = {[JOB_HOST] = trace_setup, [JOB_NETBSD] = trace_setup},
    .work = {[JOB_HOST] = trace_run, [JOB_NETBSD] = trace_run},
};
