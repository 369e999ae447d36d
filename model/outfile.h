/*
 * outfile.h - writing an output file (a result, a trace, a picture) so that
 * no half-written one ever exists: into a temporary file beside it, then,
 * once everything is written and on disk, renamed over the name asked for.
 * A failure leaves neither the file nor the temporary one. A name that
 * ends in .gz gets the file gzip-compressed (gzstream.h), with the same
 * promise: the rename follows the gzip trailer.
 *
 *	struct outfile of;
 *
 *	if (outfile_open(&of, "r.json", "result", err, sizeof(err)) == -1) ...
 *	fprintf(of.fp, ...);
 *	if (outfile_commit(&of, err, sizeof(err)) == -1) ...	or
 *	outfile_abort(&of);
 */
#ifndef UBC_OUTFILE_H
#define UBC_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct outfile {
	FILE *fp;
	int fd;        /* the temporary file, synced once fp is closed */
	char why[128]; /* why the stream failed, when it knows */
	char path[PATH_MAX];
	char tmp[PATH_MAX];
};

/* what names the file in messages: "result", "trace", "svg". */
int outfile_open(struct outfile *of, const char *path, const char *what,
    char *err, size_t errlen);

/* Flushes, syncs and renames into place; on failure removes the file. */
int outfile_commit(struct outfile *of, char *err, size_t errlen);

/* Closes and removes the temporary file. */
void outfile_abort(struct outfile *of);

#endif
