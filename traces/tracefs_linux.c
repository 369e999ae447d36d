/*
 * tracefs_linux.c - the exact probe on Linux: every bio queued, bio split,
 * request issued and request completed on the target's devices, from the
 * kernel's block trace events, in a private tracefs instance.
 *
 * How it keeps out of what it measures (issue 3 measured the costs here):
 * - A private instance, instances/ubcreplay.PID, with its own ring buffer,
 *   clock and event filters: the top-level tracing state is never touched,
 *   and an instance left by a run that was killed (its pid gone) is removed
 *   at the next start.
 * - The kernel filters the events by device (event filters on dev), so the
 *   buffer holds only what we count.
 * - The buffer is read as binary pages (per_cpu/cpuN/trace_pipe_raw), not as
 *   text, and mostly at the phase marks, when the workload is not running;
 *   between marks a tick looks at the fill level (per_cpu/cpuN/stats) and
 *   drains only when the buffers hold more than DRAIN_BYTES. Events read in
 *   one drain are held until they are sorted, so that bound keeps the
 *   memory they take small (issue 12: a phase of 50,000 events held 4 MB
 *   when a drain waited for half of the 16 MiB buffer) and leaves the
 *   buffer room for what comes before the next tick.
 * - Events the kernel lost (overrun, dropped) are read from the same stats
 *   and reported with each phase; they are never lost silently.
 *
 * Events from the different CPUs are merged by time stamp (the instance's
 * clock is "mono", CLOCK_MONOTONIC, the clock of the marks), and only
 * events older than the start of a drain are counted: a later one may still
 * have an earlier one on another CPU not yet committed, so it waits for the
 * next drain.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/clock.h"
#include "traces.h"

#define TRACEFS_ROOT     "/sys/kernel/tracing"
#define TRACEFS_MAGIC_FS 0x74726163
#define INSTANCE_PREFIX  "ubcreplay."
#define SECTOR_BYTES     512
/* Per-CPU buffer: enough for a few hundred thousand events. */
#define BUFFER_KB_MAX 16384
#define BUFFER_KB_MIN 1024
/* Unread bytes, all CPUs together, at which a tick drains: 5,000 events. */
#define DRAIN_BYTES (256 * 1024)

struct kdev {
	int fd;               /* /sys/dev/block/M:m/stat */
	struct devstats base; /* at the last mark */
};

/* One event waiting to be counted, with its order of arrival. */
struct pending {
	struct blkev ev;
	uint64_t seq;
};

struct tfs {
	char inst[512]; /* the instance's directory */
	int made;       /* we made it: remove it at close */
	int ncpu;
	int *raw;  /* per_cpu/cpuN/trace_pipe_raw, non-blocking */
	int *stat; /* per_cpu/cpuN/stats */
	struct tracefs_cpu_stats *seen; /* stats at the last mark */
	struct tracefs_page_layout layout;
	struct tracefs_block blk;
	unsigned char *page;
	struct pending *pend; /* read, not yet counted */
	size_t npend, cappend;
	uint64_t seq;
	struct blkev_acc *acc;
	size_t ndev;
	struct kdev kdev[TARGET_MAXDEV];
	uint64_t malformed;      /* pages or records we could not decode */
	uint64_t malformed_told; /* of which counted as lost already */
	/* --trace-out: every record counted, in order, and the marks' labels.
	 */
	int keep;
	struct blkev *kept;
	size_t nkept, capkept;
	char (*label)[64];
	size_t nlabel, caplabel;
};

