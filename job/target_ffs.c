/*
 * target_ffs.c - an FFS image mounted in a NetBSD rump kernel as the main
 * job's target (ffs:IMAGE): NetBSD's own FFS, WAPBL, buffer cache and
 * syncer (replay/rump.h), with the probes that read what that kernel keeps
 * and sends its disk (traces: probe_open_netbsd).
 *
 * Each run has a kernel of its own, in a child process that lives for the
 * run: it boots, mounts the image with the -O options, makes the run
 * directory, then does each phase the parent sends it (its work, then a
 * report and its rusage over the phase), and at the run's end unmounts and
 * exits. So each run starts with an empty buffer cache, and a NetBSD
 * panic, which aborts the kernel's process, ends only its run: the next
 * run boots a fresh kernel.
 *
 * An image that is a file is never written: each run's kernel mounts a
 * fresh sparse copy of it, made in TMPDIR before the run and removed after
 * (kept with --keep). Every run then starts from the same filesystem, the
 * user's, whatever the runs before it did, and a kernel killed or panicked
 * in the middle of its writes damages only its copy. An image that is a
 * block device is used in place: a run killed by a signal or a panic then
 * leaves it as a crash would.
 *
 * Before the first run, a kernel mounts the image (a copy), makes
 * directories and writes files there, removes them and unmounts, so that
 * an image NetBSD cannot mount, or whose damage those first steps meet, is
 * refused before anything is measured, with what the kernel's console said.
 *
 * A kernel's memory has a ceiling (rumpk_limit): the trial's is small, the
 * runs' is --rump-mem. A kernel that dies (a panic, a signal, the ceiling)
 * ends its run, said as it died, and the next run boots a fresh one.
 */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/clock.h"
#include "../model/msgio.h"
#include "../model/rumpshm.h"
#include "../model/stop.h"
#include "../replay/rump.h"
#include "../traces/ffs_image.h"
#include "job.h"

#ifndef UBC_RUMP_DEFAULT
#define UBC_RUMP_DEFAULT "/var/cache/ubcreplay/rump/bundle/rump"
#endif

#define MNT "/mnt"

/*
 * The kernel's memory ceiling: the trial's (--rump-mem's when smaller),
 * and the runs' least default, which is half the machine's memory. Without
 * RUMP_MEMLIMIT a rump kernel keeps the pages it wrote: 120 MB of files
 * took it past 64 MiB, not past 128 MiB.
 */
#define MEM_TRIAL_BYTES ((uint64_t)512 << 20)
#define MEM_MIN_BYTES   ((uint64_t)1 << 30)

/*
 * The trial's files: each past 12 direct blocks of 64 KiB, FFS's largest,
 * into an indirect block.
 */
#define TRIAL_FILES      4
#define TRIAL_FILE_BYTES ((size_t)1 << 20)

/*
 * The trial's time: it takes well under a second, but damage can make the
 * kernel loop (wapbl_discard, with a damaged journal, at the mount).
 */
#define TRIAL_SECONDS 30

/* What the parent asks: fn(arg) as a phase; fn NULL ends the kernel. */
struct ask {
	replay_fn fn;
	void *arg;
};

/* What the kernel's process answers. */
struct answer {
	struct replay_report rep;
	struct rusage ru; /* over the phase: the workload's and the kernel's */
};

struct ffs {
	char user[PATH_MAX];  /* the image as given, resolved */
	char image[PATH_MAX]; /* what the kernel mounts: a copy, or user */
	int copies;           /* the image is a file: each run on a copy */
	int kept;             /* the copy is kept (--keep) */
	char rump[PATH_MAX];
	int flags;
	struct rumpshm *shm;
	uint64_t mem_bytes;  /* the runs' kernels' memory ceiling */
	int64_t deadline_ns; /* the trial's kernel is killed then, or 0 */
	uint64_t gen;        /* kernels booted */
	pid_t pid;           /* the run's kernel, or 0 */
	int ask, answer;
};

const char *
job_ffs_refused(const struct job_opts *o, const char *where)
{
	static char why[128];
	const char *opt = o->mount_opts != NULL ? "-O"
	    : o->rump_dir != NULL               ? "--rump"
	    : o->rump_mem_bytes != 0            ? "--rump-mem"
	                                        : NULL;

	if (opt == NULL)
		return NULL;
	snprintf(why, sizeof(why), "%s is for %s", opt, where);
	return why;
}

