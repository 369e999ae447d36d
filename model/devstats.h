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

/*
 * The size x latency table: size buckets 0 .. 23 (the last from 4 MiB up)
 * by latency buckets 10 .. 41 (512 ns to 2^40 ns, about 18 minutes).
 */
#define DEVSTATS_LAT_ROWS 24
#define DEVSTATS_LAT_COLS 32
#define DEVSTATS_LAT_COL0 10

/* The most devices one result follows (a target and its members). */
#define DEVSTATS_MAXDEV 16

/* One direction of transfers at one device. */
struct xfer {
	uint64_t ops;
	uint64_t bytes;
	uint64_t merges;
	int64_t time_ns; /* sum of the time the requests took */
	/*
	 * Transfer sizes. For an exact probe one count per request; for an
	 * interval probe the mean size of each interval, weighted by that
	 * interval's operations (what iostat shows as rareq-sz / wareq-sz).
	 */
	struct hist size;

	/*
	 * The rest is measured by an exact probe only, and stays zero under an
	 * interval probe. Bios are what the filesystem submitted, before the
	 * block layer merged them into requests (ops above), after it split
	 * those larger than the device takes (splits: each one more request):
	 * merges = bios + splits - ops when every bio is counted. Empty bios
	 * (a bare preflush) are not bios here: see devstats.empty_preflush.
	 */
	uint64_t bios;
	uint64_t splits;
	uint64_t bio_bytes;
	struct hist bio_size;
	uint64_t bio_preflush; /* data bios that asked for a preflush */
	uint64_t bio_fua;      /* data bios that asked for FUA */
	uint64_t fua;          /* requests the device got with FUA */
	/*
	 * Sequentiality: requests that started where the previous request in
	 * this direction on this device ended, and the lengths (in requests)
	 * of the runs of such requests; a lone request is a run of 1. Runs are
	 * cut at phase boundaries.
	 */
	uint64_t seq_ops;
	struct hist seq_runs;
	/* Issue to completion of each request, ns; time_ns is their sum. */
	struct hist lat;
	/*
	 * The same by size: lat_by_size[r][c] counts requests of size bucket
	 * r (hist.h; the last row also holds larger ones) and latency bucket
	 * c + DEVSTATS_LAT_COL0 (the first column also holds shorter ones, the
	 * last longer ones).
	 */
	uint64_t lat_by_size[DEVSTATS_LAT_ROWS][DEVSTATS_LAT_COLS];
};

/* What one device did between two marks. */
struct devstats {
	struct xfer xfer[DIR_N];
	uint64_t flushes; /* cache flush requests, apart from writes */
	uint64_t discards;
	uint64_t discard_bytes;
	int64_t busy_ns; /* time with at least one request in flight */

	/* Measured by an exact probe only; zero under an interval probe. */
	int exact; /* the fields below are meaningful */
	/*
	 * Empty writes that carry a preflush (a bare cache flush asked for as
	 * a write, e.g. by sync): the device sees them as flushes, but
	 * diskstats counts each as a write op of 0 bytes as well.
	 */
	uint64_t empty_preflush;
	/* When the flushes were issued, from the start of the phase. */
	int64_t flush_first_ns, flush_last_ns;
	struct hist flush_gap; /* ns between consecutive flushes */
	/*
	 * Events the probe lost in this phase (ring buffer overruns and drops,
	 * for all devices together): when not zero, the exact counts are low
	 * by about that many events.
	 */
	uint64_t lost_events;
	/*
	 * The kernel's own counters (diskstats) over the same phase, read by
	 * the exact probe at the same marks so that the two reconcile:
	 * kern_ops[DIR_WRITE] = xfer[DIR_WRITE].ops + empty_preflush, and
	 * kern_flushes = flushes, when no request straddles a mark.
	 */
	int has_kern;
	uint64_t kern_ops[DIR_N], kern_bytes[DIR_N], kern_merges[DIR_N];
	uint64_t kern_flushes;
};

/* The devstats deltas between two cumulative counter readings. */
void devstats_delta(struct devstats *d, const struct devstats *now,
    const struct devstats *then);
/* Adds every counter and histogram of src into dst. */
void devstats_add(struct devstats *dst, const struct devstats *src);

#endif
