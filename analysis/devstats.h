/*
 * devstats.h - the shared reduction: what one device did, per direction, in
 * the same shape whichever probe observed it.
 *
 *	struct devstats d, now, then;
 *	devstats_delta(&d, &now, &then);	cumulative counters to a delta
 *	devstats_add(&total, &d);		sum phases or runs
 */
#ifndef UBC_DEVSTATS_H
#define UBC_DEVSTATS_H

#include <stdint.h>

#include "hist.h"

enum { DIR_READ, DIR_WRITE, DIR_N };

/* The most devices one result follows (a target and its members). */
#define DEVSTATS_MAXDEV 16

/* One direction of transfers at one device. */
struct xfer {
	uint64_t ops;
	uint64_t bytes;
	uint64_t merges;
	int64_t time_ns;	/* sum of the time the requests took */
	/*
	 * Transfer sizes. For an exact probe one count per request; for an
	 * interval probe the mean size of each interval, weighted by that
	 * interval's operations (what iostat shows as rareq-sz / wareq-sz).
	 */
	struct hist size;
};

/* What one device did between two marks. */
struct devstats {
	struct xfer xfer[DIR_N];
	uint64_t flushes;	/* cache flush requests, apart from writes */
	uint64_t discards;
	uint64_t discard_bytes;
	int64_t busy_ns;	/* time with at least one request in flight */
};

/* The devstats deltas between two cumulative counter readings. */
void devstats_delta(struct devstats *d, const struct devstats *now,
    const struct devstats *then);
/* Adds every counter and histogram of src into dst. */
void devstats_add(struct devstats *dst, const struct devstats *src);

#endif
