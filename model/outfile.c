/*
 * outfile.c - output files that appear whole or not at all; see outfile.h.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gzstream.h"
#include "outfile.h"

/* An output has no first bytes yet to go by: its name says gzip or not. */
static int
gz_named(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

int
outfile_open(struct outfile *of, const char *path, const char *what, char *err,
    size_t errlen)
{
	int fd;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	if (snprintf(of->path, sizeof(of->path), "%s", path) >=
	        (int)sizeof(of->path) ||
	    snprintf(of->tmp, sizeof(of->tmp), "%s.tmp.XXXXXX", path) >=
	        (int)sizeof(of->tmp)) {
		snprintf(err, errlen, "%s path '%s' is too long", what, path);
		return -1;
	}
	if ((of->fd = mkstemp(of->tmp)) == -1) {
		snprintf(err, errlen, "cannot create '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	/*
	 * The stream writes through a descriptor of its own, so that the
	 * file can still be synced once the stream (and, for .gz, zlib's
	 * trailer) is closed.
	 */
	if ((fd = dup(of->fd)) == -1)
		snprintf(of->why, sizeof(of->why), "%s", strerror(errno));
	else if (gz_named(path))
		of->fp = gzstream_open(fd, "w", of->why, sizeof(of->why));
	else if ((of->fp = fdopen(fd, "w")) == NULL) {
		snprintf(of->why, sizeof(of->why), "%s", strerror(errno));
		close(fd);
	}
	if (of->fp == NULL) {
		snprintf(err, errlen, "cannot create '%s': %s", path, of->why);
		close(of->fd);
		unlink(of->tmp);
		return -1;
	}
	return 0;
}

int
outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int bad = ferror(of->fp), saved = errno;

	if (fclose(of->fp) == EOF && !bad) {
		bad = 1;
		saved = errno;
	}
	of->fp = NULL;
	if (!bad && (fchmod(of->fd, 0644) == -1 || fsync(of->fd) == -1)) {
		bad = 1;
		saved = errno;
	}
	close(of->fd);
	if (bad || rename(of->tmp, of->path) == -1) {
		snprintf(err, errlen, "cannot write '%s': %s", of->path,
		    of->why[0] != '\0'
		        ? of->why
		        : strerror(bad ? (saved != 0 ? saved : EIO) : errno));
		unlink(of->tmp);
		return -1;
	}
	return 0;
}

void
outfile_abort(struct outfile *of)
{
	if (of->fp != NULL)
		fclose(of->fp);
	of->fp = NULL;
	close(of->fd);
	unlink(of->tmp);
}
