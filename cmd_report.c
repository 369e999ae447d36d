/*
 * cmd_report.c - `ubcreplay report FILE`: renders a stored result again,
 * through the same code that rendered it live.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cmd.h"

int
cmd_report(int argc, char **argv)
{
	char errbuf[512];
	json_t *doc;

	if (argc != 2 || argv[1][0] == '-') {
		usage_synopsis();
		return EXIT_USAGE;
	}
	if ((doc = result_load(argv[1], errbuf, sizeof(errbuf))) == NULL) {
		warnx("%s", errbuf);
		return EXIT_FAILURE;
	}
	report_text(doc, stdout, 0);
	json_decref(doc);
	return EXIT_SUCCESS;
}
