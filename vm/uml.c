/*
 * uml.c - User Mode Linux as a cell's machine: the kernel under test is a
 * host program (`linux`, from contrib/vm-kbuild.sh -a um), booted on
 * simulated time with the host's root over hostfs, the cell's disk as a
 * ubd file, and our init (vm/init.c) from the cell's directory.
 *
 * Deterministic by construction (docs/vm-machine.md): time-travel=inf-cpu
 * from a fixed start, ubd completing each request in simulated time from
 * the disk model (its cost per request a little higher for every seed past
 * 1), the guest's random bytes from the seed, no address-space
 * randomisation for the UML process (its layout decides the guest's
 * memory, and with it the dirty thresholds), and the same command line
 * every time: the cell's directory has a random name, so the UML process
 * runs in a mount namespace of its own where the directory is bind-mounted
 * at the fixed VM_UML_DIR, and the command line names only that. Cells
 * side by side each have their own namespace.
 *
 * With the virtio disk (vm/vdisk.h) the UML process's parent is its
 * server: the child vm_spawn starts (in the namespace, without
 * randomisation, its output the console log) runs vdisk_serve, which
 * owns the guest's clock (time-travel=ext) and serves the cell's image as
 * a virtio-blk disk on two sockets in the cell's directory, then starts
 * UML. Both are in one process group, which a kill reaches whole; the
 * sockets go with the directory. The server says what failed (its disk,
 * or UML's death by a signal) on the console log's last line and exits
 * VM_UML_VDISK_FAILED.
 */
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vdisk.h"
#include "vm_impl.h"

#define MAXARGS 32

int
vm_uml_base_ns(long long seed)
{
	long long step = ((seed - 1) % VM_UML_SEED_STEPS + VM_UML_SEED_STEPS) %
	    VM_UML_SEED_STEPS;

	return VM_UML_BASE_NS + (int)step * VM_UML_SEED_STEP_NS;
}

long long
vm_uml_seed(const struct vm_cell_conf *c)
{
	return c->seed >= 0 ? c->seed : VM_UML_SEED;
}

int
vm_uml_cmdline(const struct vm_cell_conf *c, char *buf, size_t len, char *err,
    size_t errlen)
{
	long long seed = vm_uml_seed(c);
	char clock[128], model[112], cpu[96], disk[128];
	int n;

	/*
	 * ubd's model is the seed's, on its command line as it always was;
	 * the virtio disk's is its server's, which is also the clock.
	 */
	if (c->vdisk != NULL) {
		int asks = vdisk_model_cpu_arg(c->vdisk, cpu, sizeof(cpu));
		const char *lacks = NULL;

		if ((asks & VDISK_CPU_CHARGES) && !c->kernel->uml_cpu)
			lacks = "charge the guest's CPU (the model's "
			        "cpu_*_ns keys; 0004, uml_cpu=)";
		else if ((asks & VDISK_CPU_YIELD) && !c->kernel->uml_bio_yield)
			lacks = "yield before an unplugged bio (the model's "
			        "cpu_bio_yield, 1 by default; 0005, "
			        "uml_bio_yield)";
		if (lacks != NULL) {
			snprintf(err, errlen,
			    "UML kernel '%s' cannot %s: build it with "
			    "contrib/vm-kbuild.sh -a um, which applies "
			    "contrib/uml-patches",
			    c->kernel->path, lacks);
			return -1;
		}
		snprintf(clock, sizeof(clock),
		    "time-travel=ext:" VM_UML_DIR "/time.sock");
		snprintf(model, sizeof(model), "%s%s", cpu[0] ? " " : "", cpu);
		snprintf(disk, sizeof(disk),
		    "virtio_uml.device=" VM_UML_DIR "/vublk.sock:2");
	} else {
		snprintf(clock, sizeof(clock), "time-travel=inf-cpu");
		snprintf(model, sizeof(model), " ubd_model=%d,%d",
		    vm_uml_base_ns(seed), VM_UML_NS_PER_KIB);
		snprintf(disk, sizeof(disk), "ubd0=" VM_UML_DIR "/disk.img");
	}
	n = snprintf(buf, len,
	    "mem=%dM %s time-travel-start=" VM_UML_START " uml_seed=%lld%s"
	    " uml_dir=" VM_UML_DIR
	    " root=/dev/root rootfstype=hostfs rootflags=/ ro %s"
	    " init=" VM_UML_DIR "/init con0=null,fd:1 con=null",
	    c->mem_mib, clock, seed, model, disk);
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen,
		    "kernel '%s': the command line is too long",
		    c->kernel->path);
		return -1;
	}
	return 0;
}

