/*
 * record_linux.c - recording a command's file operations with ptrace and a
 * seccomp filter; see record.h.
 *
 * The command's first process installs a seccomp filter that returns
 * SECCOMP_RET_TRACE for the system calls of interest and lets every other
 * one through untouched, then executes the command. The recorder stops
 * only at those: at the seccomp stop it reads the arguments (paths, iovecs,
 * offsets behind pointers) before the call can change them, resumes to the
 * call's exit with PTRACE_SYSCALL, reads the result there, and resumes with
 * PTRACE_CONT. Children and threads are traced from their first
 * instruction (PTRACE_O_TRACEFORK, VFORK, CLONE), and inherit the filter.
 *
 * Descriptors are followed as the kernel keeps them: a table per process
 * (shared by threads made with CLONE_FILES, copied by fork, unshared and
 * cleared of close-on-exec descriptors by execve) of open file
 * descriptions, which dup and fork share, each with the offset the next
 * read or write uses. Only descriptions of files under the directory are
 * kept; a close is recorded when the last descriptor on one goes.
 *
 * Paths are made absolute from the calling thread's working directory or
 * the directory descriptor (both read from /proc, which is exact), then
 * made lexically canonical, and kept only when under the directory.
 */
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../model/clock.h"
#include "../model/wtrace.h"
#include "record.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
/* Another machine: its numbers are not known here; record_run says so. */
#define NATIVE_ARCH 0
#endif

/* The system calls the filter stops at. */
static const int traced[] = {SYS_read, SYS_write, SYS_pread64, SYS_pwrite64,
    SYS_readv, SYS_writev, SYS_preadv, SYS_pwritev, SYS_preadv2, SYS_pwritev2,
#ifdef SYS_open
    SYS_open, SYS_creat, SYS_rename, SYS_link, SYS_symlink, SYS_unlink,
    SYS_mkdir, SYS_rmdir, SYS_dup2, SYS_fork, SYS_vfork, SYS_chmod, SYS_chown,
    SYS_lchown,
#endif
    SYS_openat, SYS_openat2, SYS_close, SYS_close_range, SYS_dup, SYS_dup3,
    SYS_fcntl, SYS_lseek, SYS_fsync, SYS_fdatasync, SYS_sync_file_range,
    SYS_fallocate, SYS_ftruncate, SYS_truncate, SYS_renameat, SYS_renameat2,
    SYS_linkat, SYS_symlinkat, SYS_unlinkat, SYS_mkdirat, SYS_mmap,
    SYS_copy_file_range, SYS_sync, SYS_syncfs, SYS_clone, SYS_clone3,
    SYS_execve, SYS_execveat, SYS_fchmod, SYS_fchmodat, SYS_fchown,
    SYS_fchownat, SYS_utimensat};
#define NTRACED (sizeof(traced) / sizeof(traced[0]))

/* An open file description under the directory. */
struct ofd {
	int refs;
	uint64_t h;   /* its handle in the trace */
	uint64_t off; /* where the next read or write goes */
	int append;   /* O_APPEND: writes go to the end, offset unknown */
};

/* A descriptor table: fd n's description, NULL when not ours. */
struct fdt {
	int refs;
	size_t n;
	struct ofd **fd;
	unsigned char *cloexec;
};

/* What a stopped call's entry saw, for its exit. */
struct call {
	long nr;
	uint64_t a[6];
	int64_t t_ns;
	int has1, has2; /* path, path2 are under the directory */
	int out1;       /* path was absolute or relative, but outside */
	char path[WTRACE_MAX_PATH], path2[WTRACE_MAX_PATH];
	uint64_t asked;           /* readv/writev: the iovecs' sum */
	uint64_t off_in, off_out; /* copy_file_range: behind the pointers */
	uint64_t cflags;          /* clone3's flags */
};

struct thr {
	pid_t tid;
	int64_t idx;     /* in the trace; -1 until its first record */
	int in_call;     /* stopped in a call, resumed with PTRACE_SYSCALL */
	int expect_stop; /* a new child's first SIGSTOP is ours */
	int linked;      /* its parent's clone event was seen */
	struct fdt *fdt;
	struct call c;
};

struct rec {
	const char *root; /* canonical, absolute */
	size_t rootlen;
	struct wtrace_writer w;
	struct thr **thr;
	size_t nthr, cap;
	uint32_t nidx;
	int64_t t0;
	struct record_stats *st;
	int failed; /* the trace could not be written */
};

