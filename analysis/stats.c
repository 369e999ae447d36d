/*
 * stats.c - rank test, change with its interval, chi-square and histogram
 * distances; see stats.h for what each promises.
 *
 * The sets compared are small (runs of a workload, tens at most) or are
 * histograms of 65 buckets, so the code favours plain loops that are easy to
 * check against scipy.stats over clever ones.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

double
stats_median(const double *v, size_t n)
{
	size_t rank = n == 0 ? 0 : (n - 1) / 2;

	/*
	 * The value whose rank range holds the lower middle rank. Quadratic,
	 * but it needs no copy and the sets are runs, a few dozen at most.
	 */
	for (size_t i = 0; i < n; i++) {
		size_t lt = 0, eq = 0;

		for (size_t j = 0; j < n; j++) {
			if (v[j] < v[i])
				lt++;
			else if (v[j] == v[i])
				eq++;
		}
		if (lt <= rank && rank < lt + eq)
			return v[i];
	}
	return 0;
}

void
stats_summarize(const double *v, size_t n, struct stats_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0)
		return;
	out->median = stats_median(v, n);
	out->min = out->max = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < out->min)
			out->min = v[i];
		if (v[i] > out->max)
			out->max = v[i];
	}
}

double
stats_norm_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

/*
 * The number of ways each U can arise when na values are ranked among
 * na + nb without ties, into c[0 .. na * nb] (c holds na * nb + na + 1): the
 * coefficients of the Gaussian binomial [na + nb choose na] in q, built one
 * factor at a time as prod (1 - q^(nb+i)) / (1 - q^i), each step itself a
 * Gaussian binomial, so every intermediate has integer coefficients.
 */
static void
mw_counts(size_t na, size_t nb, int64_t *c)
{
	size_t deg = 0;

	memset(c, 0, (na * nb + na + 1) * sizeof(*c));
	c[0] = 1;
	for (size_t i = 1; i <= na; i++) {
		size_t up = nb + i, top = deg + up;

		/* Times (1 - q^up), from the top so each c[u - up] is old. */
		for (size_t u = top; u >= up; u--)
			c[u] -= c[u - up];
		/*
		 * Divided by (1 - q^i): the quotient's recurrence, upwards; the
		 * division is exact, so c[deg + nb + 1 .. top] return to 0.
		 */
		for (size_t u = i; u <= top; u++)
			c[u] += c[u - i];
		deg += nb;
	}
}

struct ranked {
	double v;
	size_t i;
};

static int
cmp_ranked(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v;
	double b = ((const struct ranked *)y)->v;

	return a < b ? -1 : a > b;
}

/*
 * Twice the midrank of each of n values into r2 (an integer: i + j + 1
 * for a group of equal values at sorted places i .. j - 1), the values
 * compared as they are, or by magnitude when absolute. -1 when memory
 * runs out.
 */
static int
midranks2(const double *v, size_t n, int absolute, size_t *r2)
{
	struct ranked *s = calloc(n, sizeof(*s));

	if (s == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		s[i] = (struct ranked){absolute ? fabs(v[i]) : v[i], i};
	qsort(s, n, sizeof(*s), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && s[j].v == s[i].v)
			j++;
		for (size_t k = i; k < j; k++)
			r2[s[k].i] = i + j + 1;
		i = j;
	}
	free(s);
	return 0;
}

/*
 * The two-sided p of an observed sum w under a permutation distribution,
 * cnt[0 .. top] the ways each sum arises: twice the smaller tail (each
 * tail holding w itself), at most 1.
 */
static double
perm_p(const double *cnt, size_t top, size_t w)
{
	double all = 0, le = 0, ge = 0;

	for (size_t s = 0; s <= top; s++) {
		all += cnt[s];
		if (s <= w)
			le += cnt[s];
		if (s >= w)
			ge += cnt[s];
	}
	return fmin(1.0, 2 * fmin(le, ge) / all);
}