/*
 * A host directory's options: the image's kernel has no NFS client and a
 * device of its own. (--drop-caches empties the host's cache, where the
 * archive or a dd's source is read; each run's kernel starts empty.)
 */
static const char *
ffs_refuse(const struct job_opts *o)
{
	if (o->nfs_iface != NULL)
		return "--nfs-iface is for a host directory, not an ffs:IMAGE "
		       "target";
	if (o->nwatch > 0)
		return "--watch-dev is for a host directory, not an ffs:IMAGE "
		       "target";
	return NULL;
}

static const char *
rump_dir(const struct job *j)
{
	const char *d = j->o->rump_dir;

	if (d == NULL)
		d = getenv("UBCREPLAY_RUMP");
	return d != NULL && *d != '\0' ? d : UBC_RUMP_DEFAULT;
}

static int64_t
tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000000 + tv->tv_usec * 1000;
}

static void
ru_sub(struct rusage *d, const struct rusage *a, const struct rusage *b)
{
	int64_t u = tv_ns(&a->ru_utime) - tv_ns(&b->ru_utime);
	int64_t s = tv_ns(&a->ru_stime) - tv_ns(&b->ru_stime);

	*d = *a;
	d->ru_utime.tv_sec = u / 1000000000;
	d->ru_utime.tv_usec = u % 1000000000 / 1000;
	d->ru_stime.tv_sec = s / 1000000000;
	d->ru_stime.tv_usec = s % 1000000000 / 1000;
	d->ru_inblock -= b->ru_inblock;
	d->ru_oublock -= b->ru_oublock;
	d->ru_majflt -= b->ru_majflt;
	d->ru_minflt -= b->ru_minflt;
	d->ru_nvcsw -= b->ru_nvcsw;
	d->ru_nivcsw -= b->ru_nivcsw;
}

/* One ask to the kernel's process. */
static int
ask(struct ffs *f, replay_fn fn, void *arg)
{
	struct ask q = {fn, arg};

	/* A socket: a kernel's process that died unseen is an error, not
	 * ubcreplay's death by SIGPIPE (msgio_write). */
	return msgio_write(f->ask, &q, sizeof(q));
}

/*
 * The trial's steps after its mount: what a run's first steps do, on a
 * small scale. A directory, and in it directories (which FFS spreads over
 * its cylinder groups) each with a file written past the direct blocks of
 * the largest block size (64 KiB, 12 of them) into an indirect block,
 * synced; then all removed. Damage a run would meet first (cylinder groups
 * that fail their check, a superblock whose summary or geometry is wrong,
 * as a damaged fs_nindir often is) then refuses the image. A file system
 * too full for the files is not damaged: their writes stop short.
 */
static int
trial(const struct ffs *f, char *err, size_t errlen)
{
	static char buf[100000]; /* writes that straddle blocks */
	char top[64], dir[80], file[96];
	const char *what = "make a directory";
	int fd = -1, i;

	snprintf(
	    top, sizeof(top), "%s/ubcreplay-trial.%ld", MNT, (long)getpid());
	memset(buf, 0x5a, sizeof(buf));
	if (rumpk_mkdir(top, 0755) == -1)
		goto fail;
	for (i = 0; i < TRIAL_FILES; i++) {
		snprintf(dir, sizeof(dir), "%s/d%d", top, i);
		snprintf(file, sizeof(file), "%s/f", dir);
		what = "make a directory";
		if (rumpk_mkdir(dir, 0755) == -1)
			goto fail;
		what = "create a file";
		fd = rumpk_open(
		    file, RUMPK_O_WRONLY | RUMPK_O_CREAT | RUMPK_O_EXCL, 0644);
		if (fd == -1)
			goto fail;
		what = "write a file";
		/* A write cut short says why at the next one. */
		for (size_t done = 0; done < TRIAL_FILE_BYTES;) {
			ssize_t n = rumpk_write(fd, buf, sizeof(buf));

			if (n == -1 && errno == ENOSPC)
				break;
			if (n <= 0)
				goto fail;
			done += (size_t)n;
		}
		what = "sync a file";
		if (rumpk_fsync(fd) == -1 && errno != ENOSPC)
			goto fail;
		rumpk_close(fd);
		fd = -1;
	}
	what = "remove a file";
	while (i-- > 0) {
		snprintf(dir, sizeof(dir), "%s/d%d", top, i);
		snprintf(file, sizeof(file), "%s/f", dir);
		if (rumpk_unlink(file) == -1 || rumpk_rmdir(dir) == -1)
			goto fail;
	}
	if (rumpk_rmdir(top) == -1)
		goto fail;
	rumpk_sync_wait();
	return 0;
fail:
	snprintf(err, errlen,
	    "image '%s': NetBSD mounts it but cannot %s in it: %s", f->user,
	    what, strerror(errno));
	if (fd != -1)
		rumpk_close(fd);
	return -1;
}

