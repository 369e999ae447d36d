/*
 * matrix.c - `ubcreplay matrix --from A,B --to X,Y`: every source onto
 * every destination, -n runs each, and a table of the transfer time and the
 * lossage of each pair (DD FROM, TO, XFER TIME, LOSSAGE), the shape of the
 * hand-made tables this replaces.
 *
 * Pairs that make no sense are skipped, and the table says why: a file or
 * device onto itself, a block device under the source's own filesystem
 * (the copy would overwrite what it reads), and /dev/null as a source (it
 * reads nothing). Every other pair is checked before anything runs, so bad
 * input stops the matrix before it writes.
 */
#include <sys/stat.h>

#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dd.h"

#define MATRIX_MAX_ENDS    16
#define DEFAULT_SIZE_BYTES (64ULL << 20)
#define DEFAULT_BS_BYTES   (64ULL << 10)

enum { OPT_FROM = DDOPT_FIRST_FREE, OPT_TO, OPT_SIZE };

static const struct option longopts[] = {
    {"drop-caches", no_argument, NULL, DDOPT_DROP},
    {"ntp", required_argument, NULL, DDOPT_NTP},
    {"help", no_argument, NULL, 'h'},
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {"size", required_argument, NULL, OPT_SIZE},
    {NULL, 0, NULL, 0},
};

static const char matrix_usage[] =
    "usage: ubcreplay matrix --from files --to files [--size n] [-q]\n"
    "                        [-i interval] [-l label] [-n runs] [-o file]\n"
    "                        [-p probe] [--drop-caches] [--ntp host[:port]]\n"
    "                        [bs=n] [iflag=direct] [oflag=direct]\n";

/* Splits a comma list in place into at most MATRIX_MAX_ENDS paths. */
static int
split(const char *opt, char *arg, char **v, size_t *n)
{
	char *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(arg, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == MATRIX_MAX_ENDS) {
			warnx("%s: more than %d files", opt, MATRIX_MAX_ENDS);
			return -1;
		}
		v[(*n)++] = tok;
	}
	if (*n == 0) {
		warnx("%s: no files", opt);
		return -1;
	}
	return 0;
}

/* Why the pair makes no sense, or NULL when it does. */
static const char *
senseless(const char *from, const char *to, char *why, size_t len)
{
	struct stat fs, ts, ns;
	struct target ft, tt;
	char err[256];

	if (stat(from, &fs) == -1)
		return NULL; /* the check names what is wrong */
	if (S_ISCHR(fs.st_mode) && stat("/dev/null", &ns) == 0 &&
	    fs.st_rdev == ns.st_rdev)
		return "/dev/null reads nothing";
	if (stat(to, &ts) == -1)
		return NULL;
	if ((S_ISBLK(fs.st_mode) || S_ISCHR(fs.st_mode)) &&
	    fs.st_mode == ts.st_mode && fs.st_rdev == ts.st_rdev)
		return "a device onto itself";
	if (fs.st_dev == ts.st_dev && fs.st_ino == ts.st_ino)
		return "a file onto itself";
	/* A device under the source's filesystem: the copy eats its source. */
	if (S_ISBLK(ts.st_mode) &&
	    target_resolve_node(to, &tt, err, sizeof(err)) == 0 &&
	    tt.ndev > 0 &&
	    target_resolve_node(from, &ft, err, sizeof(err)) == 0)
		for (size_t i = 0; i < ft.ndev; i++)
			if (ft.dev[i].major == tt.dev[0].major &&
			    ft.dev[i].minor == tt.dev[0].minor) {
				snprintf(why, len,
				    "%s is on %s: the copy would "
				    "overwrite its source",
				    from, to);
				return why;
			}
	return NULL;
}

