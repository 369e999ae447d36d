/*
 * report.c - `ubcreplay report [--svg FILE] FILE`: renders a stored
 * result again, through the same code that rendered it live, and with --svg
 * draws it as `compare --svg` draws a comparison.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis.h"
#include "../analysis/compare.h"
#include "cmd.h"

static const struct option longopts[] = {
    {"svg", required_argument, NULL, 's'},
    {NULL, 0, NULL, 0},
};

/*
 * The picture of one result (a stored one, or one computed again from a
 * trace): a comparison with nothing to compare.
 */
static int
report_svg(json_t *doc, const char *path, const char *svg)
{
	struct cmp_opts copts = CMP_OPTS_DEFAULT;
	struct cmp_result *r;
	char errbuf[512];
	struct cmp *c;
	int rc = 0;

	if ((r = cmp_result_from_json(doc, path, errbuf, sizeof(errbuf))) ==
	        NULL ||
	    (c = cmp_new(&r, 1, &copts, errbuf, sizeof(errbuf))) == NULL) {
		warnx("%s", errbuf);
		return -1;
	}
	if (cmp_svg_write(c, NULL, 0, svg, errbuf, sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		rc = -1;
	}
	cmp_free(c);
	return rc;
}

int
cmd_report(int argc, char **argv)
{
	const char *svg = NULL;
	char errbuf[512];
	json_t *doc;
	int ch, is;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch != 's') {
			usage_print(stderr);
			return EXIT_USAGE;
		}
		svg = optarg;
	}
	if (argc - optind != 1) {
		usage_print(stderr);
		return EXIT_USAGE;
	}
	if ((is = tracefile_is(argv[optind], errbuf, sizeof(errbuf))) == -1) {
		warnx("%s", errbuf);
		return EXIT_FAILURE;
	}
	if (is) {
		/* A trace (--trace-out): its statistics computed again. */
		struct tracefile tf;

		if (tracefile_read(argv[optind], &tf, errbuf, sizeof(errbuf)) ==
		    -1) {
			warnx("%s", errbuf);
			return EXIT_FAILURE;
		}
		doc = result_retrace(&tf, errbuf, sizeof(errbuf));
		tracefile_free(&tf);
		if (doc == NULL) {
			warnx("trace '%s': %s", argv[optind], errbuf);
			return EXIT_FAILURE;
		}
	} else if ((doc = result_load(argv[optind], errbuf, sizeof(errbuf))) ==
	    NULL) {
		warnx("%s", errbuf);
		return EXIT_FAILURE;
	}
	/* The picture first: a file that cannot be written leaves no report. */
	if (svg != NULL && report_svg(doc, argv[optind], svg) == -1) {
		json_decref(doc);
		return EXIT_FAILURE;
	}
	report_text(doc, stdout, 0);
	json_decref(doc);
	return EXIT_SUCCESS;
}
