/*
 * job.h - what the job module promises: the runs of the main job and of
 * the dd commands, on a target and with a workload that are each a row of
 * operations, so that a new kind of either is a new row (a file of its
 * own) and never a branch in every step of a run.
 *
 * A target is where the runs happen and what the probe watches: a host
 * directory and the block devices behind it (target_dir.c), a dd's two
 * ends on the host (target_ends.c), or an FFS image mounted in a NetBSD
 * rump kernel that lives in a child of its own for each run
 * (target_ffs.c). A workload is what a run does there: an archive
 * extracted (workload_tar.c), a recorded trace replayed (workload_trace.c),
 * a command run (workload_command.c), dd's copy (workload_dd.c). A run is
 * the workload's set-up (not measured), then its phase, a sync and a
 * removal, each measured between two probe marks.
 *
 *	struct job j = {.tops = &job_target_dir, .wl = &job_tar, .o = &opts};
 *	if ((why = job_refused(&j)) != NULL) ...	a usage error
 *	if (job_open(&j, err, sizeof(err)) != 0) ...	before any run
 *	for (i = 1; i <= runs; i++)
 *		if (job_run(&j, i, &run) == -1) ...	run.error says why
 *	job_close(&j);
 *
 * Nothing here prints, but the "kept in" line of --keep; the front end
 * says what failed.
 */
#ifndef UBC_JOB_H
#define UBC_JOB_H

#include <limits.h>

#include "../analysis/analysis.h"
#include "../model/layout.h"
#include "../replay/replay.h"
#include "../traces/sntp.h"
#include "../traces/traces.h"

/* The kinds of filesystem interface a workload is written against. */
enum job_fs { JOB_HOST, JOB_NETBSD, JOB_FS_KINDS };

struct job;
struct job_opts;

/* A kind of workload (workload_KIND.c: the row and its functions). */
struct job_workload {
	const char *kind;  /* the result's kind: "tar", "trace", "command" */
	const char *phase; /* its measured phase: "extract", "replay", ... */
	/*
	 * Whether the options suit the workload: NULL, or why not (a usage
	 * error: --timing for an archive). NULL: any options do.
	 */
	const char *(*refuse)(const struct job_opts *o);
	/*
	 * Before the target opens: the workload's input identified (read
	 * through: bad input goes no further) and its own state made into
	 * j->wpriv; -1 with why. close gives it back (j->wpriv may be NULL).
	 */
	int (*open)(struct job *j, char *err, size_t errlen);
	void (*close)(struct job *j);
	/* Before each run's begin: its state for the run, or NULL. */
	void (*fill)(struct job *j);
	/*
	 * Right after the run's first mark (after 0) and right after its
	 * last measured phase of work (after 1): what the workload takes
	 * around that part of the run (dd's clock lossage), or NULL.
	 */
	void (*around)(struct job *j, int after);
	/*
	 * The result's "workload" object, as docs/json.md describes it;
	 * first is what the first run's phase reported (entries, bytes).
	 */
	json_t *(*json)(const struct job *j, const uint64_t first[2]);
	/*
	 * What is made before the run's first mark, then synced, or NULL; and
	 * the work, for each kind of target (NULL: it cannot run there). Each
	 * takes the job (struct job *) as its argument.
	 */
	replay_fn setup[JOB_FS_KINDS];
	replay_fn work[JOB_FS_KINDS];
};

extern const struct job_workload job_tar, job_trace, job_command, job_dd;

/*
 * What the rows share (workload.c): their state of size bytes made into
 * j->wpriv (NULL with why), given back; "none", "file", "end".
 */
void *job_wpriv_new(struct job *j, size_t size, char *err, size_t errlen);
void job_wpriv_free(struct job *j);
const char *job_fsync_name(enum replay_fsync f);
/*
 * The input (o->archive, what it is: "archive") named fully into path, of
 * PATH_MAX bytes: the child works inside the run directory.
 */
int job_input_path(const struct job *j, const char *what, char *path, char *err,
    size_t errlen);

/*
 * The dd workload (workload_dd.c) copies o->dd (read at each run's start,
 * so a sweep may change its block size between runs) from the host's
 * o->source to o->dir, a file or device: on a host target, the ends
 * (job_target_ends); on an FFS image, a file "dd.out" made in the run
 * directory. After a run, what dd counted and the clock's lossage over
 * the copy and its sync (o->ntp).
 */
