/*
 * compare.h - what `ubcreplay compare` promises: results read back from
 * their JSON, reduced to one value per run for every metric, and compared
 * with the first result (the baseline): the change, whether it is more than
 * run-to-run noise, and whether it crosses a CI gate's threshold.
 *
 * Metrics are named as --fail-if names them (docs/compare.md):
 *
 *	elapsed, user, sys		the job's phases (all but remove)
 *	extract.elapsed, sync.sys, ...	one phase
 *	write.ops, write.bytes, write.mean_bytes, read.*, flushes, discards
 *					the filesystem's device(s), whole run
 *	extract.write.mean_bytes, ...	the same over one phase
 *	app.write.ops, app.write.bytes, app.write.mean_bytes
 *					the workload's own write() calls
 *	nfs.write.calls, nfs.write.bytes, nfs.write.mean_bytes, nfs.read.*,
 *	nfs.commit.calls, nfs.rpc_calls	NFS on the wire (kind "nfs")
 *
 * and the transfer-size histograms by layer: "app.write", "write", "read",
 * "nfs.write", "nfs.read".
 *
 * The times (the metrics in nanoseconds) are compared only between results
 * measured alike: a result from a guest (`ubcreplay vm`, its "vm" object)
 * says which accelerator ran it, and times emulated by TCG, times from
 * different accelerators (the host is "none") or from guests run side by
 * side are not comparable. Sizes and counts come from the guest kernel's
 * own logic and stay comparable.
 *
 *	struct cmp_result *r[2];
 *	struct cmp *c;
 *
 *	r[0] = cmp_result_load("a.json", err, sizeof(err));	checked
 *	r[1] = cmp_result_load("b.json", err, sizeof(err));
 *	c = cmp_new(r, 2, &opts, err, sizeof(err));		tests run here
 *	cmp_report_text(c, stdout, 0, 80);		80 columns wide
 *	n = gate_judge(c, gate, ngate, rule, v, nv, err, len);  gate.h
 *	cmp_free(c);					frees the results too
 *
 * Nothing here exits; the only printing is the rendering to a caller's
 * FILE. Errors come back as -1 or NULL with the message in err.
 */
#ifndef UBC_COMPARE_H
#define UBC_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "../model/hist.h"
#include "stats.h"

enum cmp_unit { CMP_NS, CMP_COUNT, CMP_BYTES };

/* One metric of one result: a value per successful run that had it. */
struct cmp_series {
	char name[64];
	enum cmp_unit unit;
	int detail; /* shown only with --all */
	size_t n;
	double *v;
	/*
	 * Per value, the run's place on a seeded machine: its boot's seed
	 * ("vm" "seed") and its index in that boot, as seed * 4096 + index;
	 * -1 for a run without a seed. Runs of two results with the same
	 * keys ran on the same seeds, and are compared as pairs.
	 */
	int64_t *key;
};

enum {
	CMP_LAYER_APP,
	CMP_LAYER_WRITE,
	CMP_LAYER_READ,
	CMP_LAYER_NFS_WRITE,
	CMP_LAYER_NFS_READ,
	CMP_NLAYER
};

/* "app.write", "write", "read", "nfs.write", "nfs.read". */
const char *cmp_layer_name(int layer);

/*
 * The guest's machine, as far as it moves the sizes (docs/vm-machine.md):
 * its kind (uml: User Mode Linux on simulated time, else a QEMU guest),
 * vCPUs, memory, virtio-blk queues, the clock (icount_shift -1: the
 * host's real time, else QEMU's instruction count, 2^shift ns each), and
 * a UML guest's disk (virtio: vm's own virtio-blk disk, else ubd). On the
 * virtio disk also its model's values (model: their hash, 0 on ubd) and
 * the CPU scheduler's features the guest set ("" none).
 */
struct cmp_machine {
	int uml, virtio;
	int cpus, mem_mib, queues, icount_shift;
	uint32_t model;
	char sched[64];
};

/* The knobs of a machine, as bits: which differ, which a tag names. */
enum {
	CMP_M_ACCEL = 1,
	CMP_M_CPUS = 2,
	CMP_M_MEM = 4,
	CMP_M_QUEUES = 8,
	CMP_M_CLOCK = 16,
	CMP_M_KIND = 32,
	CMP_M_DISK = 64,
	CMP_M_MODEL = 128,
	CMP_M_SCHED = 256,
};

