/*
 * outfile.c - output files that appear whole or not at all; see outfile.h.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

int
outfile_open(struct outfile *of, const char *path, const char *what, char *err,
    size_t errlen)
{
	int fd;

	memset(of, 0, sizeof(*of));
	if (snprintf(of->path, sizeof(of->path), "%s", path) >=
	        (int)sizeof(of->path) ||
	    snprintf(of->tmp, sizeof(of->tmp), "%s.tmp.XXXXXX", path) >=
	        (int)sizeof(of->tmp)) {
		snprintf(err, errlen, "%s path '%s' is too long", what, path);
		return -1;
	}
	if ((fd = mkstemp(of->tmp)) == -1) {
		snprintf(err, errlen, "cannot create '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if ((of->fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "cannot create '%s': %s", path,
		    strerror(errno));
		close(fd);
		unlink(of->tmp);
		return -1;
	}
	return 0;
}

int
outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int bad = ferror(of->fp) || fflush(of->fp) == EOF ||
	    fchmod(fileno(of->fp), 0644) == -1 || fsync(fileno(of->fp)) == -1;
	int saved = errno;

	if (fclose(of->fp) == EOF && !bad) {
		bad = 1;
		saved = errno;
	}
	of->fp = NULL;
	if (bad || rename(of->tmp, of->path) == -1) {
		snprintf(err, errlen, "cannot write '%s': %s", of->path,
		    strerror(bad ? (saved != 0 ? saved : EIO) : errno));
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
	unlink(of->tmp);
}
