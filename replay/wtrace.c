/*
 * wtrace.c - the trace workload: a recorded command's file operations
 * (model/wtrace.h) done again in a fresh run directory, without the
 * command. Its write() calls, their sizes and places, its fsyncs, renames,
 * links and removals reach the filesystem as they did when recorded; the
 * bytes written are pseudo-random (a compressing or deduplicating
 * filesystem would otherwise see zeros and lie), never the recorded data,
 * which the trace does not hold.
 *
 * Each recorded thread is replayed in a thread of its own, its operations
 * in their order, each after the earlier operations of other threads it
 * depends on (wtrace_order.h), as fast as they go, or at their recorded
 * times (timing).
 *
 * The set-up (replay_wtrace_setup) makes, before the measured run, what
 * the command found and did not make: files it read or renamed, removed,
 * truncated, and the directories they are in, with the sizes its reads
 * saw.
 *
 * Containment: every path is relative and free of ".." (the reader
 * refuses others), is opened beneath the run directory
 * (replay_open_beneath: a symbolic link that leads out is not followed),
 * and a symbolic link's content may not point out of the run directory.
 */
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/clock.h"
#include "../model/wtrace.h"
#include "replay.h"
#include "wfs_impl.h"
#include "wtrace_order.h"

/* A read buffer bigger than this is not needed: reads ask less. */
#define MAX_BUF (16u << 20)

/*
 * The system calls the operations go through: the host's, or a NetBSD
 * rump kernel's (job->netbsd); set when a set-up or a replay begins.
 */
static const struct wfs *fs = &wfs_host;

/* A set of paths, for the set-up's question "made by the trace yet?". */
struct pathset {
	struct pent {
		struct pent *next;
		uint64_t size; /* the extent read, for files made first */
		int kind;      /* 0 file, 1 directory */
		int pre;       /* there before the command ran */
		char path[];
	} * *b;
	size_t nb;
};

static uint64_t
hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static struct pent *
ps_get(struct pathset *s, const char *p, int add)
{
	uint64_t k = hash(p) % s->nb;
	struct pent *e;

	for (e = s->b[k]; e != NULL; e = e->next)
		if (strcmp(e->path, p) == 0)
			return e;
	if (!add || (e = calloc(1, sizeof(*e) + strlen(p) + 1)) == NULL)
		return NULL;
	strcpy(e->path, p);
	e->next = s->b[k];
	s->b[k] = e;
	return e;
}

static void
ps_free(struct pathset *s)
{
	for (size_t i = 0; i < s->nb; i++)
		while (s->b[i] != NULL) {
			struct pent *e = s->b[i];

			s->b[i] = e->next;
			free(e);
		}
	free(s->b);
}

/*
 * Whether a symbolic link at path holding target stays in the run
 * directory when followed: target is relative, and its ".." never climb
 * above the top.
 */
static int
link_inside(const char *path, const char *target)
{
	int depth = 0;
	const char *c;

	if (target[0] == '/')
		return 0;
	for (c = path; (c = strchr(c, '/')) != NULL; c++)
		depth++;
	for (c = target; *c != '\0';) {
		const char *e = strchr(c, '/');
		size_t n = e != NULL ? (size_t)(e - c) : strlen(c);

		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (--depth < 0)
				return 0;
		} else if (n > 0 && !(n == 1 && c[0] == '.'))
			depth++;
		c += n + (e != NULL);
	}
	return 1;
}

