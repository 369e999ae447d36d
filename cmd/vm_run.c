/*
 * vm_run.c - the cells of `ubcreplay vm`: the kernels and everything else
 * checked before any guest boots, the cells' configurations, the cells
 * run up to -j at once and stepped through their states, their results
 * kept (a cell's later boots in its first's "boots") and written.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/wtrace.h"
#include "../replay/replay.h"
#include "vm_run.h"

/* The knobs with more than one value: those a cell's name carries. */
static unsigned
varying(const struct vm_opts *o)
{
	return (o->cpus.n > 1 ? CMP_M_CPUS : 0) |
	    (o->mem.n > 1 ? CMP_M_MEM : 0) |
	    (o->queues.n > 1 ? CMP_M_QUEUES : 0) |
	    (o->clock.n > 1 ? CMP_M_CLOCK : 0);
}

/* Cell j's machine as its name carries it ("" for one machine). */
static void
machine_tag(
    const struct vm_opts *o, size_t j, const char *sep, char *buf, size_t len)
{
	cmp_machine_tag(
	    &o->machine[j % o->nmachine], "", varying(o), sep, buf, len);
}

/* A cell's name after its kernel: the disk's filesystem, or nfs. */
const char *
vmrun_fsname(const struct vm_cell_conf *c)
{
	if (c->nfs_server != NULL)
		return "nfs";
	return strcmp(c->fstype, "none") == 0 ? "raw" : c->fstype;
}

/* Cell j's machine tag, "" for one machine. */
const char *
vmrun_tag(const struct vmrun *r, size_t j)
{
	static char buf[128];

	machine_tag(r->o, j, " ", buf, sizeof(buf));
	return buf;
}

/* With more than one machine, doc's label says which runs cell j. */
int
vmrun_label(const struct vmrun *r, json_t *doc, size_t j)
{
	char label[512];

	if (r->o->nmachine == 1)
		return 0;
	snprintf(label, sizeof(label), "%s %s",
	    json_string_value(json_object_get(doc, "label")), vmrun_tag(r, j));
	return json_object_set_new(doc, "label", json_string(label));
}

