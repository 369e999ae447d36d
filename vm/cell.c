/*
 * cell.c - one cell from nothing to a result: a temporary directory holding
 * the image, the initramfs, the console, QEMU's log and the directory the
 * guest writes to; a guest booted and watched (the job's start, a KVM that
 * cannot run the guest, the timeout); the result read back with the "vm"
 * object added; everything removed again.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/analysis.h"
#include "../model/clock.h"
#include "vm_impl.h"
#include "vmconf.h"

/*
 * loglevel 6: the banner shows at once that the kernel is running.
 * no_timer_check: an emulated guest on a busy host can miss the boot-time
 * check that the timer's interrupt arrives in time, and panic with "IO-APIC
 * + timer doesn't work".
 */
#define CMDLINE   "console=ttyS0 panic=-1 loglevel=6 no_timer_check"
#define KVM_DEATH "KVM internal error"
/* How init's lines begin on the console (vm/init.c). */
#define INIT_SAYS "ubcreplay-init: "
/*
 * A KVM that cannot run the guest does not always say so: some leave it
 * spinning. A kernel that has printed nothing this long after QEMU started
 * under KVM is taken for that.
 */
#define KVM_SILENCE_NS ((int64_t)10 * 1000000000)
/*
 * How long a guest may take to boot, unless --boot-timeout says: from
 * QEMU's start to the first file the init writes on the share (release:
 * the kernel up, the modules loaded, the shares mounted). A guest stuck in
 * early boot is given up then, not at the whole job's timeout; an NFS
 * cell's set-up and the job come after and are the timeout's. QEMU's start
 * to the job's start, a bound on the boot, measured (README) 3.6-4.4 s
 * under TCG on a quiet machine, plus about 2.5 s for the xfs or btrfs
 * modules. A shared machine is slower: 36 s for a raw-disk cell on the
 * 2-core machine this was written on, shared by eight sessions' builds and
 * guests (8x). TCG gets 180 s, five times that; KVM boots in about a
 * second and gets 30 s.
 */
#define BOOT_TCG_NS ((int64_t)180 * 1000000000)
#define BOOT_KVM_NS ((int64_t)30 * 1000000000)
/*
 * Less room than this left on the host beside a cell's image that the
 * guest saw fail is taken for a full host disk: a failed write of the
 * image's leaves less free than the write's size, a few MiB at most.
 */
#define HOST_FULL_BYTES ((uint64_t)8 << 20)
/*
 * Once a guest has shown that this machine's KVM cannot run it, later
 * cells in the same process go straight to TCG.
 */
static int kvm_broken;

void
vm_cell_init(struct vm_cell *cell, const struct vm_cell_conf *c)
{
	memset(cell, 0, sizeof(*cell));
	cell->c = c;
	cell->boot_ns = cell->guest_ns = -1;
	cell->state = VM_IDLE;
}

static void
path(const struct vm_cell *cell, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", cell->host->dir, name);
}

static int
exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static int
uml(const struct vm_cell_conf *c)
{
	return c->kernel->machine == VM_MACHINE_UML;
}

/*
 * The host process whose end the cell sees: on the virtio disk, UML's
 * parent, the disk's server (vm/uml.c).
 */
static const char *
guest_name(const struct vm_cell_conf *c)
{
	if (!uml(c))
		return "QEMU";
	return c->vdisk != NULL ? "the virtio disk's server (UML's parent)"
	                        : "UML";
}

/*
 * The mount options the guest is given: a UML cell's ext4 without
 * block-bitmap prefetch, whose thread otherwise starts after a random
 * delay (docs/vm-machine.md), before the user's own.
 */
static char *
mountopts(const struct vm_cell_conf *c)
{
	const char *pre = "no_prefetch_block_bitmaps";
	char *s;

	if (!uml(c) || strcmp(c->fstype, "ext4") != 0)
		return strdup(c->mount_opts);
	/* Whole, however long: vmconf_format says what is too long. */
	if ((s = malloc(strlen(pre) + 1 + strlen(c->mount_opts) + 1)) != NULL)
		sprintf(s, "%s%s%s", pre, c->mount_opts[0] != '\0' ? "," : "",
		    c->mount_opts);
	return s;
}