/* The filter: the native architecture's calls of traced[] stop. */
static int
install_filter(void)
{
	struct sock_filter f[NTRACED + 6];
	struct sock_fprog prog = {
	    .len = (unsigned short)(NTRACED + 6), .filter = f};
	size_t k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(
	    BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
	f[k++] =
	    (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < NTRACED; i++, k++)
		f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (unsigned)traced[i], (unsigned char)(NTRACED - i), 0);
	f[k++] =
	    (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] =
	    (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* Descriptor tables. */

static void ofd_drop(struct rec *r, struct thr *t, struct ofd *o);

static int
fdt_grow(struct fdt *d, size_t fd)
{
	size_t n = d->n;

	if (fd < n)
		return 0;
	while (n <= fd)
		n = n == 0 ? 64 : n * 2;
	struct ofd **nf = realloc(d->fd, n * sizeof(*nf));
	if (nf == NULL)
		return -1;
	d->fd = nf;
	unsigned char *nc = realloc(d->cloexec, n);
	if (nc == NULL)
		return -1;
	d->cloexec = nc;
	memset(d->fd + d->n, 0, (n - d->n) * sizeof(*nf));
	memset(d->cloexec + d->n, 0, n - d->n);
	d->n = n;
	return 0;
}

static struct fdt *
fdt_copy(const struct fdt *s)
{
	struct fdt *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	d->refs = 1;
	if (s == NULL || s->n == 0)
		return d;
	if (fdt_grow(d, s->n - 1) == -1) {
		free(d->fd);
		free(d->cloexec);
		free(d);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		d->fd[i] = s->fd[i];
		d->cloexec[i] = s->cloexec[i];
		if (d->fd[i] != NULL)
			d->fd[i]->refs++;
	}
	return d;
}

static struct ofd *
fd_get(const struct thr *t, uint64_t fd)
{
	return t->fdt != NULL && fd < t->fdt->n ? t->fdt->fd[fd] : NULL;
}

static void
fd_close(struct rec *r, struct thr *t, uint64_t fd)
{
	struct ofd *o = fd_get(t, fd);

	if (o != NULL) {
		t->fdt->fd[fd] = NULL;
		ofd_drop(r, t, o);
	}
}

static void
fd_put(struct rec *r, struct thr *t, uint64_t fd, struct ofd *o, int cloexec)
{
	if (fd > INT_MAX || fdt_grow(t->fdt, (size_t)fd) == -1) {
		r->failed = 1;
		return;
	}
	fd_close(r, t, fd);
	t->fdt->fd[fd] = o;
	t->fdt->cloexec[fd] = (unsigned char)cloexec;
	if (o != NULL)
		o->refs++;
}

static void
fdt_drop(struct rec *r, struct thr *t)
{
	struct fdt *d = t->fdt;

	t->fdt = NULL;
	if (d == NULL || --d->refs > 0)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->fd[i] != NULL)
			ofd_drop(r, t, d->fd[i]);
	free(d->fd);
	free(d->cloexec);
	free(d);
}

/* Records. */

static void
emit(struct rec *r, struct thr *t, struct wtrace_rec *w)
{
	if (t->idx < 0)
		t->idx = r->nidx++;
	w->thread = (uint32_t)t->idx;
	/*
	 * What a call asks can be anything (cat asks copy_file_range for
	 * SSIZE_MAX bytes); what it did is bounded by what it asked. A
	 * replay needs no more than the trace's bound.
	 */
	if (w->asked > WTRACE_MAX_IO)
		w->asked = WTRACE_MAX_IO;
	if (w->t_ns == 0)
		w->t_ns = clock_now_ns() - r->t0;
	if (wtrace_put(&r->w, w) == -1)
		r->failed = 1;
	r->st->records++;
}

static void
ofd_drop(struct rec *r, struct thr *t, struct ofd *o)
{
	struct wtrace_rec w;

	if (--o->refs > 0)
		return;
	memset(&w, 0, sizeof(w));
	w.op = WT_CLOSE;
	w.h = o->h;
	emit(r, t, &w);
	free(o);
}

/* Threads. */

static struct thr *
thr_find(struct rec *r, pid_t tid)
{
	for (size_t i = 0; i < r->nthr; i++)
		if (r->thr[i]->tid == tid)
			return r->thr[i];
	return NULL;
}

static struct thr *
thr_new(struct rec *r, pid_t tid)
{
	struct thr *t;

	if (r->nthr == r->cap) {
		size_t n = r->cap == 0 ? 16 : r->cap * 2;
		struct thr **nt = realloc(r->thr, n * sizeof(*nt));

		if (nt == NULL)
			return NULL;
		r->thr = nt;
		r->cap = n;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->tid = tid;
	t->idx = -1;
	r->thr[r->nthr++] = t;
	r->st->processes++;
	return t;
}

static void
thr_gone(struct rec *r, struct thr *t)
{
	fdt_drop(r, t);
	for (size_t i = 0; i < r->nthr; i++)
		if (r->thr[i] == t) {
			r->thr[i] = r->thr[--r->nthr];
			break;
		}
	free(t);
}

/* Reading the tracee. */

/* A NUL-terminated string at addr, page by page; -1 when too long. */
static int
peek_str(pid_t tid, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		size_t page = 4096 - ((addr + got) & 4095), n = len - got;
		struct iovec l, rv;
		ssize_t k;

		if (n > page)
			n = page;
		l = (struct iovec){buf + got, n};
		rv = (struct iovec){(void *)(uintptr_t)(addr + got), n};
		if ((k = process_vm_readv(tid, &l, 1, &rv, 1, 0)) <= 0)
			return -1;
		if (memchr(buf + got, '\0', (size_t)k) != NULL)
			return 0;
		got += (size_t)k;
	}
	return -1;
}

static int
peek(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, rv = {(void *)(uintptr_t)addr, len};

	return process_vm_readv(tid, &l, 1, &rv, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* The sum of an iovec array's lengths. */
static uint64_t
iov_sum(pid_t tid, uint64_t addr, uint64_t cnt)
{
	struct iovec v[64];
	uint64_t sum = 0;

	if (cnt > 1024)
		return 0;
	while (cnt > 0) {
		size_t k = cnt < 64 ? (size_t)cnt : 64;

		if (peek(tid, addr, v, k * sizeof(v[0])) == -1)
			return sum;
		for (size_t i = 0; i < k; i++)
			sum += v[i].iov_len;
		addr += k * sizeof(v[0]);
		cnt -= k;
	}
	return sum;
}

/* Removes ".", "..", and repeated slashes from an absolute path. */
static void
canonical(char *p)
{
	char *out = p, *in = p;

	while (*in != '\0') {
		char *e;
		size_t n;

		while (*in == '/')
			in++;
		if (*in == '\0')
			break;
		e = strchr(in, '/');
		n = e != NULL ? (size_t)(e - in) : strlen(in);
		if (n == 1 && in[0] == '.') {
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/*
 * The path at addr, relative to dirfd as the call at t sees it, into out
 * relative to the root. 1 when under the root (the root itself is not),
 * 0 when not, -1 when it cannot be read.
 */
static int
resolve(struct rec *r, struct thr *t, int64_t dirfd, uint64_t addr, char *out,
    size_t outlen)
{
	char p[PATH_MAX], abs[2 * PATH_MAX + 2], link[64];
	ssize_t n = 0;

	if (peek_str(t->tid, addr, p, sizeof(p)) == -1)
		return -1;
	if (p[0] != '/') {
		if (dirfd == AT_FDCWD)
			snprintf(link, sizeof(link), "/proc/%d/cwd", t->tid);
		else
			snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->tid,
			    (int)dirfd);
		if ((n = readlink(link, abs, PATH_MAX)) <= 0 || abs[0] != '/')
			return -1;
	}
	abs[n] = '/';
	snprintf(abs + n + 1, sizeof(abs) - (size_t)n - 1, "%s", p);
	canonical(abs);
	if (strncmp(abs, r->root, r->rootlen) != 0 ||
	    (r->rootlen > 1 && abs[r->rootlen] != '/') ||
	    abs[r->rootlen] == '\0' || abs[r->rootlen + 1] == '\0')
		return 0;
	if (strlen(abs + r->rootlen + (r->rootlen > 1)) >= outlen)
		return 0;
	snprintf(out, outlen, "%s", abs + r->rootlen + (r->rootlen > 1));
	return 1;
}

static unsigned
open_flags(uint64_t f)
{
	unsigned w = 0;

	switch (f & O_ACCMODE) {
	case O_RDONLY:
		w |= WT_O_READ;
		break;
	case O_WRONLY:
		w |= WT_O_WRITE;
		break;
	default:
		w |= WT_O_READ | WT_O_WRITE;
	}
	w |= (f & O_CREAT) ? WT_O_CREAT : 0;
	w |= (f & O_EXCL) ? WT_O_EXCL : 0;
	w |= (f & O_TRUNC) ? WT_O_TRUNC : 0;
	w |= (f & O_APPEND) ? WT_O_APPEND : 0;
	w |= (f & O_DIRECT) ? WT_O_DIRECT : 0;
	/* O_SYNC is O_DSYNC and a bit of its own. */
	if ((f & O_SYNC) == O_SYNC)
		w |= WT_O_SYNC;
	else if (f & O_DSYNC)
		w |= WT_O_DSYNC;
	w |= (f & O_DIRECTORY) ? WT_O_DIRECTORY : 0;
	return w;
}

/*
 * Whether the call's exit matters: a call on a descriptor of a file
 * outside the directory changes nothing we follow, and is let run to its
 * end without a second stop (most reads and writes of a build are such).
 */
static int
needs_exit(const struct thr *t, const struct call *c)
{
	switch (c->nr) {
	case SYS_read:
	case SYS_write:
	case SYS_pread64:
	case SYS_pwrite64:
	case SYS_readv:
	case SYS_writev:
	case SYS_preadv:
	case SYS_pwritev:
	case SYS_preadv2:
	case SYS_pwritev2:
	case SYS_close:
	case SYS_lseek:
	case SYS_fsync:
	case SYS_fdatasync:
	case SYS_sync_file_range:
	case SYS_fallocate:
	case SYS_ftruncate:
	case SYS_syncfs:
	case SYS_fchmod:
	case SYS_fchown:
		return fd_get(t, c->a[0]) != NULL;
	case SYS_mmap:
		return fd_get(t, c->a[4]) != NULL;
	case SYS_copy_file_range:
		return fd_get(t, c->a[0]) != NULL || fd_get(t, c->a[2]) != NULL;
	default:
		return 1;
	}
}

/* At the seccomp stop: what the exit will need and cannot read then. */
static void
on_entry(struct rec *r, struct thr *t, const struct __ptrace_syscall_info *si)
{
	struct call *c = &t->c;
	int64_t dirfd = AT_FDCWD;
	uint64_t p1 = 0, p2 = 0, d2 = (uint64_t)AT_FDCWD;

	memset(c, 0, offsetof(struct call, path));
	c->path[0] = c->path2[0] = '\0';
	c->nr = (long)si->seccomp.nr;
	memcpy(c->a, si->seccomp.args, sizeof(c->a));
	c->t_ns = clock_now_ns() - r->t0;
	switch (c->nr) {
#ifdef SYS_open
	case SYS_open:
	case SYS_creat:
	case SYS_unlink:
	case SYS_mkdir:
	case SYS_rmdir:
		p1 = c->a[0];
		break;
	case SYS_rename:
	case SYS_link:
		p1 = c->a[0];
		p2 = c->a[1];
		break;
	case SYS_symlink:
		/* The link is the second; what it holds, the first. */
		p2 = c->a[1];
		if (peek_str(t->tid, c->a[0], c->path, sizeof(c->path)) == -1)
			c->path[0] = '\0';
		break;
#endif
#ifdef SYS_chmod
	case SYS_chmod:
	case SYS_chown:
	case SYS_lchown:
		p1 = c->a[0];
		break;
#endif
	case SYS_truncate:
		p1 = c->a[0];
		break;
	case SYS_fchmodat:
	case SYS_fchownat:
	case SYS_utimensat: /* without a path it is futimens: p1 is 0 */
	case SYS_openat:
	case SYS_openat2:
	case SYS_unlinkat:
	case SYS_mkdirat:
		dirfd = (int)c->a[0];
		p1 = c->a[1];
		break;
	case SYS_renameat:
	case SYS_renameat2:
	case SYS_linkat:
		dirfd = (int)c->a[0];
		p1 = c->a[1];
		d2 = (uint64_t)(int)c->a[2];
		p2 = c->a[3];
		break;
	case SYS_symlinkat:
		d2 = (uint64_t)(int)c->a[1];
		p2 = c->a[2];
		if (peek_str(t->tid, c->a[0], c->path, sizeof(c->path)) == -1)
			c->path[0] = '\0';
		break;
	case SYS_readv:
	case SYS_writev:
	case SYS_preadv:
	case SYS_pwritev:
	case SYS_preadv2:
	case SYS_pwritev2:
		if (fd_get(t, c->a[0]) != NULL)
			c->asked = iov_sum(t->tid, c->a[1], c->a[2]);
		return;
	case SYS_copy_file_range:
		if (c->a[1] != 0)
			peek(t->tid, c->a[1], &c->off_in, sizeof(c->off_in));
		if (c->a[3] != 0)
			peek(t->tid, c->a[3], &c->off_out, sizeof(c->off_out));
		return;
	case SYS_clone3:
		peek(t->tid, c->a[0], &c->cflags, sizeof(c->cflags));
		return;
	default:
		return;
	}
	if (p1 != 0) {
		int k = resolve(r, t, dirfd, p1, c->path, sizeof(c->path));

		c->has1 = k == 1;
		c->out1 = k == 0;
	}
	if (p2 != 0) {
		/* symlink's first path is not resolved: it is its content. */
		if (c->nr == SYS_symlinkat
#ifdef SYS_symlink
		    || c->nr == SYS_symlink
#endif
		) {
			c->has1 = c->path[0] != '\0' &&
			    resolve(r, t, (int64_t)(int)d2, p2, c->path2,
			        sizeof(c->path2)) == 1;
			/* Kept as (link, content) in the record. */
			if (c->has1) {
				char tmp[WTRACE_MAX_PATH];

				memcpy(tmp, c->path, sizeof(tmp));
				memcpy(c->path, c->path2, sizeof(tmp));
				memcpy(c->path2, tmp, sizeof(tmp));
			}
			return;
		}
		c->has2 = resolve(r, t, (int64_t)(int)d2, p2, c->path2,
		              sizeof(c->path2)) == 1;
	}
}

static void
handle_op(struct rec *r, struct thr *t, int op, uint64_t fd, int64_t rv,
    uint64_t off, uint64_t asked, uint64_t flags)
{
	struct ofd *o = fd_get(t, fd);
	struct wtrace_rec w;

	if (o == NULL)
		return;
	memset(&w, 0, sizeof(w));
	w.op = (uint8_t)op;
	w.t_ns = t->c.t_ns;
	w.h = o->h;
	w.off = off;
	w.asked = asked;
	w.flags = flags;
	w.done = rv;
	emit(r, t, &w);
}

/*
 * A read or write: at the offset given (pread), at the end (O_APPEND, where
 * the offset is not known here), or at the description's, which it moves.
 */
static void
rw(struct rec *r, struct thr *t, int op, uint64_t fd, int64_t rv,
    uint64_t asked, int at, uint64_t off)
{
	struct ofd *o = fd_get(t, fd);

	if (o == NULL)
		return;
	if (at)
		handle_op(r, t, op, fd, rv, off, asked, WT_AT_OFFSET);
	else if (op == WT_WRITE && o->append)
		handle_op(r, t, op, fd, rv, 0, asked, WT_APPEND);
	else {
		handle_op(r, t, op, fd, rv, o->off, asked, 0);
		if (rv > 0)
			o->off += (uint64_t)rv;
	}
}

static void
path_op(struct rec *r, struct thr *t, int op, int64_t rv, uint64_t off,
    uint64_t flags)
{
	struct wtrace_rec w;

	if (!t->c.has1)
		return;
	memset(&w, 0, sizeof(w));
	w.op = (uint8_t)op;
	w.t_ns = t->c.t_ns;
	w.done = rv;
	w.off = off;
	w.flags = flags;
	memcpy(w.path, t->c.path, sizeof(w.path));
	memcpy(w.path2, t->c.path2, sizeof(w.path2));
	emit(r, t, &w);
}

static void
do_open(struct rec *r, struct thr *t, uint64_t flags, int64_t rv)
{
	struct wtrace_rec w;
	struct ofd *o;

	if (!t->c.has1)
		return;
	memset(&w, 0, sizeof(w));
	w.op = WT_OPEN;
	w.t_ns = t->c.t_ns;
	w.flags = open_flags(flags);
	w.done = rv < 0 ? rv : 0;
	memcpy(w.path, t->c.path, sizeof(w.path));
	emit(r, t, &w);
	if (rv < 0)
		return;
	if ((o = calloc(1, sizeof(*o))) == NULL) {
		r->failed = 1;
		return;
	}
	o->h = w.h;
	o->append = (flags & O_APPEND) != 0;
	fd_put(r, t, (uint64_t)rv, o, (flags & O_CLOEXEC) != 0);
}

/* linkat, symlinkat, unlinkat (atflags: AT_REMOVEDIR) or mkdirat. */
static void
at_op(struct rec *r, struct thr *t, long nr, int64_t rv, uint64_t atflags)
{
	if (nr == SYS_linkat && !t->c.has2)
		return; /* a link made outside: nothing here changed */
	path_op(r, t,
	    nr == SYS_linkat               ? WT_LINK
	        : nr == SYS_symlinkat      ? WT_SYMLINK
	        : nr == SYS_mkdirat        ? WT_MKDIR
	        : (atflags & AT_REMOVEDIR) ? WT_RMDIR
	                                   : WT_UNLINK,
	    rv, 0, 0);
}

/* A rename with one side outside the directory. */
static void
rename_op(struct rec *r, struct thr *t, int64_t rv, uint64_t flags)
{
	if (t->c.has1 && t->c.has2)
		path_op(r, t, WT_RENAME, rv, 0, flags);
	else if (t->c.has1 && rv == 0) {
		/* Moved out: gone from here. */
		t->c.path2[0] = '\0';
		path_op(r, t, WT_UNLINK, rv, 0, 0);
	}
}

static void
copy_range(struct rec *r, struct thr *t, int64_t rv)
{
	const struct call *c = &t->c;
	struct ofd *in = fd_get(t, c->a[0]), *out = fd_get(t, c->a[2]);
	uint64_t oi = c->a[1] != 0 ? c->off_in : in != NULL ? in->off : 0;
	uint64_t oo = c->a[3] != 0 ? c->off_out : out != NULL ? out->off : 0;
	struct wtrace_rec w;

	if (in != NULL && out != NULL) {
		memset(&w, 0, sizeof(w));
		w.op = WT_COPY_RANGE;
		w.t_ns = c->t_ns;
		w.h = in->h;
		w.h2 = out->h;
		w.off = oi;
		w.off2 = oo;
		w.asked = c->a[4];
		w.done = rv;
		emit(r, t, &w);
	} else if (in != NULL)
		rw(r, t, WT_READ, c->a[0], rv, c->a[4], 1, oi);
	else if (out != NULL)
		rw(r, t, WT_WRITE, c->a[2], rv, c->a[4], 1, oo);
	if (rv > 0 && in != NULL && c->a[1] == 0)
		in->off += (uint64_t)rv;
	if (rv > 0 && out != NULL && c->a[3] == 0)
		out->off += (uint64_t)rv;
}

static void
on_exit_call(struct rec *r, struct thr *t, int64_t rv)
{
	const struct call *c = &t->c;
	const uint64_t *a = c->a;

	switch (c->nr) {
	case SYS_read:
	case SYS_write:
		rw(r, t, c->nr == SYS_read ? WT_READ : WT_WRITE, a[0], rv, a[2],
		    0, 0);
		break;
	case SYS_pread64:
	case SYS_pwrite64:
		rw(r, t, c->nr == SYS_pread64 ? WT_READ : WT_WRITE, a[0], rv,
		    a[2], 1, a[3]);
		break;
	case SYS_readv:
	case SYS_writev:
		rw(r, t, c->nr == SYS_readv ? WT_READ : WT_WRITE, a[0], rv,
		    c->asked, 0, 0);
		break;
	case SYS_preadv:
	case SYS_pwritev:
	case SYS_preadv2:
	case SYS_pwritev2:
		/* preadv2's offset -1 is the file's own. */
		rw(r, t,
		    c->nr == SYS_preadv || c->nr == SYS_preadv2 ? WT_READ
		                                                : WT_WRITE,
		    a[0], rv, c->asked, (int64_t)a[3] != -1, a[3]);
		break;
#ifdef SYS_open
	case SYS_open:
		do_open(r, t, a[1], rv);
		break;
	case SYS_creat:
		do_open(r, t, O_CREAT | O_WRONLY | O_TRUNC, rv);
		break;
	case SYS_rename:
		rename_op(r, t, rv, 0);
		break;
	case SYS_chmod:
		path_op(r, t, WT_SETATTR, rv, 0, WT_ATTR_MODE);
		break;
	case SYS_chown:
	case SYS_lchown:
		path_op(r, t, WT_SETATTR, rv, 0, WT_ATTR_OWNER);
		break;
	case SYS_link:
	case SYS_symlink:
	case SYS_unlink:
	case SYS_mkdir:
	case SYS_rmdir:
		/* As their *at forms, below, but for rmdir. */
		if (c->nr == SYS_rmdir)
			path_op(r, t, WT_RMDIR, rv, 0, 0);
		else
			at_op(r, t,
			    c->nr == SYS_link          ? SYS_linkat
			        : c->nr == SYS_symlink ? SYS_symlinkat
			        : c->nr == SYS_unlink  ? SYS_unlinkat
			                               : SYS_mkdirat,
			    rv, 0);
		break;
	case SYS_dup2:
#endif
	case SYS_dup3:
		if (rv >= 0 && a[0] != a[1])
			fd_put(r, t, (uint64_t)rv, fd_get(t, a[0]),
			    c->nr == SYS_dup3 && (a[2] & O_CLOEXEC));
		break;
	case SYS_openat:
		do_open(r, t, a[2], rv);
		break;
	case SYS_openat2: {
		uint64_t how = 0;

		peek(t->tid, a[2], &how, sizeof(how));
		do_open(r, t, how, rv);
		break;
	}
	case SYS_close:
		if (rv == 0 || rv == -EINTR)
			fd_close(r, t, a[0]);
		break;
	case SYS_close_range:
		if (rv == 0 && t->fdt != NULL)
			for (uint64_t fd = a[0]; fd <= a[1] && fd < t->fdt->n;
			     fd++) {
				if (a[2] & CLOSE_RANGE_CLOEXEC)
					t->fdt->cloexec[fd] = 1;
				else
					fd_close(r, t, fd);
			}
		break;
	case SYS_dup:
		if (rv >= 0)
			fd_put(r, t, (uint64_t)rv, fd_get(t, a[0]), 0);
		break;
	case SYS_fcntl:
		if (rv < 0)
			break;
		if (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC)
			fd_put(r, t, (uint64_t)rv, fd_get(t, a[0]),
			    a[1] == F_DUPFD_CLOEXEC);
		else if (a[1] == F_SETFD && a[0] < t->fdt->n)
			t->fdt->cloexec[a[0]] = (a[2] & FD_CLOEXEC) != 0;
		else if (a[1] == F_SETFL && fd_get(t, a[0]) != NULL)
			fd_get(t, a[0])->append = (a[2] & O_APPEND) != 0;
		break;
	case SYS_lseek:
		if (rv >= 0 && fd_get(t, a[0]) != NULL)
			fd_get(t, a[0])->off = (uint64_t)rv;
		break;
	case SYS_fsync:
		handle_op(r, t, WT_FSYNC, a[0], rv, 0, 0, 0);
		break;
	case SYS_fdatasync:
		handle_op(r, t, WT_FDATASYNC, a[0], rv, 0, 0, 0);
		break;
	case SYS_sync_file_range:
		handle_op(r, t, WT_SYNC_FILE_RANGE, a[0], rv, a[1], a[2], a[3]);
		break;
	case SYS_fallocate:
		handle_op(r, t, WT_FALLOCATE, a[0], rv, a[2], a[3], a[1]);
		break;
	case SYS_ftruncate:
		handle_op(r, t, WT_FTRUNCATE, a[0], rv, a[1], 0, 0);
		break;
	case SYS_syncfs:
		handle_op(r, t, WT_SYNCFS, a[0], rv, 0, 0, 0);
		break;
	case SYS_mmap:
		/* Only a shared writable mapping can write the file. */
		if ((a[2] & PROT_WRITE) && (a[3] & MAP_SHARED) &&
		    (int64_t)a[4] >= 0)
			handle_op(r, t, WT_MMAP, a[4], rv < 0 ? rv : 0, a[5],
			    a[1], 0);
		break;
	case SYS_truncate:
		path_op(r, t, WT_TRUNCATE, rv, a[1], 0);
		break;
	case SYS_renameat:
	case SYS_renameat2:
		rename_op(r, t, rv, c->nr == SYS_renameat2 ? a[4] : 0);
		break;
	case SYS_linkat:
	case SYS_symlinkat:
	case SYS_unlinkat:
	case SYS_mkdirat:
		at_op(r, t, c->nr, rv, c->nr == SYS_unlinkat ? a[2] : 0);
		break;
	case SYS_copy_file_range:
		copy_range(r, t, rv);
		break;
	case SYS_fchmod:
		handle_op(r, t, WT_SETATTR, a[0], rv, 0, 0, WT_ATTR_MODE);
		break;
	case SYS_fchown:
		handle_op(r, t, WT_SETATTR, a[0], rv, 0, 0, WT_ATTR_OWNER);
		break;
	case SYS_fchmodat:
		path_op(r, t, WT_SETATTR, rv, 0, WT_ATTR_MODE);
		break;
	case SYS_fchownat:
		path_op(r, t, WT_SETATTR, rv, 0, WT_ATTR_OWNER);
		break;
	case SYS_utimensat:
		if (a[1] == 0)
			handle_op(
			    r, t, WT_SETATTR, a[0], rv, 0, 0, WT_ATTR_TIMES);
		else
			path_op(r, t, WT_SETATTR, rv, 0, WT_ATTR_TIMES);
		break;
	case SYS_sync: {
		struct wtrace_rec w;

		memset(&w, 0, sizeof(w));
		w.op = WT_SYNC;
		w.t_ns = c->t_ns;
		emit(r, t, &w);
		break;
	}
	default:
		break;
	}
}

/* A new thread or process: its descriptor table, as its clone said. */
static int
link_child(struct rec *r, struct thr *parent, pid_t tid)
{
	uint64_t flags = 0;
	struct thr *t = thr_find(r, tid);

	if (parent->c.nr == SYS_clone)
		flags = parent->c.a[0];
	else if (parent->c.nr == SYS_clone3)
		flags = parent->c.cflags;
	if (t == NULL) {
		if ((t = thr_new(r, tid)) == NULL)
			return -1;
		t->expect_stop = 1;
	}
	if (flags & CLONE_FILES) {
		t->fdt = parent->fdt;
		t->fdt->refs++;
	} else if ((t->fdt = fdt_copy(parent->fdt)) == NULL)
		return -1;
	t->linked = 1;
	/* Stopped before its parent's event: now it may go. */
	if (!t->expect_stop)
		ptrace(PTRACE_CONT, tid, 0, 0);
	return 0;
}

/* execve: the table is the process's own, without close-on-exec ones. */
static int
on_exec(struct rec *r, struct thr *t)
{
	struct fdt *d;

	if (t->fdt->refs > 1) {
		if ((d = fdt_copy(t->fdt)) == NULL)
			return -1;
		fdt_drop(r, t);
		t->fdt = d;
	}
	for (size_t fd = 0; fd < t->fdt->n; fd++)
		if (t->fdt->cloexec[fd])
			fd_close(r, t, fd);
	return 0;
}

static void
resume(struct thr *t, int sig)
{
	ptrace(t->in_call ? PTRACE_SYSCALL : PTRACE_CONT, t->tid, 0,
	    (void *)(intptr_t)sig);
}

static int
stopped(struct rec *r, pid_t tid, int status, char *err, size_t errlen)
{
	struct __ptrace_syscall_info si;
	int sig = WSTOPSIG(status), event = (unsigned)status >> 16;
	struct thr *t = thr_find(r, tid);
	unsigned long msg;
	siginfo_t info;

	if (t == NULL) {
		/* A child that stopped before its parent's clone event. */
		if ((t = thr_new(r, tid)) == NULL)
			goto nomem;
		return 0;
	}
	if (!t->linked) /* still waiting for its parent's event */
		return 0;
	if (t->expect_stop && sig == SIGSTOP && event == 0) {
		t->expect_stop = 0;
		resume(t, 0);
		return 0;
	}
	if (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP) {
		r->st->stops++;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) <=
		        0 ||
		    si.op != PTRACE_SYSCALL_INFO_SECCOMP) {
			resume(t, 0);
			return 0;
		}
		on_entry(r, t, &si);
		t->in_call = needs_exit(t, &t->c);
		resume(t, 0);
		return 0;
	}
	if (sig == (SIGTRAP | 0x80)) {
		if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) > 0 &&
		    si.op == PTRACE_SYSCALL_INFO_EXIT)
			on_exit_call(r, t, si.exit.rval);
		t->in_call = 0;
		resume(t, 0);
		return 0;
	}
	if (sig == SIGTRAP &&
	    (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	        event == PTRACE_EVENT_CLONE)) {
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 &&
		    link_child(r, t, (pid_t)msg) == -1)
			goto nomem;
		resume(t, 0);
		return 0;
	}
	if (sig == SIGTRAP && event == PTRACE_EVENT_EXEC) {
		/* A thread's execve takes over its process's leader's id. */
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 &&
		    (pid_t)msg != tid) {
			struct thr *old = thr_find(r, (pid_t)msg);

			if (old != NULL && old != t) {
				thr_gone(r, t);
				old->tid = tid;
				t = old;
			}
		}
		if (on_exec(r, t) == -1)
			goto nomem;
		resume(t, 0);
		return 0;
	}
	if (event != 0) {
		resume(t, 0);
		return 0;
	}
	/*
	 * A stopping signal reported a second time is the group stop
	 * itself (PTRACE_GETSIGINFO has nothing for it): let it go on, or
	 * it would be delivered again and again.
	 */
	if ((sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	        sig == SIGTTOU) &&
	    ptrace(PTRACE_GETSIGINFO, tid, 0, &info) == -1)
		sig = 0;
	/* A signal for the command: delivered. */
	resume(t, sig);
	return 0;
