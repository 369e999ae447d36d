/*
 * tracefs_text_fuzz.c - libFuzzer target for the text files of tracefs the
 * exact probe parses (traces.h): the input as an event's format file, as
 * events/header_page and as per_cpu/cpuN/stats. Each field a format yields
 * is then read, both byte orders, from a record made of the input itself,
 * as if a page held it: the field readers must stay inside the record.
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
	static struct tracefs_format f;
	struct tracefs_page_layout l;
	struct tracefs_cpu_stats st;
	char err[256], *text, str[128];
	uint64_t v;

	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (tracefs_format_parse(text, &f, err, sizeof(err)) == 0) {
		if (f.nfield > TRACEFS_MAXFIELD)
			abort();
		for (size_t i = 0; i < f.nfield; i++) {
			const struct tracefs_field *fd = &f.field[i];

			if (tracefs_field_find(&f, fd->name) == NULL)
				abort();
			for (int be = 0; be < 2; be++) {
				(void)tracefs_field_u64(fd, data, size, be, &v);
				if (tracefs_field_str(fd, data, size, be, str,
				        sizeof(str)) == 0 &&
				    memchr(str, '\0', sizeof(str)) == NULL)
					abort();
			}
		}
	}
	if (tracefs_header_page_parse(text, &l, err, sizeof(err)) == 0 &&
	    l.data_offset > l.page_bytes)
		abort();
	(void)tracefs_stats_parse(text, &st, err, sizeof(err));
	free(text);
	return 0;
}
