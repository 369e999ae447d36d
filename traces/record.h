/*
 * record.h - recording a command's file-system operations under a
 * directory into a workload trace (model/wtrace.h), the probe behind
 * `ubcreplay record`. It observes: the command runs as it would, under
 * ptrace, stopped only at the system calls that touch files (a seccomp
 * filter picks them, so that the others cost nothing), it and every child
 * and thread it makes.
 *
 *	struct record_stats st;
 *	if (record_run(argv, "/src", "work.trace.gz", &st, err, errlen) == -1)
 *		...	nothing was written; err says why
 *	exit status of the command: st.status (as waitpid gives it)
 *
 * What cannot be seen: stores through shared writable mappings (the mmap
 * itself is recorded, not which pages were written), I/O by io_uring or
 * AIO, and 32-bit system calls of a 64-bit system; see
 * docs/workload-trace.md.
 */
#ifndef UBC_RECORD_H
#define UBC_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct record_stats {
	int status;         /* the command's, as waitpid(2) gave it */
	uint64_t stops;     /* system calls the recorder stopped at */
	uint64_t records;   /* operations written to the trace */
	uint64_t processes; /* threads and processes seen */
	int64_t elapsed_ns; /* the command's, from fork to its exit */
};

/*
 * Runs argv (argv[0] looked up in PATH) and records what it and its
 * descendants do under dir into the trace at path (written whole or not at
 * all, gzip'd when it ends in .gz). -1 when the command could not be
 * started or traced, or the trace not written; the command's own failure
 * is st->status, not an error.
 */
int record_run(char *const argv[], const char *dir, const char *path,
    struct record_stats *st, char *err, size_t errlen);

#endif
