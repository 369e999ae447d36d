/*
 * vm.h - what the vm module promises: a kernel under test booted in a QEMU
 * guest that runs the project's own job, and the job's result brought back
 * to the host with a "vm" object saying how it was measured.
 *
 * One cell is one kernel and one disk: a fresh image made on the host, an
 * initramfs holding our init (vm/init.c) and the modules the cell needs,
 * and a guest that mounts the host's root read-only over 9p, runs the
 * host's ubcreplay chrooted there, writes the result to a second, writable
 * 9p share, and powers off.
 *
 *	struct vm_kernel k;
 *	struct vm_cell cell;
 *
 *	vm_kernel_open(&k, "boot/vmlinuz-6.1.0-57-amd64", NULL, err, len);
 *	vm_cell_init(&cell, &conf);		conf names k, the disk, the job
 *	vm_cell_prepare(&cell, err, len);	image, initramfs, temp dir
 *	vm_cell_start(&cell, err, len);		the NFS server, or QEMU
 *	while ((r = vm_cell_poll(&cell, err, len)) == VM_SERVER ||
 *	    r == VM_RUNNING || (r == VM_RETRY &&
 *	    vm_cell_retry(&cell, err, len) == 0))
 *		sleep a little, look at signals;
 *	doc = vm_cell_result(&cell, err, len);	result + "vm" object
 *	vm_cell_cleanup(&cell);			kills, reaps, removes
 *
 * Nothing here prints or exits: errors come back as -1 (or NULL) with the
 * message, naming the kernel or the file, in the caller's buffer.
 */
#ifndef UBC_VM_H
#define UBC_VM_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

/*
 * kernel.c: a bzImage and where its modules are. What its setup header
 * says, read from the image's first VM_KERNEL_HEAD bytes (the header and,
 * within 64 KiB of it, the version string):
 */
#define VM_KERNEL_HEAD (0x10200 + 256)
/* The most an image's payload may unpack to (a vmlinux is ~20-80 MiB). */
#define VM_KERNEL_VMLINUX_MAX (1 << 30)

struct vm_bzimage {
	char version[256];    /* the setup header's kernel_version */
	char release[128];    /* its first word: what uname -r will say */
	uint64_t payload_off; /* the compressed kernel in the file, */
	uint64_t payload_len; /* 0 when there is none: */
	char nopayload[64];   /* why */
};

/*
 * Reads the setup header and version string from head (len bytes, the
 * start of a file of filesize bytes), trusting no offset in it. -1 with
 * err a phrase to follow the file's name ("is not a kernel image ...")
 * when it is no x86 bzImage or has no usable release.
 */
int vm_kernel_parse(const unsigned char *head, size_t len, uint64_t filesize,
    struct vm_bzimage *b, char *err, size_t errlen);
/* Whether the ELF image elf (len bytes) has a PVH entry note. */
int vm_kernel_haspvh(const unsigned char *elf, size_t len);

struct vm_kernel {
	struct vm_bzimage image;
	char path[PATH_MAX];   /* as given */
	char version[256];     /* the setup header's kernel_version */
	char release[128];     /* its first word: what uname -r will say */
	char moddir[PATH_MAX]; /* lib/modules/RELEASE, or "" for none */
	char sha256[65];       /* of the file, hex */
	/* ktree.c: set when the kernel was given as a built tree. */
	char tree[PATH_MAX]; /* the build directory, absolute; "" for none */
	char commit[41];     /* the source tree's git HEAD, or "" */
	int dirty;           /* tracked files changed since; -1 not git */
	char name[320];      /* "6.1.192 base@1a2b3c4": what a user reads */
	long build_s;        /* contrib/vm-kbuild.sh's last build, -1 unknown */
};

/*
 * Recognises path as an x86 bzImage ("HdrS" in its setup header) and reads
 * its version string. The modules are modules_dir when given, else the
 * unpacked package's lib/modules/RELEASE beside boot/, else none (a kernel
 * with everything built in).
 */
