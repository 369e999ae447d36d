/*
 * tar.c - the main job: `ubcreplay [options] ARCHIVE DIR` extracts the
 * archive into a fresh run directory under DIR while the probe watches the
 * devices behind DIR, -n times, then reports times and transfer sizes.
 * A workload trace (`ubcreplay record`, known by its first bytes) is taken
 * where an archive is: its set-up is made before each run's first mark,
 * and its operations replayed in a phase named "replay". A command
 * (`ubcreplay [options] DIR -- command ...`) is run in the run directory in
 * a phase named "command": the same runs, probes and result for any program.
 *
 * A run is three phases, each in its own child: extract, sync (--fsync end)
 * and remove (unless --keep). Before each run the target is synced, so that
 * no earlier work is counted in the run; what the devices do then is kept
 * apart as "between runs". The marks chain from the probe's opening to the
 * end of the last run, so the runs and what lay between them add up to
 * everything the devices did while the tool watched.
 *
 * The runs are job/'s: the target and the workload are rows chosen here
 * once (choose); this file parses, streams the result and prints.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/analysis.h"
#include "cmd.h"
#include "../job/job.h"
#include "../replay/replay.h"
#include "../model/wtrace.h"
#include "../traces/traces.h"

/*
 * Default sampling interval. Reading a stat file costs microseconds, so
 * 100 ms costs nothing measurable, and it resolves the phases of runs that
 * last a second or two; iostat's usual 1 s would give a short run no
 * interval means at all.
 */
#define DEFAULT_INTERVAL_NS 100000000LL
#define MAX_RUNS            1000
#define MAX_WATCH           8

struct opts {
	int runs;
	int64_t interval_ns;
	const char *label;
	const char *output;
	const char *probe;
	const char *trace_out;
	const char *nfs_iface;
	size_t nwatch;
	const char *watch[MAX_WATCH];
	enum replay_fsync fsync;
	int drop_caches;
	int keep;
	int no_attrib; /* --no-attribution */
	int quiet;
	int timing;              /* a trace at its recorded pace */
	const char *archive;     /* NULL for a command */
	const char *image;       /* an ffs:IMAGE target's image, or NULL */
	const char *mount_opts;  /* -O: its NetBSD mount options */
	const char *rump_dir;    /* --rump: the build of the rump kernel */
	uint64_t rump_mem_bytes; /* --rump-mem: its memory ceiling, or 0 */
	char *const *command;    /* what follows "--", or NULL */
	const char *dir;
};

enum {
	OPT_DROP = 256,
	OPT_FSYNC,
	OPT_KEEP,
	OPT_NFS_IFACE,
	OPT_NO_ATTRIB,
	OPT_RUMP,
	OPT_RUMP_MEM,
	OPT_TIMING,
	OPT_TRACE_OUT,
	OPT_WATCH_DEV,
	OPT_VERSION
};

