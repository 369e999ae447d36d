/*
 * fuzzfile.c - the input as a file for the fuzz targets that read a path:
 * one memfd, truncated and written again for each input, named through
 * /proc/self/fd.
 */
#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzzfile.h"

const char *
fuzz_input_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd == -1) {
		if ((fd = memfd_create("ubcreplay_fuzz", 0)) == -1)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) == -1 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return path;
}

FILE *
fuzz_sink(void)
{
	static FILE *sink;

	if (sink == NULL && (sink = fopen("/dev/null", "w")) == NULL)
		abort();
	return sink;
}
