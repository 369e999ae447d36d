/*
 * workload.c - the kinds of workload, each a row: its phase's name, and the
 * functions that do it on each kind of target. A function takes the job and
 * hands the workload its own part of it (j->tar, j->wtrace, j->command),
 * filled for the run.
 */
#include "job.h"

static void
tar_host(void *arg, struct replay_report *rep)
{
	replay_tar_extract(&((struct job *)arg)->tar, rep);
}

static void
tar_netbsd(void *arg, struct replay_report *rep)
{
	replay_tar_extract_rump(&((struct job *)arg)->tar, rep);
}

static void
trace_setup_host(void *arg, struct replay_report *rep)
{
	replay_wtrace_setup(&((struct job *)arg)->wtrace, rep);
}

static void
trace_host(void *arg, struct replay_report *rep)
{
	replay_wtrace_run(&((struct job *)arg)->wtrace, rep);
}

/* The same in a NetBSD rump kernel: the trace's job says so. */
static void
trace_setup_netbsd(void *arg, struct replay_report *rep)
{
	struct replay_wtrace_job wj = ((struct job *)arg)->wtrace;

	wj.netbsd = 1;
	replay_wtrace_setup(&wj, rep);
}

static void
trace_netbsd(void *arg, struct replay_report *rep)
{
	struct replay_wtrace_job wj = ((struct job *)arg)->wtrace;

	wj.netbsd = 1;
	replay_wtrace_run(&wj, rep);
}

static void
command_host(void *arg, struct replay_report *rep)
{
	replay_command_run(&((struct job *)arg)->command, rep);
}

const struct job_workload job_tar = {
    .kind = "tar",
    .phase = "extract",
    .work = {[JOB_HOST] = tar_host, [JOB_NETBSD] = tar_netbsd},
};

const struct job_workload job_trace = {
    .kind = "trace",
    .phase = "replay",
    .setup = {[JOB_HOST] = trace_setup_host, [JOB_NETBSD] = trace_setup_netbsd},
    .work = {[JOB_HOST] = trace_host, [JOB_NETBSD] = trace_netbsd},
};

const struct job_workload job_command = {
    .kind = "command",
    .phase = "command",
    .work = {[JOB_HOST] = command_host},
};
