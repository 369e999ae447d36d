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
 * Before the first run, a kernel mounts the image (a copy) and unmounts it
 * once, so that an image NetBSD cannot mount is refused before anything is
 * measured.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/clock.h"
#include "../model/rumpshm.h"
#include "../model/stop.h"
#include "../replay/rump.h"
#include "../traces/ffs_image.h"
#include "job.h"

#ifndef UBC_RUMP_DEFAULT
#define UBC_RUMP_DEFAULT "/var/cache/ubcreplay/rump/bundle/rump"
#endif

#define MNT "/mnt"

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
	uint64_t gen; /* kernels booted */
	pid_t pid;    /* the run's kernel, or 0 */
	int ask, answer;
};

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

/*
 * All of buf to fd: a pipe, or a socket (sock), sent without SIGPIPE, so
 * that a kernel's process that died unseen is an error, not ubcreplay's
 * death.
 */
static int
full_write(int fd, const void *buf, size_t len, int sock)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n =
		    sock ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One ask to the kernel's process. */
static int
ask(struct ffs *f, replay_fn fn, void *arg)
{
	struct ask q = {fn, arg};

	return full_write(f->ask, &q, sizeof(q), 1);
}

/*
 * The kernel's process: boots, mounts, makes rundir (when not NULL), says
 * so, then does what it is asked until asked to end.
 */
static void
serve(struct ffs *f, const char *rundir, int64_t interval_ns)
{
	struct answer a;
	struct ask q;
	int fd;

	stop_default();
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
	if (rumpk_load(f->rump, a.rep.error, sizeof(a.rep.error)) == 0 &&
	    rumpk_boot(f->shm, f->gen, interval_ns, a.rep.error,
	        sizeof(a.rep.error)) == 0 &&
	    rumpk_mount(f->image, f->user, f->flags, MNT, a.rep.error,
	        sizeof(a.rep.error)) == 0) {
		if (rundir != NULL && rumpk_mkdir(rundir, 0755) == -1)
			snprintf(a.rep.error, sizeof(a.rep.error),
			    "cannot make the run directory '%s' in '%s': %s",
			    rundir + strlen(MNT) + 1, f->user, strerror(errno));
		else
			a.rep.failed = 0;
		/* The counters the run starts from hold the mount's. */
		rumpk_sample();
	}
	if (full_write(f->answer, &a, sizeof(a), 0) == -1 || a.rep.failed)
		_exit(1);
	for (;;) {
		struct rusage r0, r1;
		ssize_t n;

		while (
		    (n = read(f->ask, &q, sizeof(q))) == -1 && errno == EINTR)
			;
		if (n != (ssize_t)sizeof(q))
			_exit(1); /* the parent is gone */
		if (q.fn == NULL)
			break;
		memset(&a, 0, sizeof(a));
		getrusage(RUSAGE_SELF, &r0);
		q.fn(q.arg, &a.rep);
		rumpk_sample();
		getrusage(RUSAGE_SELF, &r1);
		ru_sub(&a.ru, &r1, &r0);
		if (full_write(f->answer, &a, sizeof(a), 0) == -1)
			_exit(1);
	}
	memset(&a, 0, sizeof(a));
	if (rumpk_unmount(MNT, a.rep.error, sizeof(a.rep.error)) == -1)
		a.rep.failed = 1;
	rumpk_sample();
	full_write(f->answer, &a, sizeof(a), 0);
	_exit(a.rep.failed);
}

