/*
 * record.c - `ubcreplay record [-q] [-o trace] [-C dir] -- command ...`:
 * runs the command and records the file-system operations it and its
 * children make under dir (the current directory by default) into a
 * workload trace (docs/workload-trace.md), which the main job replays as it
 * extracts an archive:
 *
 *	ubcreplay record -o co.trace.gz -C /src -- git checkout v2
 *	ubcreplay co.trace.gz /mnt
 *
 * The exit status is the command's (128 + the signal when one killed it),
 * so that record can stand in for the command in a script; a recording that
 * fails is 1 with its reason, a usage error 2.
 */
#include <sys/wait.h>

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../model/wtrace.h"
#include "../traces/record.h"

#define DEFAULT_TRACE "work.trace.gz"

/*
 * -d: the trace as text, a line per operation, for people and for tests
 * that check it against another instrument (strace):
 *	THREAD TIME_NS OP h=H h2=H2 flags=0xF off=O off2=O2 asked=A done=D
 *	    [path [path2]]
 */
static int
dump(const char *path)
{
	struct wtrace_rec r;
	struct wtrace t;
	char err[1024];
	int rv;

	if (wtrace_load(path, &t, err, sizeof(err)) == -1) {
		warnx("record: %s", err);
		return EXIT_FAILURE;
	}
	while ((rv = wtrace_next(&t, &r, err, sizeof(err))) == 1) {
		printf("%u %lld %s h=%llu h2=%llu flags=%#llx off=%llu "
		       "off2=%llu asked=%llu done=%lld",
		    r.thread, (long long)r.t_ns, wtrace_op_name(r.op),
		    (unsigned long long)r.h, (unsigned long long)r.h2,
		    (unsigned long long)r.flags, (unsigned long long)r.off,
		    (unsigned long long)r.off2, (unsigned long long)r.asked,
		    (long long)r.done);
		if (r.path[0] != '\0')
			printf(" %s", r.path);
		if (r.path2[0] != '\0')
			printf(" %s", r.path2);
		putchar('\n');
	}
	wtrace_free(&t);
	if (rv == -1) {
		warnx("record: %s", err);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

int
cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *out = DEFAULT_TRACE, *dir = ".";
	struct record_stats st;
	char err[1024];
	int c, quiet = 0;

	/* "+": the command's own options are its, after the first operand. */
	while (
	    (c = getopt_long(argc, argv, "+C:d:ho:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			return dump(optarg);
		case 'C':
			dir = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage_command(stdout, "record");
			return EXIT_SUCCESS;
		default:
			usage_command(stderr, "record");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		warnx("record: expected a command to run");
		usage_command(stderr, "record");
		return EXIT_USAGE;
	}
	if (record_run(argv + optind, dir, out, &st, err, sizeof(err)) == -1) {
		warnx("record: %s", err);
		return EXIT_FAILURE;
	}
	if (!quiet)
		fprintf(stderr,
		    "ubcreplay record: %llu operations of %llu threads and "
		    "processes in %.3f s (%llu system calls stopped at), "
		    "into '%s'\n",
		    (unsigned long long)st.records,
		    (unsigned long long)st.processes,
		    (double)st.elapsed_ns / 1e9, (unsigned long long)st.stops,
		    out);
	if (WIFSIGNALED(st.status))
		return 128 + WTERMSIG(st.status);
	return WEXITSTATUS(st.status);
}
