/*
 * vmcells.c - the cell runner of vm/'s cells (struct runner_cell_ops): a
 * cell booted in a QEMU guest or as a UML kernel for the runs asked, on
 * the seed asked, stepped through its states (again under TCG when KVM
 * cannot run it), its result labelled with its machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner.h"

static void
event(const struct runner_vm *vm, enum runner_event_kind kind, size_t i,
    const struct vm_cell *c)
{
	struct runner_event e = {
	    kind, i, c->accel, c->guest_ns, c->boot_ns, NULL};

	if (vm->report != NULL && vm->report->cell != NULL)
		vm->report->cell(vm->report_ctx, &e);
}

static int
seeded(void *ctx, size_t i)
{
	const struct runner_vm *vm = ctx;

	return vm->conf[i].kernel->machine == VM_MACHINE_UML;
}

/*
 * A cell under way: its vm/ cell, the cell's conf with the seed of this
 * boot (a cell's seeds boot side by side), and its index in conf.
 */
struct vmcell {
	struct vm_cell c;
	struct vm_cell_conf conf;
	size_t i;
};

static void *
start(void *ctx, size_t i, int runs, long long seed, char *err, size_t errlen)
{
	struct runner_vm *vm = ctx;
	struct vmcell *h = calloc(1, sizeof(*h));

	if (h == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (runs >= 1)
		snprintf(vm->runs_arg, 16, "%d", runs);
	h->conf = vm->conf[i];
	if (seed >= 0)
		h->conf.seed = seed;
	h->i = i;
	vm_cell_init(&h->c, &h->conf);
	if (vm_cell_prepare(&h->c, err, errlen) == -1 ||
	    vm_cell_start(&h->c, err, errlen) == -1) {
		vm_cell_cleanup(&h->c);
		free(h);
		return NULL;
	}
	return h;
}

/* With more than one machine, doc's label says which runs the cell. */
static int
label(const struct runner_vm *vm, json_t *doc, size_t i)
{
	char buf[512];

	if (vm->tag[i][0] == '\0')
		return 0;
	snprintf(buf, sizeof(buf), "%s %s",
	    json_string_value(json_object_get(doc, "label")), vm->tag[i]);
	return json_object_set_new(doc, "label", json_string(buf));
}

/*
 * One step of a cell under way: DONE and FAILED end it, RETRY starts it
 * again under TCG.
 */
static int
poll(void *ctx, void *hp, int parallel, json_t **doc, char *err, size_t errlen)
{
	const struct runner_vm *vm = ctx;
	struct vmcell *h = hp;
	struct vm_cell *c = &h->c;
	enum vm_state s;

	if (c->parallel_guests < parallel)
		c->parallel_guests = parallel;
	s = vm_cell_poll(c, err, errlen);
	if (s == VM_RETRY) {
		event(vm, RUNNER_CELL_RETRY, h->i, c);
		s = vm_cell_retry(c, err, errlen) == -1 ? VM_FAILED : c->state;
	}
	if (s == VM_SERVER || s == VM_RUNNING)
		return 1;
	if (s != VM_DONE || (*doc = vm_cell_result(c, err, errlen)) == NULL)
		return -1;
	if (label(vm, *doc, h->i) == -1) {
		json_decref(*doc);
		*doc = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	event(vm, RUNNER_CELL_DONE, h->i, c);
	return 0;
}

static void
stop(void *ctx, void *hp)
{
	struct vmcell *h = hp;

	(void)ctx;
	vm_cell_cleanup(&h->c);
	free(h);
}

/* The host learns everything through files, polled every 50 ms. */
static void
nap(void *ctx)
{
	const struct timespec t = {0, 50 * 1000000};

	(void)ctx;
	nanosleep(&t, NULL);
}

const struct runner_cell_ops runner_vm_cells = {seeded, start, poll, stop, nap};