int vm_kernel_open(struct vm_kernel *k, const char *path,
    const char *modules_dir, char *err, size_t errlen);

/*
 * ktree.c: dir, a kernel tree built in place or its O= build directory, as
 * the kernel: its arch/x86/boot/bzImage, the release in
 * include/config/kernel.release, the modules modules.order names (a
 * modules.dep is made beside it when it has none or an older one), and the
 * source tree's git commit. vm_kernel_open takes this path for a directory.
 */
int vm_ktree_open(
    struct vm_kernel *k, const char *dir, char *err, size_t errlen);

/* What a user reads for k: the tree's name, else the release. */
const char *vm_kernel_name(const struct vm_kernel *k);

/*
 * Unpacks the image's compressed kernel into out, an ELF vmlinux QEMU can
 * boot through its PVH entry. -1 (err says why) when the image has no
 * such payload, libarchive cannot decompress it, or it has no PVH entry:
 * the bzImage itself then boots.
 */
int vm_kernel_unpack(
    const struct vm_kernel *k, const char *out, char *err, size_t errlen);

/* sha256.c: FIPS 180-4 SHA-256 of a file or of bytes, as 64 hex digits. */
int vm_sha256_file(const char *path, char hex[65], char *err, size_t errlen);
void vm_sha256(const void *data, size_t len, char hex[65]);

/* modules.c: the modules a cell needs, dependencies first. */
struct vm_modset {
	size_t n;
	char **path; /* absolute paths, in load order */
};

/*
 * Resolves names (module names as modprobe takes them, '-' and '_' alike)
 * through moddir's modules.dep to the closure in load order; a module built
 * in (modules.builtin) needs nothing. A name that is neither is an error
 * naming it and the kernel's release.
 */
int vm_modules_resolve(const struct vm_kernel *k, const char *const *names,
    size_t nnames, struct vm_modset *set, char *err, size_t errlen);
void vm_modules_free(struct vm_modset *set);

/* The module names a cell on fstype needs ("none": a raw disk). */
size_t vm_modules_needed(const char *fstype, const char **names, size_t max);

/*
 * initramfs.c: a gzip'd cpio newc archive: our init as /init, the modules
 * (decompressed when they are .ko.xz, .ko.zst or .ko.gz) and /vm.conf,
 * whose text conf is (vm/vmconf.h; its module lines name the modules as
 * vm_initramfs_modname does).
 */
int vm_initramfs_write(const char *path, const struct vm_modset *mods,
    const char *conf, char *err, size_t errlen);
/* Module i's path inside the initramfs, malloc'd; NULL: out of memory. */
char *vm_initramfs_modname(const struct vm_modset *mods, size_t i);

/*
 * image.c: a sparse image file of size_bytes with a filesystem made by
 * mkfs.FSTYPE and mkfs_opts (split at blanks); "none" leaves it raw.
 * mkfs's output goes to logpath. vm_image_check says, before anything
 * boots, whether mkfs.FSTYPE can be run.
 */
int vm_image_check(const char *fstype, char *err, size_t errlen);
int vm_image_make(const char *path, const char *fstype, const char *mkfs_opts,
    uint64_t size_bytes, const char *logpath, char *err, size_t errlen);
/*
 * Whether the files of archive (their sizes as libarchive reads them) fit
 * a filesystem on an image of size_bytes; -1 with err saying how much it
 * would take, or why the archive cannot be read.
 */
int vm_image_fits(
    const char *archive, uint64_t size_bytes, char *err, size_t errlen);
/* Where cells make their temporary directories: TMPDIR, else /tmp. */
const char *vm_tmpdir(void);
/*
 * Whether dir's filesystem takes O_DIRECT, as QEMU opens the disk there
 * (cache=none); -1 with err naming dir and how to fix it.
 */
int vm_image_direct_check(const char *dir, char *err, size_t errlen);

/* qemu.c: QEMU itself. */
#define VM_QEMU "qemu-system-x86_64"