/* A pair's result document, less what the matrix says once for all. */
static json_t *
pair_json(const char *from, const char *to, json_t *doc, const char *skip,
    const char *error)
{
	json_t *p = json_pack("{s:s,s:s,s:s?,s:s?}", "from", from, "to", to,
	    "skipped", skip, "error", error);
	static const char *const keep[] = {"status", "workload", "targets",
	    "probe", "runs", "between_runs", "summary"};

	for (size_t i = 0; doc != NULL && i < sizeof(keep) / sizeof(keep[0]);
	     i++)
		if (json_object_get(doc, keep[i]) != NULL)
			json_object_set(
			    p, keep[i], json_object_get(doc, keep[i]));
	if (doc == NULL)
		json_object_set_new(p, "status",
		    json_string(skip != NULL ? "skipped" : "failed"));
	return p;
}

int
cmd_matrix(int argc, char **argv)
{
	const char *label = NULL, *output = NULL;
	char *from[MATRIX_MAX_ENDS], *to[MATRIX_MAX_ENDS];
	char *fromarg = NULL, *toarg = NULL;
	size_t nfrom = 0, nto = 0, ok = 0;
	uint64_t size_bytes = DEFAULT_SIZE_BYTES;
	struct ddrun_opts o;
	struct replay_dd dd;
	char err[768], why[512];
	int c, status = EXIT_SUCCESS;
	json_t *top = NULL, *pairs, *allruns, *list;

	ddrun_opts_init(&o);
	replay_dd_init(&dd);
	dd.bs_bytes = DEFAULT_BS_BYTES;
	optind = 1;
	while ((c = getopt_long(argc, argv, DDRUN_SHORTOPTS, longopts, NULL)) !=
	    -1) {
		int rv;

		switch (c) {
		case 'h':
			fputs(matrix_usage, stdout);
			return EXIT_SUCCESS;
		case OPT_FROM:
			fromarg = optarg;
			continue;
		case OPT_TO:
			toarg = optarg;
			continue;
		case OPT_SIZE:
			if (replay_dd_parse_size(
			        optarg, &size_bytes, err, sizeof(err)) == -1 ||
			    size_bytes == 0) {
				warnx("--size: %s",
				    size_bytes == 0 ? "must be at least 1 byte"
				                    : err);
				return EXIT_FAILURE;
			}
			continue;
		}
		if ((rv = ddrun_option(c, optarg, &o, &label, &output)) == -1)
			return EXIT_USAGE;
		if (rv == 0) {
			fputs(matrix_usage, stderr);
			return EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (strncmp(argv[i], "if=", 3) == 0 ||
		    strncmp(argv[i], "of=", 3) == 0 ||
		    strncmp(argv[i], "count=", 6) == 0) {
			warnx("operand '%s': a matrix takes its files from "
			      "--from and --to, its size from --size",
			    argv[i]);
			return EXIT_FAILURE;
		}
		if (replay_dd_operand(&dd, argv[i], err, sizeof(err)) == -1) {
			warnx("%s", err);
			return EXIT_FAILURE;
		}
	}
	if (fromarg == NULL || toarg == NULL) {
		warnx("missing %s", fromarg == NULL ? "--from" : "--to");
		fputs(matrix_usage, stderr);
		return EXIT_USAGE;
	}
	if (split("--from", fromarg, from, &nfrom) == -1 ||
	    split("--to", toarg, to, &nto) == -1)
		return EXIT_FAILURE;
	dd.have_count = 1;
	dd.count = size_bytes / dd.bs_bytes > 0 ? size_bytes / dd.bs_bytes : 1;

	/* Check every pair that will run before any runs. */
	for (size_t i = 0; i < nfrom; i++)
		for (size_t k = 0; k < nto; k++) {
			if (senseless(from[i], to[k], why, sizeof(why)))
				continue;
			dd.in = from[i];
			dd.out = to[k];
			if (replay_dd_check(&dd, err, sizeof(err)) == -1) {
				warnx("%s", err);
				return EXIT_FAILURE;
			}
		}

	replay_catch_signals();
	pairs = json_array();
	allruns = json_array();
	for (size_t i = 0; i < nfrom; i++)
		for (size_t k = 0; k < nto; k++) {
			const char *skip =
			    senseless(from[i], to[k], why, sizeof(why));
			struct ddrun r;
			json_t *doc, *run;
			char plabel[1024];
			size_t n;

			if (skip != NULL) {
				if (!o.quiet)
					fprintf(stderr,
					    "%s -> %s: skipped: %s\n", from[i],
					    to[k], skip);
				json_array_append_new(pairs,
				    pair_json(
				        from[i], to[k], NULL, skip, NULL));
				continue;
			}
			dd.in = from[i];
			dd.out = to[k];
			if (ddrun_prepare(&r, &o, &dd, err, sizeof(err)) ==
			    -1) {
				warnx("%s -> %s: %s", from[i], to[k], err);
				json_array_append_new(pairs,
				    pair_json(from[i], to[k], NULL, NULL, err));
				status = EXIT_FAILURE;
				continue;
			}
			if (!o.quiet)
				fprintf(stderr, "%s -> %s\n", from[i], to[k]);
			for (int m = 0; m < o.runs; m++)
				if (ddrun_run(&r, err, sizeof(err)) == -1) {
					ddrun_die_if_stopped(&r);
					warnx("%s -> %s: run %d failed: %s",
					    from[i], to[k], m + 1, err);
					status = EXIT_FAILURE;
					break;
				}
			snprintf(plabel, sizeof(plabel), "if=%s of=%s", from[i],
			    to[k]);
			doc = ddrun_json(
			    &r, "dd", plabel, ddrun_workload_json(&r));
			ddrun_close(&r);
			if (doc == NULL) {
				warnx("cannot build the result: out of memory");
				return EXIT_FAILURE;
			}
			/* The matrix's own header comes from the first pair. */
			if (top == NULL) {
				top = json_deep_copy(doc);
				json_object_del(top, "between_runs");
				json_object_del(top, "summary");
			}
			json_array_foreach (
			    json_object_get(doc, "runs"), n, run) {
				json_t *cp = json_deep_copy(run);

				json_object_set_new(cp, "run",
				    json_integer(
				        (json_int_t)json_array_size(allruns) +
				        1));
				json_object_set_new(
				    cp, "from", json_string(from[i]));
				json_object_set_new(
				    cp, "to", json_string(to[k]));
				json_array_append_new(allruns, cp);
				if (strcmp(json_string_value(
				               json_object_get(run, "status")),
				        "ok") == 0)
					ok++;
			}
			json_array_append_new(
			    pairs, pair_json(from[i], to[k], doc, NULL, NULL));
			json_decref(doc);
		}
	if (top == NULL) {
		warnx("no pair of --from and --to could run");
		json_decref(pairs);
		json_decref(allruns);
		return EXIT_FAILURE;
	}
	if (label == NULL)
		label = "matrix";
	json_object_set_new(top, "kind", json_string("matrix"));
	json_object_set_new(top, "label", json_string(label));
	json_object_set_new(top, "status",
	    json_string(status == EXIT_SUCCESS ? "ok" : "failed"));
	list = json_array();
	for (size_t i = 0; i < nfrom; i++)
		json_array_append_new(list, json_string(from[i]));
	json_object_set_new(top, "workload",
	    json_pack("{s:o,s:o,s:I,s:I,s:i,"
	              "s:b,s:b,s:b,s:s?}",
	        "from", list, "to", json_array(), "bs_bytes",
	        (json_int_t)dd.bs_bytes, "size_bytes", (json_int_t)size_bytes,
	        "runs", o.runs, "iflag_direct", dd.idirect, "oflag_direct",
	        dd.odirect, "drop_caches", o.drop_caches, "ntp", o.ntp));
	for (size_t k = 0; k < nto; k++)
		json_array_append_new(
		    json_object_get(json_object_get(top, "workload"), "to"),
		    json_string(to[k]));
	/* Each pair lists its own ends; the matrix has no single target. */
	json_object_set_new(top, "targets", json_array());
	json_object_set_new(top, "runs", allruns);
	json_object_set_new(top, "pairs", pairs);
	json_object_set_new(
	    top, "summary", json_pack("{s:I}", "runs_ok", (json_int_t)ok));
	return ddrun_finish(top, output, o.quiet, status);
}
