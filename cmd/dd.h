/*
 * dd.h - what `ubcreplay dd`, `sweep` and `matrix` share: one dd
 * transfer, prepared once (operands checked, both ends resolved to their
 * devices, the probe opened on all of them), run -n times with lossage
 * measured around each run, and turned into a result document.
 *
 *	struct ddrun r;
 *	if (ddrun_prepare(&r, &opts, &dd, err, sizeof(err)) == -1) ...
 *	for (i = 0; i < opts.runs; i++)
 *		if (ddrun_run(&r, err, sizeof(err)) == -1) ... stop
 *	doc = ddrun_json(&r, "dd", label);
 *	ddrun_close(&r);
 *
 * Lives with the front end because it wires the modules together and
 * prints dd's closing lines; it never exits.
 */
#ifndef UBC_CMD_DD_H
#define UBC_CMD_DD_H

#include <jansson.h>

#include "../analysis/analysis.h"
#include "../replay/replay.h"
#include "../traces/sntp.h"
#include "../traces/traces.h"

#define DDRUN_MAX_RUNS       1000
#define DDRUN_NTP_TIMEOUT_NS 2000000000LL

/* The options every dd command takes besides dd's operands. */
struct ddrun_opts {
	int runs;
	int64_t interval_ns;
	const char *probe;
	int drop_caches;
	const char *ntp; /* HOST[:PORT] or NULL */
	int quiet;
	int closing; /* print dd's closing lines on stderr */
};

/* What one run adds to the common result: dd's counts and the lossage. */
struct ddrun_extra {
	struct replay_dd_counts counts;
	struct sntp_lossage loss;
};

struct ddrun {
	const struct ddrun_opts *o;
	struct replay_dd dd;
	/*
	 * The ends: [0] the source, [1] the destination without the devices
	 * the source already lists, so that the result names each device
	 * once; probe_target holds them all, in the same order.
	 */
	struct target t[2];
	struct target probe_target;
	struct probe *probe;
	struct replay_dd_counts *shared; /* the child writes here */
	struct devstats between[DEVSTATS_MAXDEV];
	size_t nrun;
	struct run_result *runs;
	struct ddrun_extra *extra;
	time_t started;
};

/* Parse -n and -p values; warn and return -1 when bad. */
int ddrun_parse_runs(const char *s, int *runs);
int ddrun_parse_probe(const char *s);

/*
 * The long options the dd commands share (--drop-caches, --ntp, --help),
 * as getopt_long returns them; each command lists them in its table.
 */
enum { DDOPT_DROP = 256, DDOPT_NTP, DDOPT_FIRST_FREE };
#define DDRUN_SHORTOPTS "hi:l:n:o:p:q"

void ddrun_opts_init(struct ddrun_opts *o);

/*
 * One of the shared options (-i -l -n -o -p -q --drop-caches --ntp), c as
 * getopt returned it: 1 when taken, 0 when not one of them, -1 when its
 * value is bad (warned).
 */
int ddrun_option(int c, const char *arg, struct ddrun_opts *o,
    const char **label, const char **output);

/*
 * Writes the result to output (when not NULL), prints the text report
 * (unless quiet), frees doc; returns status, or a failure when writing
 * failed.
 */
int ddrun_finish(json_t *doc, const char *output, int quiet, int status);

/* When a signal asked us to stop: close r and die of that signal. */
void ddrun_die_if_stopped(struct ddrun *r);

/* Checks dd's operands, resolves both ends, opens the probe. Warns not. */
int ddrun_prepare(struct ddrun *r, const struct ddrun_opts *o,
    const struct replay_dd *dd, char *err, size_t errlen);

/*
 * One run: drop caches (when asked), sync the destination, lossage before,
 * the copy and sync phases, lossage after. Returns -1 when the run failed
 * or could not be measured (err says why); the run is kept either way.
 */
int ddrun_run(struct ddrun *r, char *err, size_t errlen);

/* The runs as a result document of kind (dd, sweep, matrix). */
json_t *ddrun_json(const struct ddrun *r, const char *kind, const char *label,
    json_t *workload);

/* The workload object of one transfer, as docs/json.md describes it. */
json_t *ddrun_workload_json(const struct ddrun *r);

/*
 * Over the ok runs: the median copy time, transfer rate (bytes per second
 * of the copy phase), copy+sync time, lossage (valid is 0 when no run has
 * one) and clock drift.
 */
struct ddrun_medians {
	size_t ok;
	int64_t copy_ns, xfer_ns, rate_bytes_per_s, drift_ns;
	int64_t lossage_ns;
	int have_lossage;
};
void ddrun_medians(const struct ddrun *r, struct ddrun_medians *m);

/* Frees what prepare and run took, closes the probe. */
void ddrun_close(struct ddrun *r);

/* "+0.000012 s" with sign, for lossage and drift. */
const char *ddrun_signed_s(int64_t ns, char *buf, size_t len);

#endif
