/*
 * tracefs_page_fuzz.c - libFuzzer target for the ring-buffer pages the
 * exact probe reads from per_cpu/cpuN/trace_pipe_raw (traces.h): the input,
 * cut into pages of the recorded layout, is walked by tracefs_page_parse,
 * and every event is decoded by tracefs_block_decode with the recorded
 * formats of the four block events. The layout and formats are the
 * fixtures' (fixtures/tracefs_test/basic), found from the program's path
 * (build/fuzz/); the seeds are the recorded pages, raw0.bin and raw1.bin.
 *
 *	make fuzz FUZZ_SECONDS=60
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/blkev.h"
#include "traces/traces.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tracefs_page_layout layout;
static struct tracefs_block block;

static char *
slurp(const char *dir, const char *name)
{
	char path[4096], *buf;
	FILE *fp;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "r")) == NULL || fseek(fp, 0, SEEK_END) == -1 ||
	    (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) == -1 ||
	    (buf = calloc(1, (size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		fprintf(stderr, "tracefs_page_fuzz: cannot read %s\n", path);
		exit(1);
	}
	fclose(fp);
	return buf;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[4096], err[256], *slash;
	char *formats[TRACEFS_NBLOCK], *hp;

	(void)argc;
	snprintf(dir, sizeof(dir), "%s", (*argv)[0]);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	strncat(dir, "/../../fixtures/tracefs_test/basic",
	    sizeof(dir) - strlen(dir) - 1);
	hp = slurp(dir, "header_page");
	for (int i = 0; i < TRACEFS_NBLOCK; i++) {
		char name[128];

		snprintf(
		    name, sizeof(name), "%s.format", tracefs_block_events[i]);
		formats[i] = slurp(dir, name);
	}
	if (tracefs_header_page_parse(hp, &layout, err, sizeof(err)) == -1 ||
	    tracefs_block_init(&block, (const char *const *)formats, 0, err,
	        sizeof(err)) == -1) {
		fprintf(stderr, "tracefs_page_fuzz: %s\n", err);
		exit(1);
	}
	free(hp);
	for (int i = 0; i < TRACEFS_NBLOCK; i++)
		free(formats[i]);
	return 0;
}

static int
decode(void *ctx, uint64_t ts, const unsigned char *rec, size_t len, char *err,
    size_t errlen)
{
	struct blkev ev;

	(void)ctx;
	(void)tracefs_block_decode(&block, ts, rec, len, &ev, err, errlen);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracefs_page_info info;
	char err[256];

	for (size_t off = 0; off < size; off += layout.page_bytes) {
		size_t len = size - off < layout.page_bytes ? size - off
		                                            : layout.page_bytes;

		if (tracefs_page_parse(&layout, data + off, len, decode, NULL,
		        &info, err, sizeof(err)) == 0 &&
		    info.data_bytes > len)
			abort();
	}
	return 0;
}
