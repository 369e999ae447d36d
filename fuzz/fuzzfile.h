/*
 * fuzzfile.h - what the fuzz targets that read a path share: the input as
 * a file, in memory so that no file is left behind, and a sink for the
 * reports they print. In the fuzz build's library (GNUmakefile).
 *
 *	int
 *	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
 *	{
 *		const char *path = fuzz_input_file(data, size);
 *
 *		if (result_load(path, err, sizeof(err)) ...
 *		report_text(doc, fuzz_sink(), 0);
 */
#ifndef UBC_FUZZFILE_H
#define UBC_FUZZFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A path that reads as the input: a memfd, written again for each input.
 * Aborts when it cannot be made (the fuzzer cannot go on without it).
 */
const char *fuzz_input_file(const uint8_t *data, size_t size);

/* /dev/null, opened once. */
FILE *fuzz_sink(void);

#endif
