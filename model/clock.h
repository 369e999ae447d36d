/*
 * clock.h - the one monotonic clock every module times things with: the
 * workload's phases (replay/), the probes and the recorder (traces/), the
 * guests (vm/). In model/, the one folder all of them may include.
 *
 *	int64_t t0 = clock_now_ns();
 *	...
 *	elapsed_ns = clock_now_ns() - t0;
 */
#ifndef UBC_CLOCK_H
#define UBC_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: never steps back, whatever NTP does. */
int64_t clock_now_ns(void);

#endif