static const struct option longopts[] = {
    {"drop-caches", no_argument, NULL, OPT_DROP},
    {"fsync", required_argument, NULL, OPT_FSYNC},
    {"keep", no_argument, NULL, OPT_KEEP},
    {"nfs-iface", required_argument, NULL, OPT_NFS_IFACE},
    {"no-attribution", no_argument, NULL, OPT_NO_ATTRIB},
    {"rump", required_argument, NULL, OPT_RUMP},
    {"rump-mem", required_argument, NULL, OPT_RUMP_MEM},
    {"timing", no_argument, NULL, OPT_TIMING},
    {"trace-out", required_argument, NULL, OPT_TRACE_OUT},
    {"watch-dev", required_argument, NULL, OPT_WATCH_DEV},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static int
parse(int argc, char **argv, struct opts *o)
{
	int c, k;

	memset(o, 0, sizeof(*o));
	/* Everything after the first "--" is a command, not our options. */
	for (k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
		;
	if (k < argc) {
		if (k + 1 == argc) {
			warnx("expected a command after '--'");
			return -1;
		}
		o->command = argv + k + 1;
		argc = k;
	}
	o->runs = 1;
	o->interval_ns = DEFAULT_INTERVAL_NS;
	o->probe = "auto";
	o->fsync = FSYNC_END;
	while ((c = getopt_long(
	            argc, argv, "hi:l:n:o:O:p:qV", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (cmd_parse_interval(optarg, &o->interval_ns) == -1) {
				warnx("interval '%s' is not a time between 1ms "
				      "and 1h (e.g. 100ms, 1s)",
				    optarg);
				return -1;
			}
			break;
		case 'l':
			o->label = optarg;
			break;
		case 'n':
			if (cmd_parse_intv(
			        "-n", optarg, 1, MAX_RUNS, &o->runs) == -1)
				return -1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'O':
			o->mount_opts = optarg;
			break;
		case 'p':
			if (strcmp(optarg, "auto") != 0 &&
			    strcmp(optarg, "exact") != 0 &&
			    strcmp(optarg, "interval") != 0 &&
			    strcmp(optarg, "none") != 0) {
				warnx("probe '%s' is not auto, exact, interval "
				      "or none",
				    optarg);
				return -1;
			}
			o->probe = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'V':
			printf("ubcreplay %s\n", UBC_VERSION);
			exit(EXIT_SUCCESS);
		case 'h':
			usage_print(stderr);
			exit(EXIT_SUCCESS);
		case OPT_DROP:
			o->drop_caches = 1;
			break;
		case OPT_FSYNC:
			if (strcmp(optarg, "none") == 0)
				o->fsync = FSYNC_NONE;
			else if (strcmp(optarg, "file") == 0)
				o->fsync = FSYNC_FILE;
			else if (strcmp(optarg, "end") == 0)
				o->fsync = FSYNC_END;
			else {
				warnx("--fsync '%s' is not none, file or end",
				    optarg);
				return -1;
			}
			break;
		case OPT_KEEP:
			o->keep = 1;
			break;
		case OPT_NFS_IFACE:
			o->nfs_iface = optarg;
			break;
		case OPT_NO_ATTRIB:
			o->no_attrib = 1;
			break;
		case OPT_RUMP:
			if (cmd_parse_rump(optarg, &o->rump_dir) == -1)
				return -1;
			break;
		case OPT_RUMP_MEM:
			if (cmd_parse_rump_mem(optarg, &o->rump_mem_bytes) ==
			    -1)
				return -1;
			break;
		case OPT_TIMING:
			o->timing = 1;
			break;
		case OPT_TRACE_OUT:
			o->trace_out = optarg;
			break;
		case OPT_WATCH_DEV:
			if (o->nwatch == MAX_WATCH) {
				warnx("more than %d --watch-dev", MAX_WATCH);
				return -1;
			}
			o->watch[o->nwatch++] = optarg;
			break;
		default:
			return -1;
		}
	}
	if (o->command != NULL) {
		if (argc - optind != 1) {
			warnx("expected a directory before '--' and the "
			      "command after it");
			return -1;
		}
		o->dir = argv[optind];
	} else if (argc - optind != 2) {
		warnx("expected an archive and a directory");
		return -1;
	} else {
		o->archive = argv[optind];
		o->dir = argv[optind + 1];
	}
	/* An image mounted in a NetBSD rump kernel: ffs:IMAGE. */
	if (strncmp(o->dir, "ffs:", 4) == 0) {
		o->image = o->dir + 4;
		if (*o->image == '\0') {
			warnx("target 'ffs:' names no image");
			return -1;
		}
	}
	return 0;
}

/* Gives back what a run holds, once it is in the result's stream. */
static void
run_end(struct run_result *run)
{
	json_decref(run->nfs);
	json_decref(run->mountstats);
	result_run_free(run);
	memset(run, 0, sizeof(*run));
}

/* Gives back what the job holds, once its runs are over or cannot begin. */
static void
job_end(struct job *j, struct run_result *run)
{
	job_close(j);
	run_end(run);
}

/* The whole result's text, for the trace: NULL when out of memory. */
static char *
result_text(struct result_stream *rs, json_t *doc)
{
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	int bad;

	if (fp == NULL)
		return NULL;
	bad = result_stream_dump(rs, doc, fp) == -1;
	if (fclose(fp) == EOF || bad) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * The one place the kinds are chosen: the target by its name (ffs:IMAGE,
 * or a host directory), the workload by what follows "--" (a command) or
 * by the input's first bytes (a workload trace, else an archive).
 */
static void
choose(const struct opts *o, struct job *j)
{
	j->tops = o->image != NULL ? &job_target_ffs : &job_target_dir;
	j->wl = o->command != NULL  ? &job_command
	    : wtrace_is(o->archive) ? &job_trace
	                            : &job_tar;
}

/* What the job is asked, for the job module. */
static void
job_options(const struct opts *o, struct job_opts *jo)
{
	*jo = (struct job_opts){.dir = o->dir,
	    .archive = o->archive,
	    .command = o->command,
	    .fsync = o->fsync,
	    .drop_caches = o->drop_caches,
	    .keep = o->keep,
	    .timing = o->timing,
	    .progress = !o->quiet && isatty(STDERR_FILENO),
	    .interval_ns = o->interval_ns,
	    .probe = o->probe,
	    .nwatch = o->nwatch,
	    .watch = o->watch,
	    .nfs_iface = o->nfs_iface,
	    .image = o->image,
	    .mount_opts = o->mount_opts,
	    .rump_dir = o->rump_dir,
	    .rump_mem_bytes = o->rump_mem_bytes,
	    .attrib = !o->no_attrib};
}

int
cmd_tar(int argc, char **argv)
{
	struct run_result run;
	struct result_stream rs;
	struct result r;
	struct opts o;
	struct job_opts jo;
	struct job j;
	const char *why;
	char err[768], label[1200];
	json_t *doc;
	uint64_t first[2] = {0, 0};
	int nrun = 0, status = EXIT_SUCCESS, sig, kept = 1, rv;

	if (parse(argc, argv, &o) == -1) {
		usage_print(stderr);
		return EXIT_USAGE;
	}
	memset(&run, 0, sizeof(run));
	memset(&j, 0, sizeof(j));
	job_options(&o, &jo);
	j.o = &jo;
	choose(&o, &j);
	if ((why = job_refused(&j)) != NULL) {
		warnx("%s", why);
		return EXIT_USAGE;
	}
	stop_catch();
	if ((rv = job_open(&j, err, sizeof(err))) != 0) {
		job_end(&j, &run);
		/* Asked to stop while it opened: die of the signal. */
		if ((sig = stop_signal()) != 0) {
			signal(sig, SIG_DFL);
			raise(sig);
			return 128 + sig;
		}
		warnx("%s", err);
		return rv == -2 && j.tops->open_usage ? EXIT_USAGE
		                                      : EXIT_FAILURE;
	}
	if (o.drop_caches && replay_drop_caches(err, sizeof(err)) == -1) {
		warnx("%s", err);
		job_end(&j, &run);
		return EXIT_FAILURE;
	}
	if (o.trace_out != NULL &&
	    probe_keep_records(j.probe, err, sizeof(err)) == -1) {
		warnx("--trace-out: %s", err);
		job_end(&j, &run);
		return EXIT_FAILURE;
	}
	job_attrib_open(&j);
	if (j.t->ndev == 0 && !o.quiet)
		warnx("%s: reporting times only", j.t->nodev_reason);
	/* Each run goes to the result's stream as it ends, and is let go. */
	if (result_stream_open(&rs, o.output, err, sizeof(err)) == -1) {
		warnx("%s", err);
		job_end(&j, &run);
		return EXIT_FAILURE;
	}

	memset(&r, 0, sizeof(r));
	r.started = time(NULL);
	r.ntarget = 1;
	r.targets = j.t;
	r.probe = j.probe;
	while (nrun < o.runs) {
		int failed = job_run(&j, ++nrun, &run) == -1;

		if (j.warning[0] != '\0')
			warnx("run %d: %s", nrun, j.warning);
		if (j.kept && !o.quiet)
			fprintf(stderr, "ubcreplay: run %d kept in %s\n", nrun,
			    j.where);
		if (failed) {
			/* A killed child may have left its progress line. */
			if (!o.quiet && isatty(STDERR_FILENO))
				fputs("\r\033[K", stderr);
			warnx("run %d %s: %s", nrun, run.status, run.error);
			status = EXIT_FAILURE;
		}
		/* What the target adds to the run (an NFS mount's counters). */
		j.warning[0] = '\0';
		if (j.tops->took != NULL &&
		    j.tops->took(&j, failed || nrun == o.runs, &run, err,
		        sizeof(err)) == -1) {
			warnx("%s", err);
			status = EXIT_FAILURE;
			failed = 1;
		}
		if (j.warning[0] != '\0')
			warnx("%s", j.warning);
		if (nrun == 1) {
			first[0] = run.phase[0].entries;
			first[1] = run.phase[0].bytes;
		}
		/*
		 * A result missing a run would be a half-written one; an
		 * interrupted job writes none.
		 */
		if (!stop_signal() &&
		    result_stream_run(&rs, &r, &run, (size_t)nrun - 1, err,
		        sizeof(err)) == -1) {
			warnx("%s", err);
			status = EXIT_FAILURE;
			kept = 0;
		}
		run_end(&run);
		/*
		 * A NetBSD kernel's death ends its run, not the job: the runs
		 * after one that died go on (and after those, as long as
		 * nothing else fails).
		 */
		if (!kept || (failed && !j.go_on))
			break;
	}
	if ((sig = stop_signal()) != 0) {
		/* Interrupted: no result; die of the signal as asked. */
		job_end(&j, &run);
		result_stream_close(&rs);
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	/* Nothing measured is nothing to keep: bad input leaves no file. */
	if ((status != EXIT_SUCCESS && nrun == 1 && !j.go_on) || !kept) {
		job_end(&j, &run);
		result_stream_close(&rs);
		return status;
	}
	if (o.label == NULL) {
		snprintf(label, sizeof(label), "%s %s%s%s", j.t->fstype,
		    j.t->options, *j.label ? " " : "", j.label);
		o.label = label;
	}
	r.kind = j.wl->kind;
	r.label = o.label;
	r.status = status == EXIT_SUCCESS ? "ok" : "failed";
	r.workload = j.wl->json(&j, first);
	r.between = j.between;
	r.figures = &rs.figures;
	r.adds = j.adds;
	/* The frame: the result but for its runs, which are in the stream. */
	doc = result_json(&r);
	/* The trace, like the result, is written after every measurement. */
	if (doc != NULL && o.trace_out != NULL) {
		char *text = result_text(&rs, doc);

		if (text == NULL ||
		    probe_trace_write(
		        j.probe, o.trace_out, text, err, sizeof(err)) == -1) {
			warnx("%s",
			    text == NULL ? "cannot write the trace: "
			                   "out of memory"
			                 : err);
			status = EXIT_FAILURE;
		}
		free(text);
	}
	job_end(&j, &run);
	if (doc == NULL) {
		warnx("cannot build the result: out of memory");
		result_stream_close(&rs);
		return EXIT_FAILURE;
	}
	/* The result is written only now, after every measurement. */
	if (o.output != NULL &&
	    result_stream_write(&rs, doc, o.output, err, sizeof(err)) == -1) {
		warnx("%s", err);
		status = EXIT_FAILURE;
	}
	if (!o.quiet)
		report_text_from(doc, result_stream_get, &rs,
		    o.output != NULL && strcmp(o.output, "-") == 0 ? stderr
		                                                   : stdout,
		    0);
	json_decref(doc);
	result_stream_close(&rs);
	return status;
}
