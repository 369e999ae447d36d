/*
 * gzstream.h - a stdio stream over a gzip file, so that code that reads and
 * writes through a FILE (libpcap, getline, json_dumpf) reads a compressed
 * file inflated and writes one deflated, a buffer at a time, never the
 * whole file in memory. infile.h and outfile.h use it for .gz; stdio has
 * no portable way to make such a stream, so each system has its own file
 * (gzstream_linux.c, with fopencookie; gzstream_other.c says that this
 * system has none).
 *
 *	char why[128];
 *	FILE *fp = gzstream_open(fd, "r", why, sizeof(why));
 *
 *	fread(buf, 1, n, fp) ...	fails when the data is cut short
 *	if (ferror(fp)) ... why		"the gzip data is truncated"
 *	fclose(fp);			closes fd too
 */
#ifndef UBC_GZSTREAM_H
#define UBC_GZSTREAM_H

#include <stddef.h>
#include <stdio.h>

/*
 * A stream that inflates what it reads from fd (mode "r") or deflates into
 * fd what is written to it (mode "w"). It owns fd, and closes it also when
 * it cannot be made: then it returns NULL with the reason in why. When a
 * read or write fails because of the compressed data or of the file, the
 * stream's error flag is set and why says what was wrong, so why must
 * outlive the stream. fclose writes the gzip trailer and fails when that
 * fails.
 */
FILE *gzstream_open(int fd, const char *mode, char *why, size_t whylen);

#endif