/*
 * Before the trial's mount: a superblock whose geometry's derived fields
 * disagree with its block and fragment sizes, which NetBSD uses unchecked
 * (traces/ffs_image.h), is refused, the field named. fs_nindir 0 passed
 * some trials and failed a run with EINVAL, or ran whole jobs.
 */
static int
sane(const struct ffs *f, char *err, size_t errlen)
{
	char why[256];

	if (ffs_image_check_path(f->image, why, sizeof(why)) == 0)
		return 0;
	snprintf(err, errlen, "image '%s': its superblock is damaged: %s",
	    f->user, why);
	return -1;
}

/*
 * The kernel's process: boots, mounts, makes rundir (NULL: the trial's
 * steps instead), says so, then does what it is asked until asked to end.
 */
static void
serve(struct ffs *f, const char *rundir, int64_t interval_ns)
{
	struct answer a;
	struct ask q;
	int fd;

	stop_default();
	/*
	 * A crash in the kernel's code is the image's doing: the process
	 * dies of its signal, which the parent reports. A sanitizer's
	 * handlers, inherited from ubcreplay, would report it as ubcreplay's
	 * own crash and exit instead.
	 */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	signal(SIGABRT, SIG_DFL);
	rumpk_limit(rundir != NULL || f->mem_bytes < MEM_TRIAL_BYTES
	        ? f->mem_bytes
	        : MEM_TRIAL_BYTES);
	/*
	 * A panic aborts this process: no core file is left behind, and
	 * librumpuser's "halted" does not land in ubcreplay's output.
	 */
	setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
	if ((fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) != -1) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	memset(&a, 0, sizeof(a));
	a.rep.failed = 1;
	if ((rundir != NULL ||
	        sane(f, a.rep.error, sizeof(a.rep.error)) == 0) &&
	    rumpk_load(f->rump, a.rep.error, sizeof(a.rep.error)) == 0 &&
	    rumpk_boot(f->shm, f->gen, interval_ns, a.rep.error,
	        sizeof(a.rep.error)) == 0 &&
	    rumpk_mount(f->image, f->user, f->flags, MNT, a.rep.error,
	        sizeof(a.rep.error)) == 0) {
		if (rundir != NULL && rumpk_mkdir(rundir, 0755) == -1)
			snprintf(a.rep.error, sizeof(a.rep.error),
			    "cannot make the run directory '%s' in '%s': %s",
			    rundir + strlen(MNT) + 1, f->user, strerror(errno));
		else if (rundir == NULL &&
		    trial(f, a.rep.error, sizeof(a.rep.error)) == -1)
			;
		else
			a.rep.failed = 0;
		/* The counters the run starts from hold the mount's. */
		rumpk_sample();
	}
	if (msgio_write(f->answer, &a, sizeof(a)) == -1 || a.rep.failed)
		_exit(1);
	for (;;) {
		struct rusage r0, r1;

		if (msgio_read(f->ask, &q, sizeof(q), -1) != MSGIO_WHOLE)
			_exit(1); /* the parent is gone */
		if (q.fn == NULL)
			break;
		memset(&a, 0, sizeof(a));
		getrusage(RUSAGE_SELF, &r0);
		q.fn(q.arg, &a.rep);
		rumpk_sample();
		getrusage(RUSAGE_SELF, &r1);
		ru_sub(&a.ru, &r1, &r0);
		if (msgio_write(f->answer, &a, sizeof(a)) == -1)
			_exit(1);
	}
	memset(&a, 0, sizeof(a));
	if (rumpk_unmount(MNT, a.rep.error, sizeof(a.rep.error)) == -1)
		a.rep.failed = 1;
	rumpk_sample();
	msgio_write(f->answer, &a, sizeof(a));
	_exit(a.rep.failed);
}

