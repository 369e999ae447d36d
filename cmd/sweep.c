/*
 * sweep.c - `ubcreplay sweep --bs 512,4k,... if=SRC [of=DST]`: the same
 * transfer at each block size, -n runs per size, and a table of block size
 * against transfer rate, with the devices' requests per size.
 *
 * Every size moves the same bytes (--size, 64 MiB unless given; less when
 * the source ends first), so the rates compare. --cold empties the page
 * cache before each run when we may (root), and reads with direct I/O when
 * we may not, and says which: a warm cache makes the disk look infinitely
 * fast.
 */
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "dd.h"

#define SWEEP_MAX_SIZES 64

enum { OPT_BS = DDOPT_FIRST_FREE, OPT_COLD };

/* Besides the options of every dd command. */
static const struct option sweep_opts[] = {
    {"bs", required_argument, NULL, OPT_BS},
    {"size", required_argument, NULL, DDOPT_SIZE},
    {"cold", no_argument, NULL, OPT_COLD},
    {NULL, 0, NULL, 0},
};

/* What --bs and --size stand for. */
static const char *const refused[] = {"bs=", "count=", NULL};

/* "512,4k,64k" into sizes; warns and returns -1 on a bad one. */
static int
parse_bs_list(char *arg, uint64_t *bs, size_t *n)
{
	char *tok[SWEEP_MAX_SIZES], err[128];

	if (cmd_split_list(
	        "--bs", "block sizes", arg, tok, SWEEP_MAX_SIZES, n) == -1)
		return -1;
	for (size_t i = 0; i < *n; i++) {
		if (replay_dd_parse_size(tok[i], &bs[i], err, sizeof(err)) ==
		    -1) {
			warnx("--bs: %s", err);
			return -1;
		}
		if (bs[i] == 0) {
			warnx("--bs: invalid block size '%s': must be at least "
			      "1 byte",
			    tok[i]);
			return -1;
		}
	}
	return 0;
}

/* The summary of the runs [from, from + n) alone. */
static json_t *
size_summary(const struct ddrun *r, size_t from, size_t n)
{
	/* On the heap: the job in it is large for a stack. */
	struct ddrun *slice = malloc(sizeof(*slice));
	json_t *doc, *s;

	if (slice == NULL)
		return json_null();
	*slice = *r;
	slice->runs = r->runs + from;
	slice->extra = r->extra + from;
	slice->nrun = n;
	doc = ddrun_json(slice, "sweep", "", json_object());
	free(slice);
	if (doc == NULL)
		return json_null();
	s = json_incref(json_object_get(doc, "summary"));
	json_decref(doc);
	return s;
}