/*
 * The knobs named by dims, joined by sep: "qemu" or "uml", "2cpu",
 * "1024M", "2q", "realtime" or "icount:4" (and "tcg" for the accelerator,
 * from accel).
 */
void cmp_machine_tag(const struct cmp_machine *m, const char *accel,
    unsigned dims, const char *sep, char *buf, size_t len);

/* The knobs named by dims, in words, joined by ", ": "vCPUs, clock". */
void cmp_machine_names(unsigned dims, char *buf, size_t len);

/*
 * How a result's runs were judged, when they were: `ubcreplay vm` with
 * --fail-if records it in the result's "vm" object ("judged",
 * docs/json.md), so that compare judges them alike. The rule by name
 * ("interval", "significance"), the level each interval took, and the
 * looks that spent the error budget between them, in runs a cell (one
 * look for a fixed -n). level 0: not judged.
 */
#define CMP_MAX_LOOKS 32
struct cmp_judged {
	double level;
	char rule[16];
	size_t nlook;
	unsigned look[CMP_MAX_LOOKS];
};

/* One result, reduced. */
struct cmp_result {
	char *path;
	char *label;   /* the result's label, else the file name */
	char *kind;    /* "tar", "nfs", ... */
	char *archive; /* workload.archive, or "" */
	uint64_t archive_bytes;
	uint64_t archive_entries;
	char *probe; /* probe name and resolution */
	char *resolution;
	char *devices; /* the filesystem device names, joined */
	char *target;  /* fstype and options */
	/* From the "vm" object; accel "none" and kernel "" on the host. */
	char *accel;                /* "none", "kvm", "tcg", "uml" */
	char *kernel_release;       /* the guest's */
	uint64_t parallel_guests;   /* guests running at once; 1 on the host */
	struct cmp_machine machine; /* a guest's; all 0 on the host */
	double calibration_ns;      /* the guest's CPU loop, 0: unknown */
	struct cmp_judged judged;   /* how vm judged it; level 0: not */
	size_t runs;                /* all runs, and those that were ok */
	size_t runs_ok;
	size_t boots; /* the guest boots they ran in ("boots"), else 1 */
	/*
	 * vm.design: the rounds its runs ran in, the most runs in one, and
	 * whether the cells took turns each round ("alternating"); rounds 0
	 * when it does not say.
	 */
	size_t rounds, round_runs;
	int alternating;
	int64_t key; /* while reading: the run's key (cmp_series) */
	size_t nseries;
	struct cmp_series *series;
	/* Summed over the successful runs, every phase. */
	int has_layer[CMP_NLAYER];
	struct hist layer[CMP_NLAYER];
	char layer_kind[CMP_NLAYER][16]; /* "exact", "interval_mean" */
};

/*
 * Reads a result file, checks that it is one this reader understands and
 * that it has successful runs, and reduces it. NULL with the reason, naming
 * the file, when it cannot be read, is not a result, has a newer schema, or
 * has no successful run to compare.
 */
struct cmp_result *cmp_result_load(const char *path, char *err, size_t errlen);
/* The same from a parsed document; name is what messages call it. */
struct cmp_result *cmp_result_from_json(
    json_t *doc, const char *name, char *err, size_t errlen);
void cmp_result_free(struct cmp_result *r);
/* The series named name, or NULL. */
const struct cmp_series *cmp_result_series(
    const struct cmp_result *r, const char *name);

enum cmp_verdict {
	CMP_NONE,    /* nothing to test: a side lacks the metric */
	CMP_TOO_FEW, /* the rank test cannot reach alpha with these runs */
	CMP_SAME,    /* no significant change */
	CMP_CHANGED, /* significant */
};

/* One metric of one result against the baseline's. */
struct cmp_cell {
	int present;
	struct stats_summary sum;
	int ratio_valid; /* the baseline's median is not 0 */
	double ratio;    /* median / baseline median */
	double change_pct;
	struct stats_mw mw;
	double pmin;            /* smallest p these run counts allow */
	struct stats_change ch; /* the change's estimate and interval */
	/*
	 * The pairs compared when both results ran on the same seeds (mw then
	 * holds the signed-rank test, pmin its smallest p, ch the paired
	 * change); 0 when the runs are compared as independent sets.
	 */
	size_t pairs;
	enum cmp_verdict verdict;
};

