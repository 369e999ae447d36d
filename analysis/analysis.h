/*
 * analysis.h - what the analysis module promises: the result of one
 * invocation, built from what the workload and the probes measured, written
 * as JSON (the canonical form, docs/json.md), and the text report rendered
 * from that JSON, so that a stored result renders exactly as a live one.
 *
 *	struct result r = {...};		filled by the front end
 *	json_t *doc = result_json(&r);
 *	report_text(doc, stdout, 0);
 *	result_write(doc, "r.json", err, sizeof(err));	atomically
 *
 *	json_t *doc = result_load("r.json", err, sizeof(err));	checked
 */
#ifndef UBC_ANALYSIS_H
#define UBC_ANALYSIS_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "../model/devstats.h"
#include "../model/hist.h"
#include "../model/layout.h"
#include "../traces/traces.h"

#define RESULT_SCHEMA   1
#define RESULT_MAXPHASE 4

/*
 * A phase's transfers to the filesystem's device split by what their
 * blocks held (model/layout.h), or why they could not be.
 */
struct phase_attrib {
	int ok;
	char device[DEVNAME_MAX];
	char source[96];  /* what read the layout */
	char note[256];   /* what it could not tell */
	char why[256];    /* !ok: why there is no attribution */
	uint64_t dropped; /* transfers not kept: out of memory */
	struct layout_attrib dir[DIR_N];
};

/* One phase of one run: times, the child's rusage, what the devices did. */
struct phase_result {
	const char *name; /* "extract", "sync", "remove" */
	int failed;
	char error[768];
	int64_t elapsed_ns, user_ns, sys_ns;
	int64_t maxrss_kib;
	uint64_t inblock, oublock, majflt, minflt, nswap, nvcsw, nivcsw;
	uint64_t entries, bytes;
	uint64_t app_ops, app_bytes;
	struct hist app_size;
	int app_unseen; /* a command's write() calls: no app_write */
	/*
	 * One per device the probe measured, allocated by
	 * result_phase_devices: a devstats is about 17 KB, so a run holds
	 * only the devices it has, not room for DEVSTATS_MAXDEV of them.
	 */
	size_t ndev;
	struct devstats *dev;
	struct phase_attrib *attrib; /* NULL: not asked */
};

struct run_result {
	const char *status; /* "ok", "failed", "interrupted" */
	char error[768];
	size_t nphase;
	struct phase_result phase[RESULT_MAXPHASE];
	json_t *nfs; /* the run's NFS traffic on the wire (--nfs-iface), or
	                NULL; the front end owns it */
	json_t
	    *mountstats; /* the NFS client's own counters over the run
	                    (an NFS target), or NULL; the front end owns it */
};

struct result {
	const char *kind; /* "tar" */
	const char *label;
	const char *status;
	time_t started;
	json_t *workload; /* built by the front end; stolen */
	size_t ntarget;
	const struct target *targets;
	const struct probe *probe;
	size_t nrun;
	const struct run_result *runs;
	/*
	 * What the devices did outside the runs while the tool watched (the
	 * sync before each run, dropping caches), so that the runs and this
	 * add up to everything; one per device, NULL when not kept.
	 */
	const struct devstats *between;
	/*
	 * The runs' figures for the summary when the runs are not held
	 * (result_stream: runs is then NULL), else NULL: taken from runs.
	 */
	const struct result_figures *figures;
	/*
	 * What the target adds to the top level, its keys last (an FFS
	 * image's "netbsd": its kernel's build, what is real), or NULL.
	 */
	json_t *adds;
};

/*
 * What the summary over the runs needs of them, gathered as each run ends,
 * so that a job of many runs holds a few figures a run, not the runs: the
 * phases' times and each device's counts of every run that was ok, and
 * each device's size histogram merged over them. Phases and devices are
 * those of the first run that was ok.
 */
enum {
	/* A phase's: elapsed, user, sys. */
	RESULT_FIG_PHASE = 3,
	/*
	 * A device's over the run: read ops, bytes, mean size, the same for
	 * write, flushes, write bios, write seq_ops, empty_preflush,
	 * lost_events.
	 */
	RESULT_FIG_DEV = 11
};
#define RESULT_FIG_ROW(ndev)                                                   \
	(RESULT_MAXPHASE * RESULT_FIG_PHASE + (ndev)*RESULT_FIG_DEV)

struct result_figures {
	size_t n; /* runs that were ok */
	size_t nphase;
	const char *phase[RESULT_MAXPHASE];
	size_t ndev;
	int *exact;        /* per device: the exact probe measured it */
	struct hist *size; /* per device, read then write */
	int64_t *v;        /* n rows of RESULT_FIG_ROW(ndev) figures */
	size_t cap;        /* rows v has room for */
};

/*
 * Adds run's figures when it was ok: -1 when out of memory. Zeroed
 * figures are empty; result_figures_free gives back what they hold.
 */
int result_figures_add(struct result_figures *f, const struct run_result *run);
void result_figures_free(struct result_figures *f);

/* One run as it stands in the result's runs; idx from 0. */
json_t *result_run_json(
    const struct result *r, const struct run_result *run, size_t idx);

/*
 * Room for ndev devices' statistics in p, zeroed: -1 when out of memory.
 * result_run_free gives back those of every phase of a run.
 */
int result_phase_devices(struct phase_result *p, size_t ndev);
void result_run_free(struct run_result *run);

/* The result as JSON, keys in the documented order. NULL if out of memory. */
json_t *result_json(const struct result *r);