int
replay_wtrace_identify(
    const char *path, struct replay_wtrace_info *info, char *err, size_t errlen)
{
	struct wtrace_rec r;
	struct wtrace t;
	int rv;

	memset(info, 0, sizeof(*info));
	if (wtrace_load(path, &t, err, errlen) == -1)
		return -1;
	/* Every record is checked now, before any run writes anything. */
	while ((rv = wtrace_next(&t, &r, err, errlen)) == 1) {
		uint64_t n = r.done > 0 ? (uint64_t)r.done : 0;

		if (r.op == WT_SYMLINK && !link_inside(r.path, r.path2)) {
			snprintf(err, errlen,
			    "workload trace '%s': record %llu: symbolic link "
			    "'%s' points outside the directory ('%s')",
			    path, (unsigned long long)t.nrec, r.path, r.path2);
			rv = -1;
			break;
		}
		if (r.op == WT_WRITE || r.op == WT_COPY_RANGE) {
			info->write_ops++;
			info->write_bytes += n;
		}
		if (n > info->max_io)
			info->max_io = n;
		if ((r.op == WT_READ) && r.asked > info->max_io)
			info->max_io = r.asked < MAX_BUF ? r.asked : MAX_BUF;
		info->duration_ns = r.t_ns;
	}
	info->ops = t.nrec;
	info->threads = t.nthread;
	info->files = t.nopen;
	wtrace_free(&t);
	return rv == -1 ? -1 : 0;
}

/* Pseudo-random bytes, xorshift64*, from a seed per operation. */
static void
fill(unsigned char *buf, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		uint64_t v = x * 2685821657736338717ULL;
		memcpy(buf + i, &v, 8);
	}
	for (; i < n; i++)
		buf[i] = (unsigned char)(x >> (8 * (i & 7)));
}

/* The directory containing path, made when missing; its fd, or -1. */
static int
parent_of(int root, const char *path, const char **base, int make)
{
	char dir[WTRACE_MAX_PATH];
	const char *slash = strrchr(path, '/');
	int fd;

	if (slash == NULL) {
		*base = path;
		return fs->dup(root);
	}
	*base = slash + 1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	fd = fs->open_beneath(root, dir, WT_O_READ | WT_O_DIRECTORY, 0);
	if (fd == -1 && errno == ENOENT && make) {
		const char *b;
		int p = parent_of(root, dir, &b, 1);

		if (p == -1)
			return -1;
		if (fs->mkdirat(p, b, 0755) == -1 && errno != EEXIST) {
			fs->close(p);
			return -1;
		}
		fs->close(p);
		fd = fs->open_beneath(root, dir, WT_O_READ | WT_O_DIRECTORY, 0);
	}
	return fd;
}

/*
 * The directories a path is in, when the trace has not named them yet:
 * the command found them in place (it made none of them before using them).
 */
static int
note_parents(struct pathset *ps, const char *path)
{
	char dir[WTRACE_MAX_PATH];
	struct pent *e;

	for (const char *p = strchr(path, '/'); p != NULL;
	     p = strchr(p + 1, '/')) {
		memcpy(dir, path, (size_t)(p - path));
		dir[p - path] = '\0';
		if (ps_get(ps, dir, 0) != NULL)
			continue;
		if ((e = ps_get(ps, dir, 1)) == NULL)
			return -1;
		e->pre = 1;
		e->kind = 1;
	}
	return 0;
}

/*
 * What the command found in place: a pass over the trace that notes each
 * path the first time it appears, and whether the command made it.
 */
