/*
 * stats.h - the statistics behind `ubcreplay compare`: summaries of repeated
 * runs, and the tests that say whether two sets of runs differ by more than
 * noise.
 *
 * Scalars (a time, a count, a mean transfer size per run) are compared with
 * the Mann-Whitney U rank test, which assumes nothing about the shape of the
 * run-to-run noise, and the change as a ratio with the interval that the
 * same ranks give (Hodges-Lehmann), which says how big it is.
 * Transfer-size histograms are compared with a chi-square test over their
 * bucket counts and two effect sizes in log2 buckets: the earth mover's
 * distance and the shift of the median bucket. docs/compare.md says why
 * these and what they cannot tell.
 *
 *	double a[] = {1.2, 1.3, 1.1, 1.25, 1.22};
 *	double b[] = {2.0, 2.1, 1.9, 2.2, 2.05};
 *	struct stats_mw mw;
 *	struct stats_change ch;
 *
 *	stats_median(a, 5);				-> 1.22
 *	stats_mannwhitney(a, 5, b, 5, &mw);		mw.p = 0.0079 (exact)
 *	stats_change(a, 5, b, 5, 0.95, &ch, err, sizeof(err));
 *					ch.est 1.68 [1.54, 1.86]
 *
 * Nothing here prints or exits; a function that allocates returns -1 with
 * a message in the caller's buffer.
 */
#ifndef UBC_STATS_H
#define UBC_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Median, min and max of n values (all 0 when n is 0). */
struct stats_summary {
	size_t n;
	double median;
	double min;
	double max;
};

/*
 * The median of n values, the lower of the middle two for an even count, so
 * that it is always a value that was measured (as the result's summary
 * says). 0 when n is 0. The values are not reordered.
 */
double stats_median(const double *v, size_t n);
void stats_summarize(const double *v, size_t n, struct stats_summary *out);

enum stats_mw_method { STATS_MW_EXACT, STATS_MW_NORMAL };

struct stats_mw {
	/* Pairs (a[i], b[j]) with a[i] > b[j], a tie counting one half. */
	double u;
	double p; /* two-sided */
	enum stats_mw_method method;
};

/*
 * The largest samples for which the exact distribution of U is used:
 * without ties that of U, with ties the exact permutation distribution of
 * the midranks (every way of dealing the values to a and b alike); beyond,
 * the normal approximation with the tie correction and a continuity
 * correction of one half.
 */
#define STATS_MW_EXACT_MAX 20

/*
 * The two-sided Mann-Whitney U test of a against b: twice the smaller
 * tail, the observed U in each. With no spread at all (every value equal)
 * p is 1. na and nb must be at least 1.
 */
void stats_mannwhitney(const double *a, size_t na, const double *b, size_t nb,
    struct stats_mw *out);

/*
 * The smallest two-sided p the rank test can give for samples of na and nb,
 * whatever the values: 2 / C(na + nb, na). Three runs against three can
 * never go below 0.1, which is why compare says "too few runs to test"
 * rather than "no significant change" when this is above the level asked.
 */
double stats_mw_pmin(size_t na, size_t nb);

/*
 * The fewest runs a side (pairs, when paired) that bound an interval at
 * level, whatever their values: those whose smallest p (stats_mw_pmin,
 * stats_sr_pmin) is within 1 - level. Runs: 4 at 95%, 5 at 99%; pairs: 6
 * at 95%, 8 at 99%.
 */
size_t stats_fewest(double level, int paired);

/*
 * A change between two sets of runs, b against a, as a ratio (1: none): the
 * Hodges-Lehmann estimate, the median of every pairwise difference
 * log b[j] - log a[i], with the distribution-free interval that inverts the
 * rank test (the order statistics of those differences at its critical
 * value). It covers the true shift with at least the level asked when the
 * noise is the same on both sides, whatever its shape; with ties (values
 * that repeat) it is conservative. Where some value is not positive, the
 * differences are of the values themselves, divided by a's median, which
 * must then be positive.
 */
struct stats_change {
	int valid;    /* 0: a side is empty, or no scale to measure on */
	int bounded;  /* 0: too few runs for an interval at this level */
	int logscale; /* a ratio of values, else a shift over a's median */
	double est;   /* the estimate, as a ratio */
	double lo;    /* the interval, as ratios; -inf and inf unbounded */
	double hi;
};

/*
 * The change at level (0.95). Three runs against three can never bound a
 * 95% interval (the rank test's smallest p is 0.1), four against four can.
 * Returns -1 only when memory runs out.
 */
