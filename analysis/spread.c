/*
 * spread.c - median, min and max over runs. The median of an even count is
 * the lower of the middle two, so that it is always a measured value.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static int
cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

struct spread
stats_spread(const int64_t *v, size_t n)
{
	struct spread s = {0, 0, 0};
	int64_t *c;

	if (n == 0 || (c = malloc(n * sizeof(*c))) == NULL)
		return s;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp64);
	s.median = c[(n - 1) / 2];
	s.min = c[0];
	s.max = c[n - 1];
	free(c);
	return s;
}
