/*
 * init.c - the guest's init: a small static program of the project's own,
 * packed as /init into the initramfs that vm/initramfs.c writes. It reads
 * /vm.conf, which the host wrote (its format and limits: vm/vmconf.h, whose
 * parser, vm/vmconf.c, is linked in), loads the modules it names, mounts
 * what the job needs inside the host's root (shared read-only over 9p, or
 * under User Mode Linux over hostfs, with /vm.conf beside the init),
 * runs the job there with its output on a second, writable 9p share, writes
 * the job's status and the kernel's release next to it, and powers the
 * guest off. Any failure is printed on the console (the host shows its
 * last lines) and ends in a power-off too, so the host never waits for a
 * guest that has nothing left to do.
 */
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmconf.h"

#define ROOT "/root"
#define WORK "/run/ubcvm"

/* The status file: the host reads it back and names the failing step. */
static void
status(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ubcreplay-init: %s\n", buf);
	if ((fd = open(ROOT WORK "/out/status", O_WRONLY | O_CREAT | O_TRUNC,
	         0644)) != -1) {
		dprintf(fd, "%s\n", buf);
		fsync(fd);
		close(fd);
	}
}

/* Each step on the console: where a guest stopped shows in its last lines. */
static void
step(const char *what)
{
	fprintf(stderr, "ubcreplay-init: %s\n", what);
}

static void poweroff(void) __attribute__((noreturn));
static void die(const char *fmt, ...) __attribute__((noreturn));

static void
poweroff(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void
die(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	status("error: %s", buf);
	poweroff();
}

static void
domount(const char *src, const char *dir, const char *type, unsigned long flags,
    const char *data)
{
	mkdir(dir, 0755);
	/*
	 * A kernel that mounts devtmpfs on its root's /dev itself (UML's,
	 * CONFIG_DEVTMPFS_MOUNT, whose root is not an initramfs) has it
	 * there already.
	 */
	if (mount(src, dir, type, flags, data) == -1 &&
	    !(errno == EBUSY && strcmp(type, "devtmpfs") == 0))
		die("cannot mount %s (%s) on %s: %s", src, type, dir,
		    strerror(errno));
}

/*
 * /vm.conf, whole: a file larger than its limits allow, or a line the
 * parser refuses, stops the guest here with the line named, rather than
 * run a job with anything dropped or cut.
 */
static void
readconf(const char *path, struct vmconf *c)
{
	enum {
		MAX =
		    VMCONF_LINE_MAX * (VMCONF_MODULES_MAX + VMCONF_ARGS_MAX + 8)
	};
	char *text = malloc(MAX + 1), err[512];
	size_t len = 0;
	ssize_t n = 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		die("cannot open %s: %s", path, strerror(errno));
	if (text == NULL)
		die("out of memory");
	while (len <= MAX && (n = read(fd, text + len, MAX + 1 - len)) > 0)
		len += (size_t)n;
	if (n == -1)
		die("cannot read %s: %s", path, strerror(errno));
	close(fd);
	if (len > MAX)
		die("%s is larger than %d bytes", path, MAX);
	if (vmconf_parse(text, len, c, err, sizeof(err)) == -1)
		die("%s: %s", path, err);
	free(text);
}

static void
loadmodules(const struct vmconf *c)
{
	for (size_t i = 0; i < c->nmod; i++) {
		int fd = open(c->mod[i], O_RDONLY | O_CLOEXEC);

		if (fd == -1)
			die("cannot open module %s: %s", c->mod[i],
			    strerror(errno));
		if (syscall(SYS_finit_module, fd, "", 0) == -1 &&
		    errno != EEXIST)
			die("cannot load module %s: %s", c->mod[i],
			    strerror(errno));
		close(fd);
	}
}

/*
 * mount(2) takes flags apart from the filesystem's own options; mount(8)
 * takes both in one list. The generic ones go to flags, the rest to data.
 */
static unsigned long
splitopts(const char *opts, char *data, size_t len)
{
	static const struct {
		const char *name;
		unsigned long set, clear;
	} generic[] = {
	    {"ro", MS_RDONLY, 0},
	    {"rw", 0, MS_RDONLY},
	    {"noatime", MS_NOATIME, 0},
	    {"nodiratime", MS_NODIRATIME, 0},
	    {"relatime", MS_RELATIME, 0},
	    {"strictatime", MS_STRICTATIME, 0},
	    {"lazytime", MS_LAZYTIME, 0},
	    {"sync", MS_SYNCHRONOUS, 0},
	    {"dirsync", MS_DIRSYNC, 0},
	    {"async", 0, MS_SYNCHRONOUS},
	    {"defaults", 0, 0},
	};
	char buf[VMCONF_LINE_MAX], *save = NULL;
	unsigned long flags = 0;

	data[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *o = strtok_r(buf, ",", &save); o != NULL;
	     o = strtok_r(NULL, ",", &save)) {
		size_t i, n = sizeof(generic) / sizeof(generic[0]);

		for (i = 0; i < n; i++)
			if (strcmp(o, generic[i].name) == 0)
				break;
		if (i < n) {
			flags = (flags | generic[i].set) & ~generic[i].clear;
			continue;
		}
		if (data[0] != '\0')
			strncat(data, ",", len - strlen(data) - 1);
		strncat(data, o, len - strlen(data) - 1);
	}
	return flags;
}

static void
writefile(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd == -1 || write(fd, text, strlen(text)) == -1 || fsync(fd) == -1)
		die("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

/* A child's standard output and error into path (it goes on without). */
static void
output_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd != -1) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
}