nomem:
	snprintf(err, errlen, "record: out of memory");
	return -1;
}

/*
 * While the command runs, the recorder stands aside as time(1) does: ^C
 * and ^\\ reach the command (same process group), which ends, and the trace
 * is written; a SIGTERM or SIGHUP sent to the recorder alone is passed on
 * to the command, with the same end.
 */
static volatile sig_atomic_t command_pid;

static void
pass_on(int sig)
{
	if (command_pid > 0)
		kill((pid_t)command_pid, sig);
}

static void
stand_aside(struct sigaction old[4])
{
	static const int sigs[4] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
	struct sigaction sa;

	for (int i = 0; i < 4; i++) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = i < 2 ? SIG_IGN : pass_on;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sigaction(sigs[i], &sa, &old[i]);
	}
}

static void
step_back(const struct sigaction old[4])
{
	static const int sigs[4] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
}

static int
root_of(const char *dir, struct rec *r, char *buf, size_t len, char *err,
    size_t errlen)
{
	if (realpath(dir, buf) == NULL) {
		snprintf(
		    err, errlen, "directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	(void)len;
	r->root = buf;
	r->rootlen = strlen(buf);
	return 0;
}

int
record_run(char *const argv[], const char *dir, const char *path,
    struct record_stats *st, char *err, size_t errlen)
{
	char root[PATH_MAX];
	struct rec r;
	struct thr *first;
	int status, sync_pipe[2];
	struct sigaction old[4];
	pid_t pid, tid;

	memset(st, 0, sizeof(*st));
	memset(&r, 0, sizeof(r));
	if (NATIVE_ARCH == 0) {
		snprintf(err, errlen,
		    "recording is supported on x86_64 and aarch64 only");
		return -1;
	}
	r.st = st;
	if (root_of(dir, &r, root, sizeof(root), err, errlen) == -1)
		return -1;
	if (wtrace_create(&r.w, path, err, errlen) == -1)
		return -1;
	if (pipe2(sync_pipe, O_CLOEXEC) == -1) {
		snprintf(
		    err, errlen, "cannot make a pipe: %s", strerror(errno));
		wtrace_abort(&r.w);
		return -1;
	}
	fflush(NULL);
	stand_aside(old);
	if ((pid = fork()) == -1) {
		step_back(old);
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		wtrace_abort(&r.w);
		close(sync_pipe[0]);
		close(sync_pipe[1]);
		return -1;
	}
	if (pid == 0) {
		/*
		 * The child: traced, stopped until the recorder has set its
		 * options, then filtered and the command. What fails is said
		 * through the pipe, which execve closes when all went well.
		 */
		const char *what = "ptrace";

		close(sync_pipe[0]);
		step_back(old);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) == -1 ||
		    raise(SIGSTOP) != 0)
			goto child_fail;
		what = "seccomp";
		if (install_filter() == -1)
			goto child_fail;
		what = argv[0];
		execvp(argv[0], argv);
	child_fail:
		dprintf(sync_pipe[1], "%s: %s", what, strerror(errno));
		_exit(127);
	}
	close(sync_pipe[1]);
	command_pid = pid;
	r.t0 = clock_now_ns();
	if (waitpid(pid, &status, __WALL) == -1 || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0,
	        PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
	            PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
	            PTRACE_O_TRACEEXEC | PTRACE_O_TRACESECCOMP |
	            PTRACE_O_EXITKILL) == -1) {
		snprintf(err, errlen, "cannot trace the command: %s",
		    strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &status, __WALL);
		goto fail;
	}
	if ((first = thr_new(&r, pid)) == NULL ||
	    (first->fdt = fdt_copy(NULL)) == NULL) {
		snprintf(err, errlen, "record: out of memory");
		kill(pid, SIGKILL);
		waitpid(pid, &status, __WALL);
		goto fail;
	}
	first->linked = 1;
	st->processes = 1;
	ptrace(PTRACE_CONT, pid, 0, 0);
	for (;;) {
		if ((tid = waitpid(-1, &status, __WALL)) == -1) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: no one left */
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			struct thr *t = thr_find(&r, tid);

			if (tid == pid) {
				st->status = status;
				st->elapsed_ns = clock_now_ns() - r.t0;
			}
			if (t != NULL)
				thr_gone(&r, t);
			continue;
		}
		if (WIFSTOPPED(status) &&
		    stopped(&r, tid, status, err, errlen) == -1) {
			kill(pid, SIGKILL);
			while (waitpid(-1, &status, __WALL) != -1 ||
			    errno == EINTR)
				;
			goto fail;
		}
	}
	command_pid = 0;
	step_back(old);
	/* Threads never reaped (none should be) still hold descriptions. */
	while (r.nthr > 0)
		thr_gone(&r, r.thr[0]);
	free(r.thr);
	if (read(sync_pipe[0], err, errlen - 1) > 0) {
		ssize_t n = (ssize_t)strnlen(err, errlen - 1);

		err[n] = '\0';
		close(sync_pipe[0]);
		wtrace_abort(&r.w);
		return -1;
	}
	close(sync_pipe[0]);
	if (r.failed) {
		snprintf(err, errlen, "cannot write trace '%s': %s", path,
		    strerror(errno != 0 ? errno : ENOMEM));
		wtrace_abort(&r.w);
		return -1;
	}
	return wtrace_commit(&r.w, err, errlen);
fail:
	command_pid = 0;
	step_back(old);
	while (r.nthr > 0)
		thr_gone(&r, r.thr[0]);
	free(r.thr);
	close(sync_pipe[0]);
	wtrace_abort(&r.w);
	return -1;
}
