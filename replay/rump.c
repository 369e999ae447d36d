/*
 * rump.c - a NetBSD rump kernel in this process (rump.h): its libraries
 * loaded, its system calls bound by name, its block and console hypercalls
 * passed through this program on their way to librumpuser.
 */
#include <sys/stat.h>

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/clock.h"
#include "rump.h"

const char *const rumpk_libs[RUMPK_NLIBS] = {"librumpuser.so", "librump.so",
    "librumpvfs.so", "librumpdev.so", "librumpdev_disk.so", "librumpfs_ffs.so"};

/* sysctl hw.iostats: CTL_HW, HW_IOSTATS, sizeof(struct io_sysctl). */
#define CTL_HW         6
#define HW_IOSTATS     9
#define IO_SYSCTL_SIZE 104

typedef void (*biodone_fn)(void *, size_t, int);

/* The kernel's entry points, by their symbol names. */
static struct {
	int (*init)(void);
	int (*etfs_register)(const char *, const char *, int);
	int (*open)(const char *, int, ...);
	int (*close)(int);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*pwrite)(int, const void *, size_t, int64_t);
	int (*fsync)(int);
	int (*mkdir)(const char *, mode_t);
	int (*rmdir)(const char *);
	int (*unlink)(const char *);
	int (*symlink)(const char *, const char *);
	int (*link)(const char *, const char *);
	int (*mkfifo)(const char *, mode_t);
	int (*fchmod)(int, mode_t);
	int (*fchown)(int, uid_t, gid_t);
	int (*lchown)(const char *, uid_t, gid_t);
	int (*futimes)(int, const void *);
	int (*lutimes)(const char *, const void *);
	int (*lstat)(const char *, void *);
	int (*getdents)(int, char *, size_t);
	int (*openat)(int, const char *, int, ...);
	int (*mkdirat)(int, const char *, mode_t);
	int (*unlinkat)(int, const char *, int);
	int (*symlinkat)(const char *, int, const char *);
	int (*renameat)(int, const char *, int, const char *);
	int (*linkat)(int, const char *, int, const char *, int);
	ssize_t (*pread)(int, void *, size_t, int64_t);
	int (*fdatasync)(int);
	int (*ftruncate)(int, int64_t);
	int (*fstat)(int, void *);
	int (*futimens)(int, const void *);
	int (*dup)(int);
	void (*sync)(void);
	int (*mount)(const char *, const char *, int, void *, size_t);
	int (*unmount)(const char *, int);
	int (*sysctl)(
	    const int *, unsigned, void *, size_t *, const void *, size_t);
	/* librumpuser's own hypercalls, which ours pass on to. */
	void (*bio)(int, int, void *, size_t, int64_t, biodone_fn, void *);
	void (*putchar)(int);
} k;