/* "7.2.22" from `qemu-system-x86_64 --version`; -1 when QEMU is missing. */
int vm_qemu_version(char *buf, size_t len, char *err, size_t errlen);

/* Whether /dev/kvm opens and the processor has vmx or svm. */
int vm_kvm_usable(void);

struct vm_guest_conf {
	const char *kernel, *initrd, *cmdline;
	const char *image;  /* the disk, /dev/vda in the guest */
	const char *outdir; /* the writable share */
	const char *accel;  /* "kvm" or "tcg" */
	int cpus;
	int mem_mib;
	int queues;          /* virtio-blk's queues */
	int icount_shift;    /* -icount shift=N, or -1: the host's real time */
	const char *console; /* the serial console's file */
	const char *netdev;  /* -netdev's argument, or NULL: no network */
	const char *log;     /* QEMU's own stdout and stderr */
	int netns, mntns;    /* the namespaces QEMU runs in, or -1 */
};

struct vm_guest {
	pid_t pid; /* also its process group; 0 when not running */
	int64_t start_ns;
	struct timespec start_wall; /* CLOCK_REALTIME at the start */
	int status;                 /* wait status once reaped */
};

int vm_guest_start(struct vm_guest *g, const struct vm_guest_conf *c, char *err,
    size_t errlen);
/* 1 when QEMU has exited (reaped, g->status set), 0 while it runs. */
int vm_guest_exited(struct vm_guest *g);
/* Kills QEMU's whole process group and reaps it; a no-op when not running. */
void vm_guest_kill(struct vm_guest *g);

/*
 * spawn.c: a program a cell runs on the host, in a process group of its
 * own, with stdin from /dev/null, stdout and stderr to log (NULL:
 * /dev/null), no other descriptor of ours, the signals we catch at their
 * defaults, pdeathsig (0: SIGKILL) sent to it should we die, and inside
 * the namespaces netns and mntns (descriptors, or -1 to stay in ours).
 * argv[0] is looked up on PATH when it holds no slash.
 */
struct vm_spawn {
	char *const *argv;
	const char *log;
	int truncate; /* the log starts empty */
	int netns, mntns;
	int pdeathsig;
};

pid_t vm_spawn(const struct vm_spawn *s, char *err, size_t errlen);
/*
 * 1 when the process has exited or none runs (*pid 0): it is reaped, its
 * wait status in *status (when not NULL) and *pid set to 0 at once, so
 * that a pid the system may give another process is never signalled.
 */
int vm_spawn_exited(pid_t *pid, int *status);
/* Kills the process's group, reaps it and sets *pid to 0; 0 is a no-op. */
void vm_spawn_kill(pid_t *pid, int *status);

/* util.c: the last lines of a text file, carriage returns dropped. */
void vm_tail(const char *path, int lines, char *buf, size_t len);
/* Removes a directory tree (the cell's temporary files). */
void vm_rmtree(const char *path);

/*
 * cell.c: one kernel on one disk, from nothing to a result. In the guest
 * the disk is /dev/vda, mounted on VM_GUEST_DISK unless it stays raw, and
 * the job writes its result to VM_GUEST_RESULT.
 */
#define VM_GUEST_DISK   "/run/ubcvm/disk"
#define VM_GUEST_RESULT "/run/ubcvm/out/result.json"

