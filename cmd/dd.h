/*
 * dd.h - what `ubcreplay dd`, `sweep` and `matrix` share: the option and
 * operand parsing, and one dd transfer, prepared once (operands checked,
 * both ends resolved to their devices, the probe opened on all of them),
 * run -n times with lossage measured around each run, and turned into a
 * result document.
 *
 *	struct ddrun r;
 *	ddrun_opts_init(&opts);
 *	while ((c = ddrun_getopt(argc, argv, own, "sweep", &opts, &st)) > 0)
 *		...					its own options
 *	if (ddrun_operands(argc, argv, NULL, NULL, &dd) == -1) ...
 *	if (ddrun_prepare(&r, &opts, &dd, err, sizeof(err)) == -1) ...
 *	for (i = 0; i < opts.runs; i++)
 *		if (ddrun_run(&r, err, sizeof(err)) == -1) ... stop
 *	doc = ddrun_json(&r, "dd", label, ddrun_workload_json(&r));
 *	ddrun_close(&r);
 *
 * Lives with the front end because it wires the modules together and
 * prints dd's closing lines; it never exits.
 */
#ifndef UBC_CMD_DD_H
#define UBC_CMD_DD_H

#include <getopt.h>
#include <jansson.h>

#include "../analysis/analysis.h"
#include "../replay/replay.h"
#include "../traces/sntp.h"
#include "../traces/traces.h"

#define DDRUN_MAX_RUNS       1000
#define DDRUN_NTP_TIMEOUT_NS 2000000000LL
#define DDRUN_SIZE_BYTES     (64ULL << 20) /* --size when not given */
#define DDRUN_MAX_OWN        8             /* a command's own long options */

/* The options every dd command takes besides dd's operands. */
struct ddrun_opts {
	int runs;
	int64_t interval_ns;
	const char *probe;
	int drop_caches;
	const char *ntp; /* HOST[:PORT] or NULL */
	int quiet;
	int closing;         /* print dd's closing lines on stderr */
	const char *label;   /* -l, or NULL */
	const char *output;  /* -o, or NULL */
	uint64_t size_bytes; /* --size, where the command takes it */
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

/* Parse a -p value; warn and return -1 when bad. */
int ddrun_parse_probe(const char *s);

/*
 * The long options the dd commands share, as getopt_long returns them:
 * --drop-caches and --ntp every one takes; --size a command takes by
 * listing {"size", required_argument, NULL, DDOPT_SIZE} among its own.
 * A command's own options are numbered from DDOPT_FIRST_FREE.
 */
enum { DDOPT_DROP = 256, DDOPT_NTP, DDOPT_SIZE, DDOPT_FIRST_FREE };

void ddrun_opts_init(struct ddrun_opts *o);

/*
 * dd's operands, argv[optind] on, into dd. One that begins with any of
 * refused (a NULL-ended list, or NULL) is refused with why, as "operand
 * 'bs=4k': why". -1 on a bad one, warned.
 */
int ddrun_operands(int argc, char **argv, const char *const *refused,
    const char *why, struct replay_dd *dd);

/*
 * The option loop of a dd command (set optind to 1 first). The shared
 * options (-i -l -n -o -p -q --drop-caches --ntp --size) go into o; own
 * lists the command's own long options (NULL, or up to DDRUN_MAX_OWN
 * entries ending in a zero one); name is the command's, for its usage
 * (usage_command). Returns the code of the next own option,
 * optarg its value; 0 when the operands begin, at optind; -1 when the
 * command is to exit with *status: after -h (usage printed on stdout) or a
 * bad option (warned, usage printed on stderr).
 */
int ddrun_getopt(int argc, char **argv, const struct option *own,
    const char *name, struct ddrun_opts *o, int *status);

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