int
cmd_sweep(int argc, char **argv)
{
	const char *label, *cold_how = "none";
	uint64_t bs[SWEEP_MAX_SIZES], size_bytes;
	size_t nbs = 0, ran = 0, first[SWEEP_MAX_SIZES], nruns[SWEEP_MAX_SIZES];
	struct ddrun_opts o;
	struct replay_dd dd;
	struct ddrun r;
	char err[768], deflabel[1024];
	int c, cold = 0, status = EXIT_SUCCESS, rv;
	json_t *doc, *sizes, *list, *w;

	ddrun_opts_init(&o);
	replay_dd_init(&dd);
	optind = 1;
	while ((c = ddrun_getopt(
	            argc, argv, sweep_opts, "sweep", &o, &status)) > 0) {
		if (c == OPT_BS && parse_bs_list(optarg, bs, &nbs) == -1)
			return EXIT_FAILURE;
		if (c == OPT_COLD)
			cold = 1;
	}
	if (c == -1)
		return status;
	size_bytes = o.size_bytes;
	if (ddrun_operands(argc, argv, refused,
	        "a sweep takes its sizes from --bs and --size", &dd) == -1)
		return EXIT_FAILURE;
	if (nbs == 0 || dd.in == NULL) {
		warnx("%s",
		    nbs == 0 ? "missing --bs"
		             : "missing operand "
		               "if=FILE");
		usage_command(stderr, "sweep");
		return EXIT_USAGE;
	}
	if (dd.out == NULL)
		dd.out = "/dev/null";
	if (cold && geteuid() == 0) {
		o.drop_caches = 1;
		cold_how = "drop_caches";
	} else if (cold) {
		dd.idirect = 1;
		cold_how = "direct";
	}
	if (cold && !o.quiet)
		warnx("--cold: %s",
		    o.drop_caches
		        ? "dropping the page cache "
		          "before each run"
		        : "not root, so reading with direct I/O "
		          "(iflag=direct) instead of dropping the page cache");
	/* Every size is checked before anything runs. */
	dd.have_count = 1;
	for (size_t i = 0; i < nbs; i++) {
		dd.bs_bytes = bs[i];
		dd.count = size_bytes / bs[i] > 0 ? size_bytes / bs[i] : 1;
		if (replay_dd_check(&dd, err, sizeof(err)) == -1) {
			warnx("%s", err);
			return EXIT_FAILURE;
		}
	}
	dd.bs_bytes = bs[0];
	/* Before the probe opens, as in dd.c. */
	stop_catch();
	if ((rv = ddrun_prepare(&r, &o, &dd, err, sizeof(err))) != 0) {
		warnx("%s", err);
		return rv == -2 ? EXIT_USAGE : EXIT_FAILURE;
	}
	for (size_t i = 0; i < nbs && status == EXIT_SUCCESS; i++, ran++) {
		r.dd.bs_bytes = bs[i];
		r.dd.count = size_bytes / bs[i] > 0 ? size_bytes / bs[i] : 1;
		first[i] = r.nrun;
		nruns[i] = 0;
		for (int k = 0; k < o.runs; k++) {
			nruns[i]++;
			if (ddrun_next(&r, err, sizeof(err)) == -1) {
				ddrun_die_if_stopped(&r);
				warnx("bs=%" PRIu64 " run %d failed: %s", bs[i],
				    k + 1, err);
				status = EXIT_FAILURE;
				break;
			}
		}
		if (!o.quiet)
			fprintf(stderr, "bs=%" PRIu64 ": %zu run%s\n", bs[i],
			    nruns[i], nruns[i] == 1 ? "" : "s");
	}
	if (status != EXIT_SUCCESS && r.nrun == 1) {
		ddrun_close(&r);
		return status;
	}
	if ((label = o.label) == NULL) {
		snprintf(
		    deflabel, sizeof(deflabel), "if=%s of=%s", dd.in, dd.out);
		label = deflabel;
	}
	list = json_array();
	for (size_t i = 0; i < nbs; i++)
		json_array_append_new(list, json_integer((json_int_t)bs[i]));
	w = json_pack("{s:s,s:s,s:o,s:I,s:i,s:s,s:I,s:b,s:b,s:b,s:s?}", "if",
	    dd.in, "of", dd.out, "bs_list_bytes", list, "size_bytes",
	    (json_int_t)size_bytes, "runs", o.runs, "cold", cold_how, "skip",
	    (json_int_t)dd.skip, "iflag_direct", r.dd.idirect, "oflag_direct",
	    r.dd.odirect, "drop_caches", o.drop_caches, "ntp", o.ntp);
	doc = ddrun_json(&r, "sweep", label, w);
	if (doc != NULL) {
		json_t *runs = json_object_get(doc, "runs");

		sizes = json_array();
		for (size_t i = 0; i < ran; i++) {
			for (size_t k = first[i]; k < first[i] + nruns[i]; k++)
				json_object_set_new(json_array_get(runs, k),
				    "bs_bytes",
				    json_integer((json_int_t)bs[i]));
			json_array_append_new(sizes,
			    json_pack("{s:I,s:I,s:o}", "bs_bytes",
			        (json_int_t)bs[i], "count",
			        (json_int_t)(size_bytes / bs[i] > 0
			                ? size_bytes / bs[i]
			                : 1),
			        "summary",
			        size_summary(&r, first[i], nruns[i])));
		}
		json_object_set_new(doc, "sizes", sizes);
	}
	ddrun_close(&r);
	return ddrun_finish(doc, o.output, o.quiet, status);
}
