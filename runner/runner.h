/*
 * runner.h - what the matrix runner of `ubcreplay vm` promises: the cells
 * of a matrix booted up to -j at once (on a seeded machine, boots of a few
 * runs side by side), their results kept, the series and the gates judged
 * over them, the looks of -n MIN..MAX until every gate is decided, a
 * --bisect over kernels, and a --merge of a directory of one plan's
 * results. It never prints or exits: what happens on the way comes back
 * through callbacks (struct runner_report), the outcome as a value (enum
 * runner_verdict), an error's words in the runner's buffer.
 *
 * A cell is booted through a cell runner, a row of operations (struct
 * runner_cell_ops): runner_vm_cells boots QEMU or UML guests through vm/; the
 * unit tests give one that hands back canned results at once.
 *
 *	struct runner r = {.ncell = n, .name = names, .cells = &runner_vm_cells,
 *	    .cells_ctx = &vm, .report = &rep, .jobs = 1, .runs = 4, ...};
 *	if (runner_open(&r) == -1) ...		out of memory
 *	runner_local(&r, idx, n);		once, or until decided
 *	runner_until_decided(&r, idx, n, &v);	the looks of -n MIN..MAX
 *	runner_bisect(&r, &b);			--bisect
 *	runner_series(r.doc, r.name, r.ncell, &r.judge, &s, err, len);
 *	runner_close(&r);
 *
 * Its files are layered, and a file calls only files of the layers below
 * its own, never one beside it (contrib/arrows.py checks it in make lint):
 *
 *	decide.c  bisect.c  merge.c	the looks, a bisection, a merge
 *	cells.c				the cells and their boots, in rounds,
 *					over a cell runner; the results kept
 *	series.c  looks.c  vmcells.c	judging results by the gates; the
 *	prepare.c  write.c		looks planned; the cell runner of
 *					vm/; the checks before any boot;
 *					the results written
 */
#ifndef UBC_RUNNER_H
#define UBC_RUNNER_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../analysis/compare.h"
#include "../analysis/gate.h"
#include "../vm/vm.h"

#define RUNNER_MAX_LOOKS 32
/*
 * The most runs a QEMU cell runs in one boot, unless --boot-runs says
 * otherwise: its runs go in rounds of at most so many, the cells in turn
 * (docs/vm-machine.md, "Rounds"). A boot can shift its runs as a whole
 * on a busy host; one run a boot makes each run a boot of its own.
 */
#define RUNNER_ROUND_RUNS     3
#define RUNNER_MAX_ROUND_RUNS 20

/*
 * What a series or a run of looks says of the gates. The values are
 * compare's exit statuses, but callers map them by name.
 */
enum runner_verdict {
	RUNNER_PASS = 0,      /* every gate passed, or there are none */
	RUNNER_FAIL = 1,      /* a gate failed */
	RUNNER_ERROR = 2,     /* the gates cannot be judged (err says why) */
	RUNNER_UNDECIDED = 3, /* a gate undecided, none failed */
};

/* The gates and how they are judged: compare's, by rule, at level. */
struct runner_judge {
	const struct cmp_gate *gate;
	size_t ngate;
	int rule;     /* enum gate_rule */
	double level; /* the intervals' */
};

/*
 * series.c. The comparison of the results in docs (NULL ones left out),
 * named by names, and the gates judged on it. s, when not NULL, keeps the
 * comparison and the verdicts for the caller to print (runner_series_free);
 * its comparison is there also when only the gates could not be judged.
 */
struct runner_series {
	struct cmp *c;          /* NULL when the results cannot be compared */
	struct gate_verdict *v; /* the first gate's on each result, then ... */
	size_t nv;
	enum runner_verdict verdict;
};

enum runner_verdict runner_series(json_t *const *docs, const char *const *names,
    size_t n, const struct runner_judge *j, struct runner_series *s, char *err,
    size_t errlen);
/* The first gate's verdict on the last result; zeroed without gates. */
void runner_series_change(
    const struct runner_series *s, struct gate_verdict *change);
void runner_series_free(struct runner_series *s);

