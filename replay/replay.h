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
 *	if (o.report.failed) ...	it ran, and failed: o.report.error
 *
 * Nothing here prints (but the optional progress line on a terminal) or
 * exits, but for the child's own _exit.
 */
#ifndef UBC_REPLAY_H
#define UBC_REPLAY_H

#include <sys/resource.h>
#include <sys/types.h>

#include <stdint.h>

#include "../model/hist.h"

/* What a child tells its parent when it is done. Fits in one pipe write. */
struct replay_report {
	int failed;
	char error[768];
	uint64_t entries; /* archive entries extracted, files copied */
	uint64_t bytes;   /* data bytes written */
	uint64_t app_ops; /* write() calls the workload made */
	uint64_t app_bytes;
	struct hist app_size; /* their sizes */
	int app_unseen;       /* a command's calls: not seen, not zero */
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
 * asked to stop (stop_signal of model/stop.h, after the caller's stop_catch):
 * then the child has been killed, with its process group when it made one
 * (a command's), and reaped, and the caller cleans up. The child dies of the
 * stop signals, whatever the parent does with them.
 */
int replay_child(replay_fn fn, void *arg, int64_t interval_ns,
    replay_tick_fn tick, void *ctx, struct replay_outcome *out, char *err,
    size_t errlen);

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
/*
 * The same inside the NetBSD rump kernel this process booted (rump.h),
 * job->rundir a path in it: the same write() calls, in the same order.
 */
void replay_tar_extract_rump(void *job, struct replay_report *rep);

/* replay_fn: syncs the filesystem that holds the path arg (syncfs). */
void replay_sync(void *path, struct replay_report *rep);

/*
 * replay_fn: removes the tree at the path arg, as `rm -rf` would, then syncs
 * its filesystem so that the removal's own writes are inside the phase.
 */
void replay_remove(void *path, struct replay_report *rep);
/* The same without the sync, for a run directory left by a failure. */
int replay_remove_tree(const char *path, char *err, size_t errlen);
/*
 * The same for the entry name of directory fd atfd (path names it in
 * messages): reaches a run directory through descriptors held since it was
 * made, after its filesystem was lazily unmounted or its path moved. A tree
 * already gone is not an error.
 */
int replay_remove_tree_at(
    int atfd, const char *name, const char *path, char *err, size_t errlen);

/*
 * The trace workload (wtrace.c): a recorded command's file operations
 * (model/wtrace.h, `ubcreplay record`) done again in a run directory.
 *
 *	struct replay_wtrace_info info;
 *	if (replay_wtrace_identify(path, &info, err, errlen) == -1) ...
 *	job = {path, rundir, &info, timing};
 *	replay_child(replay_wtrace_setup, &job, ...)	not measured
 *	replay_child(replay_wtrace_run, &job, ...)	the workload
 */
struct replay_wtrace_info {
	uint64_t ops, threads, files; /* records, threads, handles */
	uint64_t write_ops, write_bytes;
	uint64_t max_io;     /* the largest transfer, for the buffer */
	int64_t duration_ns; /* of the recording */
};

/*
 * Reads the trace and checks every record (paths, handles, sizes,
 * symbolic links that would point out) before anything is written. The
 * error names the trace, the record and what was wrong.
 */
int replay_wtrace_identify(const char *path, struct replay_wtrace_info *info,
    char *err, size_t errlen);

struct replay_wtrace_job {
	const char *trace;  /* absolute */
	const char *rundir; /* exists, empty */
	const struct replay_wtrace_info *info;
	int timing; /* wait for each operation's recorded time */
	/*
	 * Done in the NetBSD rump kernel this process booted (rump.h), rundir
	 * a path in it, rather than on the host.
	 */
	int netbsd;
};

/* replay_fn: makes what the command found in place and did not make. */
void replay_wtrace_setup(void *job, struct replay_report *rep);
/*
 * replay_fn: the operations, each recorded thread's in a thread of its own,
 * in their recorded order where they depend on each other (wtrace_order.h).
 */
void replay_wtrace_run(void *job, struct replay_report *rep);

/*
 * The command workload (command.c): a program run with the run directory as
 * its working directory, its input /dev/null and its output on stderr. It
 * fails when the command cannot start, exits non-zero or is killed.
 */
struct replay_command_job {
	char *const *argv; /* argv[0] is looked up in PATH */
	const char *rundir;
};

/* replay_fn: runs the command and waits for it. */
void replay_command_run(void *job, struct replay_report *rep);

/*
 * Platform: the calling process is killed when its parent (pid parent)
 * dies, so that a phase's child killed on a stop takes its command with
 * it; where there is no such call, a command may outlive a stopped phase.
 */
int replay_die_with(pid_t parent);

/*
 * Platform: makes the calling process the parent of every orphan among its
 * descendants (a child subreaper), so that replay_kill_left finds what a
 * command left running, in its process group or not. -1 with errno where
 * that cannot be.
 */
int replay_adopt_orphans(void);

/*
 * Platform: kills and reaps every descendant of the calling process that is
 * still running, the descendants of those too; returns how many there were,
 * with the first one's name and pid in first ("sleep (pid 123)"). 0 where
 * the system offers no way to find them.
 */
size_t replay_kill_left(char *first, size_t firstlen);

/*
 * Platform: opens path under dirfd without leaving it, through ".." or a
 * symbolic link (openat2 RESOLVE_BENEATH, or a walk that follows none).
 */
int replay_open_beneath(int dirfd, const char *path, int flags, mode_t mode);

/*
 * copy.c: src copied to dst, a new file (never one already there), with
 * holes where src has holes or zeros; on failure dst is not left.
 */
int replay_copy_sparse(
    const char *src, const char *dst, char *err, size_t errlen);

/* Platform: sync one filesystem; sync and drop the page cache. */
int replay_syncfs(const char *path, char *err, size_t errlen);
/* The same through an open descriptor; path names it in messages. */
int replay_syncfs_fd(int fd, const char *path, char *err, size_t errlen);
int replay_drop_caches(char *err, size_t errlen);

/*
 * The dd workload: dd's operands and its copy, without conversions.
 *
 *	struct replay_dd dd;
 *	replay_dd_init(&dd);
 *	for (each "if=..." argument)
 *		if (replay_dd_operand(&dd, arg, err, sizeof(err)) == -1) ...
 *	if (replay_dd_check(&dd, err, sizeof(err)) == -1) ...	bad input
 *	job.dd = &dd;
 *	job.counts = replay_dd_counts_new(err, sizeof(err));
 *	replay_child(replay_dd_copy, &job, ...);
 *	fputs(replay_dd_closing(job.counts, buf, sizeof(buf)), stderr);
 */
struct replay_dd {
	const char *in, *out; /* if=, of= */
	uint64_t bs_bytes;    /* bs=, 512 when not given */
	uint64_t count;       /* count= blocks, when have_count */
	int have_count;
	uint64_t skip, seek;  /* blocks skipped in input, output */
	int idirect, odirect; /* iflag=direct, oflag=direct */
	/*
	 * of= is a file in a kernel's filesystem (ffs:IMAGE), made where
	 * the run puts it: replay_dd_check does not look at it.
	 */
	int out_kernel;
};

/* What the copy did, as dd counts it, in memory shared with the parent. */
struct replay_dd_counts {
	uint64_t full_in, partial_in;   /* records in */
	uint64_t full_out, partial_out; /* records out */
	uint64_t bytes_out;
	int64_t copy_ns; /* from opening the files to the last write */
};

struct replay_dd_job {
	const struct replay_dd *dd;
	struct replay_dd_counts *counts; /* replay_dd_counts_new */
};

void replay_dd_init(struct replay_dd *dd);

/*
 * A number with dd's suffixes: b (512), k, m, g (powers of 1024), upper or
 * lower case.
 */
int replay_dd_parse_size(
    const char *s, uint64_t *out, char *err, size_t errlen);

/*
 * One operand: if=, of=, bs=, count=, skip=, seek=, iflag=direct,
 * oflag=direct. Refuses unknown operands and bs=0. The paths are not
 * copied: arg must outlive dd.
 */
int replay_dd_operand(
    struct replay_dd *dd, const char *arg, char *err, size_t errlen);

/*
 * Refuses, before anything is written: a missing if= or of=, a block larger
 * than half of memory, a source that cannot be opened or is a directory, a
 * destination that is a directory, cannot be opened for writing or created,
 * or is the source itself.
 */
int replay_dd_check(const struct replay_dd *dd, char *err, size_t errlen);

struct replay_dd_counts *replay_dd_counts_new(char *err, size_t errlen);
void replay_dd_counts_free(struct replay_dd_counts *c);

/* replay_fn: the copy, on a struct replay_dd_job. */
void replay_dd_copy(void *job, struct replay_report *rep);

/*
 * replay_fn: the same copy, the source read on the host and written to
 * job->dd->out in the NetBSD rump kernel of this process (dd_rump.c).
 */
void replay_dd_copy_rump(void *job, struct replay_report *rep);

/*
 * dd's closing lines, as GNU dd prints them:
 *	2048+0 records in
 *	2048+0 records out
 *	1048576 bytes (1.0 MB, 1.0 MiB) copied, 0.00302 s, 347 MB/s
 */
const char *replay_dd_closing(
    const struct replay_dd_counts *c, char *buf, size_t len);

#endif