/*
 * The console's last lines (at most 3, the last one last) joined by " | ",
 * into buf; "" when it said nothing. What a damaged image makes the kernel
 * print is the image's: control characters become '?'.
 */
static void
console_tail(const struct ffs *f, char *buf, size_t len)
{
	char con[RUMPSHM_CONSOLE + 1], *p, *start;
	size_t o = 0;
	int lines = 0;

	rumpshm_console_get(f->shm, con, sizeof(con));
	p = con + strlen(con);
	while (p > con && (p[-1] == '\n' || p[-1] == '\r' || p[-1] == ' '))
		*--p = '\0';
	for (start = p; start > con && lines < 3; start--)
		if (start[-1] == '\n' && ++lines == 3)
			break;
	for (*buf = '\0'; *start != '\0' && o + 4 < len; start++) {
		unsigned char c = (unsigned char)*start;

		if (c == '\n') {
			if (o > 0 && (o < 3 || strcmp(buf + o - 3, " | ") != 0))
				o += (size_t)snprintf(buf + o, len - o, " | ");
			continue;
		}
		buf[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		buf[o] = '\0';
	}
}

/*
 * Why the kernel's process ended without an answer: its own reason (the
 * memory ceiling), NetBSD's panic, or the signal that killed it (the
 * libraries are built without DIAGNOSTIC: much damage ends in SIGSEGV
 * rather than a panic) or its exit, each with the console's last lines.
 * The run ends with it; the next one boots a fresh kernel.
 */
static void
died(struct job *j, struct ffs *f, int status, char *err, size_t errlen)
{
	char con[RUMPSHM_CONSOLE + 1], tail[600], *p, *nl;

	rumpshm_console_get(f->shm, con, sizeof(con));
	console_tail(f, tail, sizeof(tail));
	j->go_on = 1;
	if ((p = strstr(con, RUMPK_OOM)) != NULL ||
	    (p = strstr(con, "panic: ")) != NULL) {
		int oom = strncmp(p, RUMPK_OOM, strlen(RUMPK_OOM)) == 0;

		p += strlen(oom ? RUMPK_OOM : "panic: ");
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		for (nl = p; *nl != '\0'; nl++)
			if ((unsigned char)*nl < 0x20 || *nl == 0x7f)
				*nl = '?';
		snprintf(err, errlen, "the NetBSD kernel %s: %s%s",
		    oom ? "ran out of memory" : "panicked", p,
		    oom ? " (--rump-mem raises the limit)" : "");
	} else if (WIFSIGNALED(status))
		snprintf(err, errlen,
		    "the NetBSD kernel's process was killed by signal %d "
		    "(%s)%s%s",
		    WTERMSIG(status), strsignal(WTERMSIG(status)),
		    *tail ? "; its console's last lines: " : "", tail);
	else
		snprintf(err, errlen,
		    "the NetBSD kernel's process exited with status %d%s%s",
		    WEXITSTATUS(status),
		    *tail ? "; its console's last lines: " : "", tail);
}

static void
reap(struct ffs *f, int *status)
{
	int st = 0;

	if (f->pid == 0)
		return;
	close(f->ask);
	close(f->answer);
	while (waitpid(f->pid, &st, 0) == -1 && errno == EINTR)
		;
	f->pid = 0;
	if (status != NULL)
		*status = st;
}

static int
tick(struct job *j, char *err, size_t errlen)
{
	return j->probe != NULL ? probe_tick(j->probe, err, errlen) : 0;
}

/*
 * Waits for the kernel's answer, the probe ticking meanwhile (it also
 * drains the transfers the kernel shares). 1 with the answer, 0 when the
 * process died first or was killed at the deadline (err says why), -1 on
 * a stop or a failed tick.
 */
static int
await(struct job *j, struct answer *a, char *err, size_t errlen)
{
	struct ffs *f = j->tpriv;
	int64_t next = clock_now_ns() + j->o->interval_ns;
	struct msgio_in in;
	char tail[600];
	int status;

	msgio_in_init(&in, a, sizeof(*a));
	for (;;) {
		struct pollfd pf = {.fd = f->answer, .events = POLLIN};
		int64_t now = clock_now_ns();
		enum msgio r;

		if (now >= next) {
			if (tick(j, err, errlen) == -1)
				goto kill;
			while (next <= now)
				next += j->o->interval_ns;
		}
		if (stop_signal() != 0) {
			snprintf(err, errlen, "interrupted by signal %d",
			    stop_signal());
			goto kill;
		}
		if (f->deadline_ns != 0 && now >= f->deadline_ns)
			goto late;
		if (poll(&pf, 1, (int)((next - now + 999999) / 1000000)) <= 0)
			continue;
		if ((r = msgio_in_step(&in, f->answer)) == MSGIO_WHOLE)
			return 1;
		if (r != MSGIO_PART)
			break;
	}
	reap(f, &status);
	died(j, f, status, err, errlen);
	return 0;
late:
	kill(f->pid, SIGKILL);
	reap(f, NULL);
	console_tail(f, tail, sizeof(tail));
	snprintf(err, errlen,
	    "the NetBSD kernel had not finished after %d s, and was killed%s%s",
	    TRIAL_SECONDS, *tail ? "; its console's last lines: " : "", tail);
	j->go_on = 1;
	return 0;
kill:
	kill(f->pid, SIGKILL);
	reap(f, NULL);
	return -1;
}

static uint64_t
mem_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t half =
	    pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : 0;

	return half > MEM_MIN_BYTES ? half : MEM_MIN_BYTES;
}

