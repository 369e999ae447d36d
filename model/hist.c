/*
 * hist.c - log2 histograms; see hist.h for the bucket rule.
 */
#include <stdio.h>

#include "hist.h"

unsigned
hist_bucket(uint64_t value)
{
	unsigned b = 0;

	while (value != 0) {
		b++;
		value >>= 1;
	}
	return b;
}

uint64_t
hist_bucket_min(unsigned b)
{
	if (b == 0 || b >= HIST_NBUCKETS)
		return 0;
	return (uint64_t)1 << (b - 1);
}

void
hist_add(struct hist *h, uint64_t value, uint64_t weight)
{
	h->count[hist_bucket(value)] += weight;
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned b = 0; b < HIST_NBUCKETS; b++)
		dst->count[b] += src->count[b];
}

uint64_t
hist_total(const struct hist *h)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < HIST_NBUCKETS; b++)
		n += h->count[b];
	return n;
}

const char *
hist_label(unsigned b, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	uint64_t v = hist_bucket_min(b);
	unsigned u = 0;

	/* Powers of two below 1024 print as they are; above, in K, M, ... */
	while (v >= 1024 && u < sizeof(units) - 1) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(
		    buf, len, "%llu%c", (unsigned long long)v, units[u - 1]);
	return buf;
}
