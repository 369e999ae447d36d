/*
 * gzstream_other.c - gzstream.h on systems where ubcreplay has no way yet
 * to make a stdio stream of its own (funopen(3) on the BSDs is to come):
 * compressed files are refused, saying why; plain ones are unaffected.
 */
#include <unistd.h>

#include "gzstream.h"

FILE *
gzstream_open(int fd, const char *mode, char *why, size_t whylen)
{
	(void)mode;
	close(fd);
	snprintf(why, whylen,
	    "gzip-compressed files are not supported on this system yet");
	return NULL;
}