static struct rumpshm *shm;
static uint64_t kernel_gen;
static int64_t sample_ns;
static pthread_mutex_t sample_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct {
	const char *name;
	size_t off;
} syms[] = {
#define SYM(f, s)                                                              \
	{                                                                      \
		s, offsetof(__typeof__(k), f)                                  \
	}
    SYM(init, "rump_init"),
    SYM(etfs_register, "rump_pub_etfs_register"),
    SYM(open, "rump___sysimpl_open"),
    SYM(close, "rump___sysimpl_close"),
    SYM(write, "rump___sysimpl_write"),
    SYM(pwrite, "rump___sysimpl_pwrite"),
    SYM(fsync, "rump___sysimpl_fsync"),
    SYM(mkdir, "rump___sysimpl_mkdir"),
    SYM(rmdir, "rump___sysimpl_rmdir"),
    SYM(unlink, "rump___sysimpl_unlink"),
    SYM(symlink, "rump___sysimpl_symlink"),
    SYM(link, "rump___sysimpl_link"),
    SYM(mkfifo, "rump___sysimpl_mkfifo"),
    SYM(fchmod, "rump___sysimpl_fchmod"),
    SYM(fchown, "rump___sysimpl_fchown"),
    SYM(lchown, "rump___sysimpl_lchown"),
    SYM(futimes, "rump___sysimpl_futimes50"),
    SYM(lutimes, "rump___sysimpl_lutimes50"),
    SYM(lstat, "rump___sysimpl_lstat50"),
    SYM(getdents, "rump___sysimpl_getdents30"),
    SYM(openat, "rump___sysimpl_openat"),
    SYM(mkdirat, "rump___sysimpl_mkdirat"),
    SYM(unlinkat, "rump___sysimpl_unlinkat"),
    SYM(symlinkat, "rump___sysimpl_symlinkat"),
    SYM(renameat, "rump___sysimpl_renameat"),
    SYM(linkat, "rump___sysimpl_linkat"),
    SYM(pread, "rump___sysimpl_pread"),
    SYM(fdatasync, "rump___sysimpl_fdatasync"),
    SYM(ftruncate, "rump___sysimpl_ftruncate"),
    SYM(fstat, "rump___sysimpl_fstat50"),
    SYM(futimens, "rump___sysimpl_futimens"),
    SYM(dup, "rump___sysimpl_dup"),
    SYM(sync, "rump___sysimpl_sync"),
    SYM(mount, "rump___sysimpl_mount50"),
    SYM(unmount, "rump___sysimpl_unmount"),
    SYM(sysctl, "rump___sysimpl___sysctl"),
    SYM(bio, "rumpuser_bio"),
    SYM(putchar, "rumpuser_putchar"),
#undef SYM
};

/*
 * NetBSD's errno numbers are the host's up to ERANGE (34); past it they
 * differ. These are the ones a filesystem's calls give.
 */
static int
host_errno(int e)
{
	static const int map[][2] = {{35, EAGAIN}, {45, EOPNOTSUPP},
	    {62, ELOOP}, {63, ENAMETOOLONG}, {66, ENOTEMPTY}, {69, EDQUOT},
	    {70, ESTALE}, {78, ENOSYS}, {79, EINVAL}, {84, EOVERFLOW},
	    {85, EILSEQ}, {86, ENOTSUP}};

	if (e <= 34)
		return e;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i][0] == e)
			return map[i][1];
	return EIO;
}

/* A call's result, with errno made the host's on failure. */
static long
ret(long rv)
{
	if (rv == -1)
		errno = host_errno(errno);
	return rv;
}

int
rumpk_mount_flags(const char *opts, int *flags, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		int flag;
	} known[] = {{"rw", 0}, {"sync", RUMPK_MNT_SYNCHRONOUS},
	    {"async", RUMPK_MNT_ASYNC}, {"log", RUMPK_MNT_LOG},
	    {"noatime", RUMPK_MNT_NOATIME},
	    {"nodevmtime", RUMPK_MNT_NODEVMTIME}};
	char buf[256], *save, *o;

	*flags = 0;
	if (opts == NULL || *opts == '\0')
		return 0;
	if (strlen(opts) >= sizeof(buf)) {
		snprintf(err, errlen, "-O '%.40s...': too long", opts);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", opts);
	for (o = strtok_r(buf, ",", &save); o != NULL;
	     o = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (strcmp(o, "softdep") == 0) {
			snprintf(err, errlen,
			    "-O softdep: NetBSD says \"`-o softdep' is no "
			    "longer supported, consider `-o log'\" (soft "
			    "dependencies left NetBSD in 6.0; WAPBL, -O log, "
			    "took their place)");
			return -1;
		}
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (strcmp(o, known[i].name) == 0)
				break;
		if (i == sizeof(known) / sizeof(known[0])) {
			snprintf(err, errlen,
			    "-O '%s': not a NetBSD FFS mount option this "
			    "target takes (rw, sync, async, log, noatime, "
			    "nodevmtime)",
			    o);
			return -1;
		}
		*flags |= known[i].flag;
	}
	if ((*flags & RUMPK_MNT_ASYNC) && (*flags & RUMPK_MNT_SYNCHRONOUS)) {
		snprintf(err, errlen, "-O '%s': sync and async together", opts);
		return -1;
	}
	return 0;
}