/*
 * The exact permutation p of the rank-sum test with ties: every way of
 * choosing na of the na + nb values for a is equally likely under no
 * change, and the statistic is the sum of a's midranks. Counted by sum
 * (twice the midranks, so integers) and by how many are chosen, one value
 * at a time. -1 when memory runs out.
 */
static int
perm_mw(const double *a, size_t na, const double *b, size_t nb, double *p)
{
	size_t n = na + nb, top = n * (n + 1), w = 0;
	size_t *r2 = calloc(n, sizeof(*r2));
	double *v = calloc(n, sizeof(*v));
	double *cnt = calloc((na + 1) * (top + 1), sizeof(*cnt));
	int rc = -1;

	if (r2 == NULL || v == NULL || cnt == NULL)
		goto out;
	for (size_t i = 0; i < n; i++)
		v[i] = i < na ? a[i] : b[i - na];
	if (midranks2(v, n, 0, r2) == -1)
		goto out;
	/* cnt[j * (top + 1) + s]: ways j values chosen sum to s. */
	cnt[0] = 1;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = (i + 1 < na ? i + 1 : na); j >= 1; j--)
			for (size_t s = top; s >= r2[i]; s--)
				cnt[j * (top + 1) + s] +=
				    cnt[(j - 1) * (top + 1) + s - r2[i]];
		if (i < na)
			w += r2[i];
	}
	*p = perm_p(cnt + na * (top + 1), top, w);
	rc = 0;
out:
	free(r2);
	free(v);
	free(cnt);
	return rc;
}

void
stats_mannwhitney(const double *a, size_t na, const double *b, size_t nb,
    struct stats_mw *out)
{
	size_t n = na + nb;
	double u = 0, ties = 0, umax, mu, var;

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1.0 : a[i] == b[j] ? 0.5 : 0.0;
	out->u = u;

	/* Sum of t^3 - t over the groups of tied values in both sets. */
	for (size_t i = 0; i < n; i++) {
		double x = i < na ? a[i] : b[i - na];
		size_t t = 0, first = 1;

		for (size_t j = 0; j < n; j++) {
			double y = j < na ? a[j] : b[j - na];

			if (y == x) {
				if (j < i)
					first = 0;
				t++;
			}
		}
		if (first && t > 1)
			ties += (double)t * t * t - (double)t;
	}

	/* Two-sided: the tail beyond the larger of U and na*nb - U. */
	umax = u > (double)na * nb - u ? u : (double)na * nb - u;

	/*
	 * Ties: the exact permutation distribution of the midranks, not the
	 * normal approximation, which with few runs says more than any
	 * arrangement of them can (3 equal runs against 3 others: p 0.047
	 * where every arrangement has 1 chance in 10).
	 */
	if (ties != 0 && na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX &&
	    perm_mw(a, na, b, nb, &out->p) == 0) {
		out->method = STATS_MW_EXACT;
		return;
	}

	if (ties == 0 && na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX) {
		int64_t c[STATS_MW_EXACT_MAX * (STATS_MW_EXACT_MAX + 1) + 1];
		double total = 0, tail = 0;

		mw_counts(na, nb, c);
		for (size_t k = 0; k <= na * nb; k++) {
			total += (double)c[k];
			if ((double)k >= umax)
				tail += (double)c[k];
		}
		out->method = STATS_MW_EXACT;
		out->p = fmin(1.0, 2.0 * tail / total);
		return;
	}

	out->method = STATS_MW_NORMAL;
	mu = (double)na * nb / 2.0;
	var = (double)na * nb / 12.0 *
	    ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (n < 2 || var <= 0) {
		/* Every value equal: the data cannot tell the sets apart. */
		out->p = 1.0;
		return;
	}
	out->p = fmin(1.0, 2.0 * stats_norm_sf((umax - mu - 0.5) / sqrt(var)));
}