#define JOB_DD_OUT            "dd.out"
#define JOB_DD_NTP_TIMEOUT_NS 2000000000LL
void job_dd_last(const struct job *j, struct replay_dd_counts *counts,
    struct sntp_lossage *loss);

/* A kind of target. */
struct job_target_ops {
	const char *kind; /* "dir", "ffs", "ends" */
	enum job_fs fs;   /* which of a workload's functions it runs */
	/*
	 * Whether the options suit the target: NULL, or why not (a usage
	 * error: -O for a host directory). NULL: any options do.
	 */
	const char *(*refuse)(const struct job_opts *o);
	/*
	 * Its open failing is bad input, a usage error (an image NetBSD
	 * refuses), rather than a failure.
	 */
	int open_usage;
	/*
	 * Before the first run: the target resolved into j->tgt (what it is,
	 * its devices) and kept open, its probe opened into j->probe.
	 */
	int (*open)(struct job *j, char *err, size_t errlen);
	/*
	 * Before a run's first mark: what must hold (the target still
	 * there, nothing earlier left to write), and a fresh, empty run
	 * directory, named in j->rundir.
	 */
	int (*begin)(struct job *j, char *err, size_t errlen);
	/*
	 * Runs fn(arg) as a phase (in a child of its own, or in the target's
	 * kernel), the probe ticking meanwhile when tick is set. -1 when it
	 * could not be run, or the job was asked to stop.
	 */
	int (*phase)(struct job *j, replay_fn fn, void *arg, int tick,
	    struct replay_outcome *out, char *err, size_t errlen);
	/*
	 * The sync and remove phases' work (arg: the job); remove NULL: the
	 * target has nothing of the run's to remove (a dd's destination).
	 */
	replay_fn sync, remove;
	/*
	 * After the sync, before the removal: what the filesystem's blocks
	 * hold now (model/layout.h), into l; -1 with the reason where it
	 * cannot be told. NULL: this target cannot tell.
	 */
	int (*layout)(
	    struct job *j, struct layout *l, char *err, size_t errlen);
	/*
	 * After the work: why the run directory is not as it was, or 0;
	 * NULL: nothing can have moved it.
	 */
	int (*check)(struct job *j, char *err, size_t errlen);
	/*
	 * The run is over: the run directory no longer held, and removed when
	 * done is 0 (the run broke off) and --keep is not asked, with a line
	 * in j->warning when it could not be; whatever the target holds for a
	 * run let go.
	 */
	void (*end)(struct job *j, int done);
	/*
	 * After a run and its end, what the target adds to it (an NFS
	 * mount's: the client's counters, the wire's share); last when no
	 * run follows. -1 with why when the job must fail; a line in
	 * j->warning for what is only left out. NULL: nothing.
	 */
	int (*took)(struct job *j, int last, struct run_result *run, char *err,
	    size_t errlen);
	void (*close)(struct job *j);
};

/*
 * job_target_ends: a dd's two ends on the host, the source (o->source) and
 * the destination (o->dir), files or devices, with the probe on the
 * devices of both (each once, the source's first); no run directory.
 */
extern const struct job_target_ops job_target_dir, job_target_ffs,
    job_target_ends;

/*
 * What the host's targets refuse (target_ffs.c): the first option given
 * that only an ffs:IMAGE target takes (its kernel's: -O, --rump,
 * --rump-mem), as "-O is for WHERE"; NULL when none is.
 */
const char *job_ffs_refused(const struct job_opts *o, const char *where);

/*
 * A host target's phase (target_dir.c): fn(arg) in a child of its own,
 * the probe ticking meanwhile when ticking is set.
 */
int job_child_phase(struct job *j, replay_fn fn, void *arg, int ticking,
    struct replay_outcome *out, char *err, size_t errlen);

