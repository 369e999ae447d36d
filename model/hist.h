/*
 * hist.h - log2 histograms, the one set of buckets every layer shares.
 *
 * Every size and latency that ubcreplay reports, whatever probe measured it
 * (interval means from diskstats, requests from tracefs, write() calls made
 * by the workload, NFS WRITEs on the wire), lands in the same buckets, so
 * layers can be read side by side:
 *
 *	bucket 0	the value 0
 *	bucket k	values in [2^(k-1), 2^k - 1], for k = 1 .. 64
 *
 * so 4096 and 8191 fall in bucket 13 (labelled "4K"), 8192 in bucket 14.
 *
 *	struct hist h = {0};
 *	hist_add(&h, 4096, 1);
 *	hist_total(&h);			-> 1
 */
#ifndef UBC_HIST_H
#define UBC_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_NBUCKETS 65

struct hist {
	uint64_t count[HIST_NBUCKETS];
};

/* The bucket that holds value. */
unsigned hist_bucket(uint64_t value);

/* The smallest value bucket b holds (0 for bucket 0). */
uint64_t hist_bucket_min(unsigned b);

/* Counts value weight times. */
void hist_add(struct hist *h, uint64_t value, uint64_t weight);

/* Adds every bucket of src into dst. */
void hist_merge(struct hist *dst, const struct hist *src);

/* The sum of all counts. */
uint64_t hist_total(const struct hist *h);

/*
 * Writes a short label for the lower bound of bucket b into buf, in binary
 * units: "0", "1", "512", "4K", "1M". Returns buf.
 */
const char *hist_label(unsigned b, char *buf, size_t len);

#endif
