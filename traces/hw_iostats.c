/*
 * hw_iostats.c - what NetBSD's sysctl hw.iostats returns, decoded: an
 * array of struct io_sysctl (sys/sys/iostat.h), the counters iostat(8)
 * reads. The layout is NetBSD's on 64-bit ports, the same in a rump
 * kernel and a native kernel:
 *
 *	offset	field
 *	0	char name[16]
 *	16	int32 busy, 20 int32 type (0: a disk)
 *	24	uint64 xfer, 32 seek, 40 bytes
 *	48	uint32 attachtime sec, usec; timestamp sec, usec;
 *	64	uint32 time sec, usec: time busy
 *	72	uint64 rxfer, 80 rbytes, 88 wxfer, 96 wbytes
 *	104	(the next entry)
 */
#include <stdio.h>
#include <string.h>

#include "traces.h"

#define IO_SYSCTL_SIZE 104
#define IOSTAT_DISK    0

static uint64_t
u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int
iostat_netbsd_parse(const void *buf, size_t len, const char *name,
    struct devstats *out, char *err, size_t errlen)
{
	const unsigned char *b = buf, *hit = NULL;
	size_t ndisk = 0;

	if (len % IO_SYSCTL_SIZE != 0) {
		snprintf(err, errlen,
		    "hw.iostats: %zu bytes, not a whole number of %d-byte "
		    "entries",
		    len, IO_SYSCTL_SIZE);
		return -1;
	}
	for (size_t off = 0; off < len; off += IO_SYSCTL_SIZE) {
		const unsigned char *e = b + off;
		char ename[17];

		if ((int32_t)u32(e + 20) != IOSTAT_DISK)
			continue;
		memcpy(ename, e, 16);
		ename[16] = '\0';
		ndisk++;
		if (name != NULL ? strcmp(ename, name) == 0 : hit == NULL)
			hit = e;
	}
	if (hit == NULL || (name == NULL && ndisk != 1)) {
		snprintf(err, errlen, "hw.iostats lists %s%s%s",
		    ndisk == 0 ? "no disk" : "no disk named ",
		    ndisk == 0 || name == NULL ? "" : name,
		    ndisk > 1 && name == NULL ? " (more than one disk)" : "");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->xfer[DIR_READ].ops = u64(hit + 72);
	out->xfer[DIR_READ].bytes = u64(hit + 80);
	out->xfer[DIR_WRITE].ops = u64(hit + 88);
	out->xfer[DIR_WRITE].bytes = u64(hit + 96);
	out->busy_ns =
	    (int64_t)u32(hit + 64) * 1000000000 + (int64_t)u32(hit + 68) * 1000;
	return 0;
}