/*
 * looks.c. -n MIN..MAX: the looks, MIN runs, then half as many again each
 * time (at least one more) up to MAX, at most RUNNER_MAX_LOOKS; each judges
 * at 1 - 0.05 / looks, so that over all of them a wrong outcome stays
 * below 2.5% (docs/compare.md, "Runs until decided"). The level.
 */
double runner_looks(int min, int max, int *look, int *nlook);

/*
 * What happens to a cell on the way, as it happens: KVM could not run it
 * and it starts again under TCG; it ended with a result (under accel, in
 * guest_ns, boot_ns of them to the job); it failed (why).
 */
enum runner_event_kind {
	RUNNER_CELL_RETRY,
	RUNNER_CELL_DONE,
	RUNNER_CELL_FAILED
};

struct runner_event {
	enum runner_event_kind kind;
	size_t cell;
	const char *accel;
	int64_t guest_ns, boot_ns;
	const char *why;
};

/* A step of a bisection: the ends booted, the last kernel, a kernel between. */
enum runner_step_kind { RUNNER_STEP_ENDS, RUNNER_STEP_LAST, RUNNER_STEP_MID };

struct runner_step {
	enum runner_step_kind kind;
	int n;       /* RUNNER_STEP_MID: 1, 2, ... */
	size_t cell; /* the kernel judged against the first */
	enum runner_verdict v;
	const struct gate_verdict *gv; /* the first gate's */
};

/* The callbacks, each may be NULL; ctx is the runner's report_ctx. */
struct runner_report {
	void (*cell)(void *ctx, const struct runner_event *e);
	/* Look j (from 0) of nlook judged, at runs a cell; why when ERROR. */
	void (*look)(void *ctx, int j, int nlook, int runs,
	    enum runner_verdict v, const char *why);
	void (*step)(void *ctx, const struct runner_step *s);
};

/*
 * A cell runner: how a cell is booted for some runs and its result brought
 * back. Handles are the runner's own; nothing here waits but nap.
 */
struct runner_cell_ops {
	/*
	 * Whether cell i runs on a seeded machine (UML): its runs are then
	 * boots of seeded_runs runs at most, each on the seed after its
	 * last run's, the same for every cell, so that the cells' runs pair
	 * up by seed and place in the boot; the boots of one cell may run
	 * side by side, so start must not let two boots of cell i share
	 * anything but what they only read.
	 */
	int (*seeded)(void *ctx, size_t i);
	/*
	 * Cell i started for runs runs (0: the job's own), on seed (-1: as
	 * it was made); its handle, or NULL with err saying why.
	 */
	void *(*start)(void *ctx, size_t i, int runs, long long seed, char *err,
	    size_t errlen);
	/*
	 * One look at a started cell, parallel the most cells under way at
	 * once while it was: 1 while under way, 0 when it ended with its
	 * result in *doc, -1 when it failed (err says why).
	 */
	int (*poll)(void *ctx, void *h, int parallel, json_t **doc, char *err,
	    size_t errlen);
	/* The cell ended: its guest killed and reaped, its files removed. */
	void (*stop)(void *ctx, void *h);
	/* Between two rounds of polls. */
	void (*nap)(void *ctx);
};

/*
 * vmcells.c: the cell runner of vm/'s cells, conf[i] the cell i; each boot
 * sets the job's -n word, runs_arg (16 bytes). A result gets its cell's
 * machine, tag[i], after its label when tag[i] is not "". Retries and ends
 * go to report.
 */
struct runner_vm {
	struct vm_cell_conf *conf;
	char *runs_arg;
	const char *const *tag;
	const struct runner_report *report;
	void *report_ctx;
};

extern const struct runner_cell_ops runner_vm_cells;