double
stats_mw_pmin(size_t na, size_t nb)
{
	double lc;

	if (na == 0 || nb == 0)
		return 1.0;
	lc = lgamma((double)(na + nb + 1)) - lgamma((double)(na + 1)) -
	    lgamma((double)(nb + 1));
	return fmin(1.0, 2.0 * exp(-lc));
}

size_t
stats_fewest(double level, int paired)
{
	size_t n = 1;

	while ((paired ? stats_sr_pmin(n) : stats_mw_pmin(n, n)) > 1 - level &&
	    n < 1000000)
		n++;
	return n;
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* The z with stats_norm_sf(z) = q, for 0 < q < 0.5, by bisection. */
static double
norm_isf(double q)
{
	double lo = 0, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (stats_norm_sf(mid) > q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * The rank, from 1, of the pairwise difference that bounds the interval at
 * level: the largest k with P(U <= k - 1) <= (1 - level) / 2 under no
 * change; 0 when even P(U = 0) is above it (no interval). Exact up to
 * STATS_MW_EXACT_MAX runs a side, the normal approximation beyond.
 */
static size_t
interval_rank(size_t na, size_t nb, double level)
{
	double tail = (1 - level) / 2, mu = (double)na * nb / 2, sd;
	size_t k = 0;

	if (na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX) {
		int64_t c[STATS_MW_EXACT_MAX * (STATS_MW_EXACT_MAX + 1) + 1];
		double total = 0, below = 0;

		mw_counts(na, nb, c);
		for (size_t u = 0; u <= na * nb; u++)
			total += (double)c[u];
		/* k grows while P(U <= k) stays within the tail. */
		while (
		    k < na * nb / 2 && (below + (double)c[k]) / total <= tail)
			below += (double)c[k++];
		return k;
	}
	sd = sqrt((double)na * nb * (double)(na + nb + 1) / 12);
	k = (size_t)fmax(0, floor(mu - norm_isf(tail) * sd + 0.5));
	return k;
}

/*
 * The scale the change is measured on: the logarithm when every value is
 * positive (a ratio), else the values themselves (a shift, as a share of
 * a's median, which must then be positive).
 */
static int
change_scale(const double *a, size_t na, const double *b, size_t nb,
    int *logscale, double *base)
{
	*logscale = 1;
	for (size_t i = 0; i < na + nb; i++)
		if (!((i < na ? a[i] : b[i - na]) > 0))
			*logscale = 0;
	*base = stats_median(a, na);
	return *logscale || *base > 0 ? 0 : -1;
}

static double
scaled(double v, int logscale)
{
	return logscale ? log(v) : v;
}

static double
unscaled(double d, int logscale, double base)
{
	return logscale ? exp(d) : 1 + d / base;
}

int
stats_change(const double *a, size_t na, const double *b, size_t nb,
    double level, struct stats_change *out, char *err, size_t errlen)
{
	size_t m = na * nb, k;
	double *d, base, mid;
	int logscale;

	memset(out, 0, sizeof(*out));
	if (na == 0 || nb == 0 ||
	    change_scale(a, na, b, nb, &logscale, &base) == -1)
		return 0;
	if ((d = calloc(m, sizeof(*d))) == NULL) {
		snprintf(err, errlen,
		    "cannot allocate the %zu differences of %zu runs against "
		    "%zu",
		    m, na, nb);
		return -1;
	}
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[i * nb + j] =
			    scaled(b[j], logscale) - scaled(a[i], logscale);
	qsort(d, m, sizeof(*d), cmp_double);
	mid = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
	out->valid = 1;
	out->logscale = logscale;
	out->est = unscaled(mid, logscale, base);
	k = interval_rank(na, nb, level);
	out->bounded = k > 0;
	out->lo = k > 0 ? unscaled(d[k - 1], logscale, base) : -INFINITY;
	out->hi = k > 0 ? unscaled(d[m - k], logscale, base) : INFINITY;
	free(d);
	return 0;
}

/* The median absolute deviation of v, on the change's scale. */
static double
mad(const double *v, size_t n, int logscale, double *scratch)
{
	double med;

	for (size_t i = 0; i < n; i++)
		scratch[i] = scaled(v[i], logscale);
	med = stats_median(scratch, n);
	for (size_t i = 0; i < n; i++)
		scratch[i] = fabs(scratch[i] - med);
	return stats_median(scratch, n);
}

/*
 * The runs (or pairs) that would bound the interval at level off limit
 * four times in five: var is the estimate's variance times the runs, on
 * the change's scale, dist the estimate's distance to the limit, least
 * the fewest runs that bound an interval at all. The Hodges-Lehmann
 * estimate's variance is pi / 3 times the mean's on normal noise; for the
 * interval to miss the limit four times in five, the distance must hold
 * its half-width (z of the level) and 0.84 of its own spread.
 */
static size_t
runs_needed(double var, double dist, double level, size_t least)
{
	double z, want;

	if (!(dist > 0))
		return SIZE_MAX;
	z = norm_isf((1 - level) / 2) + norm_isf(0.2);
	want = ceil((acos(-1.0) / 3) * var * pow(z / dist, 2));
	if (want > 1e6)
		return SIZE_MAX;
	return want > (double)least ? (size_t)want : least;
}

/* The distance from the estimate to limit, on the change's scale. */
static double
limit_distance(const struct stats_change *ch, double limit, double base)
{
	return ch->logscale ? fabs(log(ch->est) - log(limit))
	                    : fabs(ch->est - limit) * base;
}

size_t
stats_change_runs(const double *a, size_t na, const double *b, size_t nb,
    const struct stats_change *ch, double level, double limit)
{
	double base, sigma, *scratch;
	size_t least = 2;
	int logscale;

	if (na == 0 || nb == 0 || !ch->valid ||
	    change_scale(a, na, b, nb, &logscale, &base) == -1 ||
	    (logscale && !(limit > 0)))
		return SIZE_MAX;
	if ((scratch = calloc(na > nb ? na : nb, sizeof(*scratch))) == NULL)
		return SIZE_MAX;
	/* The pooled spread, as a normal's standard deviation. */
	sigma = 1.4826 *
	    sqrt((pow(mad(a, na, logscale, scratch), 2) +
	             pow(mad(b, nb, logscale, scratch), 2)) /
	        2);
	free(scratch);
	while (interval_rank(least, least, level) == 0)
		least++;
	/* A difference of two means: twice one side's variance. */
	return runs_needed(
	    2 * sigma * sigma, limit_distance(ch, limit, base), level, least);
}

/*
 * The number of ways each signed-rank sum T can arise from n ranks without
 * ties, into c[0 .. n (n + 1) / 2]: each rank r is in the sum or not, so
 * the counts are those of prod (1 + q^r). Doubles hold them exactly up to
 * 2^53, past STATS_SR_EXACT_MAX's 2^50.
 */
static void
sr_counts(size_t n, double *c)
{
	size_t top = 0;

	memset(c, 0, (n * (n + 1) / 2 + 1) * sizeof(*c));
	c[0] = 1;
	for (size_t r = 1; r <= n; r++) {
		top += r;
		for (size_t t = top; t >= r; t--)
			c[t] += c[t - r];
	}
}

/*
 * The pairs' differences on the change's scale into d, those that are 0
 * dropped when drop is set; how many are left.
 */
static size_t
pair_diffs(const double *a, const double *b, size_t n, int logscale,
    double base, int drop, double *d)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		double x = scaled(b[i], logscale) - scaled(a[i], logscale);

		if (!logscale)
			x /= base;
		if (x != 0 || !drop)
			d[m++] = x;
	}
	return m;
}

static int
cmp_abs(const void *x, const void *y)
{
	double a = fabs(*(const double *)x), b = fabs(*(const double *)y);

	return a < b ? -1 : a > b;
}

/*
 * The exact p of the signed-rank test with ties among the m differences
 * d (none 0): under no change each difference's sign is + or - alike, and
 * the statistic is the sum of the midranks of |d| that are positive,
 * counted by sum (twice the midranks) over all 2^m choices. -1 when
 * memory runs out.
 */
static int
perm_sr(const double *d, size_t m, double *p)
{
	size_t top = m * (m + 1), w = 0;
	size_t *r2 = calloc(m, sizeof(*r2));
	double *cnt = calloc(top + 1, sizeof(*cnt));
	int rc = -1;

	if (r2 == NULL || cnt == NULL || midranks2(d, m, 1, r2) == -1)
		goto out;
	cnt[0] = 1;
	for (size_t i = 0; i < m; i++) {
		for (size_t s = top; s >= r2[i]; s--)
			cnt[s] += cnt[s - r2[i]];
		if (d[i] > 0)
			w += r2[i];
	}
	*p = perm_p(cnt, top, w);
	rc = 0;
out:
	free(r2);
	free(cnt);
	return rc;
}

void
stats_signedrank(
    const double *a, const double *b, size_t n, struct stats_mw *out)
{
	double *d, base, t = 0, ties = 0, mu, var, tmax, total;
	size_t m;
	int logscale;

	memset(out, 0, sizeof(*out));
	out->p = 1;
	out->method = STATS_MW_EXACT;
	if (n == 0 || change_scale(a, n, b, n, &logscale, &base) == -1 ||
	    (d = calloc(n, sizeof(*d))) == NULL)
		return;
	m = pair_diffs(a, b, n, logscale, base, 1, d);
	qsort(d, m, sizeof(*d), cmp_abs);
	/* Midranks over runs of equal |d|, and their t^3 - t. */
	for (size_t i = 0; i < m;) {
		size_t j = i;

		while (j < m && fabs(d[j]) == fabs(d[i]))
			j++;
		for (size_t k = i; k < j; k++)
			if (d[k] > 0)
				t += (double)(i + j + 1) / 2;
		ties += pow((double)(j - i), 3) - (double)(j - i);
		i = j;
	}
	out->u = t;
	total = (double)m * (m + 1) / 2;
	tmax = t > total - t ? t : total - t;
	if (m == 0) {
		free(d);
		return;
	}
	/*
	 * Ties: the exact distribution over every choice of signs of the
	 * midranks, as without them, rather than the normal approximation.
	 */
	if (ties != 0 && m <= STATS_SR_EXACT_MAX &&
	    perm_sr(d, m, &out->p) == 0) {
		free(d);
		return;
	}
	if (ties == 0 && m <= STATS_SR_EXACT_MAX) {
		double *c, all = 0, tail = 0;

		if ((c = calloc((size_t)total + 1, sizeof(*c))) != NULL) {
			sr_counts(m, c);
			for (size_t k = 0; k <= (size_t)total; k++) {
				all += c[k];
				if ((double)k >= tmax)
					tail += c[k];
			}
			out->p = fmin(1.0, 2 * tail / all);
			free(c);
			free(d);
			return;
		}
	}
	free(d);
	out->method = STATS_MW_NORMAL;
	mu = total / 2;
	var = (double)m * (m + 1) * (2 * m + 1) / 24 - ties / 48;
	out->p = var > 0
	    ? fmin(1.0, 2 * stats_norm_sf((tmax - mu - 0.5) / sqrt(var)))
	    : 1.0;
}

double
stats_sr_pmin(size_t n)
{
	return n == 0 ? 1.0 : fmin(1.0, 2 * pow(2, -(double)n));
}

/*
 * The rank, from 1, of the pairs' average that bounds the interval at
 * level: the largest k with P(T <= k - 1) <= (1 - level) / 2; 0 when even
 * P(T = 0) is above it.
 */
static size_t
sr_interval_rank(size_t n, double level)
{
	double tail = (1 - level) / 2, total = (double)n * (n + 1) / 2;
	size_t k = 0;

	if (n <= STATS_SR_EXACT_MAX) {
		double c[STATS_SR_EXACT_MAX * (STATS_SR_EXACT_MAX + 1) / 2 + 1];
		double all = pow(2, (double)n), below = 0;

		sr_counts(n, c);
		while ((double)k < total / 2 && (below + c[k]) / all <= tail)
			below += c[k++];
		return k;
	}
	return (size_t)fmax(0,
	    floor(total / 2 - norm_isf(tail) * sqrt(total * (2 * n + 1) / 12) +
	        0.5));
}

int
stats_change_paired(const double *a, const double *b, size_t n, double level,
    struct stats_change *out, char *err, size_t errlen)
{
	size_t m = n * (n + 1) / 2, k, w = 0;
	double *d, *avg, base, mid;
	int logscale;

	memset(out, 0, sizeof(*out));
	if (n == 0 || change_scale(a, n, b, n, &logscale, &base) == -1)
		return 0;
	d = calloc(n, sizeof(*d));
	avg = calloc(m, sizeof(*avg));
	if (d == NULL || avg == NULL) {
		free(d);
		free(avg);
		snprintf(err, errlen,
		    "cannot allocate the %zu averages of %zu pairs", m, n);
		return -1;
	}
	pair_diffs(a, b, n, logscale, base, 0, d);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			avg[w++] = (d[i] + d[j]) / 2;
	qsort(avg, m, sizeof(*avg), cmp_double);
	mid = m % 2 ? avg[m / 2] : (avg[m / 2 - 1] + avg[m / 2]) / 2;
	out->valid = 1;
	out->logscale = logscale;
	/* The differences are already over the base: unscale with 1. */
	base = logscale ? base : 1;
	out->est = unscaled(mid, logscale, base);
	/*
	 * No shortcut for pairs that all differ alike: they too need the
	 * pairs that bound an interval at this level (6 at 95%, 8 at 99%),
	 * as repeating runs need 4 a side at 95% and 5 at 99%.
	 */
	k = sr_interval_rank(n, level);
	out->bounded = k > 0;
	out->lo = k > 0 ? unscaled(avg[k - 1], logscale, base) : -INFINITY;
	out->hi = k > 0 ? unscaled(avg[m - k], logscale, base) : INFINITY;
	free(d);
	free(avg);
	return 0;
}

size_t
stats_change_paired_runs(const double *a, const double *b, size_t n,
    const struct stats_change *ch, double level, double limit)
{
	double base, sigma, *d, med;
	size_t least = 1;
	int logscale;

	if (n == 0 || !ch->valid ||
	    change_scale(a, n, b, n, &logscale, &base) == -1 ||
	    (logscale && !(limit > 0)) || (d = calloc(n, sizeof(*d))) == NULL)
		return SIZE_MAX;
	pair_diffs(a, b, n, logscale, base, 0, d);
	med = stats_median(d, n);
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(d[i] - med);
	sigma = 1.4826 * stats_median(d, n);
	free(d);
	while (sr_interval_rank(least, level) == 0)
		least++;
	/* The differences are over a's median already: a base of 1. */
	return runs_needed(
	    sigma * sigma, limit_distance(ch, limit, 1), level, least);
}

/*
 * Regularised lower incomplete gamma P(s, x) by its power series, good for
 * x < s + 1, where it converges fast.
 */
static double
gamma_p_series(double s, double x)
{
	double term = 1.0 / s, sum = term;

	for (int n = 1; n < 1000; n++) {
		term *= x / (s + n);
		sum += term;
		if (fabs(term) < fabs(sum) * 1e-16)
			break;
	}
	return sum * exp(-x + s * log(x) - lgamma(s));
}

/*
 * Regularised upper incomplete gamma Q(s, x) by its continued fraction,
 * good for x >= s + 1, evaluated with the modified Lentz method:
 * Q = e^-x x^s / Gamma(s) * 1 / (b0 - 1(1-s) / (b1 - 2(2-s) / (b2 - ...)))
 * with bn = x + 2n + 1 - s.
 */
static double
gamma_q_fraction(double s, double x)
{
	const double tiny = 1e-300;
	double bn = x + 1 - s, c = 1 / tiny, d = 1 / bn, f = d;

	for (int n = 1; n < 1000; n++) {
		double an = -n * (n - s), delta;

		bn += 2;
		d = an * d + bn;
		if (fabs(d) < tiny)
			d = tiny;
		c = bn + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1) < 1e-16)
			break;
	}
	return f * exp(-x + s * log(x) - lgamma(s));
}

