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
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	 * "Where the merging goes"); 6 ms with the guest at 250 Hz (0006),
	 * in the middle of the 5 to 8 ms that put every phase within 10% of
	 * TCG's ("The guest's tick").
	 */
	m->irq_ns = 6000000;
	/*
	 * The guest's work as a TCG guest's extraction takes it: the small
	 * and emacs-like archives' 521 and 4,284 ms, where TCG took 452 to
	 * 641 and 3,804 to 4,426 (docs/vm-machine.md, "The guest's CPU on
	 * simulated time", "The guest's tick").
	 */
	m->cpu_syscall_ns = 56550;
	m->cpu_kib_ns = 14790;
	m->cpu_bio_ns = 0;
	m->cpu_bio_kib_ns = 0;
	m->depth = 64;
	/* What QEMU tells a guest for a ring of 256 (seg_max: size - 2). */
	m->seg_max = 254;
	m->size_max = 0;
	m->blk_size = 512;
	m->num_queues = 1;
	/*
	 * xfs's log writes leave one log buffer a request, as on TCG's two
	 * vCPUs (docs/vm-machine.md, "One CPU and the queue's run").
	 */
	m->cpu_bio_yield = 1;
	/*
	 * Past wbt's first second, so that the job meets the block layer as
	 * a guest that booted for seconds does (docs/vm-machine.md,
	 * "Writeback throttling's state").
	 */
	m->settle_ns = 2000000000;
}

int
vdisk_model_cpu_arg(const struct vdisk_model *m, char *buf, size_t len)
{
	int asks = 0;
	char charges[80] = "";

	if (m->cpu_syscall_ns != 0 || m->cpu_kib_ns != 0 ||
	    m->cpu_bio_ns != 0 || m->cpu_bio_kib_ns != 0) {
		asks |= VDISK_CPU_CHARGES;
		snprintf(charges, sizeof(charges),
		    "uml_cpu=%lld,%lld,%lld,%lld", (long long)m->cpu_syscall_ns,
		    (long long)m->cpu_kib_ns, (long long)m->cpu_bio_ns,
		    (long long)m->cpu_bio_kib_ns);
	}
	if (m->cpu_bio_yield)
		asks |= VDISK_CPU_YIELD;
	snprintf(buf, len, "%s%s%s", charges,
	    charges[0] && m->cpu_bio_yield ? " " : "",
	    m->cpu_bio_yield ? "uml_bio_yield" : "");
	return asks;
}

/*
 * A key's values: min to max, or also 0 (ZERO_OK: size_max, no limit), or
 * only the powers of two between (POW2: blk_size); why says where a bound
 * comes from when the number alone does not.
 */
#define ZERO_OK 1
#define POW2    2

struct key {
	const char *name;
	size_t off;
	int wide, kind;
	uint64_t min, max;
	const char *why;
};

#define K64(f, lo, hi, why)                                                    \
	{                                                                      \
#f, offsetof(struct vdisk_model, f), 1, 0, lo, hi, why         \
	}
#define K32(f, kind, lo, hi, why)                                              \
	{                                                                      \
#f, offsetof(struct vdisk_model, f), 0, kind, lo, hi, why      \
	}

static const struct key keys[] = {
    /*
     * The guest runs on its own for latency_ns between two words with our
     * clock, or up to the next irq_ns past it (uml_sched.c): at 0 it asks
     * at every read of its clock. With irq_ns 0 the small archive's cell
     * took 5 s of real time at 100 us, 40 s at 10 us, over 5 minutes at
     * 1 us, and at 0 had not ended after 3 minutes.
     */
    K64(latency_ns, 1000, 1000000000000ULL,
        " (the guest asks our clock every latency_ns)"),
    K64(ns_per_kib, 0, 1000000000ULL, NULL),
    K64(flush_ns, 0, 1000000000000ULL, NULL),
    /* Completions are signalled together at each multiple of it. */
    K64(irq_ns, 0, 1000000000ULL, NULL),
    /* The guest's kernel reads them as int (get_options). */
    K64(cpu_syscall_ns, 0, 1000000000ULL, NULL),
    K64(cpu_kib_ns, 0, 1000000000ULL, NULL),
    K64(cpu_bio_ns, 0, 1000000000ULL, NULL),
    K64(cpu_bio_kib_ns, 0, 1000000000ULL, NULL),
    /* The ring holds 256 descriptors (virtio_uml's queue size). */
    K32(depth, 0, 1, 256, NULL),
    /* virtio_blk uses at most 2 + seg_max descriptors
       (VIRTIO_BLK_MAX_SG_ELEMS). */
    K32(seg_max, 0, 1, 254, NULL),
    /*
     * The guest's block layer raises a segment limit under its page to the
     * page (blk_queue_max_segment_size), so a smaller one is not what it
     * would be told.
     */
    K32(size_max, ZERO_OK, 4096, UINT32_MAX,
        " (a guest raises a smaller one to its page)"),
    /* virtio_blk refuses a block larger than its page
       (blk_validate_block_size): the disk would not appear. */
    K32(blk_size, POW2, 512, 4096, " (what the guest's virtio_blk takes)"),
    /* One CPU (UML has no SMP): one queue. */
    K32(num_queues, 0, 1, 1, NULL),
    K32(cpu_bio_yield, 0, 0, 1, " (0 or 1)"),
    /* At most a minute: every timer of the boot has fired long before. */
    K64(settle_ns, 0, 60000000000ULL, NULL),
};

