/*
 * workload_command.c - a command run in the run directory (job_command),
 * in the phase "command": the same runs, probes and result for any
 * program. It runs on the host only: a NetBSD kernel runs no program.
 */
#include <stdio.h>

#include "job.h"

struct command {
	struct replay_command_job job; /* this run's */
};

/* What paces a trace or syncs an archive's files says nothing here. */
static const char *
command_refuse(const struct job_opts *o)
{
	if (o->timing || o->fsync == FSYNC_FILE)
		return o->timing ? "--timing is for a workload trace or an "
		                   "archive, not a command"
		                 : "--fsync file is for a workload trace or an "
		                   "archive, not a command";
	return NULL;
}

static int
command_open(struct job *j, char *err, size_t errlen)
{
	return job_wpriv_new(j, sizeof(struct command), err, errlen) == NULL
	    ? -1
	    : 0;
}

static void
command_fill(struct job *j)
{
	struct command *c = j->wpriv;

	c->job = (struct replay_command_job){
	    .argv = j->o->command, .rundir = j->rundir};
}

static json_t *
command_json(const struct job *j, const uint64_t first[2])
{
	const struct job_opts *o = j->o;
	json_t *argv = json_array();

	(void)first;
	for (char *const *a = o->command; *a != NULL; a++)
		json_array_append_new(argv, json_string(*a));
	return json_pack("{s:o,s:s,s:b,s:b}", "command", argv, "fsync",
	    job_fsync_name(o->fsync), "drop_caches", o->drop_caches, "keep",
	    o->keep);
}

static void
command_host(void *arg, struct replay_report *rep)
{
	replay_command_run(
	    &((struct command *)((struct job *)arg)->wpriv)->job, rep);
}

const struct job_workload job_command = {
    .kind = "command",
    .phase = "command",
    .refuse = command_refuse,
    .open = command_open,
    .close = job_wpriv_free,
    .fill = command_fill,
    .json = command_json,
    .work = {[JOB_HOST] = command_host},
};