static int
scan(struct wtrace *t, struct pathset *ps, uint64_t **pre_of, char *err,
    size_t errlen)
{
	struct wtrace_rec r;
	uint64_t *h = calloc(t->nopen + 1 > 0 ? t->nopen + 1 : 1, sizeof(*h));
	struct pent *e;
	int rv;

	/* nopen is known only once read; the identify pass read it. */
	if (h == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	wtrace_rewind(t);
	while ((rv = wtrace_next(t, &r, err, errlen)) == 1) {
		int made = 0, pre = 0, dir = 0;

		switch (r.op) {
		case WT_OPEN:
			made = (r.flags & WT_O_CREAT) != 0;
			pre = !made && r.done >= 0;
			dir = (r.flags & WT_O_DIRECTORY) != 0;
			break;
		case WT_MKDIR:
			made = r.done >= 0;
			pre = r.done == -EEXIST;
			dir = 1;
			break;
		case WT_SYMLINK:
			made = 1;
			break;
		case WT_RMDIR:
			dir = 1;
			pre = r.done >= 0;
			break;
		case WT_UNLINK:
		case WT_RENAME:
		case WT_LINK:
		case WT_TRUNCATE:
			pre = r.done >= 0;
			break;
		case WT_READ:
		case WT_COPY_RANGE:
			/* The size of a file made first: as far as it was read.
			 */
			if (r.h < t->nopen + 1 && h[r.h] != 0 && r.done > 0) {
				e = (struct pent *)(uintptr_t)h[r.h];
				if (e->pre &&
				    r.off + (uint64_t)r.done > e->size)
					e->size = r.off + (uint64_t)r.done;
			}
			continue;
		default:
			continue;
		}
		/* Only a call that worked says its directories were there. */
		if (r.done < 0)
			;
		else if (note_parents(ps, r.path) == -1 ||
		    ((r.op == WT_RENAME || r.op == WT_LINK) &&
		        note_parents(ps, r.path2) == -1)) {
			snprintf(err, errlen, "out of memory");
			free(h);
			return -1;
		}
		if (ps_get(ps, r.path, 0) == NULL) {
			if ((e = ps_get(ps, r.path, 1)) == NULL) {
				snprintf(err, errlen, "out of memory");
				free(h);
				return -1;
			}
			e->pre = pre && !made;
			e->kind = dir;
			if (r.op == WT_OPEN && r.h != 0 && e->pre)
				h[r.h] = (uint64_t)(uintptr_t)e;
		} else if (r.op == WT_OPEN && r.h != 0) {
			e = ps_get(ps, r.path, 0);
			if (e->pre)
				h[r.h] = (uint64_t)(uintptr_t)e;
		}
		if ((r.op == WT_RENAME || r.op == WT_LINK) &&
		    ps_get(ps, r.path2, 1) == NULL) {
			snprintf(err, errlen, "out of memory");
			free(h);
			return -1;
		}
	}
	*pre_of = h;
	return rv;
}

void
replay_wtrace_setup(void *arg, struct replay_report *rep)
{
	const struct replay_wtrace_job *job = arg;
	struct pathset ps = {.nb = 4096};
	unsigned char *buf = NULL;
	uint64_t *h = NULL;
	struct wtrace t;
	int root = -1;

	rep->failed = 1;
	fs = job->netbsd ? &wfs_rump : &wfs_host;
	if (wtrace_load(job->trace, &t, rep->error, sizeof(rep->error)) == -1)
		return;
	if ((ps.b = calloc(ps.nb, sizeof(*ps.b))) == NULL ||
	    (buf = malloc(1 << 20)) == NULL) {
		snprintf(rep->error, sizeof(rep->error), "out of memory");
		goto out;
	}
	/* The first pass counts the handles; the second uses them. */
	{
		struct wtrace_rec r;
		int rv;

		while ((rv = wtrace_next(
		            &t, &r, rep->error, sizeof(rep->error))) == 1)
			;
		if (rv == -1)
			goto out;
	}
	if (scan(&t, &ps, &h, rep->error, sizeof(rep->error)) == -1)
		goto out;
	if ((root = fs->open_root(job->rundir)) == -1) {
		snprintf(rep->error, sizeof(rep->error),
		    "cannot open run directory '%s': %s", job->rundir,
		    strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < ps.nb; i++)
		for (struct pent *e = ps.b[i]; e != NULL; e = e->next) {
			const char *base;
			int p, fd;

			if (!e->pre)
				continue;
			if ((p = parent_of(root, e->path, &base, 1)) == -1)
				goto sys;
			if (e->kind) {
				if (fs->mkdirat(p, base, 0755) == -1 &&
				    errno != EEXIST) {
					fs->close(p);
					goto sys;
				}
				fs->close(p);
				rep->entries++;
				continue;
			}
			fd = fs->create_at(p, base, 0644);
			fs->close(p);
			if (fd == -1)
				goto sys;
			for (uint64_t off = 0; off < e->size;) {
				size_t n = e->size - off < (1 << 20)
				    ? (size_t)(e->size - off)
				    : (size_t)(1 << 20);

				fill(buf, n, off ^ hash(e->path));
				if (fs->pwrite(fd, buf, n, (int64_t)off) !=
				    (ssize_t)n) {
					fs->close(fd);
					goto sys;
				}
				off += n;
				rep->bytes += n;
			}
			fs->close(fd);
			rep->entries++;
			continue;
		sys:
			snprintf(rep->error, sizeof(rep->error),
			    "set-up of workload trace '%s': cannot make '%s': "
			    "%s",
			    job->trace, e->path, strerror(errno));
			goto out;
		}
	rep->failed = 0;
out:
	if (root != -1)
		fs->close(root);
	free(h);
	free(buf);
	ps_free(&ps);
	wtrace_free(&t);
}

/* A path operation at the record's path(s), through their parents. */
static int
path_op(int root, const struct wtrace_rec *r)
{
	const char *b1, *b2;
	int p1, p2 = -1, rv = -1, fd;

	if ((p1 = parent_of(root, r->path, &b1, 0)) == -1)
		return -1;
	switch (r->op) {
	case WT_MKDIR:
		rv = fs->mkdirat(p1, b1, 0755);
		break;
	case WT_RMDIR:
		rv = fs->unlinkat(p1, b1, 1);
		break;
	case WT_UNLINK:
		rv = fs->unlinkat(p1, b1, 0);
		break;
	case WT_SYMLINK:
		rv = fs->symlinkat(r->path2, p1, b1);
		break;
	case WT_TRUNCATE:
		if ((fd = fs->open_beneath(root, r->path, WT_O_WRITE, 0)) !=
		    -1) {
			rv = fs->ftruncate(fd, (int64_t)r->off);
			fs->close(fd);
		}
		break;
	case WT_RENAME:
	case WT_LINK:
		if ((p2 = parent_of(root, r->path2, &b2, 0)) == -1)
			break;
		rv = r->op == WT_RENAME ? fs->renameat(p1, b1, p2, b2)
		                        : fs->linkat(p1, b1, p2, b2);
		break;
	default:
		break;
	}
	if (p2 != -1) {
		int e = errno;

		fs->close(p2);
		errno = e;
	}
	{
		int e = errno;

		fs->close(p1);
		errno = e;
	}
	return rv;
}

/* The application layer: each write-like call, by the bytes it wrote. */
static void
count_write(struct replay_report *rep, int64_t rv)
{
	if (rv <= 0)
		return;
	rep->app_ops++;
	rep->app_bytes += (uint64_t)rv;
	hist_add(&rep->app_size, (uint64_t)rv, 1);
	rep->bytes += (uint64_t)rv;
}

/*
 * A setattr: the values were not recorded, only what changed; setting the
 * mode the file has, no owner and the time now dirties the inode as the
 * command's call did. A path is opened beneath the run directory.
 */
static int
setattr(int root, int fd, const struct wtrace_rec *r)
{
	int own = fd == -1, rv;

	if (own && (fd = fs->open_beneath(root, r->path, WT_O_READ, 0)) == -1)
		return -1;
	rv = fs->setattr(fd, r->flags);
	if (own) {
		int e = errno;

		fs->close(fd);
		errno = e;
	}
	return rv;
}

/* One record; -1 when one that succeeded when recorded fails now. */
static int
one(int root, int *fds, unsigned char *buf, size_t buflen, uint64_t nrec,
    const struct wtrace_rec *r, struct replay_report *rep)
{
	int fd = r->h != 0 ? fds[r->h] : -1, fd2 = r->h2 != 0 ? fds[r->h2] : -1;
	uint64_t n = r->done > 0 ? (uint64_t)r->done : 0;
	int64_t rv = 0;
	int handle = r->op != WT_OPEN && r->op != WT_SYNC && r->h != 0;

	/* An operation on a file that did not open here is not done. */
	if (handle && (fd == -1 || (r->op == WT_COPY_RANGE && fd2 == -1)))
		return r->done < 0 ? 0 : (errno = EBADF, -1);
	if (n > buflen)
		n = buflen;
	switch (r->op) {
	case WT_OPEN:
		rv = fs->open_beneath(root, r->path, r->flags, 0644);
		if (r->h != 0)
			fds[r->h] = (int)rv;
		else if (rv >= 0)
			fs->close((int)rv);
		break;
	case WT_CLOSE:
		rv = fs->close(fd);
		fds[r->h] = -1;
		break;
	case WT_READ: {
		size_t ask = r->asked < buflen ? (size_t)r->asked : buflen;

		rv = fs->pread(fd, buf, ask, (int64_t)r->off);
		break;
	}
	case WT_WRITE:
		fill(buf, (size_t)n, nrec);
		rv = (r->flags & WT_APPEND)
		    ? fs->write(fd, buf, (size_t)n)
		    : fs->pwrite(fd, buf, (size_t)n, (int64_t)r->off);
		count_write(rep, rv);
		break;
	case WT_COPY_RANGE:
		rv = fs->copy_range(
		    fd, (int64_t)r->off, fd2, (int64_t)r->off2, (size_t)n);
		count_write(rep, rv);
		break;
	case WT_FSYNC:
		rv = fs->fsync(fd);
		break;
	case WT_FDATASYNC:
		rv = fs->fdatasync(fd);
		break;
	case WT_SYNC_FILE_RANGE:
		rv = fs->sync_range(
		    fd, (int64_t)r->off, (int64_t)r->asked, (unsigned)r->flags);
		break;
	case WT_FALLOCATE:
		rv = fs->fallocate(fd, (int)(r->flags & 0x7f), (int64_t)r->off,
		    (int64_t)r->asked);
		break;
	case WT_FTRUNCATE:
		rv = fs->ftruncate(fd, (int64_t)r->off);
		break;
	case WT_SYNCFS:
		rv = fs->syncfs(fd);
		break;
	case WT_SYNC:
		/* Only the filesystem under test: sync(2) would be all. */
		rv = fs->syncfs(root);
		break;
	case WT_MMAP:
		/* The stores were not seen; nothing to do them with. */
		return 0;
	case WT_SETATTR:
		rv = setattr(root, fd, r);
		break;
	default:
		rv = path_op(root, r);
		break;
	}
	rep->entries++;
	if (rv < 0 && r->done >= 0)
		return -1;
	return 0;
}

/*
 * The replay's threads, one a recorded thread, and what they share. An
 * operation waits until the earlier ones it depends on (wtrace_order.h)
 * are done; fds, by handle, needs no lock of its own: an open and every
 * use of its handle are ordered through the mutex. A thread waiting for
 * operation d waits on slot d % NSLOTS, so that an operation done wakes
 * few threads, not every one.
 */
#define NSLOTS 64

struct slot {
	pthread_cond_t cv;
	uint64_t waiting; /* no broadcast when none */
};

struct shared {
	const struct replay_wtrace_job *job;
	const struct wtrace *t;
	const struct wtrace_order *o;
	int root;
	int *fds;
	int64_t t0;
	pthread_mutex_t mu;
	struct slot slot[NSLOTS]; /* an operation done, or the replay stopped */
	pthread_cond_t starter;   /* a thread ended, or lowest moved on */
	pthread_cond_t wake;      /* the replay stopped: sleepers end now */
	int gated;                /* the starter waits for lowest to move */
	unsigned char *done;      /* by operation */
	uint64_t lowest;          /* every operation before it is done */
	uint64_t live;            /* threads started and not ended */
	int stop;                 /* one failed: the others end */
	struct replay_report *rep; /* each thread's counts, its end */
};

struct worker {
	struct shared *s;
	uint64_t k; /* the recorded thread */
};

/* Threads at once, but when the ones running wait for a later one. */
#define MAX_LIVE 256

/*
 * Timing: sleeps until at_ns after the start, on a condition that halt
 * signals, so that a stopped replay does not wait out a recorded gap; -1
 * when the replay stopped.
 */
static int
wait_until(struct shared *s, int64_t at_ns)
{
	int64_t due = s->t0 + at_ns;
	struct timespec ts = {
	    .tv_sec = due / 1000000000, .tv_nsec = due % 1000000000};
	int rv;

	pthread_mutex_lock(&s->mu);
	while (!s->stop && clock_now_ns() < due)
		pthread_cond_timedwait(&s->wake, &s->mu, &ts);
	rv = s->stop ? -1 : 0;
	pthread_mutex_unlock(&s->mu);
	return rv;
}

/* Waits for what operation i depends on; -1 when the replay stopped. */
static int
wait_for(struct shared *s, uint64_t i)
{
	const struct wtrace_order *o = s->o;
	int rv;

	pthread_mutex_lock(&s->mu);
	for (uint64_t d = o->dep_at[i]; d < o->dep_at[i + 1] && !s->stop; d++)
		while (!s->done[o->dep[d]] && !s->stop) {
			struct slot *sl = &s->slot[o->dep[d] % NSLOTS];

			sl->waiting++;
			pthread_cond_wait(&sl->cv, &s->mu);
			sl->waiting--;
		}
	rv = s->stop ? -1 : 0;
	pthread_mutex_unlock(&s->mu);
	return rv;
}

static void
finish(struct shared *s, uint64_t i)
{
	pthread_mutex_lock(&s->mu);
	s->done[i] = 1;
	while (s->lowest < s->o->nops && s->done[s->lowest])
		s->lowest++;
	if (s->slot[i % NSLOTS].waiting > 0)
		pthread_cond_broadcast(&s->slot[i % NSLOTS].cv);
	if (s->gated && s->lowest > i)
		pthread_cond_signal(&s->starter);
	pthread_mutex_unlock(&s->mu);
}

/* The first failure is the replay's; the others end at their next wait. */
static void
halt(struct shared *s, const char *msg)
{
	pthread_mutex_lock(&s->mu);
	if (!s->stop)
		snprintf(s->rep->error, sizeof(s->rep->error), "%s", msg);
	s->stop = 1;
	for (int n = 0; n < NSLOTS; n++)
		pthread_cond_broadcast(&s->slot[n].cv);
	pthread_cond_broadcast(&s->wake);
	pthread_cond_signal(&s->starter);
	pthread_mutex_unlock(&s->mu);
}

/* A buffer of at least need bytes, aligned for O_DIRECT. */
static int
room(unsigned char **buf, size_t *len, size_t need)
{
	need = need < 4096 ? 4096 : (need + 4095) & ~(size_t)4095;
	if (need <= *len)
		return 0;
	free(*buf);
	*len = 0;
	if (posix_memalign((void **)buf, 4096, need) != 0) {
		*buf = NULL;
		return -1;
	}
	*len = need;
	return 0;
}

static void *
worker(void *arg)
{
	const struct worker *w = arg;
	struct shared *s = w->s;
	const struct wtrace_order *o = s->o;
	struct replay_report mine = {0};
	struct wtrace_rec r;
	unsigned char *buf = NULL;
	size_t buflen = 0;
	char msg[sizeof(mine.error)];

	for (uint64_t x = o->first[w->k]; x < o->first[w->k + 1]; x++) {
		uint64_t i = o->list[x], n;

		if (wtrace_read_at(s->t, &o->place[i], &r, msg, sizeof(msg)) ==
		    -1) {
			halt(s, msg);
			break;
		}
		n = r.done > 0 ? (uint64_t)r.done : 0;
		if (r.op == WT_READ)
			n = r.asked < MAX_BUF ? r.asked : MAX_BUF;
		if (room(&buf, &buflen, (size_t)n) == -1) {
			halt(s, "out of memory");
			break;
		}
		if ((s->job->timing && wait_until(s, r.t_ns) == -1) ||
		    wait_for(s, i) == -1)
			break;
		if (one(s->root, s->fds, buf, buflen, i + 1, &r, &mine) == -1) {
			snprintf(msg, sizeof(msg),
			    "workload trace '%s': record %llu (%s%s%s): %s: %s",
			    s->t->name, (unsigned long long)i + 1,
			    wtrace_op_name(r.op), r.path[0] != '\0' ? " " : "",
			    r.path,
			    "succeeded when recorded, failed in the replay",
			    strerror(errno));
			halt(s, msg);
			break;
		}
		finish(s, i);
	}
	free(buf);
	pthread_mutex_lock(&s->mu);
	s->rep->entries += mine.entries;
	s->rep->bytes += mine.bytes;
	s->rep->app_ops += mine.app_ops;
	s->rep->app_bytes += mine.app_bytes;
	hist_merge(&s->rep->app_size, &mine.app_size);
	s->live--;
	pthread_cond_signal(&s->starter);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/*
 * Starts a thread for each recorded thread, in the order they appeared,
 * at most MAX_LIVE at once unless every operation before the next one's
 * first is done (the running ones may be waiting for it); then waits for
 * them all to end.
 */
static void
start_all(struct shared *s, struct worker *w)
{
	const struct wtrace_order *o = s->o;
	pthread_attr_t attr;
	char msg[128];

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 1 << 20);
	for (uint64_t k = 0; k < o->nthreads; k++) {
		int e;

		pthread_mutex_lock(&s->mu);
		while (!s->stop && s->live >= MAX_LIVE &&
		    s->lowest < o->list[o->first[k]]) {
			s->gated = 1;
			pthread_cond_wait(&s->starter, &s->mu);
			s->gated = 0;
		}
		if (s->stop) {
			pthread_mutex_unlock(&s->mu);
			break;
		}
		s->live++;
		pthread_mutex_unlock(&s->mu);
		w[k] = (struct worker){.s = s, .k = k};
		if ((e = pthread_create(
		         &(pthread_t){0}, &attr, worker, &w[k])) != 0) {
			snprintf(msg, sizeof(msg),
			    "cannot start replay thread %llu of %llu: %s",
			    (unsigned long long)k + 1,
			    (unsigned long long)o->nthreads, strerror(e));
			pthread_mutex_lock(&s->mu);
			s->live--;
			pthread_mutex_unlock(&s->mu);
			halt(s, msg);
			break;
		}
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&s->mu);
	while (s->live > 0)
		pthread_cond_wait(&s->starter, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

void
replay_wtrace_run(void *arg, struct replay_report *rep)
{
	const struct replay_wtrace_job *job = arg;
	struct shared s = {.job = job, .rep = rep, .root = -1};
	pthread_condattr_t ca;
	struct wtrace_order o;
	struct worker *w = NULL;
	struct wtrace t;

	rep->failed = 1;
	fs = job->netbsd ? &wfs_rump : &wfs_host;
	if (wtrace_load(job->trace, &t, rep->error, sizeof(rep->error)) == -1)
		return;
	if (wtrace_order_make(&t, &o, rep->error, sizeof(rep->error)) == -1) {
		wtrace_free(&t);
		return;
	}
	s.t = &t;
	s.o = &o;
	if ((s.fds = malloc((o.nhandles + 1) * sizeof(*s.fds))) == NULL ||
	    (s.done = calloc(o.nops + 1, 1)) == NULL ||
	    (w = calloc(o.nthreads + 1, sizeof(*w))) == NULL) {
		snprintf(rep->error, sizeof(rep->error), "out of memory");
		goto out;
	}
	for (uint64_t i = 0; i <= o.nhandles; i++)
		s.fds[i] = -1;
	if ((s.root = fs->open_root(job->rundir)) == -1) {
		snprintf(rep->error, sizeof(rep->error),
		    "cannot open run directory '%s': %s", job->rundir,
		    strerror(errno));
		goto out;
	}
	pthread_mutex_init(&s.mu, NULL);
	for (int n = 0; n < NSLOTS; n++)
		pthread_cond_init(&s.slot[n].cv, NULL);
	pthread_cond_init(&s.starter, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s.wake, &ca);
	pthread_condattr_destroy(&ca);
	s.t0 = clock_now_ns();
	start_all(&s, w);
	for (int n = 0; n < NSLOTS; n++)
		pthread_cond_destroy(&s.slot[n].cv);
	pthread_cond_destroy(&s.starter);
	pthread_cond_destroy(&s.wake);
	pthread_mutex_destroy(&s.mu);
	rep->failed = s.stop;
out:
	if (s.fds != NULL)
		for (uint64_t i = 0; i <= o.nhandles; i++)
			if (s.fds[i] != -1)
				fs->close(s.fds[i]);
	if (s.root != -1)
		fs->close(s.root);
	free(w);
	free(s.done);
	free(s.fds);
	wtrace_order_free(&o);
	wtrace_free(&t);
}
