/*
 * replay.h - what the replay module promises: workloads that cause I/O, each
 * run in a forked child so that its resource usage (wait4's rusage) is what
 * `time` would report for the same work, and the parent, which observes,
 * never pollutes it.
 *
 * A phase is one function run in one child: the parent waits for it, calling
 * a tick function every interval meanwhile (the probe's sampling), and
 * collects the elapsed time, the rusage and the child's report (what it did,
 * the sizes of the write() calls it made, or why it failed).
 *
 *	struct replay_outcome o;
 *	if (replay_child(replay_tar_extract, &job, interval_ns, tick, probe,
 *	    &o, err, sizeof(err)) == -1) ...	the child could not be run
 *	if (o.report.failed) ...		it ran, and failed:
 *o.report.error
 *
 * Nothing here prints (but the optional progress line on a terminal) or
 * exits, but for the child's own _exit.
 */
#ifndef UBC_REPLAY_H
#define UBC_REPLAY_H

#include <sys/resource.h>
#include <sys/types.h>

#include <signal.h>
#include <stdint.h>

#include "../analysis/hist.h"

/* What a child tells its parent when it is done. Fits in one pipe write. */
struct replay_report {
	int failed;
	char error[768];
	uint64_t entries; /* archive entries extracted, files copied */
	uint64_t bytes;   /* data bytes written */
	uint64_t app_ops; /* write() calls the workload made */
	uint64_t app_bytes;
	struct hist app_size; /* their sizes */
};

struct replay_outcome {
	int64_t elapsed_ns; /* monotonic, fork to the child's exit */
	struct rusage ru;   /* the child's, from wait4 */
	int status;         /* as wait4 returned it */
	struct replay_report report;
};

typedef void (*replay_fn)(void *arg, struct replay_report *rep);
typedef int (*replay_tick_fn)(void *ctx, char *err, size_t errlen);

/*
 * Runs fn(arg, report) in a child. While it runs, calls tick(ctx) every
 * interval_ns (no tick when tick is NULL). A child killed by a signal, or one
 * that exits without a report, is a failed report, not an error. Returns -1
 * when the child could not be run, when tick fails, or when the parent was
 * asked to stop (replay_stop_requested): then the child has been killed and
 * reaped.
 */
int replay_child(replay_fn fn, void *arg, int64_t interval_ns,
    replay_tick_fn tick, void *ctx, struct replay_outcome *out, char *err,
    size_t errlen);

/*
 * Signals that ask the tool to stop (SIGINT, SIGTERM, SIGHUP) are caught
 * into a flag by replay_catch_signals; replay_child then kills its child and
 * returns -1, and the caller cleans up. replay_stop_requested returns the
 * signal number, 0 while none came.
 */
void replay_catch_signals(void);
int replay_stop_requested(void);

/* Monotonic clock, nanoseconds. */
int64_t replay_now_ns(void);

/* The tar workload. */
enum replay_fsync { FSYNC_NONE, FSYNC_FILE, FSYNC_END };

struct replay_archive_info {
	char format[64];    /* libarchive's name of the format */
	char filter[64];    /* and of the compression */
	int64_t size_bytes; /* of the archive file, for the progress line */
};

/*
 * Opens the archive and reads its first header, without writing: finds a
 * missing file or one that is not an archive before any run begins. The
 * error names the archive and what was wrong. (Damage further in is found
 * by the first run, which then fails.)
 */
int replay_archive_identify(const char *archive,
    struct replay_archive_info *info, char *err, size_t errlen);

struct replay_tar_job {
	const char *archive;
	const char *rundir; /* exists, empty; the child extracts into it */
	enum replay_fsync fsync;
	const struct replay_archive_info *info; /* for the progress line */
	int progress; /* draw a progress line on stderr */
	int run;
};

/* replay_fn: extracts job->archive into job->rundir, securely. */
void replay_tar_extract(void *job, struct replay_report *rep);

/* replay_fn: syncs the filesystem that holds the path arg (syncfs). */
void replay_sync(void *path, struct replay_report *rep);

/*
 * replay_fn: removes the tree at the path arg, as `rm -rf` would, then syncs
 * its filesystem so that the removal's own writes are inside the phase.
 */
void replay_remove(void *path, struct replay_report *rep);
/* The same without the sync, for a run directory left by a failure. */
int replay_remove_tree(const char *path, char *err, size_t errlen);

/* Platform: sync one filesystem; sync and drop the page cache. */
int replay_syncfs(const char *path, char *err, size_t errlen);
int replay_drop_caches(char *err, size_t errlen);

#endif
