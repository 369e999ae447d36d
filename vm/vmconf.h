/*
 * vmconf.h - /vm.conf, the file the host puts in the guest's initramfs to
 * tell the guest's init (vm/init.c) what to load and run, and the limits
 * both sides hold to. Host and guest share this header and vm/vmconf.c
 * (the guest's init is a static program built from init.c and vmconf.c
 * alone: nothing here needs more than the C library), so that what the
 * host writes is exactly what the guest reads:
 *
 *	module /modules/00-virtio_pci.ko	loaded in this order
 *	fstype ext4				the disk's filesystem, or none
 *	mountopts noatime			as mount(8) takes them
 *	exe /work/ubcreplay			the host's binary, run chrooted
 *	setup /run/ubcvm/out/nfs-setup.sh	a script run chrooted before it
 *	arg ...					its arguments, one a line
 *	transport hostfs			the shares: 9p (QEMU, the
 *						default) or hostfs (UML)
 *	outdir /tmp/ubcreplay-uml/out		hostfs: the out share's host path
 *	disk /dev/ubda				the disk (default /dev/vda)
 *	settle_ns 2000000000			ns to idle before the mount
 *
 * A line is a key, one blank, and the value to the newline: a value may
 * hold blanks, never a newline. The writer leaves out a key whose value is
 * empty, and the reader takes a missing key as its default: fstype none,
 * mountopts and setup none, transport 9p, disk /dev/vda, settle_ns none.
 * The writer refuses what the reader could not take back whole (a newline
 * in a value, a line, module or argument past a limit); the reader refuses
 * the same, naming the line, rather than truncate or drop anything.
 *
 *	struct vmconf c = {.fstype = "ext4", .exe = exe, ...};
 *	char *text = vmconf_format(&c, err, sizeof(err));
 *	...
 *	vmconf_parse(text, strlen(text), &back, err, sizeof(err));
 *	vmconf_free(&back);
 */
#ifndef UBC_VMCONF_H
#define UBC_VMCONF_H

#include <stddef.h>

/* The longest line, its key and newline included. */
#define VMCONF_LINE_MAX 4096
/* The most module lines, and the most arguments after the program's name. */
#define VMCONF_MODULES_MAX 128
#define VMCONF_ARGS_MAX    254

struct vmconf {
	const char *fstype;    /* "ext4", ..., "none" */
	const char *mountopts; /* "" for none */
	const char *exe;
	const char *setup; /* NULL or "" for none */
	/*
	 * How the guest reaches the host's root and its out directory: "9p"
	 * (virtio, the tags ubcroot and ubcout; NULL or "" say it too) or
	 * "hostfs" (User Mode Linux: the host's own paths, outdir the out
	 * directory's). disk: the cell's disk, NULL or "" for /dev/vda.
	 */
	const char *transport, *outdir, *disk;
	/*
	 * The scheduler features the guest sets before the job (words for
	 * /sys/kernel/debug/sched/features, space-separated; NULL or "" for
	 * none): UML's virtio cells say NO_WAKEUP_PREEMPTION (vm/uml.c).
	 */
	const char *schedfeat;
	/*
	 * Nanoseconds the guest idles before it mounts the disk, in decimal
	 * (NULL or "" for none): UML's virtio cells, whose boot takes a tenth
	 * of the simulated time a real guest's takes (vm/vdisk.h, settle_ns).
	 */
	const char *settle_ns;
	size_t nmod;
	const char *const *mod; /* paths inside the initramfs */
	size_t narg;
	const char *const *arg;
};

/*
 * The text of /vm.conf for c, malloc'd; NULL with err naming the value and
 * the limit it breaks, or the value holding a newline.
 */
char *vmconf_format(const struct vmconf *c, char *err, size_t errlen);

/*
 * Reads text (len bytes) into c, every string malloc'd; -1 with err naming
 * the line (counted from 1) that is too long, past a limit, has no value
 * or an unknown key, or when no exe line names a program.
 */
int vmconf_parse(
    const char *text, size_t len, struct vmconf *c, char *err, size_t errlen);
/* Frees what vmconf_parse allocated. */
void vmconf_free(struct vmconf *c);

#endif