/* "0 ID 1" into a /proc/self map file. */
static int
idmap(const char *file, unsigned id)
{
	char line[64];
	int fd = open(file, O_WRONLY | O_CLOEXEC), r;

	if (fd == -1)
		return -1;
	snprintf(line, sizeof(line), "%u %u 1\n", id, id);
	r = write(fd, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : -1;
	close(fd);
	return r;
}

/*
 * A mount namespace of the process's own, private, with dir at
 * VM_UML_DIR. Root makes one; anyone else first a user namespace where
 * they are who they were (when the system allows it).
 */
static int
ownmounts(const char *dir)
{
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
	int fd;

	if (unshare(CLONE_NEWNS) == -1) {
		if (errno != EPERM ||
		    unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
			return -1;
		if ((fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC)) !=
		    -1) {
			if (write(fd, "deny", 4) != 4) {
				close(fd);
				return -1;
			}
			close(fd);
		}
		if (idmap("/proc/self/uid_map", uid) == -1 ||
		    idmap("/proc/self/gid_map", gid) == -1)
			return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount(dir, VM_UML_DIR, NULL, MS_BIND, NULL) == -1)
		return -1;
	return 0;
}

/* In the child, before exec. */
static int
child(const void *arg)
{
	const char *dir = arg;
	struct stat st;
	int p;

	if (ownmounts(dir) == -1)
		return -1;
	if ((p = personality(0xffffffff)) == -1 ||
	    personality((unsigned long)p | ADDR_NO_RANDOMIZE) == -1)
		return -1;
	/* The guest's memory is a file UML maps: on a tmpfs, not a disk. */
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
	    access("/dev/shm", W_OK) == 0)
		return setenv("TMPDIR", "/dev/shm", 1);
	return 0;
}