/* A histogram as JSON: {"kind": kind, "buckets": [...]}. */
json_t *result_hist_json(const struct hist *h, const char *kind);
/*
 * A phase's "attribution" object back into its struct (allocated; NULL
 * when there is none or memory runs out).
 */
struct phase_attrib *result_attrib_from_json(const json_t *o);
/* And back: minkey names the buckets' bounds ("min_bytes", "min_ns"). */
void result_hist_from_json(
    const json_t *h, const char *minkey, struct hist *out);

/*
 * Writes doc to path ("-" for stdout) through a temporary file in the same
 * directory and a rename, so no half-written result exists.
 */
int result_write(json_t *doc, const char *path, char *err, size_t errlen);

/* The same, doc written onto its file by dump(arg, doc, fp): 0 or -1. */
int result_write_with(int (*dump)(void *arg, json_t *doc, FILE *fp), void *arg,
    json_t *doc, const char *path, char *err, size_t errlen);

/*
 * Reads a result and checks that it is one: an object whose first key is a
 * schema this reader knows, with runs. The error names the file.
 */
json_t *result_load(const char *path, char *err, size_t errlen);

/*
 * A result's strings are printed by the reports: its control characters
 * (a file from elsewhere may hold escape sequences for the terminal) become
 * '?', in keys too. Takes doc, returns it or its clean copy. result_load
 * does it; so must any other reader of a result's text.
 */
json_t *result_printable(json_t *doc);

/*
 * One line in csh's `time` format from rusage-style figures:
 *	4.438u 3.049s 0:19.26 38.7% 0+0k 424+8202io 58pf+0w
 */
void timefmt_csh(char *buf, size_t len, int64_t user_ns, int64_t sys_ns,
    int64_t elapsed_ns, uint64_t inblock, uint64_t oublock, uint64_t majflt,
    uint64_t nswap);

/* Median (the lower middle for an even count), min and max of n values. */
struct spread {
	int64_t median, min, max;
};
struct spread stats_spread(const int64_t *v, size_t n);
/* The same as the result's summary writes it: {"median", "min", "max"}. */
json_t *result_spread_json(const int64_t *v, size_t n);

/*
 * Reading a result document: the integer or string at key of an object, 0
 * or "" when it is missing or of another type, so a renderer needs no check
 * at every step (result_load has checked the shape that matters).
 */
int64_t result_geti(const json_t *o, const char *key);
/*
 * report_attrib.c: a run's attribution (its phases' "attribution"), what
 * the writes are by class, under the run's block; nothing when the run's
 * phases have none.
 */
void report_attrib_text(const json_t *run, FILE *fp);
const char *result_gets(const json_t *o, const char *key);

/*
 * The result of a run computed again from its trace file (--trace-out): the
 * device statistics from the trace's records, the rest from the result the
 * run stored in it. NULL with the reason in err.
 */
json_t *result_retrace(const struct tracefile *tf, char *err, size_t errlen);

/*
 * A result whose runs are written as they end (the main job's), so that
 * a job of many runs holds one run at a time and a few figures a run: each
 * run's JSON goes to a spill file, unlinked at once, beside the result
 * (its directory; no result file: $TMPDIR or /tmp), and is synced there,
 * so that it reaches the disk before the next run's mark, never within a
 * run. At the end the result is the frame (result_json of r with no runs
 * and s's figures) with the spilled runs in its runs, byte for byte what
 * result_json with every run held gives.
 *
 *	result_stream_open(&s, "r.json", err, sizeof(err));
 *	result_stream_run(&s, &r, &run, i, err, sizeof(err));	each run
 *	r.figures = &s.figures;
 *	frame = result_json(&r);
 *	result_stream_dump(&s, frame, fp);	or result_stream_write, and
 *	report_text_from(frame, result_stream_get, &s, stdout, 0);
 *	result_stream_close(&s);
 */
struct result_stream {
	FILE *spill;
	char path[PATH_MAX + 32]; /* the spill's name, unlinked */
	size_t nrun;
	off_t *end; /* where each run's text ends in the spill */
	struct result_figures figures;
};

int result_stream_open(
    struct result_stream *s, const char *result, char *err, size_t errlen);
int result_stream_run(struct result_stream *s, const struct result *r,
    const struct run_result *run, size_t idx, char *err, size_t errlen);
/* The whole result as result_write writes it (its last newline aside). */
int result_stream_dump(struct result_stream *s, json_t *frame, FILE *fp);
/* result_write of the whole result. */
int result_stream_write(struct result_stream *s, json_t *frame,
    const char *path, char *err, size_t errlen);
/* Run i (from 0) read back, a new reference; NULL past the last. */
json_t *result_stream_get(void *s, size_t i);
void result_stream_close(struct result_stream *s);

/* The text report of a result document. quiet: the summary only. */
void report_text(json_t *doc, FILE *fp, int quiet);

/*
 * The same, its runs from run(arg, i) (a new reference each, NULL past the
 * last) instead of doc's runs.
 */
void report_text_from(json_t *doc, json_t *(*run)(void *arg, size_t i),
    void *arg, FILE *fp, int quiet);

/*
 * The parts of the text report that only dd results have: REPORT_DD_RUNS,
 * dd's closing lines and the lossage of each run of a "dd" result;
 * REPORT_DD_TABLES, the whole report of a "sweep" (block size against
 * transfer rate) or a "matrix" (source by destination, transfer time and
 * lossage). Returns 1 when it printed, 0 when doc has no such part.
 */
enum { REPORT_DD_RUNS, REPORT_DD_TABLES };
int report_dd_text(json_t *doc, FILE *fp, int part);

#endif