int
rumpk_check(const char *dir, char *err, size_t errlen)
{
	char path[4096];

	for (size_t i = 0; i < RUMPK_NLIBS; i++) {
		snprintf(path, sizeof(path), "%s/lib/%s", dir, rumpk_libs[i]);
		if (access(path, R_OK) == -1) {
			snprintf(err, errlen,
			    "no NetBSD rump kernel in '%s': %s: %s (build "
			    "one with `make rump`, or contrib/rump-kbuild.sh "
			    "for a tree of your own)",
			    dir, path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int
rumpk_load(const char *dir, char *err, size_t errlen)
{
	void *h[RUMPK_NLIBS];
	char path[4096];

	if (rumpk_check(dir, err, errlen) == -1)
		return -1;
	for (size_t i = 0; i < RUMPK_NLIBS; i++) {
		snprintf(path, sizeof(path), "%s/lib/%s", dir, rumpk_libs[i]);
		if ((h[i] = dlopen(path, RTLD_NOW | RTLD_GLOBAL)) == NULL) {
			snprintf(err, errlen, "cannot load '%s': %s", path,
			    dlerror());
			return -1;
		}
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		/*
		 * The hypercalls are librumpuser's own: by name, this
		 * program's would be found first.
		 */
		void *f = strncmp(syms[i].name, "rumpuser_", 9) == 0
		    ? dlsym(h[0], syms[i].name)
		    : dlsym(RTLD_DEFAULT, syms[i].name);

		if (f == NULL) {
			snprintf(err, errlen,
			    "the rump kernel in '%s' has no %s: not a build "
			    "this ubcreplay knows",
			    dir, syms[i].name);
			return -1;
		}
		memcpy((char *)&k + syms[i].off, &f, sizeof(f));
	}
	return 0;
}

/* One request on its way: the kernel's callback, and where it was. */
struct bioreq {
	biodone_fn done;
	void *arg;
	int op;
	int64_t off;
};

static _Atomic uint64_t issued, completed;

static void
put(char kind, int op, int64_t off, uint64_t len, int error)
{
	struct rumpbio b = {.kind = kind,
	    .op = op,
	    .error = error,
	    .off = off,
	    .len = len,
	    .ts_ns = clock_now_ns()};

	rumpshm_put(shm, &b);
}

static void
bio_done(void *arg, size_t done, int error)
{
	struct bioreq *r = arg;
	biodone_fn fn = r->done;
	void *fnarg = r->arg;

	put('C', r->op, r->off, done, error);
	free(r);
	atomic_fetch_add(&completed, 1);
	fn(fnarg, done, error);
}

/*
 * The kernel's block I/O hypercall: every transfer to the image, recorded
 * as it is issued and as it completes, and done by librumpuser as it would
 * be.
 */
void rumpuser_bio(int fd, int op, void *data, size_t dlen, int64_t off,
    biodone_fn done, void *arg);
void
rumpuser_bio(int fd, int op, void *data, size_t dlen, int64_t off,
    biodone_fn done, void *arg)
{
	struct bioreq *r = malloc(sizeof(*r));

	if (r == NULL || shm == NULL) {
		free(r);
		k.bio(fd, op, data, dlen, off, done, arg);
		return;
	}
	*r = (struct bioreq){.done = done, .arg = arg, .op = op, .off = off};
	atomic_fetch_add(&issued, 1);
	put('I', op, off, dlen, 0);
	k.bio(fd, op, data, dlen, off, bio_done, r);
}

/*
 * sync(2) in NetBSD starts the writes and returns; the sync phase waits
 * for them, and syncs again while a pass still finds something to write
 * (a journal's flush dirties its superblock; a completion, an inode).
 */
void
rumpk_sync_wait(void)
{
	struct timespec ms = {0, 1000000};

	for (int pass = 0; pass < 16; pass++) {
		uint64_t before = atomic_load(&issued);

		k.sync();
		while (atomic_load(&completed) != atomic_load(&issued))
			nanosleep(&ms, NULL);
		if (atomic_load(&issued) == before)
			break;
	}
}

/*
 * The kernel's memory: librumpuser's allocation hypercalls, done here
 * under a ceiling (rumpk_limit). The rump kernel waits for its page
 * daemon whenever an allocation fails, forever when nothing can be freed,
 * and a damaged superblock can ask for gigabytes (fs_ncg sizes arrays the
 * mount fills in): past the ceiling the process says why on the console
 * and aborts, which its parent reports as it reports a panic.
 */
static uint64_t mem_limit_bytes;
static _Atomic uint64_t mem_used_bytes;

void
rumpk_limit(uint64_t bytes)
{
	mem_limit_bytes = bytes;
}

static void
console_say(const char *msg)
{
	for (const char *p = msg; shm != NULL && *p != '\0'; p++)
		rumpshm_console_put(shm, *p);
}

int rumpuser_malloc(size_t howmuch, int alignment, void **memp);
int
rumpuser_malloc(size_t howmuch, int alignment, void **memp)
{
	uint64_t used = atomic_fetch_add(&mem_used_bytes, howmuch) + howmuch;
	char msg[256];
	int rv = 0;

	*memp = NULL;
	if (mem_limit_bytes != 0 && used > mem_limit_bytes)
		rv = ENOMEM;
	else if ((rv = posix_memalign(memp,
	              alignment > 0 ? (size_t)alignment : sizeof(void *),
	              howmuch)) == 0)
		return 0;
	snprintf(msg, sizeof(msg),
	    "\n" RUMPK_OOM "the kernel asked for %zu bytes with %" PRIu64
	    " in use, %s %" PRIu64 " MiB\n",
	    howmuch, used - howmuch,
	    rv == ENOMEM && mem_limit_bytes != 0 && used > mem_limit_bytes
	        ? "over its limit of"
	        : "and the host refused them; its limit is",
	    mem_limit_bytes >> 20);
	console_say(msg);
	abort();
}

void rumpuser_free(void *mem, size_t len);
void
rumpuser_free(void *mem, size_t len)
{
	atomic_fetch_sub(&mem_used_bytes, len);
	free(mem);
}

/* The kernel's console: kept for a panic's message, not printed. */
void rumpuser_putchar(int c);
void
rumpuser_putchar(int c)
{
	if (shm != NULL)
		rumpshm_console_put(shm, (char)c);
}

void
rumpk_sample(void)
{
	static unsigned char buf[RUMPSHM_IOSTATS];
	int mib[3] = {CTL_HW, HW_IOSTATS, IO_SYSCTL_SIZE};
	size_t len = 0;

	pthread_mutex_lock(&sample_lock);
	/* Asked for its size first, as iostat(8) does. */
	if (k.sysctl(mib, 3, NULL, &len, NULL, 0) == 0) {
		if (len > sizeof(buf))
			len = sizeof(buf) / IO_SYSCTL_SIZE * IO_SYSCTL_SIZE;
		if (k.sysctl(mib, 3, buf, &len, NULL, 0) == 0 ||
		    errno == 12 /* NetBSD's ENOMEM: cut to buf */)
			rumpshm_iostats_put(shm, kernel_gen, buf, len);
	}
	pthread_mutex_unlock(&sample_lock);
}

static void *
sampler(void *arg)
{
	struct timespec ts = {sample_ns / 1000000000, sample_ns % 1000000000};

	(void)arg;
	for (;;) {
		rumpk_sample();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int
rumpk_boot(struct rumpshm *s, uint64_t gen, int64_t interval_ns, char *err,
    size_t errlen)
{
	int e;

	shm = s;
	kernel_gen = gen;
	sample_ns = interval_ns;
	if ((e = k.init()) != 0) {
		snprintf(err, errlen, "the NetBSD rump kernel did not boot: %s",
		    strerror(host_errno(e)));
		return -1;
	}
	return 0;
}

int
rumpk_mount(const char *image, const char *name, int flags, const char *mnt,
    char *err, size_t errlen)
{
	static char key[] = "/dev/ffsimg";
	struct {
		char *fspec;
	} args = {key};
	pthread_t t;
	int e;

	if ((e = k.etfs_register(key, image, 1 /* RUMP_ETFS_BLK */)) != 0) {
		snprintf(err, errlen,
		    "image '%s': the NetBSD kernel cannot use it as a disk: %s",
		    name, strerror(host_errno(e)));
		return -1;
	}
	if (k.mkdir(mnt, 0755) == -1 && host_errno(errno) != EEXIST) {
		snprintf(err, errlen,
		    "cannot make '%s' in the NetBSD kernel: %s", mnt,
		    strerror(host_errno(errno)));
		return -1;
	}
	if (k.mount("ffs", mnt, flags, &args, sizeof(args)) == -1) {
		char con[RUMPSHM_CONSOLE + 1];

		/*
		 * WAPBL needs the superblock's newer layout (FFSv2's, and
		 * FFSv1's as newfs has written it since NetBSD 2.0): the
		 * kernel says "superblock in old format" when that is why.
		 */
		e = host_errno(errno);
		rumpshm_console_get(shm, con, sizeof(con));
		snprintf(err, errlen,
		    "image '%s': NetBSD cannot mount it as FFS: %s%s", name,
		    strerror(e),
		    (flags & RUMPK_MNT_LOG) &&
		            strstr(con, "superblock in old format") != NULL
		        ? " (-O log needs a superblock in the newer layout, "
		          "FFSv2's or a newer FFSv1's; this one is FFSv1's "
		          "old one)"
		        : e == EINVAL ? " (not an FFS image, or a damaged one)"
		                      : "");
		return -1;
	}
	/* Sampled from now on: before the mount there is no disk. */
	rumpk_sample();
	if ((e = pthread_create(&t, NULL, sampler, NULL)) != 0) {
		snprintf(err, errlen, "cannot start the iostat sampler: %s",
		    strerror(e));
		return -1;
	}
	pthread_detach(t);
	return 0;
}

int
rumpk_unmount(const char *mnt, char *err, size_t errlen)
{
	if (k.unmount(mnt, 0) == -1) {
		snprintf(err, errlen,
		    "cannot unmount '%s' in the NetBSD "
		    "kernel: %s",
		    mnt, strerror(host_errno(errno)));
		return -1;
	}
	return 0;
}

int
rumpk_open(const char *path, int flags, mode_t mode)
{
	return (int)ret(k.open(path, flags, mode));
}

int
rumpk_close(int fd)
{
	return (int)ret(k.close(fd));
}

ssize_t
rumpk_write(int fd, const void *buf, size_t n)
{
	return ret(k.write(fd, buf, n));
}

ssize_t
rumpk_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
	return ret(k.pwrite(fd, buf, n, off));
}

int
rumpk_fsync(int fd)
{
	return (int)ret(k.fsync(fd));
}

int
rumpk_mkdir(const char *path, mode_t mode)
{
	return (int)ret(k.mkdir(path, mode));
}

int
rumpk_rmdir(const char *path)
{
	return (int)ret(k.rmdir(path));
}

int
rumpk_unlink(const char *path)
{
	return (int)ret(k.unlink(path));
}

int
rumpk_symlink(const char *target, const char *path)
{
	return (int)ret(k.symlink(target, path));
}

int
rumpk_link(const char *target, const char *path)
{
	return (int)ret(k.link(target, path));
}

int
rumpk_mkfifo(const char *path, mode_t mode)
{
	return (int)ret(k.mkfifo(path, mode));
}

int
rumpk_fchmod(int fd, mode_t mode)
{
	return (int)ret(k.fchmod(fd, mode));
}

int
rumpk_fchown(int fd, uid_t uid, gid_t gid)
{
	return (int)ret(k.fchown(fd, uid, gid));
}

int
rumpk_lchown(const char *path, uid_t uid, gid_t gid)
{
	return (int)ret(k.lchown(path, uid, gid));
}

/* NetBSD's struct timeval on 64-bit systems: time_t, then an int. */
struct nb_timeval {
	int64_t sec;
	int32_t usec;
	int32_t pad;
};

static void
timevals(struct nb_timeval tv[2], int64_t atime_us, int64_t mtime_us)
{
	tv[0] = (struct nb_timeval){
	    atime_us / 1000000, (int32_t)(atime_us % 1000000), 0};
	tv[1] = (struct nb_timeval){
	    mtime_us / 1000000, (int32_t)(mtime_us % 1000000), 0};
}

int
rumpk_futimes(int fd, int64_t atime_us, int64_t mtime_us)
{
	struct nb_timeval tv[2];

	timevals(tv, atime_us, mtime_us);
	return (int)ret(k.futimes(fd, tv));
}

int
rumpk_lutimes(const char *path, int64_t atime_us, int64_t mtime_us)
{
	struct nb_timeval tv[2];

	timevals(tv, atime_us, mtime_us);
	return (int)ret(k.lutimes(path, tv));
}

int
rumpk_lstat_mode(const char *path, mode_t *mode)
{
	/*
	 * NetBSD's struct stat (stat50): st_dev (64 bits), then st_mode (32
	 * bits); the whole is under 200 bytes on every port.
	 */
	uint64_t st[64];
	uint32_t m;

	if (ret(k.lstat(path, st)) == -1)
		return -1;
	memcpy(&m, (char *)st + 8, sizeof(m));
	*mode = (mode_t)m;
	return 0;
}

int
rumpk_readdir(int fd, char *name, size_t len)
{
	/*
	 * NetBSD's struct dirent: d_fileno (64 bits), d_reclen, d_namlen (16
	 * bits each), d_type, then the name.
	 */
	static char buf[8192];
	static int cur = -1;
	static size_t pos, end;

	if (fd != cur) {
		cur = fd;
		pos = end = 0;
	}
	for (;;) {
		uint16_t reclen, namlen;

		if (pos >= end) {
			int n = k.getdents(fd, buf, sizeof(buf));

			if (n == -1) {
				ret(-1);
				cur = -1;
				return -1;
			}
			if (n == 0) {
				cur = -1;
				return 0;
			}
			pos = 0;
			end = (size_t)n;
		}
		memcpy(&reclen, buf + pos + 8, 2);
		memcpy(&namlen, buf + pos + 10, 2);
		if (reclen == 0 || pos + reclen > end ||
		    13u + namlen > reclen) {
			errno = EIO;
			cur = -1;
			return -1;
		}
		snprintf(name, len, "%.*s", (int)namlen, buf + pos + 13);
		pos += reclen;
		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
			return 1;
	}
}

/* NetBSD's *at() flag: unlinkat's AT_REMOVEDIR. */
#define NB_AT_REMOVEDIR 0x800

int
rumpk_openat(int dfd, const char *path, int flags, mode_t mode)
{
	return (int)ret(k.openat(dfd, path, flags, mode));
}

int
rumpk_mkdirat(int dfd, const char *name, mode_t mode)
{
	return (int)ret(k.mkdirat(dfd, name, mode));
}

int
rumpk_unlinkat(int dfd, const char *name, int dir)
{
	return (int)ret(k.unlinkat(dfd, name, dir ? NB_AT_REMOVEDIR : 0));
}

int
rumpk_symlinkat(const char *target, int dfd, const char *name)
{
	return (int)ret(k.symlinkat(target, dfd, name));
}

int
rumpk_renameat(int d1, const char *n1, int d2, const char *n2)
{
	return (int)ret(k.renameat(d1, n1, d2, n2));
}

int
rumpk_linkat(int d1, const char *n1, int d2, const char *n2)
{
	return (int)ret(k.linkat(d1, n1, d2, n2, 0));
}

ssize_t
rumpk_pread(int fd, void *buf, size_t n, int64_t off)
{
	return ret(k.pread(fd, buf, n, off));
}

int
rumpk_fdatasync(int fd)
{
	return (int)ret(k.fdatasync(fd));
}

int
rumpk_ftruncate(int fd, int64_t off)
{
	return (int)ret(k.ftruncate(fd, off));
}

int
rumpk_fstat_mode(int fd, mode_t *mode)
{
	uint64_t st[64];
	uint32_t m;

	if (ret(k.fstat(fd, st)) == -1)
		return -1;
	memcpy(&m, (char *)st + 8, sizeof(m));
	*mode = (mode_t)m;
	return 0;
}

int
rumpk_futimens_now(int fd)
{
	return (int)ret(k.futimens(fd, NULL));
}

int
rumpk_dup(int fd)
{
	return (int)ret(k.dup(fd));
}
