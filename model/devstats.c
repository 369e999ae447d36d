/*
 * devstats.c - arithmetic on device statistics.
 *
 * Kernel counters are cumulative; the delta between two readings is taken
 * here, in one place, for every probe that reads counters.
 */
#include <string.h>

#include "devstats.h"

static uint64_t
sub(uint64_t now, uint64_t then)
{
	/* A counter that went backwards was reset: count from zero. */
	return now >= then ? now - then : now;
}

static int64_t
subns(int64_t now, int64_t then)
{
	return now >= then ? now - then : now;
}

void
devstats_delta(
    struct devstats *d, const struct devstats *now, const struct devstats *then)
{
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < DIR_N; i++) {
		d->xfer[i].ops = sub(now->xfer[i].ops, then->xfer[i].ops);
		d->xfer[i].bytes = sub(now->xfer[i].bytes, then->xfer[i].bytes);
		d->xfer[i].merges =
		    sub(now->xfer[i].merges, then->xfer[i].merges);
		d->xfer[i].time_ns =
		    subns(now->xfer[i].time_ns, then->xfer[i].time_ns);
	}
	d->flushes = sub(now->flushes, then->flushes);
	d->discards = sub(now->discards, then->discards);
	d->discard_bytes = sub(now->discard_bytes, then->discard_bytes);
	d->busy_ns = subns(now->busy_ns, then->busy_ns);
}

static void
add_exact(struct xfer *dst, const struct xfer *src)
{
	dst->bios += src->bios;
	dst->splits += src->splits;
	dst->bio_bytes += src->bio_bytes;
	hist_merge(&dst->bio_size, &src->bio_size);
	dst->bio_preflush += src->bio_preflush;
	dst->bio_fua += src->bio_fua;
	dst->fua += src->fua;
	dst->seq_ops += src->seq_ops;
	hist_merge(&dst->seq_runs, &src->seq_runs);
	hist_merge(&dst->lat, &src->lat);
	for (int r = 0; r < DEVSTATS_LAT_ROWS; r++)
		for (int c = 0; c < DEVSTATS_LAT_COLS; c++)
			dst->lat_by_size[r][c] += src->lat_by_size[r][c];
}

void
devstats_add(struct devstats *dst, const struct devstats *src)
{
	for (int i = 0; i < DIR_N; i++) {
		dst->xfer[i].ops += src->xfer[i].ops;
		dst->xfer[i].bytes += src->xfer[i].bytes;
		dst->xfer[i].merges += src->xfer[i].merges;
		dst->xfer[i].time_ns += src->xfer[i].time_ns;
		hist_merge(&dst->xfer[i].size, &src->xfer[i].size);
		add_exact(&dst->xfer[i], &src->xfer[i]);
	}
	if (src->exact) {
		/* Phases follow one another: the first flush is the earliest.
		 */
		if (dst->flushes == 0)
			dst->flush_first_ns = src->flush_first_ns;
		if (src->flushes > 0)
			dst->flush_last_ns = src->flush_last_ns;
		dst->exact = 1;
	}
	dst->empty_preflush += src->empty_preflush;
	hist_merge(&dst->flush_gap, &src->flush_gap);
	dst->lost_events += src->lost_events;
	if (src->has_kern) {
		dst->has_kern = 1;
		for (int i = 0; i < DIR_N; i++) {
			dst->kern_ops[i] += src->kern_ops[i];
			dst->kern_bytes[i] += src->kern_bytes[i];
			dst->kern_merges[i] += src->kern_merges[i];
		}
		dst->kern_flushes += src->kern_flushes;
	}
	dst->flushes += src->flushes;
	dst->discards += src->discards;
	dst->discard_bytes += src->discard_bytes;
	dst->busy_ns += src->busy_ns;
}