static const char *
tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp != NULL && *tmp != '\0' ? tmp : "/tmp";
}

/*
 * The copies a job killed outright (SIGKILL, the machine's OOM killer)
 * left in TMPDIR: named after a process that is gone. A copy kept with
 * --keep is named apart, and stays.
 */
static void
sweep(void)
{
	DIR *d = opendir(tmpdir());
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;
		int run, end = 0;

		if (sscanf(e->d_name, "ubcreplay-ffs.%ld.%d.img%n", &pid, &run,
		        &end) == 2 &&
		    end > 0 && e->d_name[end] == '\0' && pid > 0 &&
		    pid != (long)getpid() && kill((pid_t)pid, 0) == -1 &&
		    errno == ESRCH)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/*
 * The image for the next kernel: a fresh copy of the user's file, named
 * after this process (and the run: 0 for the trial) until it is removed.
 */
static int
fresh(struct job *j, char *err, size_t errlen)
{
	struct ffs *f = j->tpriv;

	if (!f->copies)
		return 0;
	snprintf(f->image, sizeof(f->image), "%s/ubcreplay-ffs.%ld.%d.img",
	    tmpdir(), (long)getpid(), j->run);
	f->kept = 0;
	return replay_copy_sparse(f->user, f->image, err, errlen);
}

/*
 * The copy let go: removed, unless --keep keeps it, under a name of its
 * own (".kept.img": no later job takes it for a stale one).
 */
static void
drop(struct job *j, int keep)
{
	struct ffs *f = j->tpriv;
	char kept[PATH_MAX];

	if (!f->copies || f->image[0] == '\0')
		return;
	if (keep) {
		f->kept = 1;
		snprintf(kept, sizeof(kept), "%.*s.kept.img",
		    (int)(strlen(f->image) - strlen(".img")), f->image);
		if (rename(f->image, kept) == 0)
			snprintf(j->where, sizeof(j->where), "%s:%s", kept,
			    j->rundir + strlen(MNT));
	} else
		unlink(f->image);
	f->image[0] = '\0';
}

/* A kernel for a run, its image mounted, rundir made (unless NULL). */
static int
boot(struct job *j, const char *rundir, char *err, size_t errlen)
{
	struct ffs *f = j->tpriv;
	int ask[2], answer[2];
	struct answer a;
	char tail[600];
	pid_t parent;
	int r;

	/* The asks go over a socket (ask). */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ask) == -1 ||
	    pipe2(answer, O_CLOEXEC) == -1) {
		snprintf(
		    err, errlen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	f->gen++;
	rumpshm_console_clear(f->shm);
	fflush(NULL);
	parent = getpid();
	if ((f->pid = fork()) == -1) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		f->pid = 0;
		close(ask[0]), close(ask[1]), close(answer[0]),
		    close(answer[1]);
		return -1;
	}
	if (f->pid == 0) {
		/* A kernel outlives no ubcreplay, even one killed outright. */
		if (replay_die_with(parent) == -1)
			_exit(1);
		close(ask[1]);
		close(answer[0]);
		f->ask = ask[0];
		f->answer = answer[1];
		serve(f, rundir, j->o->interval_ns);
	}
	close(ask[0]);
	close(answer[1]);
	f->ask = ask[1];
	f->answer = answer[0];
	if ((r = await(j, &a, err, errlen)) != 1)
		return -1;
	if (a.rep.failed) {
		/* The kernel says why, often better than the errno. */
		console_tail(f, tail, sizeof(tail));
		snprintf(err, errlen, "%s%s%s", a.rep.error,
		    *tail ? "; the NetBSD kernel's console: " : "", tail);
		reap(f, NULL);
		return -1;
	}
	return 0;
}