/*
 * How fast this guest's CPU runs as the guest itself sees it: a fixed loop
 * (CALIB_LOOPS steps of a xorshift, no memory traffic) timed by the
 * guest's CLOCK_MONOTONIC. Under TCG with the host's real time it is
 * whatever the host managed that moment; with QEMU's instruction count as
 * the clock it is the same on every host. Also the disk's blk-mq hardware
 * queues, as the guest kernel made them, and its scheduler. They go to
 * out/machine as "key value" lines for the host to put in the result.
 */
#define CALIB_LOOPS (1L << 23)

static long long
calibrate(void)
{
	volatile unsigned long long sink;
	unsigned long long x = 88172645463325252ULL;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < CALIB_LOOPS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
	(void)sink;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
	    (b.tv_nsec - a.tv_nsec);
}

static void
machine_note(const char *key, const char *v)
{
	FILE *f = fopen(ROOT WORK "/out/machine", "a");

	if (f != NULL) {
		fprintf(f, "%s %s\n", key, v);
		fclose(f);
	}
}

static void
machine_num(const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	machine_note(key, buf);
}

/*
 * The disk's I/O scheduler, the one in brackets: blk-mq gives a disk with
 * one hardware queue mq-deadline and one with more none, and the
 * scheduler merges what waits in it.
 */
static void
scheduler(const char *disk)
{
	char line[256] = "", p[128], *a, *b;
	FILE *f;

	snprintf(p, sizeof(p), "/sys/block/%s/queue/scheduler", disk);
	if ((f = fopen(p, "r")) == NULL)
		return;

	if (fgets(line, sizeof(line), f) != NULL &&
	    (a = strchr(line, '[')) != NULL && (b = strchr(a, ']')) != NULL) {
		*b = '\0';
		machine_note("scheduler", a + 1);
	}
	fclose(f);
}

