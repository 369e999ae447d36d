/*
 * dd.h - what `ubcreplay dd`, `sweep` and `matrix` share: the option and
 * operand parsing, and one dd transfer as a job (job/: the dd workload on
 * the ends' target, or on an FFS image's for of=ffs:IMAGE), opened once,
 * run -n times through job_run, and turned into a result document.
 *
 *	struct ddrun r;
 *	ddrun_opts_init(&opts);
 *	while ((c = ddrun_getopt(argc, argv, own, "sweep", &opts, &st)) > 0)
 *		...					its own options
 *	if (ddrun_operands(argc, argv, NULL, NULL, &dd) == -1) ...
 *	if (ddrun_prepare(&r, &opts, &dd, err, sizeof(err)) != 0) ...
 *	for (i = 0; i < opts.runs; i++)
 *		if (ddrun_next(&r, err, sizeof(err)) == -1) ... stop
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
#include "../job/job.h"
#include "../replay/replay.h"
#include "../traces/sntp.h"
#include "../traces/traces.h"

#define DDRUN_MAX_RUNS   1000
#define DDRUN_SIZE_BYTES (64ULL << 20) /* --size when not given */
#define DDRUN_MAX_OWN    8             /* a command's own long options */

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
	/* of=ffs:IMAGE's kernel: -O, --rump, --rump-mem (0: none) */
	const char *mount_opts, *rump_dir;
	uint64_t rump_mem_bytes;
};

/* What one run adds to the common result: dd's counts and the lossage. */
struct ddrun_extra {
	struct replay_dd_counts counts;
	struct sntp_lossage loss;
};

struct ddrun {
	const struct ddrun_opts *o;
	struct replay_dd dd; /* each run copies it as it is then */
	struct job_opts jo;
	struct job j;
	size_t nrun;
	struct run_result *runs;
	struct ddrun_extra *extra;
	time_t started;
};

/* Parse a -p value; warn and return -1 when bad. */
int ddrun_parse_probe(const char *s);

/*
 * The long options the dd commands share, as getopt_long returns them:
 * --drop-caches, --ntp, --rump and --rump-mem every one takes (the last
 * two, like -O, for of=ffs:IMAGE); --size a command takes by
 * listing {"size", required_argument, NULL, DDOPT_SIZE} among its own.
 * A command's own options are numbered from DDOPT_FIRST_FREE.
 */
enum {
	DDOPT_DROP = 256,
	DDOPT_NTP,
	DDOPT_SIZE,
	DDOPT_RUMP,
	DDOPT_RUMP_MEM,
	DDOPT_FIRST_FREE
};

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
 * options (-i -l -n -o -O -p -q --drop-caches --ntp --rump --rump-mem
 * --size) go into o; own
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

/*
 * of= as given: a host path, or ffs:IMAGE (a file made in the run
 * directory of the image's NetBSD kernel). The one place the target's kind
 * is told from the operand; -1 when it names no image (warned).
 */
int ddrun_set_out(struct replay_dd *dd, const char *out);

/*
 * Checks dd's operands, opens the job (the ends resolved, or the image
 * tried), and the probe on it. Warns not: -2 when what failed is a usage
 * error (the rows refuse the options, or the target's open failing is
 * one: an image NetBSD refuses), -1 otherwise, err saying why.
 */
int ddrun_prepare(struct ddrun *r, const struct ddrun_opts *o,
    const struct replay_dd *dd, char *err, size_t errlen);

/*
 * The next run, through job_run (caches dropped when asked, the
 * destination synced, the copy and sync phases, the lossage around them),
 * kept with what dd counted; dd's closing lines printed when asked.
 * Returns -1 when the run failed or could not be measured (err says why);
 * the run is kept either way.
 */
int ddrun_next(struct ddrun *r, char *err, size_t errlen);

/* The runs as a result document of kind (dd, sweep, matrix). */
json_t *ddrun_json(const struct ddrun *r, const char *kind, const char *label,
    json_t *workload);

/* The workload object of one transfer, as docs/json.md describes it. */
json_t *ddrun_workload_json(const struct ddrun *r);

/* Frees what prepare and the runs took, closes the job. */
void ddrun_close(struct ddrun *r);

#endif