/* What the job is asked to do. */
struct job_opts {
	const char *dir;     /* the target as given */
	const char *archive; /* the archive or trace as given, or NULL */
	char *const *command;
	enum replay_fsync fsync;
	int drop_caches;
	int keep;
	int timing;
	int progress; /* draw the extraction's progress line */
	int64_t interval_ns;
	const char *probe; /* "auto", "exact", "interval", "none" */
	size_t nwatch;     /* --watch-dev */
	const char *const *watch;
	const char *nfs_iface; /* capture an NFS target's traffic there */
	/* A dd: its operands, its source, the NTP server for its lossage. */
	const struct replay_dd *dd;
	const char *source;
	const char *ntp;
	/* An FFS target: the image, its NetBSD mount options, the build. */
	const char *image;
	const char *mount_opts;
	const char *rump_dir;
	uint64_t rump_mem_bytes; /* its kernels' memory ceiling, or 0 */
	int attrib; /* split the exact view's transfers by what they held */
};

/*
 * Attribution over a run (attrib.c): the phases' transfers, held until the
 * layout is read.
 */
struct job_attrib {
	int asked;     /* the phases get an attribution, or why not */
	int kept;      /* the probe keeps the transfers' places */
	int read;      /* this run's layout is read */
	size_t dev;    /* the filesystem's device among the target's */
	char why[256]; /* why no phase is attributed, when not kept */
	struct layout layout;
	struct blkev_xfers held[RESULT_MAXPHASE];
};

struct job {
	const struct job_target_ops *tops;
	const struct job_workload *wl;
	const struct job_opts *o;
	struct target tgt;
	const struct target *t; /* the result's targets, once open: &tgt */
	size_t nt;              /* how many: 1, 2 for a dd's ends */
	struct probe *probe;
	int run;                                  /* the run going on, from 1 */
	char rundir[PATH_MAX];                    /* as the workload names it */
	struct devstats between[DEVSTATS_MAXDEV]; /* outside the runs */
	/* After a run: what the front end should say of it, or "". */
	char warning[1024];
	int kept; /* its run directory was kept (--keep), at j->where */
	/*
	 * Set by the target's open: each run's directory lives in a copy
	 * that goes with the run (an FFS image's), so a removal that fails
	 * leaves nothing behind on the host.
	 */
	int scratch;
	/*
	 * The run failed in the target's own kernel, which died (a NetBSD
	 * panic, a signal): the run directory went with it, so no sync or
	 * removal follows, and the next run, in a fresh kernel, may go on.
	 */
	int go_on;
	/*
	 * What the target adds to the result's top level, its keys last
	 * (an FFS image's "netbsd": the kernel's build), or NULL.
	 */
	json_t *adds;
	/* What the default label adds: the kernel's tree and commit, or "". */
	char label[256];
	char where[PATH_MAX + 64]; /* the run directory, for people */
	void *tpriv;               /* the target's own */
	void *wpriv;               /* the workload's own */
	struct job_attrib attrib;
};

/*
 * Whether the workload can run on the target: NULL, or why not (a command
 * cannot run inside a NetBSD kernel).
 */
const char *job_unsupported(
    const struct job_workload *wl, const struct job_target_ops *tops);

/*
 * Attribution: job_attrib_open once the target and its probe are open;
 * job_attrib_phase after each phase's mark; job_attrib_read after the sync
 * (it marks the probe: what the reading did is j->between's);
 * job_attrib_end when the run is over. Each phase of a run gets its
 * phase_attrib, attributed or saying why not, when attribution was asked.
 */
void job_attrib_open(struct job *j);
void job_attrib_phase(struct job *j, struct run_result *run);
int job_attrib_read(
    struct job *j, struct run_result *run, char *err, size_t errlen);
void job_attrib_end(struct job *j, struct run_result *run);

/*
 * Whether the workload and the target can go together with these
 * options: NULL, or why not (a usage error), asked of each row.
 */
const char *job_refused(const struct job *j);

/*
 * Before the first run: the workload's input and state, then the target
 * and its probe. -1 when the workload's input is bad, -2 when the target
 * cannot be opened (its row's open_usage says what kind of failure that
 * is), with why; job_close then gives back what was taken.
 */
int job_open(struct job *j, char *err, size_t errlen);
void job_close(struct job *j);

/*
 * One run: fills run's phases and status; -1 when it failed or was
 * stopped (run->error says why), 0 when it is ok.
 */
int job_run(struct job *j, int idx, struct run_result *run);

/*
 * A phase's outcome into p: its times, rusage and the workload's report,
 * then the probe's mark (what the devices did since the previous one).
 */
int job_phase_result(struct probe *probe, const char *name,
    const struct replay_outcome *out, struct phase_result *p, char *err,
    size_t errlen);

#endif