struct vm_cell_conf {
	const struct vm_kernel *kernel;
	/*
	 * The modules the cell loads, resolved once per kernel and
	 * filesystem by the caller (vm_modules_needed, vm_nfs_modules,
	 * vm_modules_resolve) and shared by its cells.
	 */
	const struct vm_modset *mods;
	/*
	 * What QEMU boots: the vmlinux the caller unpacked once per kernel
	 * (vm_kernel_unpack), or the bzImage itself.
	 */
	const char *boot;
	const char *fstype;     /* "ext4", ..., or "none" for a raw disk */
	const char *mkfs_opts;  /* "" for none */
	const char *mount_opts; /* "" for none */
	uint64_t size_bytes;
	const char *accel; /* "auto", "kvm" or "tcg" */
	int cpus, mem_mib;
	int queues;       /* virtio-blk queues, 1 to cpus */
	int icount_shift; /* the instruction-count clock's, -1: real time */
	int64_t timeout_ns;
	/* QEMU's start to the job's, or 0: a bound for the accelerator. */
	int64_t boot_timeout_ns;
	const char *exe;  /* the host's ubcreplay */
	size_t njob;      /* the job's arguments, -o added after the */
	char *const *job; /* subcommand's name */
	const char *qemu_version;
	/*
	 * An NFS cell (vm/nfs.c): "knfsd" or "ganesha", NULL for none. The
	 * disk above is then the exported filesystem's (knfsd) and the job
	 * runs on the NFS mount, made with nfs_opts.
	 */
	const char *nfs_server;
	const char *nfs_opts;
	const char *nfs_path; /* the server's path to mount, "": its export */
};

/*
 * A cell's life: IDLE, prepared and started; SERVER while the host's NFS
 * server comes up (ganesha cells); RUNNING while the guest runs; RETRY
 * when KVM could not run it under --accel auto (the driver calls
 * vm_cell_retry); DONE or FAILED.
 */
enum vm_state { VM_IDLE, VM_SERVER, VM_RUNNING, VM_RETRY, VM_DONE, VM_FAILED };

struct vm_cell {
	const struct vm_cell_conf *c;
	char dir[PATH_MAX]; /* the cell's temporary directory */
	char cmdline[512];
	struct vm_guest guest;
	enum vm_state state;
	char accel[8];   /* the accelerator that ran it */
	int kvm_failed;  /* auto fell back to TCG */
	int64_t boot_ns; /* QEMU start to the job's start, -1 not yet */
	/*
	 * The most cells the driver had under way at once while this one
	 * was (the "vm" object's parallel_guests); set by the driver.
	 */
	int parallel_guests;
	/*
	 * ganesha (nfs.c): the holder of the cell's namespaces and their
	 * descriptors (-1 for none), the rpcbind and ganesha in them (0 for
	 * none), and when they were started.
	 */
	pid_t ns_pid, rpcbind_pid, nfs_pid;
	int netns, mntns;
	int64_t nfs_start_ns;
};

/*
 * nfs.c: NFS cells. In the guest, the job runs on VM_GUEST_NFS, an NFS
 * mount of either the cell's own disk exported by the guest kernel's knfsd
 * over its loopback ("knfsd"), or a directory of the cell's exported by
 * nfs-ganesha on the host, in network and mount namespaces of the cell's
 * own that QEMU shares, reached through QEMU's user network ("ganesha";
 * root only). The guest sets it
 * up with a script the host writes into the cell's out directory, which
 * the init runs before the job.
 */
#define VM_GUEST_NFS   "/run/ubcvm/nfs"
#define VM_GUEST_SETUP "/run/ubcvm/out/nfs-setup.sh"

/* The server's name and the options, and that the host has its programs. */
int vm_nfs_check(const char *server, const char *opts, const char *path,
    char *err, size_t errlen);
/* The modules an NFS cell needs beyond its disk's. */
size_t vm_nfs_modules(const char *server, const char **names, size_t max);
/* The capture's interface in the guest. */
const char *vm_nfs_iface(const char *server);
/* The set-up script (and ganesha's configuration and export). */
int vm_nfs_prepare(struct vm_cell *cell, char *err, size_t errlen);
/*
 * Starts the host's server, if the cell has one: the namespaces and
 * rpcbind; vm_nfs_ready then starts ganesha once rpcbind listens, and
 * says 1 when ganesha listens (at once for a cell without a server), 0
 * not yet, -1 (err says why; everything stopped) when one died or did
 * not come up in time. Neither waits.
 */
int vm_nfs_start(struct vm_cell *cell, char *err, size_t errlen);
int vm_nfs_ready(struct vm_cell *cell, char *err, size_t errlen);
/* Stops the host's servers and namespaces; a no-op when none runs. */
void vm_nfs_stop(struct vm_cell *cell);