/* The run: set by the caller, then the results, kept by the runner. */
struct runner {
	size_t ncell;
	const char *const *name; /* each cell's, in the series it judges */
	const struct runner_cell_ops *cells;
	void *cells_ctx;
	const struct runner_report *report;
	void *report_ctx;
	int jobs; /* cells booted at once */
	int runs; /* the runs a cell is to have: -n */
	/*
	 * The most runs a boot (RUNNER_ROUND_RUNS), on a machine that is not
	 * seeded: a cell's runs go in rounds of as many as even as can be,
	 * every cell once a round, the order reversed each round; 0 for one
	 * boot a cell, the cells one after the other.
	 */
	int round_runs;
	/*
	 * The most runs a boot on a seeded machine (1: a boot a run), each
	 * boot on the seed after its cell's last run's.
	 */
	int seeded_runs;
	int round;    /* the rounds run so far, kept by the runner */
	size_t nturn; /* the most cells booted in turn in a round */
	/*
	 * The job has runs of its own (a job after --): a boot runs them
	 * whatever is asked, and a cell boots again only for a bisection
	 * step that has fewer runs than runs.
	 */
	int own;
	long long seed; /* a seeded machine's first */
	int nlook;      /* -n MIN..MAX's looks; 0 for a fixed -n */
	const int *look;
	struct runner_judge judge;
	/*
	 * Each cell's result, or NULL: its first boot's, with the later
	 * boots' in its "boots", as compare reads them.
	 */
	json_t **doc;
	char err[2048]; /* why the last call said RUNNER_ERROR, or "" */
};

/* r->doc made for r->ncell cells; -1 when memory runs out. */
int runner_open(struct runner *r);
/* The results freed. */
void runner_close(struct runner *r);

/*
 * cells.c. The cells idx (n of them) booted, up to jobs at once, for runs
 * runs each (0: the job's own), each result kept: in rounds of at most
 * round_runs runs a boot, each round every cell in turn, in idx's order
 * one round and the reverse the next (A B, B A, ...); on a seeded machine
 * boots of at most seeded_runs runs, every boot of every cell up to jobs
 * at once. -1 when one
 * failed (each failure reported) or a signal came (every cell stopped).
 */
int runner_cells(
    struct runner *r, const size_t *idx, size_t n, int runs, int jobs);
/* The same, cell idx[k]'s results kept in *into[k] instead of its doc. */
int runner_cells_into(struct runner *r, const size_t *idx, json_t **const *into,
    size_t n, int runs, int jobs);
/* The runs cell i has had, in every boot; a result's (NULL: 0). */
int runner_runs(const struct runner *r, size_t i);
int runner_doc_runs(const json_t *doc);

/*
 * decide.c. The cells idx of a run that is not a bisection: once for the
 * job's runs, or until decided. -1 when a cell failed or a signal came.
 */
int runner_local(struct runner *r, const size_t *idx, size_t n);
/*
 * -n MIN..MAX: the cells idx booted again for the runs of each look, in
 * rounds (A B, B A...: a change in the host's load falls on both), until
 * the gates are decided or the last look is judged; *v the
 * last look's verdict. -1 when a cell failed or a signal came.
 */
int runner_until_decided(
    struct runner *r, const size_t *idx, size_t n, enum runner_verdict *v);

/*
 * bisect.c. --bisect: over the cells, one a kernel, good first and bad
 * last, the first whose cell crosses the gates against the first cell.
 * The ends boot first (side by side when jobs allows), then the kernels
 * between, halving, each beside the first booted again in the same
 * rounds and judged against those runs of it; each step is judged at
 * each look in turn until one decides.
 */
enum runner_bisection {
	RUNNER_BISECT_FOUND,     /* bad is the first bad cell, after good */
	RUNNER_BISECT_NOTHING,   /* the last cell passes: nothing to bisect */
	RUNNER_BISECT_UNDECIDED, /* cell at cannot be called good or bad */
	RUNNER_BISECT_ERROR,     /* a cell failed, or err says why */
};

struct runner_bisect_end {
	size_t good, bad, at;
	struct gate_verdict gv; /* at's first gate's verdict */
};

enum runner_bisection runner_bisect(
    struct runner *r, struct runner_bisect_end *end);

/*
 * merge.c. --merge DIR: the results in dir, one plan's each cell once
 * (expect's, when not NULL: vm_plan_load), and the series over them,
 * judged as a local run judges its own when there are two or more.
 * RUNNER_ERROR with err saying why when they cannot be read or judged.
 */
struct runner_merged {
	json_t **docs;
	char **names;
	size_t n;
	struct runner_series s; /* zeroed with fewer than two results */
};

