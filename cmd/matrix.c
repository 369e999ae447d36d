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

#define MATRIX_MAX_ENDS  16
#define DEFAULT_BS_BYTES (64ULL << 10)

enum { OPT_FROM = DDOPT_FIRST_FREE, OPT_TO };

/* Besides the options of every dd command. */
static const struct option matrix_opts[] = {
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {"size", required_argument, NULL, DDOPT_SIZE},
    {NULL, 0, NULL, 0},
};

/* What --from, --to and --size stand for. */
static const char *const refused[] = {"if=", "of=", "count=", NULL};

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
	const char *label;
	char *from[MATRIX_MAX_ENDS], *to[MATRIX_MAX_ENDS];
	char *fromarg = NULL, *toarg = NULL;
	size_t nfrom = 0, nto = 0, ok = 0;
	uint64_t size_bytes;
	struct ddrun_opts o;
	struct replay_dd dd;
	char err[768], why[512];
	int c, status = EXIT_SUCCESS;
	json_t *top = NULL, *pairs, *allruns, *list;

	ddrun_opts_init(&o);
	replay_dd_init(&dd);
	dd.bs_bytes = DEFAULT_BS_BYTES;
	optind = 1;
	while ((c = ddrun_getopt(
	            argc, argv, matrix_opts, "matrix", &o, &status)) > 0) {
		if (c == OPT_FROM)
			fromarg = optarg;
		if (c == OPT_TO)
			toarg = optarg;
	}
	if (c == -1)
		return status;
	size_bytes = o.size_bytes;
	if (ddrun_operands(argc, argv, refused,
	        "a matrix takes its files from --from and --to, its size "
	        "from --size",
	        &dd) == -1)
		return EXIT_FAILURE;
	if (fromarg == NULL || toarg == NULL) {
		warnx("missing %s", fromarg == NULL ? "--from" : "--to");
		usage_command(stderr, "matrix");
		return EXIT_USAGE;
	}
	if (cmd_split_list("--from", "files", fromarg, from, MATRIX_MAX_ENDS,
	        &nfrom) == -1 ||
	    cmd_split_list("--to", "files", toarg, to, MATRIX_MAX_ENDS, &nto) ==
	        -1)
		return EXIT_FAILURE;
	dd.have_count = 1;
	dd.count = size_bytes / dd.bs_bytes > 0 ? size_bytes / dd.bs_bytes : 1;

	/* Check every pair that will run before any runs. */
	for (size_t i = 0; i < nfrom; i++)
		for (size_t k = 0; k < nto; k++) {
			if (senseless(from[i], to[k], why, sizeof(why)))
				continue;
			dd.in = from[i];
			if (ddrun_set_out(&dd, to[k]) == -1)
				return EXIT_FAILURE;
			if (replay_dd_check(&dd, err, sizeof(err)) == -1) {
				warnx("%s", err);
				return EXIT_FAILURE;
			}
		}

	stop_catch();
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
			ddrun_set_out(&dd, to[k]);
			if (ddrun_prepare(&r, &o, &dd, err, sizeof(err)) != 0) {
				warnx("%s -> %s: %s", from[i], to[k], err);
				json_array_append_new(pairs,
				    pair_json(from[i], to[k], NULL, NULL, err));
				status = EXIT_FAILURE;
				continue;
			}
			if (!o.quiet)
				fprintf(stderr, "%s -> %s\n", from[i], to[k]);
			for (int m = 0; m < o.runs; m++)
				if (ddrun_next(&r, err, sizeof(err)) == -1) {
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
	if ((label = o.label) == NULL)
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
	return ddrun_finish(top, o.output, o.quiet, status);
}
