/*
 * attrib.c - attribution over a run: the transfers the filesystem's device
 * was sent in each phase, held until the target's layout is read after the
 * sync (before the removal, outside every measured phase), then split by
 * what their blocks held (model/layout.h) into the phases' attribution.
 * The removal's transfers are split by the same layout: the blocks it
 * frees held then what they held before.
 *
 * The layout is read between two marks of the probe, and what the reading
 * itself made the device do (GETFSMAP's and the walk's reads) goes to
 * j->between, as the sync before a run does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

#define SECTOR_BYTES 512

/* The device whose places the layout gives: the filesystem's own. */
static size_t
fs_device(const struct target *t)
{
	for (size_t i = 0; i < t->ndev; i++)
		if (strcmp(t->dev[i].role, "fs") == 0)
			return i;
	return 0;
}

void
job_attrib_open(struct job *j)
{
	struct job_attrib *a = &j->attrib;
	char err[256];

	memset(a, 0, sizeof(*a));
	if (!j->o->attrib || j->t->ndev == 0)
		return;
	a->asked = 1;
	a->dev = fs_device(j->t);
	if (j->tops->layout == NULL)
		snprintf(a->why, sizeof(a->why),
		    "a %s target cannot tell what its blocks hold",
		    j->tops->kind);
	else if (probe_keep_xfers(j->probe, err, sizeof(err)) == -1)
		snprintf(a->why, sizeof(a->why), "%s", err);
	else
		a->kept = 1;
}

static void
attribute(
    struct job_attrib *a, const struct blkev_xfers *x, struct phase_attrib *pa)
{
	pa->ok = 1;
	snprintf(pa->source, sizeof(pa->source), "%s", a->layout.source);
	snprintf(pa->note, sizeof(pa->note), "%s", a->layout.note);
	pa->dropped = x->dropped;
	for (size_t i = 0; i < x->n; i++)
		layout_attribute(&a->layout, x->x[i].sector * SECTOR_BYTES,
		    x->x[i].bytes, &pa->dir[x->x[i].dir]);
}

/* Gives p its attribution, or says why it has none. */
static void
settle(struct job *j, size_t k, struct phase_result *p, const char *why)
{
	struct job_attrib *a = &j->attrib;
	struct phase_attrib *pa;

	if ((pa = calloc(1, sizeof(*pa))) != NULL) {
		snprintf(pa->device, sizeof(pa->device), "%s",
		    j->t->dev[a->dev].name);
		if (why == NULL)
			attribute(a, &a->held[k], pa);
		else
			snprintf(pa->why, sizeof(pa->why), "%s", why);
		free(p->attrib);
		p->attrib = pa;
	}
	free(a->held[k].x);
	memset(&a->held[k], 0, sizeof(a->held[k]));
}

void
job_attrib_phase(struct job *j, struct run_result *run)
{
	struct job_attrib *a = &j->attrib;
	size_t k = run->nphase - 1;

	if (!a->asked)
		return;
	if (!a->kept) {
		settle(j, k, &run->phase[k], a->why);
		return;
	}
	probe_take_xfers(j->probe, a->dev, &a->held[k]);
	/* Before the layout is read, a phase waits for it. */
	if (a->read)
		settle(j, k, &run->phase[k], NULL);
}

int
job_attrib_read(struct job *j, struct run_result *run, char *err, size_t errlen)
{
	struct job_attrib *a = &j->attrib;
	struct devstats d[DEVSTATS_MAXDEV];
	struct blkev_xfers x;
	char why[256];
	int ok;

	if (!a->kept)
		return 0;
	ok = j->tops->layout(j, &a->layout, why, sizeof(why)) == 0;
	for (size_t k = 0; k < run->nphase; k++)
		settle(j, k, &run->phase[k], ok ? NULL : why);
	a->read = ok;
	/* What reading the layout made the device do is no phase's. */
	probe_label(j->probe, "between");
	if (probe_mark(j->probe, d, err, errlen) == -1)
		return -1;
	for (size_t i = 0; i < j->t->ndev; i++)
		devstats_add(&j->between[i], &d[i]);
	probe_take_xfers(j->probe, a->dev, &x);
	free(x.x);
	return 0;
}

void
job_attrib_end(struct job *j, struct run_result *run)
{
	struct job_attrib *a = &j->attrib;

	for (size_t k = 0; k < RESULT_MAXPHASE; k++) {
		if (a->asked && k < run->nphase && run->phase[k].attrib == NULL)
			settle(j, k, &run->phase[k],
			    "the run ended before its layout was read");
		free(a->held[k].x);
	}
	memset(a->held, 0, sizeof(a->held));
	layout_free(&a->layout);
	a->read = 0;
}
