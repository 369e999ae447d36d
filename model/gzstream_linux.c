/*
 * gzstream_linux.c - gzstream.h on Linux's C libraries: a stream of
 * fopencookie(3) with zlib's gzread and gzwrite behind it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "gzstream.h"

/* zlib's own buffer: fewer, larger reads and writes of the file. */
#define GZ_BUFFER (128 * 1024)

struct gzcookie {
	gzFile gz;
	char *why;
	size_t whylen;
};

/*
 * Says why the last gzread or gzwrite failed, unless something failed
 * before, and leaves errno as the reason: the system's when a read or
 * write of the file failed, EIO for the data itself.
 */
static void
failed(struct gzcookie *c, int errnum, const char *msg, int sys)
{
	const char *fd = strstr(msg, ">: ");

	/* zlib names the file "<fd:N>", which says nothing to anyone. */
	if (strncmp(msg, "<fd:", 4) == 0 && fd != NULL)
		msg = fd + 3;
	if (c->why[0] == '\0') {
		if (errnum == Z_BUF_ERROR)
			snprintf(c->why, c->whylen,
			    "the gzip data is truncated (the file ends "
			    "mid-stream)");
		else if (errnum == Z_DATA_ERROR)
			snprintf(c->why, c->whylen,
			    "the gzip data is corrupt (%s)", msg);
		else if (errnum == Z_ERRNO)
			snprintf(c->why, c->whylen, "%s", strerror(sys));
		else if (errnum == Z_MEM_ERROR)
			snprintf(c->why, c->whylen, "out of memory");
		else
			snprintf(c->why, c->whylen, "zlib error %d", errnum);
	}
	errno = errnum == Z_ERRNO ? sys : errnum == Z_MEM_ERROR ? ENOMEM : EIO;
}

/*
 * stdio's read: 0 at the end of the data, -1 when it cannot go on. zlib
 * returns what it could inflate of data cut short, then 0 with
 * Z_BUF_ERROR: that is an error here, not an end.
 */
static ssize_t
gz_read(void *cookie, char *buf, size_t size)
{
	struct gzcookie *c = cookie;
	int n, errnum, sys;
	const char *msg;

	n = gzread(c->gz, buf, size > INT_MAX ? INT_MAX : (unsigned)size);
	if (n > 0)
		return n;
	sys = errno;
	msg = gzerror(c->gz, &errnum);
	if (n == 0 && errnum == Z_OK)
		return 0;
	failed(c, errnum, msg, sys);
	return -1;
}

/* stdio's write: all of buf, or 0 for an error. */
static ssize_t
gz_write(void *cookie, const char *buf, size_t size)
{
	struct gzcookie *c = cookie;
	size_t done = 0;

	while (done < size) {
		size_t n = size - done > INT_MAX ? INT_MAX : size - done;
		int w = gzwrite(c->gz, buf + done, (unsigned)n);

		if (w <= 0) {
			int errnum, sys = errno;
			const char *msg = gzerror(c->gz, &errnum);

			failed(c, errnum, msg, sys);
			return 0;
		}
		done += (size_t)w;
	}
	return (ssize_t)size;
}

/* Writes what zlib still holds and the trailer, and closes the file. */
static int
gz_close(void *cookie)
{
	struct gzcookie *c = cookie;
	int rc = gzclose(c->gz), sys = errno;

	if (rc != Z_OK)
		failed(c, rc, "", sys);
	free(c);
	return rc == Z_OK ? 0 : -1;
}

FILE *
gzstream_open(int fd, const char *mode, char *why, size_t whylen)
{
	cookie_io_functions_t io = {.close = gz_close};
	int writing = mode[0] == 'w';
	struct gzcookie *c;
	FILE *fp;

	why[0] = '\0';
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->gz = gzdopen(fd, writing ? "wb" : "rb")) == NULL) {
		snprintf(why, whylen, "out of memory");
		free(c);
		close(fd);
		return NULL;
	}
	c->why = why;
	c->whylen = whylen;
	gzbuffer(c->gz, GZ_BUFFER);
	if (writing)
		io.write = gz_write;
	else
		io.read = gz_read;
	if ((fp = fopencookie(c, writing ? "w" : "r", io)) == NULL) {
		snprintf(why, whylen, "%s", strerror(errno));
		gzclose(c->gz);
		free(c);
		return NULL;
	}
	return fp;
}