enum runner_verdict runner_merge(const char *dir, const char *expect,
    const struct runner_judge *j, struct runner_merged *m, char *err,
    size_t errlen);
void runner_merged_free(struct runner_merged *m);

/*
 * prepare.c. What is checked before any guest boots, of a matrix of
 * kernel[0 .. nkernel-1] by fstype[0 .. nfstype-1]: this program's file,
 * the archive (NULL: a job after --), the filesystems' tools, the kernels
 * and each one's modules for each filesystem (and the NFS server's), QEMU
 * and the directory its disks go to when a guest is to boot (boots).
 */
struct runner_inputs {
	const char *const *kernel;
	size_t nkernel;
	const char *modules; /* --modules, or NULL */
	const char *const *fstype;
	size_t nfstype;
	const char *archive;
	const char *nfs_server; /* or NULL */
	uint64_t size_bytes;    /* the disk's */
	int boots;              /* 0 for --plan and --merge */
};

/* What the checks found; k and mods the caller's (nkernel, by nfstype). */
struct runner_prepared {
	char exe[PATH_MAX], exe_sha256[65];
	char archive[PATH_MAX], archive_sha256[65];
	char qemu[32]; /* QEMU's version, or "" */
	struct vm_kernel *k;
	struct vm_modset *mods; /* mods[kernel * nfstype + fstype] */
};

/* Which check failed (err says why), or RUNNER_CHECKED. */
enum runner_check {
	RUNNER_CHECKED,
	RUNNER_CHECK_SELF,    /* this program's own file */
	RUNNER_CHECK_ARCHIVE, /* unreadable, a bad trace, too big a disk */
	RUNNER_CHECK_FS,      /* no mkfs for a filesystem */
	RUNNER_CHECK_KERNEL,  /* a kernel, or a module it needs */
	RUNNER_CHECK_QEMU,    /* a QEMU kernel, and no QEMU */
	RUNNER_CHECK_TMPDIR,  /* QEMU's disks cannot go there (O_DIRECT) */
	RUNNER_CHECK_CELL,    /* a cell's machine or its vm.conf */
};

enum runner_check runner_prepare(const struct runner_inputs *in,
    struct runner_prepared *p, char *err, size_t errlen);
/* Each cell's configuration, as vm_cell_check checks it. */
enum runner_check runner_check_cells(
    const struct vm_cell_conf *conf, size_t n, char *err, size_t errlen);

/*
 * write.c. The results kept written, into outdir (made if need be) or a
 * fresh directory, dir then naming it (fresh set). A result is named
 * KERNEL-FS.json after its cell's kernel and filesystem (runner_fsname),
 * with its machine's knobs that vary (KERNEL-FS-2cpu-icount-4.json), as in
 * a run of the whole plan whichever cells ran here; names[i] gets cell i's
 * path. Each is stamped with its plan (vm.plan), the design of its runs
 * (vm.design, runner_design_json), and, when judged, how r judged it
 * (vm.judged).
 */
struct runner_output {
	const char *outdir;
	const struct vm_cell_conf *conf;
	const struct cmp_machine *machine; /* cell i's is machine[i % n] */
	size_t nmachine;
	unsigned varying; /* CMP_M_*: the knobs a name carries */
	const struct vm_plan *plan;
	int judged; /* this run judged gates: not a plan's --cell */
	char dir[PATH_MAX / 2];
	int fresh;
	char (*names)[PATH_MAX];
};

enum runner_written {
	RUNNER_WROTE,
	RUNNER_WROTE_NOTHING, /* no cell has a result: no directory either */
	RUNNER_WRITE_FAILED,  /* err says why */
};

enum runner_written runner_write(
    const struct runner *r, struct runner_output *o, char *err, size_t errlen);
/* A cell's name after its kernel: the disk's filesystem, raw, or nfs. */
const char *runner_fsname(const struct vm_cell_conf *c);
/*
 * vm.design of cell i's result (docs/json.md): its rounds, the most runs
 * in one, their order, and the cells booted in turn.
 */
json_t *runner_design_json(const struct runner *r, size_t i);

#endif
