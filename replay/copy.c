/*
 * copy.c - a sparse copy of a file: its data where it has data (lseek's
 * SEEK_DATA and SEEK_HOLE where the system has them), holes where it has
 * holes or zeros, so that a large image that is mostly empty copies in a
 * moment and takes no more room than the original.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

#define CHUNK (1 << 20)

static int
all_zero(const unsigned char *b, size_t n)
{
	return n == 0 || (b[0] == 0 && memcmp(b, b + 1, n - 1) == 0);
}

/* Copies [off, end) of in to out, leaving zero chunks as holes. */
static int
copy_range(int in, int out, off_t off, off_t end, unsigned char *buf)
{
	while (off < end) {
		size_t want = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
		ssize_t n = pread(in, buf, want, off);

		if (n <= 0)
			return n == 0 ? (errno = EIO, -1) : -1;
		if (!all_zero(buf, (size_t)n) &&
		    pwrite(out, buf, (size_t)n, off) != n)
			return -1;
		off += n;
	}
	return 0;
}

int
replay_copy_sparse(const char *src, const char *dst, char *err, size_t errlen)
{
	unsigned char *buf = malloc(CHUNK);
	int in = -1, out = -1, rv = -1;
	struct stat st;
	off_t off = 0;

	if (buf == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(in, &st) == -1) {
		snprintf(
		    err, errlen, "cannot read '%s': %s", src, strerror(errno));
		goto out;
	}
	if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		snprintf(
		    err, errlen, "cannot make '%s': %s", dst, strerror(errno));
		goto out;
	}
	while (off < st.st_size) {
#ifdef SEEK_DATA
		off_t data = lseek(in, off, SEEK_DATA), hole;

		if (data == -1 && errno == ENXIO)
			break; /* a hole to the end */
		if (data == -1) {
			data = off; /* no SEEK_DATA here: all of it */
			hole = st.st_size;
		} else if ((hole = lseek(in, data, SEEK_HOLE)) == -1)
			hole = st.st_size;
#else
		off_t data = off, hole = st.st_size;
#endif
		if (copy_range(in, out, data, hole, buf) == -1) {
			snprintf(err, errlen, "cannot copy '%s' to '%s': %s",
			    src, dst, strerror(errno));
			goto out;
		}
		off = hole;
	}
	if (ftruncate(out, st.st_size) == -1) {
		snprintf(
		    err, errlen, "cannot size '%s': %s", dst, strerror(errno));
		goto out;
	}
	rv = 0;
out:
	if (out != -1 && close(out) == -1 && rv == 0) {
		snprintf(
		    err, errlen, "cannot write '%s': %s", dst, strerror(errno));
		rv = -1;
	}
	if (rv == -1 && out != -1)
		unlink(dst);
	if (in != -1)
		close(in);
	free(buf);
	return rv;
}
