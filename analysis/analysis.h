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

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "../model/devstats.h"
#include "../model/hist.h"
#include "../traces/traces.h"

#define RESULT_SCHEMA   1
#define RESULT_MAXPHASE 4

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
	/*
	 * One per device the probe measured, allocated by
	 * result_phase_devices: a devstats is about 17 KB, so a run holds
	 * only the devices it has, not room for DEVSTATS_MAXDEV of them.
	 */
	size_t ndev;
	struct devstats *dev;
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
};

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
 * Writes doc to path ("-" for stdout) through a temporary file in the same
 * directory and a rename, so no half-written result exists.
 */
int result_write(json_t *doc, const char *path, char *err, size_t errlen);

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

/*
 * Reading a result document: the integer or string at key of an object, 0
 * or "" when it is missing or of another type, so a renderer needs no check
 * at every step (result_load has checked the shape that matters).
 */
int64_t result_geti(const json_t *o, const char *key);
const char *result_gets(const json_t *o, const char *key);

/*
 * The result of a run computed again from its trace file (--trace-out): the
 * device statistics from the trace's records, the rest from the result the
 * run stored in it. NULL with the reason in err.
 */
json_t *result_retrace(const struct tracefile *tf, char *err, size_t errlen);

/* The text report of a result document. quiet: the summary only. */
void report_text(json_t *doc, FILE *fp, int quiet);

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
