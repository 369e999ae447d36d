/*
 * vm.h - what the vm module promises: a kernel under test booted in a QEMU
 * guest (or, a User Mode Linux kernel, as a host program on simulated
 * time) that runs the project's own job, and the job's result brought back
 * to the host with a "vm" object saying how it was measured.
 *
 * One cell is one kernel and one disk: a fresh image made on the host, an
 * initramfs holding our init (vm/init.c) and the modules the cell needs,
 * and a guest that mounts the host's root read-only over 9p, runs the
 * host's ubcreplay chrooted there, writes the result to a second, writable
 * 9p share, and powers off. A UML cell has the same init and /vm.conf as
 * files of its directory instead, and the host's root over hostfs.
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
 *
 * This header is what the driver (cmd/vm.c) may use: the kernel, the checks
 * before anything boots, the cell's life and its result, the plan. How a
 * cell gets there (QEMU, the image, the initramfs, the NFS servers, the
 * processes it spawns) is vm_impl.h's, which only vm/'s own files include
 * (contrib/arrows.py checks it).
 */
#ifndef UBC_VM_H
#define UBC_VM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/*
 * kernel.c: a bzImage and where its modules are. What its setup header
 * says, read from the image's first VM_KERNEL_HEAD bytes (the header and,
 * within 64 KiB of it, the version string):
 */
#define VM_KERNEL_HEAD (0x10200 + 256)

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

/*
 * The machine a kernel boots on: a QEMU guest (a bzImage), or the kernel
 * itself as a host program, User Mode Linux (uml_kernel.c, uml.c).
 */
enum vm_machine { VM_MACHINE_QEMU, VM_MACHINE_UML };

struct vm_kernel {
	enum vm_machine machine;
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
	/*
	 * UML: the project's patches applied to its tree, one "NAME SHA256"
	 * a line, from contrib/vm-kbuild.sh's kbuild.patches beside it.
	 */
	char patches[1024];
	/* UML: it takes uml_cpu= (contrib/uml-patches/0004). */
	int uml_cpu;
	/* UML: it takes uml_bio_yield (contrib/uml-patches/0005). */
	int uml_bio_yield;
};

/*
 * ktree.c: path as the kernel, a built tree when it is a directory
 * (vm_ktree_open), else a file (vm_kernel_file_open).
 */
int vm_kernel_open(struct vm_kernel *k, const char *path,
    const char *modules_dir, char *err, size_t errlen);

/*
 * kernel.c: recognises path as an x86 bzImage ("HdrS" in its setup
 * header), or as a UML kernel (vm_uml_open), and reads its version string.
 * The modules are modules_dir when given, else the unpacked package's
 * lib/modules/RELEASE beside boot/, else none (a kernel with everything
 * built in).
 */
int vm_kernel_file_open(struct vm_kernel *k, const char *path,
    const char *modules_dir, char *err, size_t errlen);

/*
 * ktree.c: dir, a kernel tree built in place or its O= build directory, as
 * the kernel: its arch/x86/boot/bzImage, the release in
 * include/config/kernel.release, the modules modules.order names (a
 * modules.dep is made beside it when it has none or an older one), and the
 * source tree's git commit.
 */
int vm_ktree_open(
    struct vm_kernel *k, const char *dir, char *err, size_t errlen);

/*
 * uml_kernel.c: whether the ELF file of len bytes at elf is a User Mode
 * Linux kernel (an x86-64 executable with UML's .uml.setup.init section).
 */
int vm_uml_is(const unsigned char *elf, size_t len);
/*
 * path, a UML kernel (`linux` from contrib/vm-kbuild.sh -a um), as the
 * kernel: its release from its banner, the project's patches from
 * kbuild.patches beside it. -1, naming the file and what it lacks, when it
 * is no UML kernel, has no time-travel support, or lacks the project's
 * patches (the disk model, the seed): these make it deterministic.
 */
int vm_uml_open(
    struct vm_kernel *k, const char *path, char *err, size_t errlen);

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