json_t *
vm_uml_vdisk_json(const struct vm_cell_conf *c)
{
	const struct vdisk_model *m = c->vdisk;
	char word[96];
	int asks = vdisk_model_cpu_arg(m, word, sizeof(word));
	json_t *o = json_pack(
	    "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "kind",
	    "virtio", "latency_ns", (json_int_t)m->latency_ns, "ns_per_kib",
	    (json_int_t)m->ns_per_kib, "flush_ns", (json_int_t)m->flush_ns,
	    "irq_ns", (json_int_t)m->irq_ns, "depth", (json_int_t)m->depth,
	    "seg_max", (json_int_t)m->seg_max, "size_max",
	    (json_int_t)m->size_max, "blk_size", (json_int_t)m->blk_size,
	    "num_queues", (json_int_t)m->num_queues);

	/*
	 * The CPU's charges, its yield and the settling only when there are
	 * any: a model without them is the one results from before them
	 * recorded, and compares equal.
	 */
	if (o != NULL && (asks & VDISK_CPU_YIELD) &&
	    json_object_set_new(o, "cpu_bio_yield", json_integer(1)) == -1) {
		json_decref(o);
		o = NULL;
	}
	if (o != NULL && (asks & VDISK_CPU_CHARGES)) {
		json_t *cpu = json_pack("{s:I, s:I, s:I, s:I}",
		    "cpu_syscall_ns", (json_int_t)m->cpu_syscall_ns,
		    "cpu_kib_ns", (json_int_t)m->cpu_kib_ns, "cpu_bio_ns",
		    (json_int_t)m->cpu_bio_ns, "cpu_bio_kib_ns",
		    (json_int_t)m->cpu_bio_kib_ns);

		if (cpu == NULL || json_object_update(o, cpu) == -1) {
			json_decref(o);
			o = NULL;
		}
		json_decref(cpu);
	}
	if (o != NULL && m->settle_ns != 0 &&
	    json_object_set_new(
	        o, "settle_ns", json_integer((json_int_t)m->settle_ns)) == -1) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

const char *
vm_uml_settle(const struct vm_cell_conf *c, char *buf, size_t len)
{
	if (c->vdisk == NULL || c->vdisk->settle_ns == 0)
		return NULL;
	snprintf(buf, len, "%lld", (long long)c->vdisk->settle_ns);
	return buf;
}

struct serve {
	const struct vdisk_model *model;
	char *const *argv;
};

/* In the child, after child(): the disk's server, which starts UML. */
static int
serve(const void *arg)
{
	const struct serve *sv = arg;
	struct vdisk_conf c = {.model = *sv->model,
	    .image = VM_UML_DIR "/disk.img",
	    .dir = VM_UML_DIR};
	struct rlimit none = {0, 0};
	struct vublk_stats st;
	char err[512];
	int status = 0;

	/*
	 * A guest whose clock or disk went away panics, and UML dumps its
	 * whole memory as a core in the caller's directory: none is kept.
	 */
	setrlimit(RLIMIT_CORE, &none);
	/*
	 * UML as the first process of a PID namespace of its own: when it
	 * ends, however (the server's end reaches it as its parent-death
	 * signal), the kernel ends every process it started, which a signal
	 * to its group would miss once UML has a group of its own.
	 */
	if (unshare(CLONE_NEWPID) == -1) {
		fprintf(stderr,
		    VM_UML_VDISK_SAYS "cannot make a PID namespace: %s\n",
		    strerror(errno));
		return VM_UML_VDISK_FAILED;
	}
	if (vdisk_serve(&c, sv->argv, &status, &st, err, sizeof(err)) == -1) {
		fprintf(stderr, VM_UML_VDISK_SAYS "%s\n", err);
		return VM_UML_VDISK_FAILED;
	}
	/* Not passed on as our own death: the cell would blame the disk. */
	if (WIFSIGNALED(status)) {
		fprintf(stderr,
		    VM_UML_SERVER_SAYS "UML was killed by signal %d\n",
		    WTERMSIG(status));
		return VM_UML_VDISK_FAILED;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : VM_UML_VDISK_FAILED;
}

int
vm_uml_start(
    struct vm_guest *g, const struct vm_uml_conf *c, char *err, size_t errlen)
{
	char words[1024], *argv[MAXARGS], *save = NULL;
	struct serve sv;
	struct vm_spawn sp;
	struct stat st;
	size_t n = 0;

	memset(g, 0, sizeof(*g));
	if ((mkdir(VM_UML_DIR, 0755) == -1 && errno != EEXIST) ||
	    stat(VM_UML_DIR, &st) == -1) {
		snprintf(err, errlen,
		    "cannot make '%s', where UML guests see their cell: %s",
		    VM_UML_DIR, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
		    "'%s', where UML guests see their cell, is not a "
		    "directory",
		    VM_UML_DIR);
		return -1;
	}
	snprintf(words, sizeof(words), "%s", c->cmdline);
	argv[n++] = (char *)c->program;
	for (char *w = strtok_r(words, " ", &save);
	     w != NULL && n < MAXARGS - 1; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	memset(&sp, 0, sizeof(sp));
	sp.argv = argv;
	sp.log = c->console;
	sp.netns = sp.mntns = -1;
	sp.child = child;
	sp.child_arg = c->dir;
	if (c->vdisk != NULL) {
		sv.model = c->vdisk;
		sv.argv = argv;
		sp.run = serve;
		sp.run_arg = &sv;
	}
	vm_guest_spawn(g, &sp, err, errlen);
	return g->pid == 0 ? -1 : 0;
}