double
stats_chi2_sf(double x, unsigned dof)
{
	double s = dof / 2.0, h = x / 2.0;

	if (dof == 0 || x <= 0)
		return 1.0;
	if (h < s + 1)
		return 1.0 - gamma_p_series(s, h);
	return gamma_q_fraction(s, h);
}

void
stats_chi2_hist(
    const uint64_t *a, const uint64_t *b, size_t k, struct stats_chi2 *out)
{
	double ta = 0, tb = 0, n, rowmin, chi2 = 0;
	double ca = 0, cb = 0; /* the column being filled */
	double la = 0, lb = 0; /* the last closed column */
	int have_last = 0;
	unsigned cols = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < k; i++) {
		ta += (double)a[i];
		tb += (double)b[i];
	}
	if (ta == 0 || tb == 0)
		return;
	out->valid = 1;
	n = ta + tb;
	rowmin = ta < tb ? ta : tb;

	/*
	 * A column is closed once its smaller expected count, column total
	 * times the smaller row's share, reaches 5; each closed column adds
	 * its term when the next one closes, so a sparse tail can still be
	 * folded into it.
	 */
	for (size_t i = 0; i < k; i++) {
		ca += (double)a[i];
		cb += (double)b[i];
		if ((ca + cb) * rowmin / n < 5)
			continue;
		if (have_last) {
			double c = la + lb, ea = c * ta / n, eb = c * tb / n;

			chi2 += (la - ea) * (la - ea) / ea +
			    (lb - eb) * (lb - eb) / eb;
			cols++;
		}
		la = ca, lb = cb, have_last = 1;
		ca = cb = 0;
	}
	/* The last column, with whatever sparse tail follows it. */
	la += ca, lb += cb;
	{
		double c = la + lb, ea = c * ta / n, eb = c * tb / n;

		chi2 += (la - ea) * (la - ea) / ea + (lb - eb) * (lb - eb) / eb;
		cols++;
	}
	out->columns = cols;
	out->dof = cols - 1;
	out->chi2 = out->dof == 0 ? 0 : chi2;
	out->p = stats_chi2_sf(out->chi2, out->dof);
}

