/*
 * runner.h - what the matrix runner of `ubcreplay vm` promises: the cells
 * of a matrix booted up to -j at once (on a seeded machine, a boot a run),
 * their results kept, the series and the gates judged over them, the looks
 * of -n MIN..MAX until every gate is decided, a --bisect over kernels, and
 * a --merge of a directory of one plan's results. It never prints or
 * exits: what happens on the way comes back through callbacks (struct
 * runner_report), the outcome as a value (enum runner_verdict), an error's
 * words in the runner's buffer.
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
 *	cells.c				the cells and their boots, over a
 *					cell runner; the results kept
 *	series.c  looks.c  vmcells.c	judging results by the gates; the
 *					looks planned; the cell runner of vm/
 */
#ifndef UBC_RUNNER_H
#define UBC_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../analysis/compare.h"
#include "../analysis/gate.h"
#include "../vm/vm.h"

#define RUNNER_MAX_LOOKS 32

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
	 * boots of one run each, on the seeds after its last, the same for
	 * every cell, so that the cells' runs pair up by seed.
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
 * runs each (0: the job's own), each result kept; on a seeded machine as
 * many boots of one run. -1 when one failed (each failure reported) or a
 * signal came (every cell stopped).
 */
int runner_cells(
    struct runner *r, const size_t *idx, size_t n, int runs, int jobs);
/* The runs cell i has had, in every boot. */
int runner_runs(const struct runner *r, size_t i);

/*
 * decide.c. The cells idx of a run that is not a bisection: once for the
 * job's runs, or until decided. -1 when a cell failed or a signal came.
 */
int runner_local(struct runner *r, const size_t *idx, size_t n);
/*
 * -n MIN..MAX: the cells idx booted again for the runs of each look, in
 * the matrix's order (A, B, A, B...: a change in the host's load falls on
 * both), until the gates are decided or the last look is judged; *v the
 * last look's verdict. -1 when a cell failed or a signal came.
 */
int runner_until_decided(
    struct runner *r, const size_t *idx, size_t n, enum runner_verdict *v);

/*
 * bisect.c. --bisect: over the cells, one a kernel, good first and bad
 * last, the first whose cell crosses the gates against the first cell.
 * The ends boot first (side by side when jobs allows), then the kernels
 * between, halving; each step is judged at each look in turn until one
 * decides.
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

#endif