int stats_change(const double *a, size_t na, const double *b, size_t nb,
    double level, struct stats_change *out, char *err, size_t errlen);

/*
 * About how many runs a side the interval at level needs to lie wholly on
 * one side of limit (a ratio) four times in five, were the runs to go on as
 * they are: from their spread (the median absolute deviations, pooled) and
 * the distance from ch's estimate (stats_change of the same runs) to the
 * limit. At least the fewest runs that bound an interval at all. SIZE_MAX
 * when the estimate sits on the limit, or no number of runs would do.
 */
size_t stats_change_runs(const double *a, size_t na, const double *b, size_t nb,
    const struct stats_change *ch, double level, double limit);

/*
 * Paired runs: a[i] and b[i] ran on the same seed (a deterministic
 * machine's, docs/compare.md), so each pair's difference carries the
 * change without the noise the seed brings to both. The Wilcoxon
 * signed-rank test of the differences log b[i] - log a[i] (or b[i] - a[i]
 * over a's median, as stats_change does where a value is not positive):
 * pairs that do not differ are dropped, ranks of equal differences
 * averaged. Exact up to STATS_SR_EXACT_MAX pairs (with ties, over every
 * choice of signs of the midranks), else the normal approximation with the
 * tie and continuity corrections. u is the
 * sum of the ranks of the positive differences; with no pair differing,
 * p is 1.
 */
#define STATS_SR_EXACT_MAX 50
void stats_signedrank(
    const double *a, const double *b, size_t n, struct stats_mw *out);

/*
 * The smallest two-sided p the signed-rank test can give for n pairs:
 * 2 / 2^n. Five pairs cannot go below 0.0625, so it takes six to bound a
 * 95% interval, eight a 99% one.
 */
double stats_sr_pmin(size_t n);

/*
 * The change over n pairs at level, as stats_change gives it for two
 * independent sets: the Hodges-Lehmann estimate of the pairs, the median
 * of every average of two differences (each with itself too: n (n + 1) / 2
 * of them), with the interval that inverts the signed-rank test. It covers
 * the true shift with at least the level asked when the differences are
 * symmetric about it, whatever their shape. Pairs that all differ by the
 * same amount get that amount as their interval once they are enough to
 * bound one at level (stats_fewest), as repeating runs do, and not before.
 * Returns -1 only when memory runs out.
 */
int stats_change_paired(const double *a, const double *b, size_t n,
    double level, struct stats_change *out, char *err, size_t errlen);

/*
 * stats_change_runs for pairs: about how many pairs would bound the
 * interval at level wholly on one side of limit four times in five, from
 * the spread of the differences. SIZE_MAX when the estimate sits on the
 * limit.
 */
size_t stats_change_paired_runs(const double *a, const double *b, size_t n,
    const struct stats_change *ch, double level, double limit);

/* Chi-square test of homogeneity over two histograms. */
struct stats_chi2 {
	int valid; /* 0 when a histogram is empty */
	double chi2;
	unsigned dof; /* columns - 1; 0 means nothing to test, p 1 */
	double p;
	unsigned columns; /* after merging sparse buckets */
};

/*
 * The 2 x k contingency test over the bucket counts a[] and b[] (k buckets
 * each). Buckets empty in both are dropped; adjacent buckets are merged,
 * from the smallest up, until every expected count is at least 5, the
 * usual condition for the chi-square approximation; a sparse tail joins the
 * last column.
 */
void stats_chi2_hist(
    const uint64_t *a, const uint64_t *b, size_t k, struct stats_chi2 *out);

/*
 * Earth mover's (Wasserstein-1) distance between the two histograms, each
 * normalised to 1, with neighbouring buckets 1 apart: the work to turn one
 * distribution of log2 sizes into the other, in buckets (1.0 = every
 * transfer doubled or halved). 0 when either is empty.
 */
double stats_emd_hist(const uint64_t *a, const uint64_t *b, size_t k);

/*
 * The same movement with a sign: mean bucket of b minus mean bucket of a;
 * negative when b's transfers are smaller.
 */
double stats_shift_hist(const uint64_t *a, const uint64_t *b, size_t k);

/* The bucket holding the (lower) median count; -1 when h is empty. */
int stats_median_bucket(const uint64_t *h, size_t k);

/* Upper tail of the chi-square distribution with dof degrees of freedom. */
double stats_chi2_sf(double x, unsigned dof);

/* Upper tail of the standard normal distribution. */
double stats_norm_sf(double z);

#endif