/* Sum of (Fa - Fb) or of |Fa - Fb| over the buckets, F the normalised CDF. */
static double
cdf_gap(const uint64_t *a, const uint64_t *b, size_t k, int absolute)
{
	double ta = 0, tb = 0, fa = 0, fb = 0, sum = 0;

	for (size_t i = 0; i < k; i++) {
		ta += (double)a[i];
		tb += (double)b[i];
	}
	if (ta == 0 || tb == 0)
		return 0;
	for (size_t i = 0; i + 1 < k; i++) {
		fa += (double)a[i] / ta;
		fb += (double)b[i] / tb;
		sum += absolute ? fabs(fa - fb) : fa - fb;
	}
	return sum;
}

double
stats_emd_hist(const uint64_t *a, const uint64_t *b, size_t k)
{
	return cdf_gap(a, b, k, 1);
}

double
stats_shift_hist(const uint64_t *a, const uint64_t *b, size_t k)
{
	return cdf_gap(a, b, k, 0);
}

int
stats_median_bucket(const uint64_t *h, size_t k)
{
	uint64_t total = 0, cum = 0;

	for (size_t i = 0; i < k; i++)
		total += h[i];
	if (total == 0)
		return -1;
	for (size_t i = 0; i < k; i++) {
		cum += h[i];
		if (cum > (total - 1) / 2)
			return (int)i;
	}
	return -1;
}
