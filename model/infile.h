/*
 * infile.h - opening an input file (a capture, a trace, a result) that may
 * be gzip-compressed. Whether it is, its first bytes say (gzip's magic
 * number), not its name; a plain file is read as it is, a compressed one
 * inflated as it is read, never whole in memory. Only a regular file can be
 * looked at first: a pipe is read as it is. When compressed data turns
 * out to be cut short or damaged, the stream's reads fail (ferror) and the
 * caller's struct infile says why; it must outlive the stream.
 *
 *	struct infile in;
 *	FILE *fp = infile_open("c.pcap.gz", "capture", &in, err, errlen);
 *
 *	fread(buf, 1, n, fp) ...
 *	if (ferror(fp) && in.why[0] != '\0') ...
 *		"'c.pcap.gz': the gzip data is truncated"
 *	fclose(fp);
 */
#ifndef UBC_INFILE_H
#define UBC_INFILE_H

#include <stddef.h>
#include <stdio.h>

struct infile {
	int gzip;      /* the file is gzip-compressed */
	char why[128]; /* why a read of the compressed data failed */
};

/*
 * Opens path for reading; what names it in the message when it cannot be
 * opened: "cannot read capture 'x': No such file or directory".
 */
FILE *infile_open(const char *path, const char *what, struct infile *in,
    char *err, size_t errlen);

#endif
