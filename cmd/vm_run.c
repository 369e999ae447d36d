/*
 * vm_run.c - the matrix of `ubcreplay vm`: the kernels and everything else
 * checked before any guest boots, the cells' configurations and their
 * plan, the runner set up over them (runner/: vm/'s cells as its cell
 * runner), and the results it kept written.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
static int
label_doc(const struct vmrun *r, json_t *doc, size_t j)
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

/* The cells as data (vm_plan_make), each named as its result will be. */
static int
plan(struct vmrun *r)
{
	struct vm_plan_inputs in = {r->exe, r->exe_sha256,
	    r->o->archive != NULL ? r->archive : NULL, r->archive_sha256};
	char errbuf[512];
	json_t *c;
	size_t i;

	if (vm_plan_make(&r->plan, r->conf, r->ncell, &in, errbuf,
	        sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		return -1;
	}
	/* Named as its result will be: with its machine, if there are more. */
	json_array_foreach (r->plan.cells, i, c)
		if (label_doc(r, c, i) == -1) {
			warnx("out of memory");
			return -1;
		}
	return 0;
}

/*
 * The runner over the cells: vm/'s cells its cell runner, each cell named
 * in the series by its kernel and filesystem (--bisect: by its kernel's
 * path), the gates, looks and runs the options give.
 */
static int
runner(struct vmrun *r)
{
	struct vm_opts *o = r->o;
	struct runner *run = &r->run;

	r->name = calloc(r->ncell, sizeof(*r->name));
	r->tag = calloc(r->ncell, sizeof(*r->tag));
	r->tagp = calloc(r->ncell, sizeof(*r->tagp));
	r->cellname = calloc(r->ncell, sizeof(*r->cellname));
	if (r->name == NULL || r->tag == NULL || r->tagp == NULL ||
	    r->cellname == NULL) {
		warnx("out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->ncell; i++) {
		machine_tag(o, i, " ", r->tag[i], sizeof(r->tag[i]));
		r->tagp[i] = r->tag[i];
		snprintf(r->cellname[i], sizeof(r->cellname[i]), "%s %s",
		    vm_kernel_name(r->conf[i].kernel),
		    vmrun_fsname(&r->conf[i]));
		r->name[i] = r->cellname[i];
	}
	r->vm = (struct runner_vm){r->conf, o->runs_arg, r->tagp, r->report, r};
	run->ncell = r->ncell;
	run->name = r->name;
	run->cells = &runner_vm_cells;
	run->cells_ctx = &r->vm;
	run->report = r->report;
	run->report_ctx = r;
	run->jobs = o->jobs;
	run->runs = o->runs;
	run->own = o->archive == NULL;
	run->seed = o->seed >= 0 ? o->seed : VM_UML_SEED;
	run->nlook = o->runs_max > 0 ? o->nlook : 0;
	run->look = o->look;
	run->judge =
	    (struct runner_judge){o->gate, o->ngate, o->rule, o->level};
	if (runner_open(run) == -1) {
		warnx("%s", run->err);
		return -1;
	}
	return 0;
}

void
vmrun_name_kernels(struct vmrun *r)
{
	for (size_t i = 0; i < r->ncell; i++)
		r->name[i] = r->conf[i].kernel->path;
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
	r->names = calloc(ncell, sizeof(*r->names));
	if (r->k == NULL || r->conf == NULL || r->mods == NULL ||
	    r->boot == NULL || r->names == NULL) {
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
	return plan(r) == -1 ? -1 : runner(r);
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
		any |= r->run.doc[i] != NULL;
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
		if (r->run.doc[i] == NULL)
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
		json_object_set_new(json_object_get(r->run.doc[i], "vm"),
		    "plan", vm_plan_stamp(&r->plan, i));
		/*
		 * How this run judged it, so that compare judges it alike; a
		 * plan's cells are judged by --merge, at its level.
		 */
		if (r->o->ngate > 0 && r->o->ncell == 0 &&
		    json_object_set_new(json_object_get(r->run.doc[i], "vm"),
		        "judged",
		        gate_judged_json(r->o->rule, r->o->level,
		            r->o->runs_max > 0 ? r->o->look : &r->o->runs,
		            r->o->runs_max > 0 ? (size_t)r->o->nlook : 1)) ==
		        -1) {
			warnx("out of memory");
			return -1;
		}
		if (result_write(r->run.doc[i], r->names[i], errbuf,
		        sizeof(errbuf)) == -1) {
			warnx("%s", errbuf);
			return -1;
		}
	}
	return 0;
}

void
vmrun_free(struct vmrun *r)
{
	/* Modules per kernel and filesystem. */
	size_t n = r->o->nkernel * r->o->nfstype;

	runner_close(&r->run);
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
	free(r->names);
	free(r->name);
	free(r->tag);
	free(r->tagp);
	free(r->cellname);
	vm_plan_free(&r->plan);
}
