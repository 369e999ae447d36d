/*
 * result_fuzz.c - libFuzzer target for reading result files: result_load
 * (analysis.h) on the input as a file, and, when it is taken for a result,
 * everything that trusts it afterwards: the text reports (report_text,
 * report_dd_text), and compare's reduction, comparison against itself, text
 * report and picture (compare.h). A result is a file anyone may hand to
 * `ubcreplay report` or `compare`; a malformed one must be refused or
 * reported, never crash (ASan and UBSan watch), and its text must reach
 * the terminal without control characters. Seeds: fixtures' results.
 *
 *	make fuzz FUZZ_SECONDS=60
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "fuzzfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The report, in memory: no control character but the line ends. */
static void
text_clean(json_t *doc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		abort();
	report_text(doc, fp, 0);
	fclose(fp);
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n') ||
		    buf[i] == 0x7f)
			abort();
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmp_opts opts = CMP_OPTS_DEFAULT;
	const char *path = fuzz_input_file(data, size);
	FILE *sink = fuzz_sink();
	struct cmp_result *r[2];
	struct cmp *c;
	char err[512];
	json_t *doc;

	if ((doc = result_load(path, err, sizeof(err))) == NULL)
		return 0;
	text_clean(doc);
	report_text(doc, sink, 1);
	report_dd_text(doc, sink, REPORT_DD_RUNS);
	report_dd_text(doc, sink, REPORT_DD_TABLES);
	if ((r[0] = cmp_result_from_json(doc, "a", err, sizeof(err))) != NULL &&
	    (r[1] = cmp_result_from_json(doc, "b", err, sizeof(err))) == NULL)
		cmp_result_free(r[0]);
	else if (r[0] != NULL &&
	    (c = cmp_new(r, 2, &opts, err, sizeof(err))) != NULL) {
		cmp_report_text(c, sink, 1, 80);
		cmp_report_text(c, sink, 0, 40);
		cmp_report_svg(c, NULL, 0, sink, err, sizeof(err));
		cmp_free(c);
	}
	json_decref(doc);
	return 0;
}
