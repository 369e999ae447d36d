/*
 * wtrace_order.h - which earlier operations of a workload trace each one
 * must wait for, so that the replay (wtrace.c) can do each recorded thread
 * in a thread of its own and keep the recorded order only where it
 * matters. Private to replay/ (and the trace's fuzz target).
 *
 * Two operations of different threads are ordered as recorded when they
 * touch one object: a file (through any handle or name of it, across
 * renames and links), or a directory whose entries one of them changes
 * (a create, a removal, a rename or a link in it) while the other uses a
 * path through it. A thread's own operations keep their order. A sync, a
 * syncfs, a rename of a directory and a path through a symbolic link that
 * the trace made are barriers: they wait for every earlier operation and
 * every later one waits for them.
 *
 *	struct wtrace_order o;
 *	if (wtrace_order_make(&t, &o, err, errlen) == -1) ...	t: loaded
 *	thread k does o.list[o.first[k]] .. o.list[o.first[k + 1] - 1]
 *	operation i waits for o.dep[o.dep_at[i]] .. o.dep[o.dep_at[i + 1] - 1]
 *	wtrace_read_at(&t, &o.place[i], &rec, err, errlen)
 *	wtrace_order_free(&o);
 */
#ifndef UBC_REPLAY_WTRACE_ORDER_H
#define UBC_REPLAY_WTRACE_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "../model/wtrace.h"

struct wtrace_order {
	uint64_t nops, nthreads, nhandles;
	struct wtrace_place *place; /* nops: where each record is */
	uint64_t *dep_at;           /* nops + 1: into dep */
	uint64_t *dep;   /* earlier operations of other threads, by number */
	uint64_t *first; /* nthreads + 1: into list */
	uint64_t *list;  /* nops: each thread's operations, in order */
};

/*
 * Reads the whole trace from its first record, checking each (the error
 * names the trace and the record), and orders it.
 */
int wtrace_order_make(
    struct wtrace *t, struct wtrace_order *o, char *err, size_t errlen);
void wtrace_order_free(struct wtrace_order *o);

#endif