/* Everything that can be checked before a guest boots. */
static int
check(struct vmrun *r)
{
	struct vm_opts *o = r->o;
	char errbuf[2048];
	ssize_t n;
	int noqemu, qemu = 0;

	/*
	 * Listing the cells, or reading their results, boots nothing; UML
	 * kernels need no QEMU (asked below, once they are known).
	 */
	noqemu = vm_qemu_version(
	             r->qemu, sizeof(r->qemu), errbuf, sizeof(errbuf)) == -1 &&
	    o->plan == NULL && o->merge == NULL;
	if ((n = readlink("/proc/self/exe", r->exe, sizeof(r->exe) - 1)) <= 0) {
		warnx(
		    "cannot find this program's own file: %s", strerror(errno));
		return -1;
	}
	r->exe[n] = '\0';
	if (vm_sha256_file(r->exe, r->exe_sha256, errbuf, sizeof(errbuf)) ==
	    -1) {
		warnx("%s", errbuf);
		return -1;
	}
	if (o->archive != NULL) {
		if (realpath(o->archive, r->archive) == NULL ||
		    access(r->archive, R_OK) == -1) {
			warnx("cannot read archive '%s': %s", o->archive,
			    strerror(errno));
			return -1;
		}
		o->job[0] = r->archive;
		if (vm_sha256_file(r->archive, r->archive_sha256, errbuf,
		        sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
		/*
		 * A workload trace reaches the guest as an archive does (the
		 * host's files, read-only) and is checked whole here, before
		 * any boot. How much of the disk it fills is known only by
		 * running it: a full disk fails the run, naming the record.
		 * An archive must fit the disk (ganesha's export is a
		 * directory on the host, not the disk).
		 */
		if (wtrace_is(r->archive)) {
			struct replay_wtrace_info wi;

			if (replay_wtrace_identify(r->archive, &wi, errbuf,
			        sizeof(errbuf)) == -1) {
				warnx("%s", errbuf);
				return -1;
			}
		} else if ((o->nfs_server == NULL ||
		               strcmp(o->nfs_server, "ganesha") != 0) &&
		    vm_image_fits(r->archive, o->size_bytes, errbuf,
		        sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
	}
	for (size_t f = 0; f < o->nfstype; f++)
		if (vm_image_check(o->fstype[f], errbuf, sizeof(errbuf)) ==
		    -1) {
			warnx("%s", errbuf);
			return -1;
		}
	for (size_t i = 0; i < o->nkernel; i++) {
		if (vm_kernel_open(&r->k[i], o->kernel[i], o->modules, errbuf,
		        sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
		if (noqemu && r->k[i].machine == VM_MACHINE_QEMU) {
			vm_qemu_version(
			    r->qemu, sizeof(r->qemu), errbuf, sizeof(errbuf));
			warnx("%s", errbuf);
			return -1;
		}
		for (size_t f = 0; f < o->nfstype; f++) {
			const char *names[16];
			size_t nn = vm_modules_needed(o->fstype[f], names, 16);

			if (o->nfs_server != NULL)
				nn += vm_nfs_modules(
				    o->nfs_server, names + nn, 16 - nn);
			if (vm_modules_resolve(&r->k[i], names, nn,
			        &r->mods[i * o->nfstype + f], errbuf,
			        sizeof(errbuf)) == -1) {
				warnx("kernel '%s': %s", o->kernel[i], errbuf);
				return -1;
			}
		}
		qemu |= r->k[i].machine == VM_MACHINE_QEMU;
	}
	/* QEMU's disks only (UML's ubd is cached); a plan boots nothing. */
	if (qemu && o->plan == NULL && o->merge == NULL &&
	    vm_image_direct_check(vm_tmpdir(), errbuf, sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		return -1;
	}
	return 0;
}

/*
 * Each kernel's vmlinux, unpacked once for all its cells into a directory
 * of the run's where it can be, for speed; else the image boots as it is.
 */
void
vmrun_unpack(struct vmrun *r)
{
	char errbuf[1024];

	snprintf(r->kdir, sizeof(r->kdir), "%s/ubcreplay-vmlinux.XXXXXX",
	    vm_tmpdir());
	if (mkdtemp(r->kdir) == NULL)
		r->kdir[0] = '\0';
	for (size_t i = 0; i < r->o->nkernel; i++) {
		snprintf(r->boot[i], PATH_MAX, "%s/vmlinux-%zu", r->kdir, i);
		if (r->kdir[0] == '\0' ||
		    vm_kernel_unpack(
		        &r->k[i], r->boot[i], errbuf, sizeof(errbuf)) == -1)
			snprintf(r->boot[i], PATH_MAX, "%s", r->k[i].path);
	}
}

/* Each cell's configuration: kernel-major, machines innermost. */
static void
confs(struct vmrun *r)
{
	struct vm_opts *o = r->o;
	size_t ncell = o->nkernel * o->nfstype * o->nmachine;
	for (size_t j = 0; j < ncell; j++) {
		struct vm_cell_conf *c = &r->conf[j];
		const struct cmp_machine *m = &o->machine[j % o->nmachine];
		size_t i = j / o->nmachine / o->nfstype;
		size_t f = j / o->nmachine % o->nfstype;

		c->kernel = &r->k[i];
		c->mods = &r->mods[i * o->nfstype + f];
		c->boot = r->boot[i];
		c->fstype = o->fstype[f];
		c->mkfs_opts = o->mkfs_opts;
		c->mount_opts = o->mount_opts;
		c->size_bytes = o->size_bytes;
		c->accel = o->accel;
		c->cpus = m->cpus;
		c->mem_mib = m->mem_mib;
		c->queues = m->queues;
		/* UML has one CPU and one queue: the defaults are QEMU's. */
		if (r->k[i].machine == VM_MACHINE_UML &&
		    !(o->given & (VM_GIVEN_CPUS | VM_GIVEN_QUEUES)))
			c->cpus = c->queues = 1;
		c->icount_shift = m->icount_shift;
		c->timeout_ns = o->timeout_ns;
		c->boot_timeout_ns = o->boot_timeout_ns;
		c->exe = r->exe;
		c->njob = o->njob;
		c->job = o->job;
		c->qemu_version = r->qemu;
		c->nfs_server = o->nfs_opts != NULL ? o->nfs_server : NULL;
		c->nfs_opts = o->nfs_opts;
		c->nfs_path = o->nfs_path;
		c->given = o->given;
		c->seed = o->seed;
	}
	r->ncell = ncell;
}

int
vmrun_open(struct vmrun *r)
{
	struct vm_opts *o = r->o;
	size_t ncell = o->nkernel * o->nfstype * o->nmachine;
	char errbuf[2048];

	r->k = calloc(o->nkernel, sizeof(*r->k));
	r->conf = calloc(ncell, sizeof(*r->conf));
	r->mods = calloc(o->nkernel * o->nfstype, sizeof(*r->mods));
	r->boot = calloc(o->nkernel, sizeof(*r->boot));
	r->doc = calloc(ncell, sizeof(*r->doc));
	r->names = calloc(ncell, sizeof(*r->names));
	if (r->k == NULL || r->conf == NULL || r->mods == NULL ||
	    r->boot == NULL || r->doc == NULL || r->names == NULL) {
		warnx("out of memory");
		return -1;
	}
	/* From here a signal is a flag: the unpacked kernels get removed. */
	stop_catch();
	if (check(r) == -1)
		return -1;
	confs(r);
	for (size_t i = 0; i < r->ncell; i++)
		if (vm_cell_check(&r->conf[i], errbuf, sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
	return vmrun_plan_make(r);
}

static int
active(const struct vm_cell *c)
{
	return c->state == VM_SERVER || c->state == VM_RUNNING ||
	    c->state == VM_RETRY;
}

/*
 * Keeps a cell's result: its first boot's as it is, a later one's (a look
 * of -n MIN..MAX) in the first's "boots", which compare reads with it.
 */
static int
keep(struct vmrun *r, size_t at, json_t *doc)
{
	json_t *boots;

	if (r->doc[at] == NULL) {
		r->doc[at] = doc;
		return 0;
	}
	if ((boots = json_object_get(r->doc[at], "boots")) == NULL &&
	    json_object_set_new(r->doc[at], "boots", boots = json_array()) ==
	        -1)
		return -1;
	return json_array_append_new(boots, doc);
}

/* The runs cell at has had, in every boot. */
int
vmrun_runs(const struct vmrun *r, size_t at)
{
	json_t *b;
	size_t i, n;

	if (r->doc[at] == NULL)
		return 0;
	n = json_array_size(json_object_get(r->doc[at], "runs"));
	json_array_foreach (json_object_get(r->doc[at], "boots"), i, b)
		n += json_array_size(json_object_get(b, "runs"));
	return (int)n;
}

/*
 * One step of a cell under way: DONE and FAILED end it (its result kept,
 * or its error said), RETRY starts it again under TCG. 1 while it is
 * under way, 0 when it ended well, -1 when it failed.
 */
static int
step(struct vmrun *r, struct vm_cell *c, size_t at, char *errbuf, size_t len)
{
	const struct vm_cell_conf *cf = c->c;
	enum vm_state s = vm_cell_poll(c, errbuf, len);
	json_t *doc = NULL;

	if (s == VM_RETRY) {
		fprintf(stderr,
		    "ubcreplay vm: %s %s: KVM cannot run it; again under "
		    "TCG\n",
		    vm_kernel_name(cf->kernel), vmrun_fsname(cf));
		s = vm_cell_retry(c, errbuf, len) == -1 ? VM_FAILED : c->state;
	}
	if (s == VM_SERVER || s == VM_RUNNING)
		return 1;
	if (s == VM_DONE && (doc = vm_cell_result(c, errbuf, len)) != NULL &&
	    (vmrun_label(r, doc, at) == -1 || keep(r, at, doc) == -1)) {
		json_decref(doc);
		doc = NULL;
		snprintf(errbuf, len, "out of memory");
	}
	if (doc != NULL) {
		fprintf(stderr,
		    "ubcreplay vm: %s %s%s%s: done under %s in %.1f s (%.1f s "
		    "to the job)\n",
		    vm_kernel_name(cf->kernel), vmrun_fsname(cf),
		    *vmrun_tag(r, at) ? " " : "", vmrun_tag(r, at), c->accel,
		    (double)c->guest_ns / 1e9, (double)c->boot_ns / 1e9);
		vm_cell_cleanup(c);
		return 0;
	}
	warnx("%s", errbuf);
	vm_cell_cleanup(c);
	return -1;
}

/*
 * Runs the cells named by idx, up to jobs at once, into r->doc. -1 when
 * one failed (each failure said), or a signal came (every guest killed,
 * every temporary file removed). Each cell records the most cells that
 * were under way at once while it was.
 */
static int
boot_once(struct vmrun *r, const size_t *idx, size_t n, int jobs)
{
	struct vm_cell *cell = calloc(n, sizeof(*cell));
	size_t next = 0, running = 0;
	char errbuf[4096];
	int status = 0;

	if (cell == NULL) {
		warnx("out of memory");
		return -1;
	}
	for (;;) {
		const struct timespec nap = {0, 50 * 1000000};

		while (!stop_signal() && running < (size_t)jobs && next < n) {
			struct vm_cell *c = &cell[next];
			const struct vm_cell_conf *cf = &r->conf[idx[next]];

			vm_cell_init(c, cf);
			next++;
			if (vm_cell_prepare(c, errbuf, sizeof(errbuf)) == -1 ||
			    vm_cell_start(c, errbuf, sizeof(errbuf)) == -1) {
				warnx("%s", errbuf);
				vm_cell_cleanup(c);
				c->state = VM_FAILED;
				status = -1;
				continue;
			}
			running++;
		}
		for (size_t i = 0; i < next; i++)
			if (active(&cell[i]) &&
			    cell[i].parallel_guests < (int)running)
				cell[i].parallel_guests = (int)running;
		if (stop_signal() || running == 0)
			break;
		for (size_t i = 0; i < next; i++) {
			int s;

			if (!active(&cell[i]) || stop_signal() ||
			    (s = step(r, &cell[i], idx[i], errbuf,
			         sizeof(errbuf))) == 1)
				continue;
			running--;
			if (s == -1)
				status = -1;
		}
		nanosleep(&nap, NULL);
	}
	for (size_t i = 0; i < next; i++)
		vm_cell_cleanup(&cell[i]);
	free(cell);
	return stop_signal() ? -1 : status;
}

/* Whether every cell idx names runs on a seeded machine (UML). */
static int
seeded(const struct vmrun *r, const size_t *idx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r->conf[idx[i]].kernel->machine != VM_MACHINE_UML)
			return 0;
	return n > 0;
}

/*
 * On a seeded machine each run is a boot of its own, on the seed after
 * the cell's last: the runs the job's -n asks for become as many boots of
 * one run, seeds SEED, SEED + 1, ... (--seed, else VM_UML_SEED), the same
 * for every cell, so that the kernels' runs pair up by seed. Elsewhere the
 * cells boot once for all of them.
 */
int
vmrun_cells(struct vmrun *r, const size_t *idx, size_t n, int jobs)
{
	const struct vm_opts *o = r->o;
	long long base = o->seed >= 0 ? o->seed : VM_UML_SEED;
	int runs = atoi(o->runs_arg), boots = runs, rc = 0;

	if (!seeded(r, idx, n))
		return boot_once(r, idx, n, jobs);
	/* A job of its own (after --, no -n of ours) boots once. */
	if (runs < 1)
		boots = 1;
	else
		snprintf(o->runs_arg, 16, "1");
	for (int i = 0; i < boots && rc == 0; i++) {
		for (size_t j = 0; j < n; j++)
			r->conf[idx[j]].seed = base + vmrun_runs(r, idx[j]);
		rc = boot_once(r, idx, n, jobs);
	}
	if (runs >= 1)
		snprintf(o->runs_arg, 16, "%d", runs);
	return rc;
}

int
vmrun_local(struct vmrun *r)
{
	size_t *idx = calloc(r->ncell, sizeof(*idx)), n = r->ncell;
	int failed;

	if (idx == NULL) {
		warnx("out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->ncell; i++)
		idx[i] = i;
	if (r->o->ncell > 0 && vmrun_select(r, idx, &n) == -1) {
		free(idx);
		return -1;
	}
	failed =
	    (r->o->runs_max > 0 ? vmrun_until_decided(r, idx, n)
	                        : vmrun_cells(r, idx, n, r->o->jobs)) == -1;
	free(idx);
	return failed ? EXIT_USAGE : EXIT_SUCCESS;
}

/* The output directory: as given (made if need be), or a fresh one. */
static int
outdir(struct vmrun *r, char *dir, size_t len)
{
	if (r->o->outdir != NULL) {
		snprintf(dir, len, "%s", r->o->outdir);
		if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
			warnx("cannot make '%s': %s", dir, strerror(errno));
			return -1;
		}
		return 0;
	}
	snprintf(dir, len, "ubcreplay-vm.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, len, "%s/ubcreplay-vm.XXXXXX",
		    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
		if (mkdtemp(dir) == NULL) {
			warnx("cannot make '%s': %s", dir, strerror(errno));
			return -1;
		}
	}
	fprintf(stderr, "ubcreplay vm: results in %s\n", dir);
	return 0;
}

/*
 * A kernel's name as a file name's start: "6.1.192", or for a tree
 * "6.1.192-base@1a2b3c4".
 */
static void
stem(const struct vm_kernel *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s", vm_kernel_name(k));
	for (char *p = buf; *p != '\0'; p++)
		if (*p == ' ' || *p == '/')
			*p = '-';
}

/*
 * Writes each result as DIR/KERNEL-FS.json, or DIR/KERNEL-FS-MACHINE.json
 * with more than one machine (2cpu-icount-4); r->names[i] gets the path.
 */
int
vmrun_write(struct vmrun *r)
{
	char dir[PATH_MAX / 2], errbuf[1024], kname[PATH_MAX / 4];
	int any = 0;

	for (size_t i = 0; i < r->ncell; i++)
		any |= r->doc[i] != NULL;
	if (!any)
		return 0;
	if (outdir(r, dir, sizeof(dir)) == -1)
		return -1;
	for (size_t i = 0; i < r->ncell; i++) {
		const struct vm_cell_conf *c = &r->conf[i];
		int dup = 0;

		char m[128];

		/*
		 * Named as in a run of the whole plan, whichever of its cells
		 * ran here (--cell), so that a scheduler's results merge.
		 */
		for (size_t j = 0; j < i; j++)
			dup |= strcmp(vm_kernel_name(r->conf[j].kernel),
			           vm_kernel_name(c->kernel)) == 0 &&
			    strcmp(vmrun_fsname(&r->conf[j]),
			        vmrun_fsname(c)) == 0 &&
			    j % r->o->nmachine == i % r->o->nmachine;
		if (r->doc[i] == NULL)
			continue;
		stem(c->kernel, kname, sizeof(kname));
		machine_tag(r->o, i, "-", m, sizeof(m));
		for (char *p = m; *p != '\0'; p++)
			*p = *p == ':' ? '-' : *p;
		snprintf(r->names[i], PATH_MAX, "%s/%s-%s%s%s.json", dir, kname,
		    vmrun_fsname(c), *m ? "-" : "", m);
		if (dup)
			snprintf(r->names[i], PATH_MAX, "%s/%s-%s-%zu.json",
			    dir, kname, vmrun_fsname(c), i + 1);
		json_object_set_new(json_object_get(r->doc[i], "vm"), "plan",
		    vm_plan_stamp(&r->plan, i));
		/*
		 * How this run judged it, so that compare judges it alike; a
		 * plan's cells are judged by --merge, at its level.
		 */
		if (r->o->ngate > 0 && r->o->ncell == 0 &&
		    json_object_set_new(json_object_get(r->doc[i], "vm"),
		        "judged",
		        gate_judged_json(r->o->rule, r->o->level,
		            r->o->runs_max > 0 ? r->o->look : &r->o->runs,
		            r->o->runs_max > 0 ? (size_t)r->o->nlook : 1)) ==
		        -1) {
			warnx("out of memory");
			return -1;
		}
		if (result_write(
		        r->doc[i], r->names[i], errbuf, sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
	}
	return 0;
}

void
vmrun_free(struct vmrun *r)
{
	/* Modules per kernel and filesystem; results per cell, machines too. */
	size_t n = r->o->nkernel * r->o->nfstype;

	for (size_t i = 0; r->doc != NULL && i < n * r->o->nmachine; i++)
		json_decref(r->doc[i]);
	for (size_t i = 0; r->mods != NULL && i < n; i++)
		vm_modules_free(&r->mods[i]);
	/* vmrun_unpack made kdir and at most one vmlinux-N in it a kernel. */
	if (r->kdir[0] != '\0') {
		for (size_t i = 0; i < r->o->nkernel; i++) {
			char p[PATH_MAX];

			snprintf(p, sizeof(p), "%s/vmlinux-%zu", r->kdir, i);
			unlink(p);
		}
		rmdir(r->kdir);
	}
	free(r->boot);
	free(r->k);
	free(r->conf);
	free(r->mods);
	free(r->doc);
	free(r->names);
	vm_plan_free(&r->plan);
}