static int
write_file(const char *dir, const char *name, const char *text, char *err,
    size_t errlen)
{
	char path[1024];
	size_t len = strlen(text);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) == -1) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (write(fd, text, len) != (ssize_t)len) {
		snprintf(err, errlen, "cannot write '%s' to '%s': %s", text,
		    path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The whole of a small file, NUL-terminated, in a malloc'd buffer. */
static char *
read_file(const char *dir, const char *name, char *err, size_t errlen)
{
	char path[1024], *buf = NULL;
	size_t len = 0, cap = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = len + 8192);

			if (nb == NULL) {
				snprintf(err, errlen,
				    "out of memory reading "
				    "'%s'",
				    path);
				goto fail;
			}
			buf = nb;
		}
		if ((n = read(fd, buf + len, 4096)) == -1) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "cannot read '%s': %s", path,
			    strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

/*
 * Makes sure tracefs is mounted at TRACEFS_ROOT; mounts it when it is not
 * (we are root by then) and says so in note.
 */
static int
ensure_mounted(char *note, size_t notelen, char *err, size_t errlen)
{
	struct statfs sf;

	if (statfs(TRACEFS_ROOT, &sf) == -1) {
		snprintf(err, errlen, "no tracefs: cannot stat '%s': %s",
		    TRACEFS_ROOT, strerror(errno));
		return -1;
	}
	if ((unsigned long)sf.f_type == TRACEFS_MAGIC_FS)
		return 0;
	if (mount("nodev", TRACEFS_ROOT, "tracefs", 0, NULL) == -1) {
		snprintf(err, errlen,
		    "tracefs is not mounted on '%s' and "
		    "cannot be: %s",
		    TRACEFS_ROOT, strerror(errno));
		return -1;
	}
	snprintf(note, notelen, "mounted tracefs on %s", TRACEFS_ROOT);
	return 0;
}

/*
 * Removes instances/ubcreplay.PID directories whose process is gone: what a
 * run killed by SIGKILL (or a crash) left. Others' instances are not ours
 * to judge. Returns how many were removed.
 */
static int
remove_stale(void)
{
	DIR *d;
	struct dirent *de;
	int n = 0;

	if ((d = opendir(TRACEFS_ROOT "/instances")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char path[512], *end;
		long pid;

		if (strncmp(de->d_name, INSTANCE_PREFIX,
		        strlen(INSTANCE_PREFIX)) != 0)
			continue;
		errno = 0;
		pid = strtol(de->d_name + strlen(INSTANCE_PREFIX), &end, 10);
		if (errno != 0 || *end != '\0' || pid <= 0)
			continue;
		if (pid != getpid() &&
		    (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		snprintf(path, sizeof(path), TRACEFS_ROOT "/instances/%s",
		    de->d_name);
		if (rmdir(path) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static void tfs_free(struct tfs *);

/* The per-CPU buffer size: generous, but never more than 1/64 of memory. */
static size_t
buffer_kb(int ncpu)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t kb = BUFFER_KB_MAX;

	if (pages > 0 && psz > 0 && ncpu > 0) {
		uint64_t cap = (uint64_t)pages * (uint64_t)psz / 64 /
		    (uint64_t)ncpu / 1024;

		if (cap < kb)
			kb = cap;
	}
	return kb < BUFFER_KB_MIN ? BUFFER_KB_MIN : (size_t)kb;
}

static int
read_kdev(struct kdev *k, struct devstats *now, char *err, size_t errlen)
{
	char buf[512];
	ssize_t n;

	if ((n = pread(k->fd, buf, sizeof(buf) - 1, 0)) == -1) {
		snprintf(err, errlen, "cannot read device statistics: %s",
		    strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	return diskstats_parse(buf, now, err, errlen);
}

static int
read_cpu_stats(struct tfs *s, int cpu, struct tracefs_cpu_stats *st, char *err,
    size_t errlen)
{
	char buf[1024], perr[128];
	ssize_t n;

	if ((n = pread(s->stat[cpu], buf, sizeof(buf) - 1, 0)) == -1) {
		snprintf(err, errlen, "cannot read per_cpu/cpu%d/stats: %s",
		    cpu, strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	if (tracefs_stats_parse(buf, st, perr, sizeof(perr)) == -1) {
		snprintf(err, errlen, "per_cpu/cpu%d/stats: %s", cpu, perr);
		return -1;
	}
	return 0;
}

/* The kernel-side filter: only the target's devices. */
static void
dev_filter(const struct target *t, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->ndev && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%sdev == %u",
		    i > 0 ? " || " : "",
		    BLKEV_DEV(t->dev[i].major, t->dev[i].minor));
}

static int
setup_instance(struct probe *p, struct tfs *s, char *err, size_t errlen)
{
	const struct target *t = p->target;
	char filter[1024], path[1024], kb[32];
	size_t want;

	snprintf(s->inst, sizeof(s->inst),
	    TRACEFS_ROOT "/instances/" INSTANCE_PREFIX "%ld", (long)getpid());
	if (mkdir(s->inst, 0700) == -1) {
		snprintf(err, errlen,
		    "cannot make the tracefs instance '%s': "
		    "%s",
		    s->inst, strerror(errno));
		return -1;
	}
	s->made = 1;
	/* The clock first: changing it empties the buffer. */
	if (write_file(s->inst, "trace_clock", "mono", err, errlen) == -1)
		return -1;
	/* A smaller buffer when the kernel cannot give the big one. */
	for (want = buffer_kb(s->ncpu);; want /= 2) {
		snprintf(kb, sizeof(kb), "%zu", want);
		if (write_file(s->inst, "buffer_size_kb", kb, err, errlen) == 0)
			break;
		if (want <= BUFFER_KB_MIN / 4)
			return -1;
	}
	/* When full, refuse new events (counted as dropped): no overwriting. */
	if (write_file(s->inst, "options/overwrite", "0", err, errlen) == -1)
		return -1;
	dev_filter(t, filter, sizeof(filter));
	for (int i = 0; i < TRACEFS_NBLOCK; i++) {
		snprintf(path, sizeof(path), "events/block/%s/filter",
		    tracefs_block_events[i]);
		if (write_file(s->inst, path, filter, err, errlen) == -1)
			return -1;
	}
	return 0;
}

static int
enable_events(struct tfs *s, const char *on, char *err, size_t errlen)
{
	char path[256];

	for (int i = 0; i < TRACEFS_NBLOCK; i++) {
		snprintf(path, sizeof(path), "events/block/%s/enable",
		    tracefs_block_events[i]);
		if (write_file(s->inst, path, on, err, errlen) == -1)
			return -1;
	}
	return 0;
}

static int
read_formats(struct tfs *s, char *err, size_t errlen)
{
	char *fmt[TRACEFS_NBLOCK] = {NULL}, *hp, name[256];
	int rv = -1;

	if ((hp = read_file(
	         TRACEFS_ROOT "/events", "header_page", err, errlen)) == NULL)
		return -1;
	if (tracefs_header_page_parse(hp, &s->layout, err, errlen) == -1)
		goto out;
	for (int i = 0; i < TRACEFS_NBLOCK; i++) {
		snprintf(name, sizeof(name), "block/%s/format",
		    tracefs_block_events[i]);
		if ((fmt[i] = read_file(
		         TRACEFS_ROOT "/events", name, err, errlen)) == NULL)
			goto out;
	}
	if (tracefs_block_init(&s->blk, (const char *const *)fmt,
	        s->layout.big_endian, err, errlen) == -1)
		goto out;
	rv = 0;
out:
	free(hp);
	for (int i = 0; i < TRACEFS_NBLOCK; i++)
		free(fmt[i]);
	return rv;
}

static int
count_cpus(const char *inst)
{
	char path[1024];
	int n = 0;

	for (;;) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", inst, n);
		if (stat(path, &st) == -1)
			return n;
		n++;
	}
}

static int
tfs_open(struct probe *p, char *err, size_t errlen)
{
	const struct target *t = p->target;
	struct tfs *s;
	uint32_t devs[TARGET_MAXDEV];
	char note[128] = "";
	int stale;

	if (geteuid() != 0) {
		snprintf(err, errlen, "tracefs needs root (running as uid %ld)",
		    (long)geteuid());
		return -1;
	}
	if (ensure_mounted(note, sizeof(note), err, errlen) == -1)
		return -1;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "cannot allocate probe state");
		return -1;
	}
	for (size_t i = 0; i < TARGET_MAXDEV; i++)
		s->kdev[i].fd = -1;
	if (read_formats(s, err, errlen) == -1)
		goto fail;
	stale = remove_stale();
	if (setup_instance(p, s, err, errlen) == -1)
		goto fail;
	if ((s->ncpu = count_cpus(s->inst)) == 0) {
		snprintf(err, errlen, "no per_cpu buffers in '%s'", s->inst);
		goto fail;
	}
	if ((s->raw = calloc((size_t)s->ncpu, sizeof(int))) == NULL ||
	    (s->stat = calloc((size_t)s->ncpu, sizeof(int))) == NULL ||
	    (s->seen = calloc((size_t)s->ncpu, sizeof(*s->seen))) == NULL ||
	    (s->page = malloc(s->layout.page_bytes)) == NULL) {
		snprintf(err, errlen, "cannot allocate probe state");
		goto fail;
	}
	for (int c = 0; c < s->ncpu; c++)
		s->raw[c] = s->stat[c] = -1;
	for (int c = 0; c < s->ncpu; c++) {
		char path[1024];

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw",
		    s->inst, c);
		if ((s->raw[c] = open(
		         path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
			snprintf(err, errlen, "cannot open '%s': %s", path,
			    strerror(errno));
			goto fail;
		}
		snprintf(
		    path, sizeof(path), "%s/per_cpu/cpu%d/stats", s->inst, c);
		if ((s->stat[c] = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
			snprintf(err, errlen, "cannot open '%s': %s", path,
			    strerror(errno));
			goto fail;
		}
		if (read_cpu_stats(s, c, &s->seen[c], err, errlen) == -1)
			goto fail;
	}
	s->ndev = t->ndev;
	for (size_t i = 0; i < t->ndev; i++) {
		char path[128];

		devs[i] = BLKEV_DEV(t->dev[i].major, t->dev[i].minor);
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat",
		    t->dev[i].major, t->dev[i].minor);
		if ((s->kdev[i].fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
			snprintf(err, errlen, "cannot open '%s': %s", path,
			    strerror(errno));
			goto fail;
		}
	}
	if ((s->acc = blkev_acc_new(devs, t->ndev, 0)) == NULL) {
		snprintf(err, errlen, "cannot allocate probe state");
		goto fail;
	}
	if (enable_events(s, "1", err, errlen) == -1)
		goto fail;
	for (size_t i = 0; i < t->ndev; i++)
		if (read_kdev(&s->kdev[i], &s->kdev[i].base, err, errlen) == -1)
			goto fail;
	p->priv = s;
	if (stale > 0 || note[0] != '\0')
		snprintf(p->why, sizeof(p->why), "%s%s%s", note,
		    note[0] != '\0' && stale > 0 ? "; " : "",
		    stale > 0 ? "removed instances left by killed runs" : "");
	return 0;
fail:
	tfs_free(s);
	return -1;
}

static int
keep_record(struct tfs *s, const struct blkev *ev)
{
	if (s->nkept == s->capkept) {
		size_t cap = s->capkept ? s->capkept * 2 : 65536;
		struct blkev *k = realloc(s->kept, cap * sizeof(*k));

		if (k == NULL)
			return -1;
		s->kept = k;
		s->capkept = cap;
	}
	s->kept[s->nkept++] = *ev;
	return 0;
}

/* Counts one record, and keeps it for --trace-out. */
static int
apply(struct tfs *s, const struct blkev *ev, struct devstats *out, char *err,
    size_t errlen)
{
	if (s->keep && keep_record(s, ev) == -1) {
		snprintf(err, errlen,
		    "out of memory keeping events for "
		    "--trace-out (%zu kept)",
		    s->nkept);
		return -1;
	}
	blkev_apply(s->acc, ev, out);
	return 0;
}

static int
add_pending(void *ctx, uint64_t ts, const unsigned char *rec, size_t len,
    char *err, size_t errlen)
{
	struct tfs *s = ctx;
	struct blkev ev;
	int rv = tracefs_block_decode(&s->blk, ts, rec, len, &ev, err, errlen);

	if (rv == -1) {
		s->malformed++;
		return 0; /* counted; the rest of the page is good */
	}
	if (rv == 0)
		return 0;
	if (s->npend == s->cappend) {
		size_t cap = s->cappend ? s->cappend * 2 : 4096;
		struct pending *np = realloc(s->pend, cap * sizeof(*np));

		if (np == NULL) {
			snprintf(err, errlen, "out of memory reading events");
			return -1;
		}
		s->pend = np;
		s->cappend = cap;
	}
	s->pend[s->npend].ev = ev;
	s->pend[s->npend].seq = s->seq++;
	s->npend++;
	return 0;
}

static int
by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ev.ts_ns != y->ev.ts_ns)
		return x->ev.ts_ns < y->ev.ts_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Reads every CPU's buffer to empty, then counts, in time order, the events
 * older than horizon_ns; the newer wait for the next drain.
 */
static int
drain(struct tfs *s, int64_t horizon_ns, char *err, size_t errlen)
{
	size_t n, i;

	for (int c = 0; c < s->ncpu; c++) {
		for (;;) {
			struct tracefs_page_info info;
			ssize_t got =
			    read(s->raw[c], s->page, s->layout.page_bytes);

			if (got == -1 && errno == EINTR)
				continue;
			if (got == -1 && errno == EAGAIN)
				break;
			if (got == -1) {
				snprintf(err, errlen,
				    "cannot read cpu%d's "
				    "trace_pipe_raw: %s",
				    c, strerror(errno));
				return -1;
			}
			if (got == 0)
				break;
			if (tracefs_page_parse(&s->layout, s->page, (size_t)got,
			        add_pending, s, &info, err, errlen) == -1) {
				/* A broken page costs its events, said below.
				 */
				if (strncmp(err, "out of memory", 13) == 0)
					return -1;
				s->malformed++;
			}
		}
	}
	/* qsort wants a pointer even for nothing: pend is NULL until used. */
	if (s->npend > 1)
		qsort(s->pend, s->npend, sizeof(*s->pend), by_time);
	for (n = 0; n < s->npend && s->pend[n].ev.ts_ns <= horizon_ns; n++)
		if (apply(s, &s->pend[n].ev, NULL, err, errlen) == -1)
			return -1;
	for (i = n; i < s->npend; i++)
		s->pend[i - n] = s->pend[i];
	s->npend -= n;
	return 0;
}

/* Events lost since the last look, from every CPU's stats. */
static int
lost_since(struct tfs *s, uint64_t *lost, char *err, size_t errlen)
{
	*lost = 0;
	for (int c = 0; c < s->ncpu; c++) {
		struct tracefs_cpu_stats now;

		if (read_cpu_stats(s, c, &now, err, errlen) == -1)
			return -1;
		*lost += (now.overrun - s->seen[c].overrun) +
		    (now.dropped - s->seen[c].dropped);
		s->seen[c] = now;
	}
	return 0;
}

static int
tfs_tick(struct probe *p, char *err, size_t errlen)
{
	struct tfs *s = p->priv;
	uint64_t unread = 0;

	for (int c = 0; c < s->ncpu; c++) {
		struct tracefs_cpu_stats now;

		if (read_cpu_stats(s, c, &now, err, errlen) == -1)
			return -1;
		unread += now.bytes;
	}
	return unread > DRAIN_BYTES ? drain(s, clock_now_ns(), err, errlen) : 0;
}

static int
tfs_mark(struct probe *p, struct devstats *out, char *err, size_t errlen)
{
	struct tfs *s = p->priv;
	int64_t now = clock_now_ns();
	struct blkev m = {.ts_ns = now, .kind = BLKEV_MARK};
	uint64_t lost;

	if (drain(s, now, err, errlen) == -1 ||
	    lost_since(s, &lost, err, errlen) == -1)
		return -1;
	/* What could not be decoded is lost as well, and said so. */
	lost += s->malformed - s->malformed_told;
	s->malformed_told = s->malformed;
	if (lost > 0) {
		struct blkev l = {
		    .ts_ns = now, .kind = BLKEV_LOST, .sector = lost};

		if (apply(s, &l, NULL, err, errlen) == -1)
			return -1;
	}
	/* The kernel's counters over the same phase, to reconcile with. */
	for (size_t i = 0; i < s->ndev; i++) {
		struct devstats kn, d;
		struct blkev k[3];
		size_t nk;

		if (read_kdev(&s->kdev[i], &kn, err, errlen) == -1)
			return -1;
		devstats_delta(&d, &kn, &s->kdev[i].base);
		s->kdev[i].base = kn;
		nk = blkev_kern_records(
		    BLKEV_DEV(p->target->dev[i].major, p->target->dev[i].minor),
		    now, &d, k);
		for (size_t j = 0; j < nk; j++)
			if (apply(s, &k[j], NULL, err, errlen) == -1)
				return -1;
	}
	m.sector = out != NULL;
	if (s->keep) {
		if (s->nlabel == s->caplabel) {
			size_t cap = s->caplabel ? s->caplabel * 2 : 64;
			char(*nl)[64] = realloc(s->label, cap * sizeof(*nl));

			if (nl == NULL) {
				snprintf(err, errlen,
				    "out of memory keeping "
				    "events for --trace-out");
				return -1;
			}
			s->label = nl;
			s->caplabel = cap;
		}
		memcpy(s->label[s->nlabel], p->label, sizeof(p->label));
		m.nr_sector = (uint32_t)s->nlabel++;
	}
	p->label[0] = '\0';
	return apply(s, &m, out, err, errlen);
}

static void
tfs_free(struct tfs *s)
{
	if (s == NULL)
		return;
	for (int c = 0; c < s->ncpu; c++) {
		if (s->raw != NULL && s->raw[c] != -1)
			close(s->raw[c]);
		if (s->stat != NULL && s->stat[c] != -1)
			close(s->stat[c]);
	}
	for (size_t i = 0; i < TARGET_MAXDEV; i++)
		if (s->kdev[i].fd != -1)
			close(s->kdev[i].fd);
	/*
	 * Removing the instance frees its buffer and its event settings; it
	 * must come after every file in it is closed, or the kernel refuses.
	 */
	if (s->made) {
		char err[256];

		enable_events(s, "0", err, sizeof(err));
		rmdir(s->inst);
	}
	blkev_acc_free(s->acc);
	free(s->raw);
	free(s->stat);
	free(s->seen);
	free(s->page);
	free(s->pend);
	free(s->kept);
	free(s->label);
	free(s);
}

static void
tfs_close(struct probe *p)
{
	tfs_free(p->priv);
	p->priv = NULL;
}

static int
tfs_keep(struct probe *p, char *err, size_t errlen)
{
	struct tfs *s = p->priv;

	(void)err;
	(void)errlen;
	s->keep = 1;
	return 0;
}

static int
tfs_trace_write(struct probe *p, const char *path, const char *result,
    char *err, size_t errlen)
{
	struct tfs *s = p->priv;

	if (!s->keep) {
		snprintf(err, errlen,
		    "the tracefs probe was not asked to keep "
		    "its events");
		return -1;
	}
	return tracefile_write(path, p->target, s->kept, s->nkept,
	    (const char(*)[64])s->label, s->nlabel, result, err, errlen);
}

static struct blkev_acc *
tfs_acc(struct probe *p)
{
	return ((struct tfs *)p->priv)->acc;
}

const struct probe_ops probe_tracefs_ops = {
    .name = "tracefs",
    .resolution = PROBE_EXACT,
    .open = tfs_open,
    .tick = tfs_tick,
    .mark = tfs_mark,
    .close = tfs_close,
    .keep = tfs_keep,
    .trace_write = tfs_trace_write,
    .acc = tfs_acc,
};
