/*
 * vdisk_model.c - the virtio disk's model (vm/vdisk.h): read from a small
 * text file, and the completion time of each request. One transfer server:
 * a request taken at now starts its transfer when the server is free, holds
 * it for bytes x ns_per_kib / 1024, and completes latency_ns after its
 * transfer ends (the latency overlaps other requests' transfers, the
 * transfers do not overlap each other). A flush completes latency_ns +
 * flush_ns after every transfer before it. So no request completes sooner
 * than latency_ns after it is taken, which lets the guest run that long
 * on its own (uml_sched.c). A completion is then signalled at the next
 * multiple of irq_ns, together with every other due by then (0: each at
 * its own time). Integer arithmetic only: the same inputs give
 * the same nanosecond, on every host.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vdisk.h"

void
vdisk_model_default(struct vdisk_model *m)
{
	/* A fast SSD's order of magnitude: 100 us, about 500 MB/s. */
	m->latency_ns = 100000;
	m->ns_per_kib = 2000;
	m->flush_ns = 0;
	/*
	 * Completions in batches, as a TCG guest's are (docs/vm-machine.md,
	 * "Where the merging goes").
	 */
	m->irq_ns = 4000000;
	m->depth = 64;
	/* What QEMU tells a guest for a ring of 256 (seg_max: size - 2). */
	m->seg_max = 254;
	m->size_max = 0;
	m->blk_size = 512;
	m->num_queues = 1;
}

struct key {
	const char *name;
	size_t off;
	int wide;
	uint64_t min, max;
};

#define K64(f, lo, hi)                                                         \
	{                                                                      \
#f, offsetof(struct vdisk_model, f), 1, lo, hi                 \
	}
#define K32(f, lo, hi)                                                         \
	{                                                                      \
#f, offsetof(struct vdisk_model, f), 0, lo, hi                 \
	}

static const struct key keys[] = {
    K64(latency_ns, 0, 1000000000000ULL),
    K64(ns_per_kib, 0, 1000000000ULL),
    K64(flush_ns, 0, 1000000000000ULL),
    K64(irq_ns, 0, 1000000000ULL),
    /* The ring holds 256 descriptors (virtio_uml's queue size). */
    K32(depth, 1, 256),
    /* virtio_blk uses at most 2 + seg_max descriptors
       (VIRTIO_BLK_MAX_SG_ELEMS). */
    K32(seg_max, 1, 254),
    K32(size_max, 0, UINT32_MAX),
    K32(blk_size, 512, 65536),
    /* One CPU (UML has no SMP): one queue. */
    K32(num_queues, 1, 1),
};

int
vdisk_model_read(
    const char *path, struct vdisk_model *m, char *err, size_t errlen)
{
	char line[256];
	unsigned seen = 0, lineno = 0;
	FILE *f;

	vdisk_model_default(m);
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char name[64], *p, *end;
		unsigned long long v;
		size_t i, n;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(
			    err, errlen, "%s:%u: line too long", path, lineno);
			goto fail;
		}
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		p = line + strspn(line, " \t\r\n");
		if (*p == '\0')
			continue;
		n = strcspn(p, " \t\r\n");
		if (n >= sizeof(name)) {
			snprintf(
			    err, errlen, "%s:%u: unknown key", path, lineno);
			goto fail;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(keys[i].name, name) == 0)
				break;
		if (i == sizeof(keys) / sizeof(keys[0])) {
			snprintf(err, errlen, "%s:%u: unknown key '%s'", path,
			    lineno, name);
			goto fail;
		}
		if (seen & (1u << i)) {
			snprintf(err, errlen, "%s:%u: '%s' twice", path, lineno,
			    name);
			goto fail;
		}
		seen |= 1u << i;
		p += n;
		p += strspn(p, " \t");
		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p || *p == '-' || errno != 0 ||
		    end[strspn(end, " \t\r\n")] != '\0' || v < keys[i].min ||
		    v > keys[i].max) {
			snprintf(err, errlen,
			    "%s:%u: '%s' wants a whole number from %" PRIu64
			    " to %" PRIu64,
			    path, lineno, name, keys[i].min, keys[i].max);
			goto fail;
		}
		if (keys[i].wide) {
			int64_t w = (int64_t)v;

			memcpy((char *)m + keys[i].off, &w, sizeof(w));
		} else {
			uint32_t w = (uint32_t)v;

			memcpy((char *)m + keys[i].off, &w, sizeof(w));
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read '%s'", path);
		goto fail;
	}
	fclose(f);
	if (m->blk_size & (m->blk_size - 1)) {
		snprintf(err, errlen, "%s: blk_size %u is not a power of two",
		    path, m->blk_size);
		return -1;
	}
	return 0;
fail:
	fclose(f);
	return -1;
}

int64_t
vdisk_model_done_ns(const struct vdisk_model *m, struct vdisk_model_state *st,
    int64_t now_ns, uint64_t bytes, int flush)
{
	int64_t start = now_ns > st->busy_until_ns ? now_ns : st->busy_until_ns;
	int64_t done;

	if (flush)
		done = start + m->latency_ns + m->flush_ns;
	else {
		/* bytes < 2^32 and ns_per_kib <= 1e9: no overflow. */
		st->busy_until_ns =
		    start + (int64_t)(bytes * (uint64_t)m->ns_per_kib / 1024);
		done = st->busy_until_ns + m->latency_ns;
	}
	if (m->irq_ns > 0 && done % m->irq_ns != 0)
		done += m->irq_ns - done % m->irq_ns;
	return done;
}