static int
hw_queues(const char *disk)
{
	char p[128];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(p, sizeof(p), "/sys/block/%s/mq", disk);
	d = opendir(p);

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * The set-up script (an NFS cell's server and mount), chrooted like the
 * job; when it fails, its last line says why.
 */
static void
runsetup(const char *script)
{
	char line[1024], last[1024] = "";
	pid_t pid;
	FILE *f;
	int st;

	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (chroot(ROOT) == -1 || chdir("/") == -1)
			_exit(126);
		output_to(WORK "/out/setup.log");
		execl("/bin/sh", "sh", script, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	if ((f = fopen(ROOT WORK "/out/setup.log", "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (line[0] != '\n')
				snprintf(last, sizeof(last), "%s", line);
		fclose(f);
	}
	last[strcspn(last, "\n")] = '\0';
	die("%s failed: %s", script, last[0] != '\0' ? last : "no word");
}

/*
 * The scheduler features vm.conf names (vmconf.h), each word written to
 * debugfs's sched/features and read back: a kernel without them
 * (CONFIG_SCHED_DEBUG, CONFIG_DEBUG_FS) stops here, naming the word,
 * rather than run the job on another machine than the result says.
 */
static void
schedfeatures(const char *words)
{
	const char *feat = "/sys/kernel/debug/sched/features", *at, *p;
	char w[64], have[4096];
	size_t n, len;
	ssize_t got;
	int fd;

	if (words == NULL || words[0] == '\0')
		return;
	domount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	for (at = words; *(at += strspn(at, " ")) != '\0'; at += n) {
		n = strcspn(at, " ");
		snprintf(w, sizeof(w), "%.*s", (int)n, at);
		len = strlen(w);
		if ((fd = open(feat, O_WRONLY | O_CLOEXEC)) == -1 ||
		    write(fd, w, len) != (ssize_t)len)
			die("cannot set the scheduler feature %s in %s: %s "
			    "(CONFIG_SCHED_DEBUG, CONFIG_DEBUG_FS)",
			    w, feat, strerror(errno));
		close(fd);
		if ((fd = open(feat, O_RDONLY | O_CLOEXEC)) == -1 ||
		    (got = read(fd, have, sizeof(have) - 1)) < 0)
			die("cannot read %s: %s", feat, strerror(errno));
		close(fd);
		have[got] = '\0';
		/* The word itself among the features, not inside another. */
		for (p = have; (p = strstr(p, w)) != NULL; p += len)
			if ((p == have || p[-1] == ' ') &&
			    (p[len] == ' ' || p[len] == '\n' || p[len] == '\0'))
				break;
		if (p == NULL)
			die("the scheduler feature %s did not take: %s", w,
			    have);
	}
	machine_note("sched_features", words);
}

/*
 * Idles the nanoseconds vm.conf's settle_ns says (vmconf.h), before the
 * disk is mounted: under UML's time travel that is simulated time, which
 * passes at once. A value that is not a number stops here, naming it.
 */
static void
settle(const char *ns)
{
	unsigned long long n;
	struct timespec ts;
	char *end;

	if (ns == NULL || ns[0] == '\0')
		return;
	errno = 0;
	n = strtoull(ns, &end, 10);
	if (ns[0] < '0' || ns[0] > '9' || *end != '\0' || errno != 0)
		die("settle_ns '%s' is not a number of nanoseconds", ns);
	step("settling");
	ts.tv_sec = (time_t)(n / 1000000000ULL);
	ts.tv_nsec = (long)(n % 1000000000ULL);
	while (nanosleep(&ts, &ts) == -1)
		if (errno != EINTR)
			die("nanosleep: %s", strerror(errno));
}

/*
 * /vm.conf is beside init: the initramfs's /init under QEMU, the host's
 * file named by init= under UML, whose root is the host's (hostfs).
 */
static void
confpath(const char *argv0, char *buf, size_t len)
{
	const char *slash = argv0 != NULL ? strrchr(argv0, '/') : NULL;

	if (slash == NULL || slash == argv0)
		snprintf(buf, len, "/vm.conf");
	else
		snprintf(buf, len, "%.*s/vm.conf", (int)(slash - argv0), argv0);
}

int
main(int argc, char **argv)
{
	struct vmconf c;
	struct utsname u;
	char data[VMCONF_LINE_MAX], rel[512], conf[512];
	const char *disk;
	unsigned long flags;
	int st, hostfs;
	pid_t pid;

	if (open("/dev/console", O_RDWR) == 0) {
		dup2(0, 1);
		dup2(0, 2);
	}
	domount("proc", "/proc", "proc", 0, NULL);
	domount("sysfs", "/sys", "sysfs", 0, NULL);
	domount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	confpath(argc > 0 ? argv[0] : NULL, conf, sizeof(conf));
	readconf(conf, &c);
	hostfs = strcmp(c.transport, "hostfs") == 0;
	disk = strrchr(c.disk, '/') != NULL ? strrchr(c.disk, '/') + 1 : c.disk;
	step("loading modules");
	loadmodules(&c);
	step("mounting the host's root");

	/* The host's root, read-only, and what the job needs inside it. */
	if (hostfs)
		domount("none", ROOT, "hostfs", MS_RDONLY, "/");
	else
		domount("ubcroot", ROOT, "9p", MS_RDONLY,
		    "trans=virtio,version=9p2000.L,msize=262144,cache=loose");
	domount("proc", ROOT "/proc", "proc", 0, NULL);
	domount("sysfs", ROOT "/sys", "sysfs", 0, NULL);
	domount("devtmpfs", ROOT "/dev", "devtmpfs", 0, NULL);
	domount("tracefs", ROOT "/sys/kernel/tracing", "tracefs", 0, NULL);
	domount("tmpfs", ROOT "/run", "tmpfs", 0, "mode=0755");
	mkdir(ROOT WORK, 0755);
	if (hostfs)
		domount("none", ROOT WORK "/out", "hostfs", 0, c.outdir);
	else
		domount("ubcout", ROOT WORK "/out", "9p", 0,
		    "trans=virtio,version=9p2000.L,msize=262144");
	if (uname(&u) == -1)
		die("uname: %s", strerror(errno));
	snprintf(rel, sizeof(rel), "%s\n", u.release);
	writefile(ROOT WORK "/out/release", rel);
	settle(c.settle_ns);
	if (strcmp(c.fstype, "none") != 0) {
		step("mounting the disk");
		flags = splitopts(c.mountopts, data, sizeof(data));
		domount(c.disk, ROOT WORK "/disk", c.fstype, flags,
		    data[0] != '\0' ? data : NULL);
	}

	if (c.setup != NULL && c.setup[0] != '\0') {
		step("running the set-up script");
		runsetup(c.setup);
	}

	schedfeatures(c.schedfeat);
	machine_num("hw_queues", hw_queues(disk));
	scheduler(disk);
	machine_num("calibration_ns", calibrate());
	/* The host watches for this file: the job starts now. */
	step("starting the job");
	writefile(ROOT WORK "/out/started", "\n");
	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		const char *jargv[VMCONF_ARGS_MAX + 2];

		if (chroot(ROOT) == -1 || chdir("/") == -1) {
			fprintf(stderr,
			    "cannot chroot to the shared root: %s\n",
			    strerror(errno));
			_exit(126);
		}
		output_to(WORK "/out/job.log");
		jargv[0] = c.exe;
		for (size_t i = 0; i < c.narg; i++)
			jargv[i + 1] = c.arg[i];
		jargv[c.narg + 1] = NULL;
		execv(c.exe, (char *const *)jargv);
		fprintf(stderr, "cannot run %s: %s\n", c.exe, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	step("the job ended");
	machine_num("calibration_after_ns", calibrate());
	if (WIFEXITED(st))
		status("exit %d", WEXITSTATUS(st));
	else
		status("signal %d", WTERMSIG(st));
	if (strcmp(c.fstype, "none") != 0)
		umount(ROOT WORK "/disk");
	poweroff();
	return 0;
}
