/*
 * vm_impl.h - what the files of vm/ share to bring a cell from nothing to a
 * result: the image, the initramfs, QEMU, the host's NFS servers, the
 * programs they spawn, and the cell's state on the host. Not for use
 * outside vm/ (contrib/arrows.py refuses it): callers have vm.h. The parts,
 * each a file:
 *
 *	cell.c		a cell's life, driving the parts below
 *	image.c		the disk image and mkfs
 *	initramfs.c	the gzip'd cpio with our init, modules and /vm.conf
 *	qemu.c		the guest: QEMU started, watched, killed
 *	uml.c		or User Mode Linux, the kernel as a host program
 *	nfs.c		NFS cells: set-up script, ganesha and its namespaces
 *	spawn.c		every program a cell runs on the host
 *	util.c		small file helpers
 *	vmconf.c	/vm.conf, shared with the guest's init (vmconf.h)
 *
 * kernel.c, ktree.c, uml_kernel.c, modules.c, sha256.c and plan.c are
 * vm.h's; of this they use only vm_sha256 (plan.c) and vm_spawn_output
 * (ktree.c, for git).
 */
#ifndef UBC_VM_IMPL_H
#define UBC_VM_IMPL_H

#include <sys/types.h>

#include <time.h>

#include "vm.h"

/* sha256.c: the digest of bytes, as 64 hex digits. */
void vm_sha256(const void *data, size_t len, char hex[65]);

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
 * mkfs's output goes to logpath. fixed: what mkfs would draw at random or
 * from the clock is fixed instead (ext2/3/4: the UUID, the directory hash
 * seed, its time), so that a deterministic machine (UML) gets the same
 * filesystem every time.
 */
int vm_image_make(const char *path, const char *fstype, const char *mkfs_opts,
    uint64_t size_bytes, int fixed, const char *logpath, char *err,
    size_t errlen);

/* The UUID, and hash seed, of a fixed filesystem. */
#define VM_IMAGE_UUID "75626372-6570-6c61-7975-6d6c00000001"

/*
 * initramfs.c: our init and the cell's /vm.conf (text conf) as the files
 * DIR/init and DIR/vm.conf, for a guest without an initramfs (UML), which
 * runs them from the host's filesystem.
 */
int vm_init_write(const char *dir, const char *conf, char *err, size_t errlen);

/*
 * uml.c: User Mode Linux, the kernel as a host program. Its command line
 * names the cell's files at VM_UML_DIR, where the cell's directory is
 * bind-mounted in a mount namespace of the UML process's own: the guest
 * is chaotic, its command line goes into its random pool, and the same
 * counts need the same command line (docs/vm-machine.md). The disk model
 * (contrib/uml-patches/0002) is vm_uml_base_ns(seed) per request and
 * VM_UML_NS_PER_KIB per KiB; the guest's clock starts at VM_UML_START.
 */
#define VM_UML_DIR        "/tmp/ubcreplay-uml"
#define VM_UML_NS_PER_KIB 2000
#define VM_UML_START      "1700000000000000000"

/*
 * The disk model's cost per request for a seed: VM_UML_BASE_NS, plus
 * VM_UML_SEED_STEP_NS for every seed past 1, modulo VM_UML_SEED_STEPS
 * (seed 1 is the plain model; seed 2 is 0.1% slower, ...). What a seed
 * changes: the guest's random bytes move nothing measured, this moves a
 * chaotic job's writeback (docs/vm-machine.md, "What a seed changes").
 */
#define VM_UML_BASE_NS      100000
#define VM_UML_SEED_STEP_NS 100
#define VM_UML_SEED_STEPS   100
int vm_uml_base_ns(long long seed);

/* Cell c's seed: the one given, or VM_UML_SEED. */
long long vm_uml_seed(const struct vm_cell_conf *c);

/* The guest's command line (after the program's name) for cell c. */
int vm_uml_cmdline(const struct vm_cell_conf *c, char *buf, size_t len,
    char *err, size_t errlen);

/*
 * The virtio disk's model of cell c (c->vdisk not NULL) as JSON, for its
 * plan (what it measures) and its result: {"kind": "virtio", the fields
 * of struct vdisk_model, named as there; the cpu_* ones only when one is
 * not 0, cpu_bio_yield and settle_ns only when not 0}.
 */
json_t *vm_uml_vdisk_json(const struct vm_cell_conf *c);
/*
 * The nanoseconds the guest of cell c idles before its mount (the virtio
 * disk model's settle_ns), in decimal in buf for vm.conf; NULL when it
 * does not (ubd, or 0).
 */
const char *vm_uml_settle(const struct vm_cell_conf *c, char *buf, size_t len);

struct vm_guest;

struct vm_uml_conf {
	const char *program; /* the UML kernel */
	const char *dir;     /* the cell's directory, at VM_UML_DIR */
	const char *cmdline; /* vm_uml_cmdline's, split at blanks */
	const char *console; /* its standard output and error */
	/* The virtio disk's model, NULL for ubd (see uml.c). */
	const struct vdisk_model *vdisk;
};

