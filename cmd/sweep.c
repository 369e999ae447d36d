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

#define SWEEP_MAX_SIZES    64
#define DEFAULT_SIZE_BYTES (64ULL << 20)

enum { OPT_BS = DDOPT_FIRST_FREE, OPT_SIZE, OPT_COLD };

static const struct option longopts[] = {
    {"drop-caches", no_argument, NULL, DDOPT_DROP},
    {"ntp", required_argument, NULL, DDOPT_NTP},
    {"help", no_argument, NULL, 'h'},
    {"bs", required_argument, NULL, OPT_BS},
    {"size", required_argument, NULL, OPT_SIZE},
    {"cold", no_argument, NULL, OPT_COLD},
    {NULL, 0, NULL, 0},
};

static const char sweep_usage[] =
    "usage: ubcreplay sweep --bs sizes [--cold] [--size n] [-q] [-i interval]\n"
    "                       [-l label] [-n runs] [-o file] [-p probe]\n"
    "                       [--drop-caches] [--ntp host[:port]] if=file\n"
    "                       [of=file] [skip=n] [iflag=direct] [oflag=direct]\n";

/* "512,4k,64k" into sizes; warns and returns -1 on a bad one. */
static int
parse_bs_list(const char *arg, uint64_t *bs, size_t *n)
{
	char buf[1024], *tok, *save = NULL, err[128];

	snprintf(buf, sizeof(buf), "%s", arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == SWEEP_MAX_SIZES) {
			warnx("--bs: more than %d sizes", SWEEP_MAX_SIZES);
			return -1;
		}
		if (replay_dd_parse_size(tok, &bs[*n], err, sizeof(err)) ==
		    -1) {
			warnx("--bs: %s", err);
			return -1;
		}
		if (bs[*n] == 0) {
			warnx("--bs: invalid block size '%s': must be at least "
			      "1 byte",
			    tok);
			return -1;
		}
		(*n)++;
	}
	if (*n == 0) {
		warnx("--bs: no block sizes in '%s'", arg);
		return -1;
	}
	return 0;
}

/* The summary of the runs [from, from + n) alone. */
static json_t *
size_summary(const struct ddrun *r, size_t from, size_t n)
{
	struct ddrun slice = *r;
	json_t *doc, *s;

	slice.runs = r->runs + from;
	slice.extra = r->extra + from;
	slice.nrun = n;
	if ((doc = ddrun_json(&slice, "sweep", "", json_object())) == NULL)
		return json_null();
	s = json_incref(json_object_get(doc, "summary"));
	json_decref(doc);
	return s;
}

int
cmd_sweep(int argc, char **argv)
{
	const char *label = NULL, *output = NULL, *cold_how = "none";
	uint64_t bs[SWEEP_MAX_SIZES], size_bytes = DEFAULT_SIZE_BYTES;
	size_t nbs = 0, ran = 0, first[SWEEP_MAX_SIZES], nruns[SWEEP_MAX_SIZES];
	struct ddrun_opts o;
	struct replay_dd dd;
	struct ddrun r;
	char err[768], deflabel[1024];
	int c, cold = 0, status = EXIT_SUCCESS;
	json_t *doc, *sizes, *list, *w;

	ddrun_opts_init(&o);
	replay_dd_init(&dd);
	optind = 1;
	while ((c = getopt_long(argc, argv, DDRUN_SHORTOPTS, longopts, NULL)) !=
	    -1) {
		int rv;

		switch (c) {
		case 'h':
			fputs(sweep_usage, stdout);
			return EXIT_SUCCESS;
		case OPT_BS:
			if (parse_bs_list(optarg, bs, &nbs) == -1)
				return EXIT_FAILURE;
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
		case OPT_COLD:
			cold = 1;
			continue;
		}
		if ((rv = ddrun_option(c, optarg, &o, &label, &output)) == -1)
			return EXIT_USAGE;
		if (rv == 0) {
			fputs(sweep_usage, stderr);
			return EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (strncmp(argv[i], "bs=", 3) == 0 ||
		    strncmp(argv[i], "count=", 6) == 0) {
			warnx("operand '%s': a sweep takes its sizes from --bs "
			      "and --size",
			    argv[i]);
			return EXIT_FAILURE;
		}
		if (replay_dd_operand(&dd, argv[i], err, sizeof(err)) == -1) {
			warnx("%s", err);
			return EXIT_FAILURE;
		}
	}
	if (nbs == 0 || dd.in == NULL) {
		warnx("%s",
		    nbs == 0 ? "missing --bs"
		             : "missing operand "
		               "if=FILE");
		fputs(sweep_usage, stderr);
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
	replay_catch_signals();
	if (ddrun_prepare(&r, &o, &dd, err, sizeof(err)) == -1) {
		warnx("%s", err);
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < nbs && status == EXIT_SUCCESS; i++, ran++) {
		r.dd.bs_bytes = bs[i];
		r.dd.count = size_bytes / bs[i] > 0 ? size_bytes / bs[i] : 1;
		first[i] = r.nrun;
		nruns[i] = 0;
		for (int k = 0; k < o.runs; k++) {
			nruns[i]++;
			if (ddrun_run(&r, err, sizeof(err)) == -1) {
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
	if (label == NULL) {
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
	return ddrun_finish(doc, output, o.quiet, status);
}
