/*
 * mountinfo_fuzz.c - libFuzzer target for mountinfo_find (traces.h): the
 * input's first two bytes pick the device number looked for and its third
 * the directory, the rest is the text of a mountinfo file, octal escapes,
 * optional fields and all. The parser must never crash, and what it fills
 * in must be terminated strings.
 *
 *	make fuzz FUZZ_SECONDS=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traces/traces.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const dirs[] = {
    "/", "/mnt", "/mnt/a b", "/home/x/y", "/srv/nfs/export/deep/dir"};

static void
terminated(const char *s, size_t len)
{
	if (memchr(s, '\0', len) == NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct target *t;
	char err[256], *text;

	if (size < 3 || (t = calloc(1, sizeof(*t))) == NULL)
		return 0;
	if ((text = malloc(size - 3 + 1)) == NULL) {
		free(t);
		return 0;
	}
	memcpy(text, data + 3, size - 3);
	text[size - 3] = '\0';
	if (mountinfo_find(text, data[0], data[1],
	        dirs[data[2] % (sizeof(dirs) / sizeof(dirs[0]))], t, err,
	        sizeof(err)) == 0) {
		terminated(t->mountpoint, sizeof(t->mountpoint));
		terminated(t->fstype, sizeof(t->fstype));
		terminated(t->options, sizeof(t->options));
		terminated(t->source, sizeof(t->source));
	} else
		terminated(err, sizeof(err));
	free(text);
	free(t);
	return 0;
}
