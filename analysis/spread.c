/*
 * spread.c - median, min and max over runs of integer figures (counts,
 * bytes, nanoseconds), for the result's summary: stats.c's summary on a
 * copy in double, which holds every integer below 2^53 exactly (104 days
 * in nanoseconds, 9 PB in bytes), so the figures come back unchanged.
 */
#include <stdlib.h>

#include "analysis.h"
#include "stats.h"

struct spread
stats_spread(const int64_t *v, size_t n)
{
	struct spread s = {0, 0, 0};
	struct stats_summary sum;
	double *d;

	if (n == 0 || (d = malloc(n * sizeof(*d))) == NULL)
		return s;
	for (size_t i = 0; i < n; i++)
		d[i] = (double)v[i];
	stats_summarize(d, n, &sum);
	free(d);
	s.median = (int64_t)sum.median;
	s.min = (int64_t)sum.min;
	s.max = (int64_t)sum.max;
	return s;
}
