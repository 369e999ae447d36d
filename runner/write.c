/*
 * write.c - the results of a matrix of `ubcreplay vm` written, each as
 * DIR/KERNEL-FS.json (DIR/KERNEL-FS-MACHINE.json with more than one
 * machine), stamped with its plan, how its runs were laid out in time
 * (vm.design) and, when this run judged gates, how (vm.judged). Whole or
 * not at all, each through outfile; it prints nothing.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis.h"
#include "runner.h"

/* The output directory: as given (made if need be), or a fresh one. */
static int
outdir(struct runner_output *o, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");

	o->fresh = o->outdir == NULL;
	if (o->outdir != NULL) {
		snprintf(o->dir, sizeof(o->dir), "%s", o->outdir);
		if (mkdir(o->dir, 0755) == -1 && errno != EEXIST) {
			snprintf(err, errlen, "cannot make '%s': %s", o->dir,
			    strerror(errno));
			return -1;
		}
		return 0;
	}
	snprintf(o->dir, sizeof(o->dir), "ubcreplay-vm.XXXXXX");
	if (mkdtemp(o->dir) != NULL)
		return 0;
	snprintf(o->dir, sizeof(o->dir), "%s/ubcreplay-vm.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(o->dir) == NULL) {
		snprintf(err, errlen, "cannot make '%s': %s", o->dir,
		    strerror(errno));
		return -1;
	}
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

/* A cell's name after its kernel: the disk's filesystem, or nfs. */
const char *
runner_fsname(const struct vm_cell_conf *c)
{
	if (c->nfs_server != NULL)
		return "nfs";
	return strcmp(c->fstype, "none") == 0 ? "raw" : c->fstype;
}

/*
 * Cell i's file, named as in a run of the whole plan, whichever of its
 * cells ran here (--cell), so that a scheduler's results merge; a cell
 * whose kernel, filesystem and machine an earlier one has gets its number.
 */
static void
name(const struct runner_output *o, size_t i, char *path, size_t len)
{
	const struct vm_cell_conf *c = &o->conf[i];
	char kname[PATH_MAX / 4], m[128];
	int dup = 0;

	for (size_t j = 0; j < i; j++)
		dup |= strcmp(vm_kernel_name(o->conf[j].kernel),
		           vm_kernel_name(c->kernel)) == 0 &&
		    strcmp(runner_fsname(&o->conf[j]), runner_fsname(c)) == 0 &&
		    j % o->nmachine == i % o->nmachine;
	stem(c->kernel, kname, sizeof(kname));
	cmp_machine_tag(
	    &o->machine[i % o->nmachine], "", o->varying, "-", m, sizeof(m));
	for (char *p = m; *p != '\0'; p++)
		*p = *p == ':' ? '-' : *p;
	if (dup)
		snprintf(path, len, "%s/%s-%s-%zu.json", o->dir, kname,
		    runner_fsname(c), i + 1);
	else
		snprintf(path, len, "%s/%s-%s%s%s.json", o->dir, kname,
		    runner_fsname(c), *m ? "-" : "", m);
}

/* What vm.design says of cell i's runs: their rounds and their order. */
json_t *
runner_design_json(const struct runner *r, size_t i)
{
	json_t *b, *doc = r->doc[i];
	size_t k, most, rounds = 1;

	most = json_array_size(json_object_get(doc, "runs"));
	json_array_foreach (json_object_get(doc, "boots"), k, b) {
		size_t n = json_array_size(json_object_get(b, "runs"));

		most = n > most ? n : most;
		rounds++;
	}
	return json_pack("{s:I, s:I, s:s, s:I}", "rounds", (json_int_t)rounds,
	    "runs_per_round", (json_int_t)most, "order",
	    r->cells->seeded(r->cells_ctx, i) || r->round_runs > 0
	        ? "alternating"
	        : "in_turn",
	    "cells", (json_int_t)r->nturn);
}

/* The stamps of cell i's result: its plan, its design, how it was judged. */
static int
stamp(const struct runner *r, const struct runner_output *o, size_t i)
{
	json_t *vm = json_object_get(r->doc[i], "vm");
	int fixed = r->nlook == 0;

	if (json_object_set_new(vm, "plan", vm_plan_stamp(o->plan, i)) == -1 ||
	    json_object_set_new(vm, "design", runner_design_json(r, i)) == -1)
		return -1;
	/* A plan's cells are judged by --merge, at its level. */
	if (!o->judged)
		return 0;
	return json_object_set_new(vm, "judged",
	    gate_judged_json((enum gate_rule)r->judge.rule, r->judge.level,
	        fixed ? &r->runs : r->look, fixed ? 1 : (size_t)r->nlook));
}

enum runner_written
runner_write(
    const struct runner *r, struct runner_output *o, char *err, size_t errlen)
{
	int any = 0;

	err[0] = '\0';
	for (size_t i = 0; i < r->ncell; i++)
		any |= r->doc[i] != NULL;
	if (!any)
		return RUNNER_WROTE_NOTHING;
	if (outdir(o, err, errlen) == -1)
		return RUNNER_WRITE_FAILED;
	for (size_t i = 0; i < r->ncell; i++) {
		if (r->doc[i] == NULL)
			continue;
		name(o, i, o->names[i], sizeof(o->names[i]));
		if (stamp(r, o, i) == -1) {
			snprintf(err, errlen, "out of memory");
			return RUNNER_WRITE_FAILED;
		}
		if (result_write(r->doc[i], o->names[i], err, errlen) == -1)
			return RUNNER_WRITE_FAILED;
	}
	return RUNNER_WROTE;
}
