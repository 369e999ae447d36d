/*
 * vm_run.c - the matrix of `ubcreplay vm`: the options turned into the
 * runner's checks before any guest boots (runner_prepare), the cells'
 * configurations and their plan, the runner set up over them (runner/:
 * vm/'s cells as its cell runner), and the results it kept written
 * (runner_write); what fails is said here.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * Everything that can be checked before a guest boots (runner_prepare);
 * the archive's real path becomes the job's first word.
 */
static int
check(struct vmrun *r)
{
	struct vm_opts *o = r->o;
	struct runner_inputs in = {o->kernel, o->nkernel, o->modules, o->fstype,
	    o->nfstype, o->archive, o->nfs_server, o->size_bytes,
	    o->plan == NULL && o->merge == NULL};
	char errbuf[2048];

	r->prep.k = r->k;
	r->prep.mods = r->mods;
	if (runner_prepare(&in, &r->prep, errbuf, sizeof(errbuf)) !=
	    RUNNER_CHECKED) {
		warnx("%s", errbuf);
		return -1;
	}
	if (o->archive != NULL)
		o->job[0] = r->prep.archive;
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
		c->exe = r->prep.exe;
		c->njob = o->njob;
		c->job = o->job;
		c->qemu_version = r->prep.qemu;
		c->nfs_server = o->nfs_opts != NULL ? o->nfs_server : NULL;
		c->nfs_opts = o->nfs_opts;
		c->nfs_path = o->nfs_path;
		c->given = o->given;
		c->seed = o->seed;
		c->vdisk = o->virtio ? &o->vdisk : NULL;
		c->vdisk_file = o->vdisk_file;
	}
	r->ncell = ncell;
}

/* The cells as data (vm_plan_make), each named as its result will be. */
static int
plan(struct vmrun *r)
{
	struct vm_plan_inputs in = {r->prep.exe, r->prep.exe_sha256,
	    r->o->archive != NULL ? r->prep.archive : NULL,
	    r->prep.archive_sha256};
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
		    runner_fsname(&r->conf[i]));
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
	run->round_runs = o->boot_runs > 0 ? o->boot_runs : RUNNER_ROUND_RUNS;
	/*
	 * UML on the virtio disk runs a few runs a boot, as QEMU does: its
	 * later runs meet writeback throttling where the earlier left it, as
	 * a QEMU guest's do (docs/vm-machine.md); ubd keeps a boot a run.
	 */
	run->seeded_runs = o->boot_runs > 0 ? o->boot_runs
	    : o->virtio                     ? RUNNER_ROUND_RUNS
	                                    : 1;
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
	if (runner_check_cells(r->conf, r->ncell, errbuf, sizeof(errbuf)) !=
	    RUNNER_CHECKED) {
		warnx("%s", errbuf);
		return -1;
	}
	return plan(r) == -1 ? -1 : runner(r);
}

/*
 * The results written (runner_write), into r->names; where, said when the
 * directory is a fresh one.
 */
int
vmrun_write(struct vmrun *r)
{
	struct runner_output out = {r->o->outdir, r->conf, r->o->machine,
	    r->o->nmachine, varying(r->o), &r->plan,
	    r->o->ngate > 0 && r->o->ncell == 0, "", 0, r->names};
	char errbuf[1024];

	switch (runner_write(&r->run, &out, errbuf, sizeof(errbuf))) {
	case RUNNER_WROTE:
		if (out.fresh)
			fprintf(
			    stderr, "ubcreplay vm: results in %s\n", out.dir);
		return 0;
	case RUNNER_WROTE_NOTHING:
		return 0;
	case RUNNER_WRITE_FAILED:
		break;
	}
	warnx("%s", errbuf);
	return -1;
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