/* Asks the kernel to unmount and end; the probe takes its last sample. */
static void
halt(struct job *j)
{
	struct ffs *f = j->tpriv;
	struct answer a;
	char err[768];
	int r = -1;

	if (f->pid == 0)
		return;
	if (ask(f, NULL, NULL) == 0 &&
	    (r = await(j, &a, err, sizeof(err))) == 1) {
		if (a.rep.failed)
			snprintf(
			    j->warning, sizeof(j->warning), "%s", a.rep.error);
		reap(f, NULL);
	} else if (r == 0) {
		/* It died unmounting: said, as a failed unmount is. */
		snprintf(j->warning, sizeof(j->warning), "%s", err);
	} else if (f->pid != 0) {
		kill(f->pid, SIGKILL);
		reap(f, NULL);
	}
	tick(j, err, sizeof(err));
}

/*
 * The tree the kernel was built from and its commit, as a label says a
 * kernel tree's: "src-netbsd@1a2b3c4", "-dirty" when it had changes. A
 * tree without a commit, or with changes, adds the hash of its sources
 * (rump-kbuild.sh's "sources"): "src-netbsd#d67b57ea0a00". A build made
 * before that was recorded names its build directory instead.
 */
static void
tree_label(json_t *build, const char *rump, char *buf, size_t len)
{
	const char *src = json_string_value(json_object_get(build, "src"));
	const char *commit =
	    json_string_value(json_object_get(build, "commit"));
	const char *dirty = json_string_value(json_object_get(build, "dirty"));
	const char *sources =
	    json_string_value(json_object_get(build, "sources"));
	const char *base = src != NULL ? strrchr(src, '/') : NULL;
	int changed = dirty != NULL && strcmp(dirty, "1") == 0;
	char dir[PATH_MAX], *slash;
	size_t o;

	if (src == NULL) {
		*buf = '\0';
		return;
	}
	o = (size_t)snprintf(buf, len, "%s%s%s%s",
	    base != NULL ? base + 1 : src, commit != NULL && *commit ? "@" : "",
	    commit ? commit : "", changed ? "-dirty" : "");
	if (o >= len || (commit != NULL && *commit && !changed))
		return;
	if (sources != NULL && *sources != '\0') {
		snprintf(buf + o, len - o, "#%s", sources);
		return;
	}
	/* The build directory: what holds rump/, by its name. */
	snprintf(dir, sizeof(dir), "%s", rump);
	while ((slash = strrchr(dir, '/')) != NULL && slash[1] == '\0')
		*slash = '\0';
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if ((slash = strrchr(dir, '/')) != NULL && slash[1] != '\0')
			snprintf(buf + o, len - o, " (built in %s)", slash + 1);
	}
}

static json_t *
netbsd_json(struct job *j, const struct ffs *f)
{
	char path[PATH_MAX + 32], line[4200];
	json_t *build = json_object();
	FILE *fp;

	snprintf(path, sizeof(path), "%s/ubcreplay-build", f->rump);
	if ((fp = fopen(path, "r")) != NULL) {
		while (fgets(line, sizeof(line), fp) != NULL) {
			char *eq = strchr(line, '=');

			line[strcspn(line, "\n")] = '\0';
			if (eq == NULL)
				continue;
			*eq = '\0';
			json_object_set_new(build, line, json_string(eq + 1));
		}
		fclose(fp);
	}
	tree_label(build, f->rump, j->label, sizeof(j->label));
	return json_pack("{s:s,s:s,s:b,s:s,s:s,s:o,s:s,s:s}", "kernel",
	    "NetBSD rump kernel", "image", f->user, "image_copied", f->copies,
	    "mount_options", j->o->mount_opts ? j->o->mount_opts : "rw", "rump",
	    f->rump, "build", build, "real",
	    "NetBSD's FFS, WAPBL, buffer cache, genfs page clustering and "
	    "syncer",
	    "not_real",
	    "UVM's page daemon and UBC windows are the rump kernel's small "
	    "versions; its memory is not limited unless RUMP_MEMLIMIT says "
	    "so (past --rump-mem its process is ended); user time is the "
	    "workload's and the kernel's together");
}