/* The modules the cell needs, dependencies first. */
static int
modules(const struct vm_cell_conf *c, struct vm_modset *set, char *err,
    size_t errlen)
{
	const char *names[16];
	char msg[1024];
	size_t n = vm_modules_needed(c->fstype, names, 16);

	if (c->nfs_server != NULL)
		n += vm_nfs_modules(c->nfs_server, names + n, 16 - n);
	if (vm_modules_resolve(c->kernel, names, n, set, msg, sizeof(msg)) ==
	    -1) {
		snprintf(err, errlen, "kernel '%s': %s", c->kernel->path, msg);
		return -1;
	}
	return 0;
}

/* /vm.conf (vm/vmconf.h) for the cell, its modules as the initramfs has them.
 */
static char *
conftext(const struct vm_cell_conf *c, const struct vm_modset *mods, char *err,
    size_t errlen)
{
	struct vmconf vc;
	char **mod = calloc(mods->n + 1, sizeof(*mod)), msg[1024], *s = NULL;
	char settle[32];
	char *opts = mountopts(c);
	size_t i;

	if (mod == NULL || opts == NULL) {
		free(mod);
		free(opts);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (i = 0; i < mods->n; i++)
		if ((mod[i] = vm_initramfs_modname(mods, i)) == NULL)
			break;
	memset(&vc, 0, sizeof(vc));
	vc.fstype = c->fstype;
	vc.mountopts = opts;
	/* UML: the host's own paths (hostfs), the disk ubd's or virtio's. */
	if (uml(c)) {
		vc.transport = "hostfs";
		vc.outdir = VM_UML_DIR "/out";
		vc.disk = c->vdisk != NULL ? "/dev/vda" : "/dev/ubda";
		vc.schedfeat = c->vdisk != NULL ? VM_UML_SCHED_FEATURES : NULL;
		vc.settle_ns = vm_uml_settle(c, settle, sizeof(settle));
	}
	vc.exe = c->exe;
	vc.setup = c->nfs_server != NULL ? VM_GUEST_SETUP : NULL;
	vc.nmod = mods->n;
	vc.mod = (const char *const *)mod;
	vc.narg = c->njob;
	vc.arg = (const char *const *)c->job;
	if (i < mods->n)
		snprintf(err, errlen, "out of memory");
	else if ((s = vmconf_format(&vc, msg, sizeof(msg))) == NULL)
		snprintf(err, errlen, "kernel '%s', %s: %s", c->kernel->path,
		    c->fstype, msg);
	while (i > 0)
		free(mod[--i]);
	free(mod);
	free(opts);
	return s;
}

/*
 * What a cell asks of its machine that the machine has not: UML has no
 * NFS cells (local filesystems are its scope), no accelerator, one CPU,
 * ubd's one queue, its own simulated clock; QEMU has no seed.
 */
static int
machine_check(const struct vm_cell_conf *c, char *err, size_t errlen)
{
	const char *why = NULL;

	if (!uml(c)) {
		if (c->vdisk != NULL)
			why = "--disk virtio is UML's (our virtio-blk disk and "
			      "its model); QEMU's disk is always its own "
			      "virtio-blk";
		else if (c->seed >= 0)
			why = "--seed is for UML kernels (uml_seed=), not "
			      "QEMU's";
		else if (c->icount_shift >= 0 && strcmp(c->accel, "kvm") == 0)
			why = "--clock icount is QEMU's TCG only: not with "
			      "--accel kvm";
		/* In one thread, in turn: guests tried so hung in early boot.
		 */
		else if (c->icount_shift >= 0 && c->cpus > 1)
			why = "--clock icount with more than one vCPU: QEMU "
			      "runs them in one thread under icount, and "
			      "guests hang in early boot; use --cpus 1";
	} else if (c->nfs_server != NULL)
		why = "NFS cells are not on UML";
	else if (strcmp(c->accel, "auto") != 0)
		why = "--accel is QEMU's: not on UML, which runs the kernel "
		      "as a host program";
	else if (c->icount_shift >= 0)
		why = "--clock icount is QEMU's: UML runs on its own "
		      "simulated time (time-travel)";
	else if ((c->given & VM_GIVEN_CPUS) && c->cpus > 1)
		why = "--cpus: UML has one CPU";
	else if (c->given & VM_GIVEN_QUEUES)
		why = "--queues is virtio-blk's: not on UML (ubd has one "
		      "queue)";
	if (why == NULL)
		return 0;
	snprintf(err, errlen, "kernel '%s': %s", c->kernel->path, why);
	return -1;
}

int
vm_cell_check(const struct vm_cell_conf *c, char *err, size_t errlen)
{
	struct vm_modset set;
	char *s;

	if (machine_check(c, err, errlen) == -1)
		return -1;

	if (modules(c, &set, err, errlen) == -1)
		return -1;
	s = conftext(c, &set, err, errlen);
	vm_modules_free(&set);
	free(s);
	return s != NULL ? 0 : -1;
}

static int
makeimage(struct vm_cell *cell, char *err, size_t errlen)
{
	const struct vm_cell_conf *c = cell->c;
	char img[PATH_MAX], log[PATH_MAX], msg[1024];

	path(cell, "disk.img", img, sizeof(img));
	path(cell, "mkfs.log", log, sizeof(log));
	unlink(img);
	if (vm_image_make(img, c->fstype, c->mkfs_opts, c->size_bytes, uml(c),
	        log, msg, sizeof(msg)) == -1) {
		snprintf(err, errlen, "kernel '%s', %s: %s", c->kernel->path,
		    c->fstype, msg);
		return -1;
	}
	return 0;
}

int
vm_cell_prepare(struct vm_cell *cell, char *err, size_t errlen)
{
	const struct vm_cell_conf *c = cell->c;
	char p[PATH_MAX], msg[1024], *conf;
	int r;

	if ((cell->host = calloc(1, sizeof(*cell->host))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cell->host->netns = cell->host->mntns = -1;
	snprintf(cell->host->dir, sizeof(cell->host->dir),
	    "%s/ubcreplay-vm.XXXXXX", vm_tmpdir());
	if (mkdtemp(cell->host->dir) == NULL) {
		snprintf(err, errlen, "cannot make a directory '%s': %s",
		    cell->host->dir, strerror(errno));
		cell->host->dir[0] = '\0';
		return -1;
	}
	path(cell, "out", p, sizeof(p));
	if (mkdir(p, 0755) == -1) {
		snprintf(
		    err, errlen, "cannot make '%s': %s", p, strerror(errno));
		return -1;
	}
	if (makeimage(cell, err, errlen) == -1)
		return -1;
	if (c->nfs_server != NULL && vm_nfs_prepare(cell, err, errlen) == -1)
		return -1;
	if ((conf = conftext(c, c->mods, err, errlen)) == NULL)
		return -1;
	if (uml(c)) {
		r = vm_init_write(cell->host->dir, conf, msg, sizeof(msg));
		free(conf);
		if (r == -1) {
			snprintf(err, errlen, "kernel '%s': %s",
			    c->kernel->path, msg);
			return -1;
		}
		return vm_uml_cmdline(c, cell->host->cmdline,
		    sizeof(cell->host->cmdline), err, errlen);
	}
	path(cell, "initramfs.cpio.gz", p, sizeof(p));
	r = vm_initramfs_write(p, c->mods, conf, msg, sizeof(msg));
	free(conf);
	if (r == -1) {
		snprintf(err, errlen, "kernel '%s': %s", c->kernel->path, msg);
		return -1;
	}
	snprintf(
	    cell->host->cmdline, sizeof(cell->host->cmdline), "%s", CMDLINE);
	return 0;
}

/* QEMU, in the cell's namespaces when it has them (ganesha). */
static int
guest_start(struct vm_cell *cell, char *err, size_t errlen)
{
	const struct vm_cell_conf *c = cell->c;
	char initrd[PATH_MAX], img[PATH_MAX], out[PATH_MAX], con[PATH_MAX],
	    log[PATH_MAX];
	struct vm_guest_conf g;
	struct vm_uml_conf u;

	cell->boot_ns = -1;
	if (uml(c)) {
		path(cell, "console.log", con, sizeof(con));
		u.program = c->kernel->path;
		u.dir = cell->host->dir;
		u.cmdline = cell->host->cmdline;
		u.console = con;
		u.vdisk = c->vdisk;
		if (vm_uml_start(&cell->host->guest, &u, err, errlen) == -1) {
			cell->state = VM_FAILED;
			return -1;
		}
		cell->state = VM_RUNNING;
		return 0;
	}
	path(cell, "initramfs.cpio.gz", initrd, sizeof(initrd));
	path(cell, "disk.img", img, sizeof(img));
	path(cell, "out", out, sizeof(out));
	path(cell, "console.log", con, sizeof(con));
	path(cell, "qemu.log", log, sizeof(log));
	memset(&g, 0, sizeof(g));
	g.kernel = c->boot;
	g.initrd = initrd;
	g.cmdline = cell->host->cmdline;
	g.image = img;
	g.outdir = out;
	g.accel = cell->accel;
	g.cpus = c->cpus;
	g.mem_mib = c->mem_mib;
	g.queues = c->queues;
	g.icount_shift = c->icount_shift;
	g.console = con;
	g.log = log;
	/* ganesha's cells have a network: the server is its 10.0.2.2. */
	g.netdev = c->nfs_server != NULL && cell->host->netns != -1
	    ? "user,id=ubcnet"
	    : NULL;
	g.netns = cell->host->netns;
	g.mntns = cell->host->mntns;
	cell->boot_ns = -1;
	if (vm_guest_start(&cell->host->guest, &g, err, errlen) == -1) {
		cell->state = VM_FAILED;
		return -1;
	}
	cell->state = VM_RUNNING;
	return 0;
}

int
vm_cell_start(struct vm_cell *cell, char *err, size_t errlen)
{
	const struct vm_cell_conf *c = cell->c;

	/* UML has no accelerator; an instruction-count clock is TCG's. */
	if (uml(c))
		snprintf(cell->accel, sizeof(cell->accel), "uml");
	else if (c->icount_shift >= 0)
		snprintf(cell->accel, sizeof(cell->accel), "tcg");
	else if (strcmp(c->accel, "auto") == 0)
		snprintf(cell->accel, sizeof(cell->accel), "%s",
		    !kvm_broken && !cell->host->kvm_failed && vm_kvm_usable()
		        ? "kvm"
		        : "tcg");
	else
		snprintf(cell->accel, sizeof(cell->accel), "%s", c->accel);
	if (c->nfs_server != NULL && strcmp(c->nfs_server, "ganesha") == 0) {
		if (vm_nfs_start(cell, err, errlen) == -1) {
			cell->state = VM_FAILED;
			return -1;
		}
		cell->state = VM_SERVER;
		return 0;
	}
	return guest_start(cell, err, errlen);
}

/* The first line of file holding what, into line (when not NULL). */
static int
logline(const char *file, const char *what, char *line, size_t len)
{
	char buf[1024];
	FILE *f = fopen(file, "re");
	int found = 0;

	if (f == NULL)
		return 0;
	while (!found && fgets(buf, sizeof(buf), f) != NULL)
		found = strstr(buf, what) != NULL;
	fclose(f);
	if (found && line != NULL) {
		buf[strcspn(buf, "\r\n")] = '\0';
		snprintf(line, len, "%s", strstr(buf, what));
	}
	return found;
}

/* The first line of a small file, newline dropped; "" when there is none. */
static void
firstline(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "re");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int
kvm_silent(const struct vm_cell *cell, int64_t now)
{
	char p[PATH_MAX];
	struct stat st;

	if (now - cell->host->guest.start_ns < KVM_SILENCE_NS)
		return 0;
	path(cell, "console.log", p, sizeof(p));
	return stat(p, &st) == 0 && st.st_size == 0;
}

/* The init is up: it has written its first file on the share. */
static int
booted(const struct vm_cell *cell)
{
	char p[PATH_MAX];

	path(cell, "out/release", p, sizeof(p));
	return exists(p);
}

int
vm_cell_retry(struct vm_cell *cell, char *err, size_t errlen)
{
	char out[PATH_MAX];

	vm_guest_kill(&cell->host->guest);
	vm_nfs_stop(cell);
	cell->host->kvm_failed = 1;
	kvm_broken = 1;
	path(cell, "out", out, sizeof(out));
	vm_rmtree(out);
	if (mkdir(out, 0755) == -1) {
		snprintf(
		    err, errlen, "cannot make '%s': %s", out, strerror(errno));
		cell->state = VM_FAILED;
		return -1;
	}
	/* out held the NFS set-up script; ganesha's export, the old files. */
	if (makeimage(cell, err, errlen) == -1 ||
	    (cell->c->nfs_server != NULL &&
	        vm_nfs_prepare(cell, err, errlen) == -1)) {
		cell->state = VM_FAILED;
		return -1;
	}
	return vm_cell_start(cell, err, errlen);
}

static enum vm_state
failed(struct vm_cell *cell, const char *what, const char *logname, char *err,
    size_t errlen)
{
	char log[PATH_MAX], tail[2048], panic[256] = "";

	vm_guest_kill(&cell->host->guest);
	path(cell, "console.log", log, sizeof(log));
	/* A panic's own line is above its stack trace: name it apart. */
	if (logline(log, "Kernel panic", panic + 2, sizeof(panic) - 2))
		memcpy(panic, ": ", 2);
	path(cell, logname, log, sizeof(log));
	vm_tail(log, 8, tail, sizeof(tail));
	if (tail[0] == '\0') {
		path(cell, "qemu.log", log, sizeof(log));
		vm_tail(log, 8, tail, sizeof(tail));
	}
	snprintf(err, errlen, "kernel '%s': %s%s; the last lines of %s:\n%s",
	    cell->c->kernel->path, what, panic,
	    strcmp(logname, "console.log") == 0 ? "its console" : "the job",
	    tail[0] != '\0' ? tail : "(nothing)");
	return cell->state = VM_FAILED;
}

/*
 * QEMU start to the job's start: the start file's own time stamp (set by
 * the host's kernel when the guest made it through 9p) against the wall
 * clock at QEMU's start, not the moment a poll noticed it, which comes
 * late while the driver prepares another cell.
 */
static void
boot_time(struct vm_cell *cell)
{
	char p[PATH_MAX];
	struct stat st;
	int64_t t;

	path(cell, "out/started", p, sizeof(p));
	if (cell->boot_ns >= 0 || stat(p, &st) == -1)
		return;
	t = ((int64_t)st.st_mtim.tv_sec - cell->host->guest.start_wall.tv_sec) *
	        1000000000 +
	    (st.st_mtim.tv_nsec - cell->host->guest.start_wall.tv_nsec);
	cell->boot_ns = t > 0 ? t : 0;
}

/*
 * Whether a job that failed ran out of room on the host: next to nothing
 * is left on the filesystem under the cell's (sparse) image, whose writes
 * QEMU then failed to the guest as I/O errors (vm/qemu.c). The guest's
 * console, on the same full filesystem, may have lost its own word of it.
 */
static int
host_full(const struct vm_cell *cell)
{
	struct statvfs sv;

	return statvfs(cell->host->dir, &sv) == 0 &&
	    (uint64_t)sv.f_bavail * sv.f_frsize < HOST_FULL_BYTES;
}

/* The guest died of KVM: a retry under auto, else the user's error. */
static enum vm_state
kvm_death(struct vm_cell *cell, char *err, size_t errlen)
{
	if (strcmp(cell->c->accel, "auto") == 0) {
		vm_guest_kill(&cell->host->guest);
		return cell->state = VM_RETRY;
	}
	return failed(cell,
	    "KVM cannot run this guest (" KVM_DEATH
	    ", or no word on the console); try --accel tcg",
	    "qemu.log", err, errlen);
}

enum vm_state
vm_cell_poll(struct vm_cell *cell, char *err, size_t errlen)
{
	const struct vm_cell_conf *c = cell->c;
	char p[PATH_MAX], qlog[PATH_MAX], st[512], what[768];
	int64_t now = clock_now_ns();
	int kvm = strcmp(cell->accel, "kvm") == 0, r;

	if (cell->state == VM_SERVER) {
		if ((r = vm_nfs_ready(cell, what, sizeof(what))) == 1 &&
		    guest_start(cell, what, sizeof(what)) == 0)
			return cell->state;
		if (r == 0)
			return cell->state;
		vm_nfs_stop(cell);
		snprintf(err, errlen, "kernel '%s': %s", c->kernel->path, what);
		return cell->state = VM_FAILED;
	}
	if (cell->state != VM_RUNNING)
		return cell->state;
	boot_time(cell);
	path(cell, "qemu.log", qlog, sizeof(qlog));
	/*
	 * A QEMU that has exited is judged by its log and the guest's status;
	 * only one that runs on, silent, is taken for a KVM that spins.
	 */
	if (!vm_guest_exited(&cell->host->guest)) {
		int64_t boot = c->boot_timeout_ns > 0 ? c->boot_timeout_ns
		    : strcmp(cell->accel, "kvm") == 0 ? BOOT_KVM_NS
		                                      : BOOT_TCG_NS;

		if (kvm &&
		    (logline(qlog, KVM_DEATH, NULL, 0) ||
		        kvm_silent(cell, now)))
			return kvm_death(cell, err, errlen);
		if (now - cell->host->guest.start_ns > c->timeout_ns)
			snprintf(what, sizeof(what),
			    "the guest did not finish within %.0f s "
			    "(--timeout)",
			    (double)c->timeout_ns / 1e9);
		else if (now - cell->host->guest.start_ns > boot &&
		    !booted(cell))
			snprintf(what, sizeof(what),
			    "the guest did not boot within %.0f s "
			    "(--boot-timeout): its init never came up",
			    (double)boot / 1e9);
		else
			return VM_RUNNING;
		return failed(cell, what, "console.log", err, errlen);
	}
	boot_time(cell);
	if (kvm && logline(qlog, KVM_DEATH, NULL, 0))
		return kvm_death(cell, err, errlen);
	path(cell, "out/status", p, sizeof(p));
	firstline(p, st, sizeof(st));
	/* Before the share is mounted, init can say it only on the console. */
	path(cell, "console.log", p, sizeof(p));
	if (st[0] == '\0' && logline(p, INIT_SAYS "error: ", st, sizeof(st)))
		memmove(st, st + strlen(INIT_SAYS),
		    strlen(st + strlen(INIT_SAYS)) + 1);
	/*
	 * A host filesystem that filled under the cell's image also fails
	 * the guest's writes to the share: there may be no status at all.
	 */
	if (strcmp(st, "exit 0") != 0 && host_full(cell)) {
		snprintf(what, sizeof(what),
		    "the host's filesystem under '%s' is full: the guest's disk "
		    "image could not grow, and the guest saw I/O errors (free "
		    "some space, or point TMPDIR at a larger filesystem)",
		    vm_tmpdir());
		return failed(cell, what, "console.log", err, errlen);
	}
	if (st[0] == '\0') {
		if (WIFSIGNALED(cell->host->guest.status)) {
			snprintf(what, sizeof(what),
			    "%s was killed by signal %d before the job ended",
			    guest_name(c), WTERMSIG(cell->host->guest.status));
			return failed(cell, what, "console.log", err, errlen);
		}
		if (WIFEXITED(cell->host->guest.status) &&
		    WEXITSTATUS(cell->host->guest.status) != 0) {
			char log[PATH_MAX], tail[1024];

			path(cell, uml(c) ? "console.log" : "qemu.log", log,
			    sizeof(log));
			/* The virtio disk's server's own word, if any. */
			vm_tail(log, 1, tail, sizeof(tail));
			if (c->vdisk != NULL &&
			    WEXITSTATUS(cell->host->guest.status) ==
			        VM_UML_VDISK_FAILED &&
			    strncmp(tail, VM_UML_SERVER_SAYS,
			        strlen(VM_UML_SERVER_SAYS)) == 0) {
				snprintf(what, sizeof(what), "%s",
				    tail + strlen(VM_UML_SERVER_SAYS));
				return failed(
				    cell, what, "console.log", err, errlen);
			}
			vm_tail(log, 3, tail, sizeof(tail));
			snprintf(what, sizeof(what), "%s failed (exit %d): %s",
			    guest_name(c),
			    WEXITSTATUS(cell->host->guest.status), tail);
			return failed(cell, what, "console.log", err, errlen);
		}
		return failed(cell,
		    "the guest stopped before its job ended (a panic, or no "
		    "working init)",
		    "console.log", err, errlen);
	}
	if (strncmp(st, "error: ", 7) == 0) {
		snprintf(
		    what, sizeof(what), "the guest's init failed: %s", st + 7);
		return failed(cell, what, "console.log", err, errlen);
	}
	if (strcmp(st, "exit 0") != 0) {
		/* ENOSPC on the cell's own disk (ganesha's is the host's). */
		path(cell, "out/job.log", p, sizeof(p));
		if ((c->nfs_server == NULL ||
		        strcmp(c->nfs_server, "ganesha") != 0) &&
		    logline(p, "No space left on device", NULL, 0))
			snprintf(what, sizeof(what),
			    "guest disk full: the job filled the %s disk of "
			    "%llu MiB (--size) and failed (%s)",
			    strcmp(c->fstype, "none") == 0 ? "raw" : c->fstype,
			    (unsigned long long)(c->size_bytes >> 20), st);
		else
			snprintf(what, sizeof(what),
			    "the job in the guest failed (%s)", st);
		return failed(cell, what, "out/job.log", err, errlen);
	}
	cell->guest_ns = now - cell->host->guest.start_ns;
	return cell->state = VM_DONE;
}

/*
 * A UML cell's machine beyond QEMU's knobs: the disk model (the seed's),
 * the seed and the project's patches its kernel carries (kbuild.patches:
 * "NAME SHA256").
 */
static int
uml_machine(const struct vm_cell_conf *c, json_t *vm)
{
	char buf[sizeof(c->kernel->patches)], *save = NULL;
	json_t *patches = json_array();
	long long seed = vm_uml_seed(c);
	int rc = 0;

	snprintf(buf, sizeof(buf), "%s", c->kernel->patches);
	for (char *l = strtok_r(buf, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' ');

		if (sp != NULL)
			*sp++ = '\0';
		rc |= json_array_append_new(
		    patches, json_pack("{s:s, s:s?}", "name", l, "sha256", sp));
	}
	if (c->vdisk != NULL) {
		json_t *m = vm_uml_vdisk_json(c);

		rc |= json_object_set_new(vm, "disk", json_string("virtio"));
		rc |=
		    json_object_set_new(m, "file", json_string(c->vdisk_file));
		rc |= json_object_set_new(vm, "disk_model", m);
	} else {
		rc |= json_object_set_new(vm, "disk", json_string("ubd"));
		rc |= json_object_set_new(vm, "disk_model",
		    json_pack("{s:i, s:i}", "base_ns", vm_uml_base_ns(seed),
		        "ns_per_kib", VM_UML_NS_PER_KIB));
	}
	rc |= json_object_set_new(vm, "seed", json_integer(seed));
	rc |= json_object_set_new(vm, "patches", patches);
	return rc;
}

/*
 * The machine the job ran on: what QEMU was told (queues, clock) and what
 * the guest saw (out/machine, vm/init.c: its blk-mq hardware queues and
 * the disk's scheduler, its CPU's calibration before and after the job; 0
 * or "" when it said nothing).
 */
static int
machine(const struct vm_cell *cell, json_t *vm)
{
	const struct vm_cell_conf *c = cell->c;
	const char *keys[] = {
	    "hw_queues", "calibration_ns", "calibration_after_ns"};
	char p[PATH_MAX], line[256], key[64], word[64];
	long long v;
	FILE *f;
	int rc = 0;

	rc |= json_object_set_new(
	    vm, "machine", json_string(uml(c) ? "uml" : "qemu"));
	rc |= json_object_set_new(
	    vm, "queues", json_integer(uml(c) ? 1 : c->queues));
	rc |= json_object_set_new(vm, "clock",
	    json_string(uml(c)             ? "time-travel"
	            : c->icount_shift >= 0 ? "icount"
	                                   : "realtime"));
	if (uml(c))
		rc |= uml_machine(c, vm);
	else if (c->icount_shift >= 0)
		rc |= json_object_set_new(
		    vm, "icount_shift", json_integer(c->icount_shift));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		rc |= json_object_set_new(vm, keys[i], json_integer(0));
	rc |= json_object_set_new(vm, "scheduler", json_string(""));
	path(cell, "out/machine", p, sizeof(p));
	if ((f = fopen(p, "re")) == NULL)
		return rc;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "scheduler %63s", word) == 1)
			rc |= json_object_set_new(
			    vm, "scheduler", json_string(word));
		else if (strncmp(line, "sched_features ", 15) == 0) {
			line[strcspn(line, "\n")] = '\0';
			rc |= json_object_set_new(
			    vm, "sched_features", json_string(line + 15));
		} else if (sscanf(line, "%63s %lld", key, &v) == 2)
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]);
			     i++)
				if (strcmp(key, keys[i]) == 0)
					rc |= json_object_set_new(
					    vm, keys[i], json_integer(v));
	fclose(f);
	return rc;
}