struct cmp_row {
	const char *name; /* the baseline's or first result's series */
	enum cmp_unit unit;
	int detail;
	struct cmp_cell *cell; /* one per result; cell[0] the baseline */
};

/* One histogram layer of one result against the baseline's. */
struct cmp_hist {
	int present; /* both have the layer with counts */
	struct stats_chi2 chi2;
	double emd_buckets;
	double shift_buckets; /* negative: smaller transfers */
	int median_bucket;    /* this result's; the baseline's is in [0] */
	enum cmp_verdict verdict;
};

struct cmp_opts {
	double alpha;   /* significance level, 0.05 */
	double level;   /* confidence of the intervals, 0.95 */
	double emd_min; /* smallest shape change to call, in buckets */
};

#define CMP_OPTS_DEFAULT                                                       \
	{                                                                      \
		0.05, 0.95, 0.1                                                \
	}

/* Results compared: all of it computed once, by cmp_new. */
struct cmp {
	struct cmp_opts opts;
	size_t nresult;
	struct cmp_result **result; /* result[0] is the baseline */
	size_t nrow;
	struct cmp_row *row;
	struct cmp_hist *hist[CMP_NLAYER]; /* one per result */
	size_t nwarn;
	char **warn;  /* what makes the comparison less fair */
	int times_ok; /* the times can be compared; else why not: */
	char times_why[1024];
	int emulated; /* some result's times are emulated (TCG) */
	/*
	 * The guests' machines: the knobs (CMP_M_*) in which some guest's
	 * differs from the first guest's, and whether the sizes can still be
	 * judged (no knob that moves them differs); else why not.
	 */
	unsigned machine_differs;
	int sizes_ok;
	char sizes_why[1024];
};

/*
 * Compares results r[1..n-1] with r[0]. Takes the results: cmp_free frees
 * them, and so does cmp_new when it fails.
 */
struct cmp *cmp_new(struct cmp_result **r, size_t n,
    const struct cmp_opts *opts, char *err, size_t errlen);
void cmp_free(struct cmp *c);

/* The row for a metric name, or NULL. */
const struct cmp_row *cmp_row_find(const struct cmp *c, const char *name);

/*
 * compare_class.c: for a metric of the device's writes or reads (all but
 * app.* and nfs.*), the two classes of blocks whose requests moved most
 * from the baseline to result, by the medians of the class rows, into buf:
 * "inode +57 requests (+300.0%), data -12 requests (-20.0%)". 0 when the
 * results have no attribution or nothing moved.
 */
int cmp_class_movers(const struct cmp *c, size_t result, const char *metric,
    char *buf, size_t len);

/*
 * About how many runs a side (pairs, when cell was compared as pairs) of
 * sa against sb would put cell's interval wholly on one side of limit, a
 * ratio, four times in five: stats_change_runs or
 * stats_change_paired_runs. SIZE_MAX when none would.
 */
size_t cmp_change_runs(const struct cmp *c, const struct cmp_series *sa,
    const struct cmp_series *sb, const struct cmp_cell *cell, double limit);

/*
 * The text report: results, metric table, histograms, series. all: every
 * metric, and the table however wide; else with more than two results and a
 * table wider than width columns, the series takes its place and the other
 * lines are broken to width.
 */
void cmp_report_text(const struct cmp *c, FILE *fp, int all, int width);

/* A change with its interval in percent: "-12.3% [-15.1, -9.4]". */
void cmp_format_change(char *buf, size_t len, const struct stats_change *ch);

/* Human-readable value of a metric: "1.23 s", "64.0K", "1234". */
void cmp_format_value(char *buf, size_t len, double v, enum cmp_unit unit);

/*
 * The SVG picture: per layer the size histograms of every result side by
 * side, every run's elapsed time per result, and every change with its
 * interval, the nv gates' verdicts v (gate.h; none: NULL, 0) first.
 * Returns -1 on a write error.
 */
struct gate_verdict;
int cmp_report_svg(const struct cmp *c, const struct gate_verdict *v, size_t nv,
    FILE *fp, char *err, size_t errlen);

/*
 * The same into the file path, through a temporary file in its directory
 * and a rename, so that no half-written picture is ever left.
 */
int cmp_svg_write(const struct cmp *c, const struct gate_verdict *v, size_t nv,
    const char *path, char *err, size_t errlen);

#endif
