/*
 * prepare.c - everything about a matrix of `ubcreplay vm` that can be
 * checked before any guest boots: this program's own file and the archive
 * (read, digested, a workload trace read whole, an archive against the
 * disk), the filesystems' tools, the kernels and the modules each cell
 * loads, QEMU and the directory its disks go to. It says what failed as a
 * value and why in err; it prints nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/wtrace.h"
#include "../replay/replay.h"
#include "runner.h"

/* This program's own file, which every guest runs, and its digest. */
static int
self(struct runner_prepared *p, char *err, size_t errlen)
{
	ssize_t n;

	if ((n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1)) <= 0) {
		snprintf(err, errlen, "cannot find this program's own file: %s",
		    strerror(errno));
		return -1;
	}
	p->exe[n] = '\0';
	return vm_sha256_file(p->exe, p->exe_sha256, err, errlen);
}

/*
 * The archive, read and digested. A workload trace reaches the guest as an
 * archive does (the host's files, read-only) and is checked whole here,
 * before any boot; how much of the disk it fills is known only by running
 * it: a full disk fails the run, naming the record. An archive must fit
 * the disk (ganesha's export is a directory on the host, not the disk).
 */
static int
archive(const struct runner_inputs *in, struct runner_prepared *p, char *err,
    size_t errlen)
{
	struct replay_wtrace_info wi;

	if (realpath(in->archive, p->archive) == NULL ||
	    access(p->archive, R_OK) == -1) {
		snprintf(err, errlen, "cannot read archive '%s': %s",
		    in->archive, strerror(errno));
		return -1;
	}
	if (vm_sha256_file(p->archive, p->archive_sha256, err, errlen) == -1)
		return -1;
	if (wtrace_is(p->archive))
		return replay_wtrace_identify(p->archive, &wi, err, errlen);
	if (in->nfs_server != NULL && strcmp(in->nfs_server, "ganesha") == 0)
		return 0;
	return vm_image_fits(p->archive, in->size_bytes, err, errlen);
}

/* Kernel i opened, and the modules of each of its filesystems resolved. */
static int
kernel(const struct runner_inputs *in, struct runner_prepared *p, size_t i,
    char *err, size_t errlen)
{
	char why[1024];

	if (vm_kernel_open(&p->k[i], in->kernel[i], in->modules, err, errlen) ==
	    -1)
		return -1;
	for (size_t f = 0; f < in->nfstype; f++) {
		const char *names[16];
		size_t nn = vm_modules_needed(in->fstype[f], names, 16);

		if (in->nfs_server != NULL)
			nn +=
			    vm_nfs_modules(in->nfs_server, names + nn, 16 - nn);
		if (vm_modules_resolve(&p->k[i], names, nn,
		        &p->mods[i * in->nfstype + f], why,
		        sizeof(why)) == -1) {
			snprintf(
			    err, errlen, "kernel '%s': %s", in->kernel[i], why);
			return -1;
		}
	}
	return 0;
}

enum runner_check
runner_prepare(const struct runner_inputs *in, struct runner_prepared *p,
    char *err, size_t errlen)
{
	int noqemu, qemu = 0;

	err[0] = '\0';
	/*
	 * Listing the cells, or reading their results, boots nothing; UML
	 * kernels need no QEMU (asked below, once they are known).
	 */
	noqemu = vm_qemu_version(p->qemu, sizeof(p->qemu), err, errlen) == -1 &&
	    in->boots;
	err[0] = '\0';
	if (self(p, err, errlen) == -1)
		return RUNNER_CHECK_SELF;
	if (in->archive != NULL && archive(in, p, err, errlen) == -1)
		return RUNNER_CHECK_ARCHIVE;
	for (size_t f = 0; f < in->nfstype; f++)
		if (vm_image_check(in->fstype[f], err, errlen) == -1)
			return RUNNER_CHECK_FS;
	for (size_t i = 0; i < in->nkernel; i++) {
		if (kernel(in, p, i, err, errlen) == -1)
			return RUNNER_CHECK_KERNEL;
		if (noqemu && p->k[i].machine == VM_MACHINE_QEMU) {
			vm_qemu_version(p->qemu, sizeof(p->qemu), err, errlen);
			return RUNNER_CHECK_QEMU;
		}
		qemu |= p->k[i].machine == VM_MACHINE_QEMU;
	}
	/* QEMU's disks only (UML's ubd is cached); a plan boots nothing. */
	if (qemu && in->boots &&
	    vm_image_direct_check(vm_tmpdir(), err, errlen) == -1)
		return RUNNER_CHECK_TMPDIR;
	return RUNNER_CHECKED;
}

enum runner_check
runner_check_cells(
    const struct vm_cell_conf *conf, size_t n, char *err, size_t errlen)
{
	err[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (vm_cell_check(&conf[i], err, errlen) == -1)
			return RUNNER_CHECK_CELL;
	return RUNNER_CHECKED;
}
