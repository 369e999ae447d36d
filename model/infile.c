/*
 * infile.c - input files, plain or gzip-compressed; see infile.h.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gzstream.h"
#include "infile.h"

/* gzip's magic number, RFC 1952 section 2.3.1. */
#define GZIP_ID1 0x1f
#define GZIP_ID2 0x8b

FILE *
infile_open(const char *path, const char *what, struct infile *in, char *err,
    size_t errlen)
{
	unsigned char id[2];
	struct stat st;
	FILE *fp;
	int fd;

	memset(in, 0, sizeof(*in));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cannot read %s '%s': %s", what, path,
		    strerror(errno));
		return NULL;
	}
	/*
	 * Only a regular file shows its first bytes without giving them up;
	 * what comes through a pipe is read as it is.
	 */
	in->gzip = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    pread(fd, id, sizeof(id), 0) == (ssize_t)sizeof(id) &&
	    id[0] == GZIP_ID1 && id[1] == GZIP_ID2;
	if (in->gzip)
		fp = gzstream_open(fd, "r", in->why, sizeof(in->why));
	else if ((fp = fdopen(fd, "r")) == NULL) {
		snprintf(in->why, sizeof(in->why), "%s", strerror(errno));
		close(fd);
	}
	if (fp == NULL) {
		snprintf(err, errlen, "cannot read %s '%s': %s", what, path,
		    in->why);
		return NULL;
	}
	return fp;
}
