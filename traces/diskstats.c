/*
 * diskstats.c - parsing the block layer's per-device counters, as Linux
 * prints them (Documentation/admin-guide/iostats.rst): a line of
 * /sys/block/DEV/stat, or of /proc/diskstats, which prefixes the same
 * counters with major, minor and name. Kernels before 4.18 print 11
 * counters, 4.18 to 5.4 add four for discards, 5.5 on two for flushes.
 *
 * Only parsing is here, apart from the reading (diskstats_linux.c), so
 * that it is tested on recorded lines on any system.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces.h"

/* The kernel counts in 512-byte sectors whatever the device's own. */
#define SECTOR_BYTES 512

int
diskstats_parse(
    const char *line, struct devstats *out, char *err, size_t errlen)
{
	uint64_t f[20];
	const char *s = line;
	int n = 0, skip;
	char *end;

	/*
	 * A /proc/diskstats line starts with "major minor name"; a sysfs stat
	 * file does not. Tell them apart by the third token being a name.
	 */
	{
		char name[64];
		unsigned ma, mi;
		int used = 0;

		skip = 0;
		if (sscanf(s, " %u %u %63s%n", &ma, &mi, name, &used) == 3 &&
		    (name[0] < '0' || name[0] > '9')) {
			s += used;
			skip = 3;
		}
	}
	while (n < 20) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\n' || *s == '\0')
			break;
		/* strtoull would take a sign; counters have none. */
		if (*s < '0' || *s > '9') {
			snprintf(err, errlen, "field %d is not a number",
			    n + skip + 1);
			return -1;
		}
		errno = 0;
		f[n] = strtoull(s, &end, 10);
		if (end == s || errno != 0 ||
		    (*end != ' ' && *end != '\t' && *end != '\n' &&
		        *end != '\0')) {
			snprintf(err, errlen, "field %d is not a number",
			    n + skip + 1);
			return -1;
		}
		s = end;
		n++;
	}
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (*s != '\0') {
		snprintf(err, errlen, "more than %d fields", 20 + skip);
		return -1;
	}
	if (n != 11 && n != 15 && n != 17) {
		snprintf(err, errlen,
		    "%d counters where 11, 15 or 17 were expected", n);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->xfer[DIR_READ].ops = f[0];
	out->xfer[DIR_READ].merges = f[1];
	out->xfer[DIR_READ].bytes = f[2] * SECTOR_BYTES;
	out->xfer[DIR_READ].time_ns = (int64_t)f[3] * 1000000;
	out->xfer[DIR_WRITE].ops = f[4];
	out->xfer[DIR_WRITE].merges = f[5];
	out->xfer[DIR_WRITE].bytes = f[6] * SECTOR_BYTES;
	out->xfer[DIR_WRITE].time_ns = (int64_t)f[7] * 1000000;
	/* f[8] is the requests in flight now: a level, not a counter. */
	out->busy_ns = (int64_t)f[9] * 1000000;
	if (n >= 15) {
		out->discards = f[11];
		out->discard_bytes = f[13] * SECTOR_BYTES;
	}
	if (n >= 17)
		out->flushes = f[15];
	return 0;
}