/* sha256.c: FIPS 180-4 SHA-256 of a file, as 64 hex digits. */
int vm_sha256_file(const char *path, char hex[65], char *err, size_t errlen);

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
 * Before anything boots (the driver asks once for the whole invocation).
 * image.c: whether mkfs.FSTYPE can be run ("none": a raw disk needs
 * nothing).
 */
int vm_image_check(const char *fstype, char *err, size_t errlen);
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

/* qemu.c: "7.2.22" from `qemu-system-x86_64 --version`; -1 when missing. */
int vm_qemu_version(char *buf, size_t len, char *err, size_t errlen);

/*
 * nfs.c: NFS cells. In the guest, the job runs on VM_GUEST_NFS, an NFS
 * mount of either the cell's own disk exported by the guest kernel's knfsd
 * over its loopback ("knfsd"), or a directory of the cell's exported by
 * nfs-ganesha on the host, in network and mount namespaces of the cell's
 * own that QEMU shares, reached through QEMU's user network ("ganesha";
 * root only).
 */
#define VM_GUEST_NFS "/run/ubcvm/nfs"

/* The server's name and the options, and that the host has its programs. */
int vm_nfs_check(const char *server, const char *opts, const char *path,
    char *err, size_t errlen);
/* The modules an NFS cell needs beyond its disk's. */
size_t vm_nfs_modules(const char *server, const char **names, size_t max);
/* The capture's interface in the guest. */
const char *vm_nfs_iface(const char *server);

/*
 * cell.c: one kernel on one disk, from nothing to a result. In the guest
 * the disk is /dev/vda, mounted on VM_GUEST_DISK unless it stays raw, and
 * the job writes its result to VM_GUEST_RESULT.
 */
#define VM_GUEST_DISK   "/run/ubcvm/disk"
#define VM_GUEST_RESULT "/run/ubcvm/out/result.json"

struct vdisk_model;

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
	/*
	 * The knobs the user gave rather than took by default (VM_GIVEN_*):
	 * a UML cell refuses those it has no such thing for, and runs the
	 * defaults on its one CPU.
	 */
	unsigned given;
	/* UML's seed (uml_seed=), -1 not given: 1 on UML, none on QEMU. */
	long long seed;
	/*
	 * UML's disk: NULL for ubd (the default), else the virtio disk of
	 * vm/vdisk.h with this model, read from vdisk_file ("" for the
	 * built-in defaults, contrib/vdisk.model's values). QEMU refuses it.
	 */
	const struct vdisk_model *vdisk;
	const char *vdisk_file;
};

enum { VM_GIVEN_CPUS = 1, VM_GIVEN_QUEUES = 2 };

/* A UML cell's seed when none is given. */
#define VM_UML_SEED 1

/*
 * A cell's life: IDLE, prepared and started; SERVER while the host's NFS
 * server comes up (ganesha cells); RUNNING while the guest runs; RETRY
 * when KVM could not run it under --accel auto (the driver calls
 * vm_cell_retry); DONE or FAILED.
 */
enum vm_state { VM_IDLE, VM_SERVER, VM_RUNNING, VM_RETRY, VM_DONE, VM_FAILED };

/* The cell's files, QEMU and servers on the host (vm_impl.h). */
struct vm_cell_host;

struct vm_cell {
	const struct vm_cell_conf *c;
	enum vm_state state;
	char accel[8];    /* the accelerator that ran it */
	int64_t boot_ns;  /* QEMU start to the job's start, -1 not yet */
	int64_t guest_ns; /* QEMU start to the job's end, -1 not yet */
	/*
	 * The most cells the driver had under way at once while this one
	 * was (the "vm" object's parallel_guests); set by the driver.
	 */
	int parallel_guests;
	/* From vm_cell_prepare to vm_cell_cleanup; NULL outside. */
	struct vm_cell_host *host;
};

/*
 * Before anything boots: that the cell's modules resolve, that its
 * /vm.conf can be written whole (no newline in a value, nothing past the
 * limits the guest holds to), and that its machine has what it asks for
 * (UML: no NFS, accelerator, icount clock, second CPU or queues; QEMU: no
 * seed); err names the kernel and what is wrong.
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
