/*
 * qemu.c - QEMU itself: its version, whether KVM opens, and one guest
 * started in a process group of its own (a terminal's ^C reaches us, not
 * it; we kill the whole group) with its console in a file and, should we
 * die without cleaning up, a parent-death signal that takes it with us.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm.h"

#define MAXARGS 64

int
vm_qemu_version(char *buf, size_t len, char *err, size_t errlen)
{
	char line[256] = "";
	const char *p;
	FILE *f = popen(VM_QEMU " --version 2>/dev/null", "r");

	if (f != NULL) {
		if (fgets(line, sizeof(line), f) == NULL)
			line[0] = '\0';
		pclose(f);
	}
	if ((p = strstr(line, "version ")) == NULL) {
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
 */
int
vm_kvm_usable(void)
{
	char line[8192];
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC), hw = 0;
	FILE *f;

	if (fd == -1)
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
	own[1] = escape(
	    "file=", c->image, ",format=raw,if=none,id=ubcdisk,cache=none");
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

	g->start_ns = vm_now_ns();
	if ((g->pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		g->pid = 0;
	} else if (g->pid == 0) {
		int fd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_RDONLY);
		struct sigaction sa;

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		if (fd != -1) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul != -1)
			dup2(nul, 0);
		execvp(argv[0], argv);
		fprintf(
		    stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	} else {
		/* Both sides set the group, so that kill(-pid) never misses. */
		setpgid(g->pid, g->pid);
	}
	for (int i = 0; i < 3; i++)
		free(own[i]);
	return g->pid == 0 ? -1 : 0;
}

int
vm_guest_exited(struct vm_guest *g)
{
	pid_t r;

	if (g->pid == 0)
		return 1;
	r = waitpid(g->pid, &g->status, WNOHANG);
	if (r == g->pid || (r == -1 && errno == ECHILD)) {
		g->pid = 0;
		return 1;
	}
	return 0;
}

void
vm_guest_kill(struct vm_guest *g)
{
	if (g->pid == 0)
		return;
	kill(-g->pid, SIGKILL);
	kill(g->pid, SIGKILL);
	while (waitpid(g->pid, &g->status, 0) == -1 && errno == EINTR)
		;
	g->pid = 0;
}
