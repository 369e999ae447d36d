/*
 * qemu.c - QEMU itself: its version, whether KVM opens, and one guest
 * started through vm_spawn (spawn.c: a process group of its own, a
 * parent-death signal, optionally in the cell's namespaces) with its
 * console in a file.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/clock.h"
#include "vm_impl.h"

#define MAXARGS 64

int
vm_qemu_version(char *buf, size_t len, char *err, size_t errlen)
{
	char *argv[] = {VM_QEMU, "--version", NULL}, line[256];
	const char *p;

	if (vm_spawn_output(argv, line, sizeof(line)) == -1 ||
	    (p = strstr(line, "version ")) == NULL) {
		snprintf(err, errlen,
		    "cannot run %s: it is not on PATH (Debian: apt-get "
		    "install qemu-system-x86)",
		    VM_QEMU);
		return -1;
	}
	p += strlen("version ");
	snprintf(buf, len, "%.*s", (int)strcspn(p, " \n"), p);
	return 0;
}

/*
 * KVM proper needs the processor's virtualisation (vmx or svm among the
 * flags). A /dev/kvm without it is a software virtualizer, which the
 * kernels tried die under; TCG is taken at once there.
 * UBCREPLAY_VM_ASSUME_KVM=1 is for the tests alone: it makes `auto` try
 * KVM on a machine without one, so that the fall-back to TCG can be
 * exercised (a stand-in QEMU early on PATH plays the KVM that dies).
 */
int
vm_kvm_usable(void)
{
	const char *assume = getenv("UBCREPLAY_VM_ASSUME_KVM");
	char line[8192];
	int fd, hw = 0;
	FILE *f;

	if (assume != NULL && strcmp(assume, "1") == 0)
		return 1;
	if ((fd = open("/dev/kvm", O_RDWR | O_CLOEXEC)) == -1)
		return 0;
	close(fd);
	if ((f = fopen("/proc/cpuinfo", "re")) == NULL)
		return 0;
	while (!hw && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "flags", 5) == 0)
			hw = strstr(line, " vmx") != NULL ||
			    strstr(line, " svm") != NULL;
	fclose(f);
	return hw;
}

/* QEMU's option values separate with commas; a comma in a path doubles. */
static char *
escape(const char *prefix, const char *path, const char *suffix)
{
	size_t len = strlen(prefix) + 2 * strlen(path) + strlen(suffix) + 1;
	char *s = malloc(len), *q;

	if (s == NULL)
		return NULL;
	q = s + sprintf(s, "%s", prefix);
	for (const char *p = path; *p != '\0'; p++) {
		*q++ = *p;
		if (*p == ',')
			*q++ = ',';
	}
	strcpy(q, suffix);
	return s;
}

int
vm_guest_start(
    struct vm_guest *g, const struct vm_guest_conf *c, char *err, size_t errlen)
{
	char smp[16], mem[16], blk[64], icount[48], *argv[MAXARGS], *own[5];
	struct vm_spawn sp;
	size_t n = 0;
	int kvm = strcmp(c->accel, "kvm") == 0;

	memset(g, 0, sizeof(*g));
	snprintf(smp, sizeof(smp), "%d", c->cpus);
	snprintf(mem, sizeof(mem), "%dM", c->mem_mib);
	/* Explicit, so that the result can say how many the guest had. */
	snprintf(blk, sizeof(blk), "virtio-blk-pci,drive=ubcdisk,num-queues=%d",
	    c->queues);
	/*
	 * The instruction count as the guest's clock: 2^shift ns per
	 * instruction, so that the guest sees a CPU of a fixed speed however
	 * fast the host runs it; sleep=off lets an idle guest's time jump
	 * ahead instead of waiting for the host's.
	 */
	snprintf(icount, sizeof(icount), "shift=%d,sleep=off", c->icount_shift);
	own[0] = escape("file:", c->console, "");
	/*
	 * An error writing or reading the image on the host (its disk full:
	 * the image is sparse) goes to the guest as an I/O error, which fails
	 * the job, rather than QEMU's default for ENOSPC, which pauses the
	 * guest until someone resumes it: a cell that hangs to its timeout.
	 */
	own[1] = escape("file=", c->image,
	    ",format=raw,if=none,id=ubcdisk,cache=none,werror=report,"
	    "rerror=report");
	own[2] = escape("local,path=", c->outdir,
	    ",mount_tag=ubcout,security_model=none,multidevs=remap");
	own[3] = NULL;
	if (own[0] == NULL || own[1] == NULL || own[2] == NULL) {
		for (int i = 0; i < 3; i++)
			free(own[i]);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	argv[n++] = VM_QEMU;
	argv[n++] = "-nodefaults";
	argv[n++] = "-no-user-config";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-no-reboot";
	argv[n++] = "-accel";
	argv[n++] = kvm ? "kvm" : "tcg";
	argv[n++] = "-cpu";
	argv[n++] = kvm ? "host" : "max";
	argv[n++] = "-smp";
	argv[n++] = smp;
	argv[n++] = "-m";
	argv[n++] = mem;
	argv[n++] = "-kernel";
	argv[n++] = (char *)c->kernel;
	argv[n++] = "-initrd";
	argv[n++] = (char *)c->initrd;
	argv[n++] = "-append";
	argv[n++] = (char *)c->cmdline;
	argv[n++] = "-serial";
	argv[n++] = own[0];
	argv[n++] = "-drive";
	argv[n++] = own[1];
	argv[n++] = "-device";
	argv[n++] = blk;
	if (c->icount_shift >= 0) {
		argv[n++] = "-icount";
		argv[n++] = icount;
	}
	argv[n++] = "-virtfs";
	argv[n++] = "local,path=/,mount_tag=ubcroot,security_model=none,"
	            "readonly=on,multidevs=remap";
	argv[n++] = "-virtfs";
	argv[n++] = own[2];
	if (c->netdev != NULL && c->netdev[0] != '\0') {
		argv[n++] = "-netdev";
		argv[n++] = (char *)c->netdev;
		argv[n++] = "-device";
		argv[n++] = "virtio-net-pci,netdev=ubcnet";
	}
	argv[n] = NULL;

	memset(&sp, 0, sizeof(sp));
	sp.argv = argv;
	sp.log = c->log;
	sp.netns = c->netns;
	sp.mntns = c->mntns;
	vm_guest_spawn(g, &sp, err, errlen);
	for (int i = 0; i < 3; i++)
		free(own[i]);
	return g->pid == 0 ? -1 : 0;
}

void
vm_guest_spawn(
    struct vm_guest *g, struct vm_spawn *sp, char *err, size_t errlen)
{
	sp->truncate = 1;
	sp->out = -1;
	sp->pdeathsig = SIGKILL;
	g->start_ns = clock_now_ns();
	clock_gettime(CLOCK_REALTIME, &g->start_wall);
	if ((g->pid = vm_spawn(sp, err, errlen)) == -1)
		g->pid = 0;
}

int
vm_guest_exited(struct vm_guest *g)
{
	return vm_spawn_exited(&g->pid, &g->status);
}

void
vm_guest_kill(struct vm_guest *g)
{
	vm_spawn_kill(&g->pid, &g->status);
}