json_t *
vm_cell_result(struct vm_cell *cell, char *err, size_t errlen)
{
	const struct vm_cell_conf *c = cell->c;
	char p[PATH_MAX], rel[128], msg[1024], label[512], *opts;
	const char *who;
	json_t *doc, *vm, *img;

	path(cell, "out/result.json", p, sizeof(p));
	if ((doc = result_load(p, msg, sizeof(msg))) == NULL) {
		snprintf(err, errlen, "kernel '%s': the guest's result: %s",
		    c->kernel->path, msg);
		return NULL;
	}
	path(cell, "out/release", p, sizeof(p));
	firstline(p, rel, sizeof(rel));
	/* The kernel as the guest named it (a tree: as its name), the disk. */
	who = c->kernel->tree[0] != '\0' ? c->kernel->name : rel;
	snprintf(label, sizeof(label), "%s %s", who,
	    strcmp(c->fstype, "none") == 0 ? "raw" : c->fstype);
	if (c->nfs_server != NULL)
		snprintf(label, sizeof(label), "%s nfs %s %s", who, c->nfs_opts,
		    c->nfs_server);
	if ((opts = mountopts(c)) == NULL) {
		json_decref(doc);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	img = json_pack("{s:s, s:s, s:s, s:I}", "fstype", c->fstype,
	    "mkfs_options", c->mkfs_opts, "mount_options", opts, "size_bytes",
	    (json_int_t)c->size_bytes);
	free(opts);
	vm = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:I, s:i, "
	               "s:o}",
	    "kernel", c->kernel->path, "kernel_sha256", c->kernel->sha256,
	    "kernel_release", rel, "cmdline", cell->host->cmdline, "accel",
	    cell->accel, "cpus", c->cpus, "mem_mib", c->mem_mib, "qemu_version",
	    uml(c) ? "" : c->qemu_version, "boot_ns", (json_int_t)cell->boot_ns,
	    "parallel_guests", cell->parallel_guests, "image", img);
	if (vm != NULL && c->kernel->tree[0] != '\0')
		json_object_set_new(vm, "tree",
		    json_pack("{s:s, s:s, s:s?, s:o, s:o}", "path",
		        c->kernel->tree, "name", c->kernel->name, "commit",
		        c->kernel->commit[0] != '\0' ? c->kernel->commit : NULL,
		        "dirty",
		        c->kernel->dirty == -1 ? json_null()
		                               : json_boolean(c->kernel->dirty),
		        "build_seconds",
		        c->kernel->build_s < 0
		            ? json_null()
		            : json_integer(c->kernel->build_s)));
	if (vm != NULL && c->nfs_server != NULL)
		json_object_set_new(vm, "nfs",
		    json_pack("{s:s, s:s}", "server", c->nfs_server,
		        "mount_options", c->nfs_opts));
	if (vm == NULL || json_object_set_new(doc, "vm", vm) == -1 ||
	    machine(cell, vm) != 0 ||
	    json_object_set_new(doc, "label", json_string(label)) == -1) {
		json_decref(doc);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return doc;
}

void
vm_cell_cleanup(struct vm_cell *cell)
{
	if (cell->host == NULL)
		return;
	vm_guest_kill(&cell->host->guest);
	vm_nfs_stop(cell);
	if (cell->host->dir[0] != '\0')
		vm_rmtree(cell->host->dir);
	free(cell->host);
	cell->host = NULL;
}