/* Why the kernel's process ended without an answer. */
static void
died(struct job *j, struct ffs *f, int status, char *err, size_t errlen)
{
	char con[RUMPSHM_CONSOLE + 1], *p, *nl;

	rumpshm_console_get(f->shm, con, sizeof(con));
	if ((p = strstr(con, "panic: ")) != NULL) {
		p += strlen("panic: ");
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		snprintf(err, errlen, "the NetBSD kernel panicked: %s", p);
		j->go_on = 1;
	} else if (WIFSIGNALED(status))
		snprintf(err, errlen,
		    "the NetBSD kernel's process was killed by signal %d",
		    WTERMSIG(status));
	else
		snprintf(err, errlen,
		    "the NetBSD kernel's process exited with status %d",
		    WEXITSTATUS(status));
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
 * process died first (err says why), -1 on a stop or a failed tick.
 */
static int
await(struct job *j, struct answer *a, char *err, size_t errlen)
{
	struct ffs *f = j->tpriv;
	int64_t next = clock_now_ns() + j->o->interval_ns;
	size_t got = 0;
	int status;

	for (;;) {
		struct pollfd pf = {.fd = f->answer, .events = POLLIN};
		int64_t now = clock_now_ns();
		ssize_t n;

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
		if (poll(&pf, 1, (int)((next - now + 999999) / 1000000)) <= 0)
			continue;
		n = read(f->answer, (char *)a + got, sizeof(*a) - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if ((got += (size_t)n) == sizeof(*a))
			return 1;
	}
	reap(f, &status);
	died(j, f, status, err, errlen);
	return 0;
kill:
	kill(f->pid, SIGKILL);
	reap(f, NULL);
	return -1;
}

/* The image for the next kernel: a fresh copy of the user's file. */
static int
fresh(struct job *j, char *err, size_t errlen)
{
	struct ffs *f = j->tpriv;
	const char *tmp = getenv("TMPDIR");

	if (!f->copies)
		return 0;
	snprintf(f->image, sizeof(f->image), "%s/ubcreplay-ffs.%ld.%d.img",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp", (long)getpid(), j->run);
	f->kept = 0;
	return replay_copy_sparse(f->user, f->image, err, errlen);
}

/* The copy let go: removed, unless --keep keeps it. */
static void
drop(struct job *j, int keep)
{
	struct ffs *f = j->tpriv;

	if (!f->copies || f->image[0] == '\0')
		return;
	if (keep)
		f->kept = 1;
	else
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
	int r;

	/* The asks go over a socket (full_write's sock). */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ask) == -1 ||
	    pipe2(answer, O_CLOEXEC) == -1) {
		snprintf(
		    err, errlen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	f->gen++;
	rumpshm_console_clear(f->shm);
	fflush(NULL);
	if ((f->pid = fork()) == -1) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		f->pid = 0;
		close(ask[0]), close(ask[1]), close(answer[0]),
		    close(answer[1]);
		return -1;
	}
	if (f->pid == 0) {
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
		snprintf(err, errlen, "%s", a.rep.error);
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

	if (f->pid == 0)
		return;
	if (ask(f, NULL, NULL) == 0 && await(j, &a, err, sizeof(err)) == 1) {
		if (a.rep.failed)
			snprintf(
			    j->warning, sizeof(j->warning), "%s", a.rep.error);
		reap(f, NULL);
	} else if (f->pid != 0) {
		kill(f->pid, SIGKILL);
		reap(f, NULL);
	}
	tick(j, err, sizeof(err));
}

/* What the result says of the kernel: the build, what is real. */
/*
 * The tree the kernel was built from and its commit, as a label says a
 * kernel tree's: "src-netbsd@1a2b3c4", "-dirty" when it had changes.
 */
static void
tree_label(json_t *build, char *buf, size_t len)
{
	const char *src = json_string_value(json_object_get(build, "src"));
	const char *commit =
	    json_string_value(json_object_get(build, "commit"));
	const char *dirty = json_string_value(json_object_get(build, "dirty"));
	const char *base = src != NULL ? strrchr(src, '/') : NULL;

	if (src == NULL) {
		*buf = '\0';
		return;
	}
	snprintf(buf, len, "%s%s%s%s", base != NULL ? base + 1 : src,
	    commit != NULL && *commit ? "@" : "", commit ? commit : "",
	    dirty != NULL && strcmp(dirty, "1") == 0 ? "-dirty" : "");
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
	tree_label(build, j->label, sizeof(j->label));
	return json_pack("{s:s,s:s,s:b,s:s,s:s,s:o,s:s,s:s}", "kernel",
	    "NetBSD rump kernel", "image", f->user, "image_copied", f->copies,
	    "mount_options", j->o->mount_opts ? j->o->mount_opts : "rw", "rump",
	    f->rump, "build", build, "real",
	    "NetBSD's FFS, WAPBL, buffer cache, genfs page clustering and "
	    "syncer",
	    "not_real",
	    "UVM's page daemon and UBC windows are the rump kernel's small "
	    "versions; its memory is not limited unless RUMP_MEMLIMIT says "
	    "so; user time is the workload's and the kernel's together");
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
	/* The trial mount: an image NetBSD cannot mount goes no further. */
	if (fresh(j, err, errlen) == -1)
		return -1;
	if (boot(j, NULL, err, errlen) == -1) {
		drop(j, 0);
		return -1;
	}
	halt(j);
	drop(j, 0);
	if (j->warning[0] != '\0') {
		snprintf(err, errlen, "%s", j->warning);
		return -1;
	}
	j->netbsd = netbsd_json(j, f);
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

static int
ffs_check(struct job *j, char *err, size_t errlen)
{
	(void)j, (void)err, (void)errlen;
	return 0;
}

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
	json_decref(j->netbsd);
	j->netbsd = NULL;
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
    .open = ffs_open,
    .begin = ffs_begin,
    .phase = ffs_phase,
    .sync = ffs_sync,
    .remove = ffs_remove,
    .layout = ffs_layout,
    .check = ffs_check,
    .end = ffs_end,
    .close = ffs_close,
};
