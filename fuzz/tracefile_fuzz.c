/*
 * tracefile_fuzz.c - libFuzzer target for trace files (--trace-out, read
 * back by `ubcreplay report`): tracefile_read on the input as a file and,
 * when it is taken for a trace, result_retrace, which computes the result
 * again from its records, and the text report of that. Seeds: a real trace,
 * fixtures/tracefile_fuzz/seed.trace, and the same gzip-compressed.
 *
 *	make fuzz FUZZ_SECONDS=60
 */
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "fuzzfile.h"
#include "traces/traces.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_file(data, size);
	struct tracefile tf;
	char err[512];
	json_t *doc;

	(void)tracefile_is(path, err, sizeof(err));
	if (tracefile_read(path, &tf, err, sizeof(err)) == -1)
		return 0;
	if ((doc = result_retrace(&tf, err, sizeof(err))) != NULL) {
		report_text(doc, fuzz_sink(), 0);
		json_decref(doc);
	}
	tracefile_free(&tf);
	return 0;
}