/*
 * The scheduler features a virtio cell's guest sets (vm/init.c). Its CPU
 * costs no simulated time, so a task woken on its one CPU otherwise
 * preempts the waker at once: the flusher, woken by ext4's
 * unwritten-extent conversion as each completion frees journal credits,
 * wrote one inode's pages a wake, in requests of their own
 * (docs/vm-machine.md, "Where the merging goes").
 */
#define VM_UML_SCHED_FEATURES "NO_WAKEUP_PREEMPTION"

/*
 * What the virtio disk's server says on the console log's last line when
 * the cell fails by it (its disk failed, or UML was killed), then exits
 * VM_UML_VDISK_FAILED; the cell fails with what follows the prefix.
 */
#define VM_UML_SERVER_SAYS  "ubcreplay: "
#define VM_UML_VDISK_SAYS   VM_UML_SERVER_SAYS "the virtio disk failed: "
#define VM_UML_VDISK_FAILED 125

/*
 * Starts UML through vm_spawn without address-space randomisation, in a
 * mount namespace of its own (a user namespace too, when not root) where
 * the cell's directory is VM_UML_DIR, its memory file on /dev/shm.
 */
int vm_uml_start(
    struct vm_guest *g, const struct vm_uml_conf *c, char *err, size_t errlen);

/* qemu.c: QEMU itself. */
#define VM_QEMU "qemu-system-x86_64"

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
/*
 * The guest's program (QEMU, UML) started through vm_spawn with its log
 * truncated and a parent-death SIGKILL, its start times taken; g->pid 0
 * when it could not start (err says why).
 */
struct vm_spawn;
void vm_guest_spawn(
    struct vm_guest *g, struct vm_spawn *sp, char *err, size_t errlen);
/* 1 when QEMU has exited (reaped, g->status set), 0 while it runs. */
int vm_guest_exited(struct vm_guest *g);
/* Kills QEMU's whole process group and reaps it; a no-op when not running. */
void vm_guest_kill(struct vm_guest *g);

/*
 * spawn.c: a program vm runs on the host, in a process group of its
 * own, with stdin from /dev/null, stdout and stderr to log (NULL:
 * /dev/null; stdout to the descriptor out instead unless it is -1), no
 * other descriptor of ours, the signals we catch at their
 * defaults, pdeathsig (0: SIGKILL) sent to it should we die, and inside
 * the namespaces netns and mntns (descriptors, or -1 to stay in ours).
 * argv[0] is looked up on PATH when it holds no slash.
 */
struct vm_spawn {
	char *const *argv;
	const char *log;
	int truncate; /* the log starts empty */
	int out;
	int netns, mntns;
	int pdeathsig;
	/*
	 * Run in the child after the namespaces, before exec (NULL: none);
	 * -1 with errno set fails the start.
	 */
	int (*child)(const void *arg);
	const void *child_arg;
	/*
	 * Run in the child instead of exec, after everything else (NULL:
	 * exec argv); the child exits with what it returns.
	 */
	int (*run)(const void *arg);
	const void *run_arg;
};

pid_t vm_spawn(const struct vm_spawn *s, char *err, size_t errlen);
/*
 * 1 when the process has exited or none runs (*pid 0): it is reaped, its
 * wait status in *status (when not NULL) and *pid set to 0 at once, so
 * that a pid the system may give another process is never signalled.
 */
int vm_spawn_exited(pid_t *pid, int *status);
/* Waits for the process's end, reaps it and sets *pid to 0; 0: a no-op. */
void vm_spawn_wait(pid_t *pid, int *status);
/* Kills the process's group, reaps it and sets *pid to 0; 0 is a no-op. */
void vm_spawn_kill(pid_t *pid, int *status);
/*
 * Runs argv to its end as vm_spawn does, stderr to /dev/null, and keeps
 * the first len - 1 bytes of its output in out, NUL-terminated (the rest
 * is read and dropped). 0 when it exited 0; -1 when it could not start or
 * failed.
 */
int vm_spawn_output(char *const *argv, char *out, size_t len);

/* util.c: the last lines of a text file, carriage returns dropped. */
void vm_tail(const char *path, int lines, char *buf, size_t len);
/* Removes a directory tree (the cell's temporary files). */
void vm_rmtree(const char *path);

/*
 * A cell on the host, from vm_cell_prepare to vm_cell_cleanup: its
 * temporary directory (the image, the initramfs, the console, QEMU's log
 * and the directory the guest writes to), its guest, and for ganesha
 * (nfs.c) the holder of its namespaces and their descriptors (-1 for
 * none), the rpcbind and ganesha in them (0 for none), and when they were
 * started.
 */
struct vm_cell_host {
	char dir[PATH_MAX];
	char cmdline[512];
	struct vm_guest guest;
	int kvm_failed; /* auto fell back to TCG */
	pid_t ns_pid, rpcbind_pid, nfs_pid;
	int netns, mntns;
	int64_t nfs_start_ns;
};

/*
 * nfs.c: the guest sets its NFS mount up with a script the host writes
 * into the cell's out directory, which the init runs before the job.
 */
#define VM_GUEST_SETUP "/run/ubcvm/out/nfs-setup.sh"

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

#endif