/*
 * Before anything boots: that the cell's modules resolve and that its
 * /vm.conf can be written whole (no newline in a value, nothing past the
 * limits the guest holds to); err names what is wrong.
 */
int vm_cell_check(const struct vm_cell_conf *c, char *err, size_t errlen);
void vm_cell_init(struct vm_cell *cell, const struct vm_cell_conf *c);
/* Makes the temporary directory, image and initramfs. */
int vm_cell_prepare(struct vm_cell *cell, char *err, size_t errlen);
/*
 * accel "kvm" or "tcg"; with conf accel "auto", kvm unless it failed
 * before. The cell is then SERVER (ganesha coming up) or RUNNING.
 */
int vm_cell_start(struct vm_cell *cell, char *err, size_t errlen);
/*
 * SERVER or RUNNING while under way (a SERVER cell's guest is started
 * here once its server listens), RETRY when KVM could not run the guest
 * under --accel auto, DONE when its job finished with a result, FAILED
 * (err says why, with the console's last lines) when QEMU failed, the
 * guest panicked, did not start its job by the boot deadline, hung past
 * the timeout, or the job failed. Never waits.
 */
enum vm_state vm_cell_poll(struct vm_cell *cell, char *err, size_t errlen);
/*
 * A RETRY cell from the start under TCG: its guest and servers stopped, a
 * fresh image, out directory, NFS set-up and export. Later cells of this
 * process then go straight to TCG.
 */
int vm_cell_retry(struct vm_cell *cell, char *err, size_t errlen);
/* The job's result with the "vm" object and the label; NULL on error. */
json_t *vm_cell_result(struct vm_cell *cell, char *err, size_t errlen);
/* Kills and reaps the guest, removes the temporary directory. */
void vm_cell_cleanup(struct vm_cell *cell);

/*
 * plan.c: a vm invocation's cells as data (`vm --plan`), each with a
 * stable id: the digest of what decides what it measures (the kernel, this
 * program and the archive by digest, never by path; the disk, the machine,
 * the job), so that the same cell has the same id wherever the same files
 * are. The plan's id is the digest of its cells' ids.
 *
 *	vm_plan_make(&p, conf, ncell, &inputs, err, len);
 *	i = vm_plan_find(&p, "3f2a9c01b7de");	-1: not a cell of this plan
 *	json_object_set_new(vm, "plan", vm_plan_stamp(&p, i));
 *	vm_plan_load("results", p.id, &docs, &names, &n, err, len);
 */
#define VM_PLAN_ID 13 /* 12 hex digits and a NUL */

struct vm_plan_inputs {
	const char *exe, *exe_sha256;         /* this program */
	const char *archive, *archive_sha256; /* NULL for a job after -- */
};

struct vm_plan {
	size_t n;
	json_t
	    *cells; /* each cell's description, with "id", "label", "index" */
	char id[VM_PLAN_ID];
};

int vm_plan_make(struct vm_plan *p, const struct vm_cell_conf *conf, size_t n,
    const struct vm_plan_inputs *in, char *err, size_t errlen);
void vm_plan_free(struct vm_plan *p);
const char *vm_plan_cell_id(const struct vm_plan *p, size_t i);
/* The index of the cell whose id is id, -1 when the plan has none. */
long vm_plan_find(const struct vm_plan *p, const char *id);
/* What a result of cell i carries: the plan's id, its own, every cell's. */
json_t *vm_plan_stamp(const struct vm_plan *p, size_t i);
/*
 * Reads the results in dir (*.json, *.json.gz), which must all belong to
 * one plan (expect's, when not NULL), each of its cells once and none
 * missing; -1 naming the files of each plan, or the cells missing. docs and
 * names come back in the plan's order.
 */
int vm_plan_load(const char *dir, const char *expect, json_t ***docs,
    char ***names, size_t *n, char *err, size_t errlen);
void vm_plan_names_free(char **names, size_t n);

#endif