static int
ffs_open(struct job *j, char *err, size_t errlen)
{
	struct ffs *f = calloc(1, sizeof(*f));
	struct target *t = &j->tgt;
	struct stat st;

	if (f == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	j->tpriv = f;
	if (stat(j->o->image, &st) == -1 ||
	    realpath(j->o->image, f->user) == NULL) {
		snprintf(err, errlen, "image '%s': %s", j->o->image,
		    strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen,
		    "image '%s' is neither a file nor a block device",
		    j->o->image);
		return -1;
	}
	f->copies = S_ISREG(st.st_mode);
	j->scratch = f->copies;
	if (access(f->user, f->copies ? R_OK : R_OK | W_OK) == -1) {
		snprintf(err, errlen, "image '%s' is not %s: %s", j->o->image,
		    f->copies ? "readable" : "writable", strerror(errno));
		return -1;
	}
	if (!f->copies)
		snprintf(f->image, sizeof(f->image), "%s", f->user);
	snprintf(f->rump, sizeof(f->rump), "%s", rump_dir(j));
	if (rumpk_mount_flags(j->o->mount_opts, &f->flags, err, errlen) == -1 ||
	    rumpk_check(f->rump, err, errlen) == -1 ||
	    (f->shm = rumpshm_new(err, errlen)) == NULL)
		return -1;
	snprintf(t->path, sizeof(t->path), "ffs:%s", j->o->image);
	snprintf(t->mountpoint, sizeof(t->mountpoint), "%s", MNT);
	snprintf(t->fstype, sizeof(t->fstype), "ffs");
	snprintf(t->options, sizeof(t->options), "%s",
	    j->o->mount_opts ? j->o->mount_opts : "rw");
	snprintf(t->source, sizeof(t->source), "%s", f->user);
	t->ndev = 1;
	snprintf(
	    t->dev[0].name, sizeof(t->dev[0].name), "%s", PROBE_NETBSD_DEV);
	t->dev[0].major = PROBE_NETBSD_MAJOR;
	t->dev[0].role = "fs";
	j->t = t;
	j->nt = 1;
	f->mem_bytes =
	    j->o->rump_mem_bytes != 0 ? j->o->rump_mem_bytes : mem_default();
	/*
	 * The trial mount: an image NetBSD cannot mount, or one whose
	 * damage its steps meet, goes no further; nor does one whose kernel
	 * dies trying.
	 */
	if (f->copies)
		sweep();
	if (fresh(j, err, errlen) == -1)
		return -1;
	f->deadline_ns = clock_now_ns() + (int64_t)TRIAL_SECONDS * 1000000000;
	if (boot(j, NULL, j->warning, sizeof(j->warning)) == 0)
		halt(j);
	f->deadline_ns = 0;
	drop(j, 0);
	if (j->warning[0] != '\0') {
		if (strncmp(j->warning, "image '", strlen("image '")) == 0)
			snprintf(err, errlen, "%s", j->warning);
		else
			snprintf(err, errlen,
			    "image '%s': the trial mount before the first run "
			    "failed: %s",
			    f->user, j->warning);
		j->warning[0] = '\0';
		return -1;
	}
	j->adds = json_pack("{s:o}", "netbsd", netbsd_json(j, f));
	j->probe = probe_open_netbsd(
	    j->o->probe, t, f->shm, j->o->interval_ns, err, errlen);
	return j->probe == NULL ? -1 : 0;
}

static int
ffs_begin(struct job *j, char *err, size_t errlen)
{
	struct ffs *f = j->tpriv;

	snprintf(j->rundir, sizeof(j->rundir), "%s/ubcreplay-run.%ld.%d", MNT,
	    (long)getpid(), j->run);
	if (fresh(j, err, errlen) == -1)
		return -1;
	snprintf(j->where, sizeof(j->where), "%s:%s", f->image,
	    j->rundir + strlen(MNT));
	if (boot(j, j->rundir, err, errlen) == -1) {
		drop(j, 0);
		return -1;
	}
	return 0;
}

static int
ffs_phase(struct job *j, replay_fn fn, void *arg, int ticking,
    struct replay_outcome *out, char *err, size_t errlen)
{
	struct ffs *f = j->tpriv;
	struct answer a;
	int64_t t0 = clock_now_ns();
	int r;

	/* Every phase ticks: the ticks drain what the kernel shares. */
	(void)ticking;
	memset(out, 0, sizeof(*out));
	if (f->pid == 0) {
		out->report.failed = 1;
		snprintf(out->report.error, sizeof(out->report.error),
		    "the run's NetBSD kernel ended before it");
		return 0;
	}
	if (ask(f, fn, arg) == -1) {
		snprintf(err, errlen, "cannot reach the NetBSD kernel: %s",
		    strerror(errno));
		return -1;
	}
	if ((r = await(j, &a, out->report.error, sizeof(out->report.error))) ==
	    -1) {
		snprintf(err, errlen, "%s", out->report.error);
		return -1;
	}
	out->elapsed_ns = clock_now_ns() - t0;
	if (r == 0) {
		out->report.failed = 1;
		return 0;
	}
	out->report = a.rep;
	out->ru = a.ru;
	return 0;
}

static void
ffs_sync(void *arg, struct replay_report *rep)
{
	(void)arg, (void)rep;
	rumpk_sync_wait();
}

static void
ffs_remove(void *arg, struct replay_report *rep)
{
	struct job *j = arg;

	rep->failed = replay_rump_remove_tree(
	                  j->rundir, rep->error, sizeof(rep->error)) == -1;
	if (j->o->fsync != FSYNC_NONE)
		rumpk_sync_wait();
}

static void
ffs_remove_quiet(void *arg, struct replay_report *rep)
{
	struct job *j = arg;

	rep->failed = replay_rump_remove_tree(
	                  j->rundir, rep->error, sizeof(rep->error)) == -1;
}

/*
 * The run's end. done 0 with no kernel: it died, and its run's phase said
 * how; its copy goes, and a block device keeps the run directory, said.
 */
static void
ffs_end(struct job *j, int done)
{
	struct ffs *f = j->tpriv;
	struct replay_outcome out;
	struct devstats d;
	char err[768];

	if (!done && !j->o->keep && f->pid == 0 && !f->copies)
		snprintf(j->warning, sizeof(j->warning),
		    "run directory '%s' left in the image: its kernel ended "
		    "before it could be removed",
		    j->where);
	else if (!done && !j->o->keep && !f->copies &&
	    ffs_phase(j, ffs_remove_quiet, j, 0, &out, err, sizeof(err)) == 0 &&
	    out.report.failed)
		snprintf(j->warning, sizeof(j->warning),
		    "run directory '%s' left behind: %s", j->where,
		    out.report.error);
	halt(j);
	/*
	 * The unmount's writes are outside the run, with the next mount's:
	 * marked now, so that the last run's are counted too.
	 */
	probe_label(j->probe, "between");
	if (probe_mark(j->probe, &d, err, sizeof(err)) == 0)
		devstats_add(&j->between[0], &d);
	drop(j, j->o->keep);
}

static void
ffs_close(struct job *j)
{
	struct ffs *f = j->tpriv;

	if (f != NULL && f->pid != 0) {
		kill(f->pid, SIGKILL);
		reap(f, NULL);
	}
	if (f != NULL)
		drop(j, 0);
	probe_close(j->probe);
	j->probe = NULL;
	json_decref(j->adds);
	j->adds = NULL;
	if (f != NULL)
		rumpshm_free(f->shm);
	free(f);
	j->tpriv = NULL;
}

/*
 * What the image's blocks hold after the sync, read from the file the
 * kernel writes (traces/ffs_image.c), while the kernel still has it
 * mounted.
 */
static int
ffs_layout(struct job *j, struct layout *l, char *err, size_t errlen)
{
	const struct ffs *f = j->tpriv;

	return ffs_image_layout_path(f->image, l, err, errlen);
}

const struct job_target_ops job_target_ffs = {
    .kind = "ffs",
    .fs = JOB_NETBSD,
    .refuse = ffs_refuse,
    .open_usage = 1,
    .open = ffs_open,
    .begin = ffs_begin,
    .phase = ffs_phase,
    .sync = ffs_sync,
    .remove = ffs_remove,
    .layout = ffs_layout,
    .end = ffs_end,
    .close = ffs_close,
};
