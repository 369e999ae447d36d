/*
 * diskstats_fuzz.c - libFuzzer target for diskstats_parse (traces.h): each
 * line of the input is parsed as a line of /sys/block/DEV/stat or of
 * /proc/diskstats, as the kernel (or a hostile mount of /proc) might hand
 * it over. The parser must never crash nor read past the line (ASan and
 * UBSan watch), and on success its counters must be what it promised:
 * cumulative, bytes a whole number of sectors.
 *
 *	make fuzz FUZZ_SECONDS=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traces/traces.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL;
	char err[256];

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		struct devstats d;

		if (diskstats_parse(line, &d, err, sizeof(err)) == 0) {
			if (d.xfer[DIR_READ].bytes % 512 != 0 ||
			    d.xfer[DIR_WRITE].bytes % 512 != 0)
				abort();
		} else if (err[0] == '\0' ||
		    memchr(err, '\0', sizeof(err)) == NULL)
			abort(); /* a failure must say why */
	}
	free(text);
	return 0;
}