/*
 * One line of f into buf, its newline dropped: its length, -1 at the end
 * of the file, -2 when it does not fit, -3 when it holds a NUL byte.
 */
static int
line_of(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int c, nul = 0;

	while ((c = getc(f)) != EOF && c != '\n') {
		nul |= c == '\0';
		if (n == size - 1)
			return nul ? -3 : -2;
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	if (c == EOF && n == 0)
		return -1;
	return nul ? -3 : (int)n;
}

/* The value of key k in text p, or -1 with the message (line named). */
static int
value(const struct key *k, const char *p, const char *where, uint64_t *v,
    char *err, size_t errlen)
{
	unsigned long long u;
	char *end;

	errno = 0;
	u = strtoull(p, &end, 10);
	/* Digits only: strtoull would take a sign and wrap a minus. */
	if (*p >= '0' && *p <= '9' && errno == 0 &&
	    end[strspn(end, " \t\r")] == '\0' &&
	    ((u >= k->min && u <= k->max) || (u == 0 && k->kind == ZERO_OK)) &&
	    (k->kind != POW2 || (u & (u - 1)) == 0)) {
		*v = u;
		return 0;
	}
	snprintf(err, errlen,
	    "%s: '%s' wants %s%s from %" PRIu64 " to %" PRIu64 "%s", where,
	    k->name, k->kind == ZERO_OK ? "0 or " : "",
	    k->kind == POW2 ? "a power of two" : "a whole number", k->min,
	    k->max, k->why != NULL ? k->why : "");
	return -1;
}

int
vdisk_model_read(
    const char *path, struct vdisk_model *m, char *err, size_t errlen)
{
	char line[256], where[PATH_MAX + 16];
	unsigned seen = 0, lineno = 0;
	struct stat st;
	FILE *f = NULL;
	int n, fd;

	vdisk_model_default(m);
	/* Not blocking: a FIFO or a device is refused, not waited on. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1 ||
	    (f = fdopen(fd, "r")) == NULL) {
		snprintf(err, errlen, "'%s': %s", path,
		    !S_ISREG(st.st_mode) ? "not a regular file"
		                         : strerror(errno));
		close(fd);
		return -1;
	}
	while ((n = line_of(f, line, sizeof(line))) != -1) {
		char name[64], *p;
		uint64_t v;
		size_t i, len;

		snprintf(where, sizeof(where), "%s:%u", path, ++lineno);
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", where,
			    n == -2 ? "line too long" : "a NUL byte: not text");
			goto fail;
		}
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		p = line + strspn(line, " \t\r");
		if (*p == '\0')
			continue;
		len = strcspn(p, " \t\r");
		if (len >= sizeof(name)) {
			snprintf(err, errlen, "%s: unknown key", where);
			goto fail;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(keys[i].name, name) == 0)
				break;
		if (i == sizeof(keys) / sizeof(keys[0])) {
			for (i = 0; i < len && isprint((unsigned char)name[i]);
			     i++)
				;
			if (i < len)
				snprintf(err, errlen,
				    "%s: unknown key (not text)", where);
			else
				snprintf(err, errlen, "%s: unknown key '%s'",
				    where, name);
			goto fail;
		}
		if (seen & (1u << i)) {
			snprintf(err, errlen, "%s: '%s' twice", where, name);
			goto fail;
		}
		seen |= 1u << i;
		p += len;
		p += strspn(p, " \t");
		if (value(&keys[i], p, where, &v, err, errlen) == -1)
			goto fail;
		if (keys[i].wide) {
			int64_t w = (int64_t)v;

			memcpy((char *)m + keys[i].off, &w, sizeof(w));
		} else {
			uint32_t w = (uint32_t)v;

			memcpy((char *)m + keys[i].off, &w, sizeof(w));
		}
	}
	if (ferror(f)) {
		snprintf(
		    err, errlen, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	/* Most likely the wrong file, or one cut short: not the defaults. */
	if (seen == 0) {
		snprintf(err, errlen,
		    "'%s' sets nothing (no KEY VALUE line): leave the model "
		    "file out for the defaults",
		    path);
		goto fail;
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	return -1;
}

/* When a completion due at t reaches the guest: the next multiple of irq_ns. */
static int64_t
irq_time(const struct vdisk_model *m, int64_t t)
{
	if (m->irq_ns > 0 && t % m->irq_ns != 0)
		t += m->irq_ns - t % m->irq_ns;
	return t;
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
	return irq_time(m, done);
}

int64_t
vdisk_model_earliest_ns(const struct vdisk_model *m, int64_t now_ns)
{
	return irq_time(m, now_ns + m->latency_ns);
}
