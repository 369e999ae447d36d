/*
 * stats_test.c - analysis/stats.c against scipy.stats (Debian's
 * python3-scipy), computed in the test on the same inputs: each case writes
 * a small Python script holding its data, runs /usr/bin/python3 on it and
 * reads the numbers it prints. Skips when scipy is missing.
 */
#include <atf-c.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/stats.h"

#define PYTHON "/usr/bin/python3"

static void
require_scipy(void)
{
	if (system(PYTHON " -c 'import scipy.stats' >/dev/null 2>&1") != 0)
		atf_tc_skip("needs " PYTHON " with scipy (python3-scipy)");
}

/* Deterministic inputs: a 64-bit LCG, so every run tests the same data. */
static uint64_t lcg = 12345;

static double
uniform(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg >> 11) / 9007199254740992.0;
}

static void
py_list(FILE *f, const char *name, const double *v, size_t n)
{
	fprintf(f, "%s = [", name);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%.17g", i ? ", " : "", v[i]);
	fprintf(f, "]\n");
}

static void
py_hist(FILE *f, const char *name, const uint64_t *v, size_t n)
{
	fprintf(f, "%s = [", name);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
	fprintf(f, "]\n");
}

/*
 * Runs the script (already written to script.py, ending with prints) and
 * reads exactly n numbers from its output.
 */
static void
run_python(double *out, size_t n)
{
	FILE *p = popen(PYTHON " script.py", "r");
	size_t got = 0;

	ATF_REQUIRE(p != NULL);
	while (got < n && fscanf(p, "%lf", &out[got]) == 1)
		got++;
	ATF_REQUIRE_EQ_MSG(pclose(p), 0, "python3 script.py failed");
	ATF_REQUIRE_EQ_MSG(
	    got, n, "python printed %zu numbers, want %zu", got, n);
}

static FILE *
open_script(void)
{
	FILE *f = fopen("script.py", "w");

	ATF_REQUIRE(f != NULL);
	/* The scipy calls the tests make, each printing what it found. */
	fprintf(f,
	    "import numpy as np\n"
	    "import scipy.stats as st\n"
	    "def mw(a, b, method):\n"
	    "    r = st.mannwhitneyu(a, b, alternative='two-sided',"
	    " method=method)\n"
	    "    print(r.statistic, r.pvalue)\n"
	    "def chi2(a, b):\n"
	    "    r = st.chi2_contingency([a, b], correction=False)\n"
	    "    print(repr(r[0]), r[2], repr(r[1]))\n"
	    /*
	     * The change by its definition: every pairwise difference, and
	     * the rank test's null distribution counted by enumerating which
	     * ranks fall to a (or scipy's normal quantile beyond 10 a side).
	     */
	    "import itertools, math\n"
	    "def change(a, b, level):\n"
	    "    lg = all(v > 0 for v in a + b)\n"
	    "    f = math.log if lg else (lambda v: v)\n"
	    "    base = sorted(a)[(len(a) - 1) // 2]\n"
	    "    g = math.exp if lg else (lambda d: 1 + d / base)\n"
	    "    d = sorted(f(y) - f(x) for x in a for y in b)\n"
	    "    m, na, nb = len(d), len(a), len(b)\n"
	    "    est = (d[(m - 1) // 2] + d[m // 2]) / 2\n"
	    "    tail = (1 - level) / 2\n"
	    "    if na <= 10 and nb <= 10:\n"
	    "        cnt = [0] * (m + 1)\n"
	    "        for c in itertools.combinations(range(na + nb), na):\n"
	    "            cnt[sum(c) - na * (na - 1) // 2] += 1\n"
	    "        tot, k, below = sum(cnt), 0, 0\n"
	    "        while k < m // 2 and (below + cnt[k]) / tot <= tail:\n"
	    "            below += cnt[k]; k += 1\n"
	    "    else:\n"
	    "        sd = math.sqrt(na * nb * (na + nb + 1) / 12)\n"
	    "        k = max(0, math.floor(m / 2 - st.norm.isf(tail) * sd"
	    " + 0.5))\n"
	    "    lo = g(d[k - 1]) if k else -math.inf\n"
	    "    hi = g(d[m - k]) if k else math.inf\n"
	    "    print(repr(g(est)), repr(lo), repr(hi))\n"
	    /*
	     * The paired change by its definition: the averages of every two
	     * differences, the signed-rank null distribution counted over
	     * every choice of signs (or the normal quantile beyond 10 pairs).
	     */
	    "def diffs(a, b):\n"
	    "    lg = all(v > 0 for v in a + b)\n"
	    "    base = sorted(a)[(len(a) - 1) // 2]\n"
	    "    if lg: return [math.log(y) - math.log(x) for x, y in zip(a, b)],"
	    " math.exp\n"
	    "    return [(y - x) / base for x, y in zip(a, b)], lambda d: 1 + d\n"
	    "def sr(a, b, method):\n"
	    "    d, g = diffs(a, b)\n"
	    "    r = st.wilcoxon(d, alternative='two-sided', method=method,"
	    " correction=True)\n"
	    "    nz = sorted((x for x in d if x != 0), key=abs)\n"
	    "    rk = st.rankdata([abs(x) for x in nz])\n"
	    "    print(sum(q for q, x in zip(rk, nz) if x > 0), r.pvalue)\n"
	    "def pchange(a, b, level):\n"
	    "    d, g = diffs(a, b)\n"
	    "    n = len(d)\n"
	    "    w = sorted((d[i] + d[j]) / 2 for i in range(n)"
	    " for j in range(i, n))\n"
	    "    m = len(w)\n"
	    "    est = (w[(m - 1) // 2] + w[m // 2]) / 2\n"
	    "    tail = (1 - level) / 2\n"
	    "    if n <= 10:\n"
	    "        cnt = [0] * (m + 1)\n"
	    "        for s in itertools.product((0, 1), repeat=n):\n"
	    "            cnt[sum(r + 1 for r in range(n) if s[r])] += 1\n"
	    "        k, below = 0, 0\n"
	    "        while k < m / 2 and (below + cnt[k]) / 2 ** n <= tail:\n"
	    "            below += cnt[k]; k += 1\n"
	    "    else:\n"
	    "        sd = math.sqrt(m * (2 * n + 1) / 12)\n"
	    "        k = max(0, math.floor(m / 2 - st.norm.isf(tail) * sd"
	    " + 0.5))\n"
	    "    lo = g(w[k - 1]) if k else -math.inf\n"
	    "    hi = g(w[m - k]) if k else math.inf\n"
	    "    print(repr(g(est)), repr(lo), repr(hi))\n"
	    /*
	     * Exact permutation p values from scipy's own permutation test
	     * (every arrangement enumerated): the rank sum of a over every
	     * way of dealing the values to a and b, and the signed-rank sum
	     * of the pairs' log ratios (those that are 0 dropped) over every
	     * choice of signs.
	     */
	    "def perm(data, stat, how):\n"
	    "    return st.permutation_test(data, stat, vectorized=True,"
	    " n_resamples=np.inf, permutation_type=how,"
	    " alternative='two-sided').pvalue\n"
	    "def perm_mw(a, b):\n"
	    "    def stat(x, y, axis):\n"
	    "        r = st.rankdata(np.concatenate([x, y], axis=-1), axis=-1)\n"
	    "        return np.sum(r[..., :x.shape[-1]], axis=-1)\n"
	    "    print(perm((np.array(a), np.array(b)), stat, 'independent'))\n"
	    "def perm_sr(a, b):\n"
	    "    la, lb = np.log(a), np.log(b)\n"
	    "    z = int(np.sum(lb - la == 0))\n"
	    "    def stat(x, y, axis):\n"
	    "        d = y - x\n"
	    "        r = st.rankdata(np.abs(d), axis=-1) - z\n"
	    "        return np.sum(np.where(d > 0, r, 0), axis=-1)\n"
	    "    print(perm((la, lb), stat, 'samples'))\n");
	return f;
}

static void
check_close(double got, double want, double rel, const char *what)
{
	double tol = rel * fmax(fabs(want), 1e-300);

	ATF_CHECK_MSG(fabs(got - want) <= tol, "%s: got %.17g, scipy %.17g",
	    what, got, want);
}

ATF_TC_WITHOUT_HEAD(median);
ATF_TC_BODY(median, tc)
{
	double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, ties[] = {5, 5, 1, 5};
	struct stats_summary s;

	ATF_CHECK_EQ(stats_median(odd, 3), 2);
	/* The lower of the middle two: a value that was measured. */
	ATF_CHECK_EQ(stats_median(even, 4), 2);
	ATF_CHECK_EQ(stats_median(ties, 4), 5);
	ATF_CHECK_EQ(stats_median(odd, 0), 0);
	stats_summarize(even, 4, &s);
	ATF_CHECK(s.n == 4 && s.median == 2 && s.min == 1 && s.max == 4);
}

/* Sizes to test the exact distribution on, up to its limit. */
static const size_t exact_sizes[][2] = {
    {1, 1},
    {1, 5},
    {3, 3},
    {4, 5},
    {5, 5},
    {6, 3},
    {8, 8},
    {10, 12},
    {20, 20},
    {20, 7},
};

ATF_TC_WITHOUT_HEAD(mannwhitney_exact);
ATF_TC_BODY(mannwhitney_exact, tc)
{
	size_t ncase = sizeof(exact_sizes) / sizeof(exact_sizes[0]);
	double want[2 * 10];
	double a[10][20], b[10][20];
	FILE *f;

	require_scipy();
	f = open_script();
	for (size_t c = 0; c < ncase; c++) {
		size_t na = exact_sizes[c][0], nb = exact_sizes[c][1];

		/* b shifted by a varying amount: p from tiny to 1. */
		for (size_t i = 0; i < na; i++)
			a[c][i] = 100 + 10 * uniform();
		for (size_t i = 0; i < nb; i++)
			b[c][i] = 100 + 10 * uniform() + (double)c * 0.7;
		py_list(f, "a", a[c], na);
		py_list(f, "b", b[c], nb);
		fprintf(f, "mw(a, b, 'exact')\n");
	}
	fclose(f);
	run_python(want, 2 * ncase);
	for (size_t c = 0; c < ncase; c++) {
		struct stats_mw mw;
		char what[64];

		stats_mannwhitney(
		    a[c], exact_sizes[c][0], b[c], exact_sizes[c][1], &mw);
		snprintf(what, sizeof(what), "case %zu U", c);
		check_close(mw.u, want[2 * c], 1e-12, what);
		snprintf(what, sizeof(what), "case %zu p", c);
		check_close(mw.p, want[2 * c + 1], 1e-9, what);
		ATF_CHECK_EQ(mw.method, STATS_MW_EXACT);
	}
}

ATF_TC_WITHOUT_HEAD(mannwhitney_normal);
ATF_TC_BODY(mannwhitney_normal, tc)
{
	/* Past 20 a side, ties or not, the normal approximation. */
	double ta[25], tb[22];
	double la[30], lb[25], want[6];
	struct stats_mw mw;
	FILE *f;

	require_scipy();
	for (size_t i = 0; i < 30; i++)
		la[i] = uniform();
	for (size_t i = 0; i < 25; i++)
		lb[i] = uniform() + 0.2;
	/* Counts that repeat, as write.ops does. */
	for (size_t i = 0; i < 25; i++)
		ta[i] = 570 + floor(6 * uniform());
	for (size_t i = 0; i < 22; i++)
		tb[i] = 572 + floor(6 * uniform());
	f = open_script();
	py_list(f, "a", ta, 25);
	py_list(f, "b", tb, 22);
	fprintf(f, "mw(a, b, 'asymptotic')\n");
	py_list(f, "a", la, 30);
	py_list(f, "b", lb, 25);
	fprintf(f, "mw(a, b, 'asymptotic')\n");
	/* Identical sets: no evidence at all. */
	fprintf(f, "mw(a, a, 'asymptotic')\n");
	fclose(f);
	run_python(want, 6);

	stats_mannwhitney(ta, 25, tb, 22, &mw);
	ATF_CHECK_EQ(mw.method, STATS_MW_NORMAL);
	check_close(mw.u, want[0], 1e-12, "ties U");
	check_close(mw.p, want[1], 1e-9, "ties p");
	stats_mannwhitney(la, 30, lb, 25, &mw);
	ATF_CHECK_EQ(mw.method, STATS_MW_NORMAL);
	check_close(mw.u, want[2], 1e-12, "large U");
	check_close(mw.p, want[3], 1e-9, "large p");
	stats_mannwhitney(la, 30, la, 30, &mw);
	check_close(mw.p, want[5], 1e-9, "identical p");
}

/*
 * Tied values up to 20 a side: the exact permutation p, as scipy's
 * permutation_test counts it over every arrangement, never the normal
 * approximation, which says more than any arrangement can: 3 equal runs
 * against 3 others gave p 0.047 where no arrangement has less than 1
 * chance in 10.
 */
ATF_TC_WITHOUT_HEAD(mannwhitney_ties);
ATF_TC_BODY(mannwhitney_ties, tc)
{
	double a[4][10], b[4][10], want[4];
	size_t na[4] = {3, 5, 8, 10}, nb[4] = {3, 6, 8, 9};
	struct stats_mw mw;
	FILE *f;

	require_scipy();
	for (size_t i = 0; i < 3; i++)
		a[0][i] = 5, b[0][i] = 6;
	memcpy(a[1], (double[]){3, 4, 4, 5, 6}, 5 * sizeof(double));
	memcpy(b[1], (double[]){4, 5, 6, 6, 7, 8}, 6 * sizeof(double));
	/* Counts that repeat, and a shift that makes p small. */
	for (size_t c = 2; c < 4; c++) {
		for (size_t i = 0; i < na[c]; i++)
			a[c][i] = 570 + floor(4 * uniform());
		for (size_t i = 0; i < nb[c]; i++)
			b[c][i] = 572 + floor(4 * uniform());
	}
	f = open_script();
	for (size_t c = 0; c < 4; c++) {
		py_list(f, "a", a[c], na[c]);
		py_list(f, "b", b[c], nb[c]);
		fprintf(f, "perm_mw(a, b)\n");
	}
	fclose(f);
	run_python(want, 4);
	for (size_t c = 0; c < 4; c++) {
		char what[64];

		stats_mannwhitney(a[c], na[c], b[c], nb[c], &mw);
		snprintf(what, sizeof(what), "ties %zu against %zu: p", na[c],
		    nb[c]);
		check_close(mw.p, want[c], 1e-9, what);
		ATF_CHECK_EQ(mw.method, STATS_MW_EXACT);
	}
	/* The case that was wrong, by hand: 2 arrangements of 20. */
	stats_mannwhitney(a[0], 3, b[0], 3, &mw);
	check_close(mw.p, 0.1, 1e-12, "3 equal runs against 3");
}

ATF_TC_WITHOUT_HEAD(mannwhitney_pmin);
ATF_TC_BODY(mannwhitney_pmin, tc)
{
	double lo[] = {1, 2, 3, 4, 5}, hi[] = {6, 7, 8, 9, 10}, want[3];
	struct stats_mw mw;
	FILE *f;

	require_scipy();
	/* Complete separation reaches the smallest p the sizes allow. */
	f = open_script();
	fprintf(f,
	    "for n, m in ((3, 3), (5, 5), (3, 5)):\n"
	    "    print(st.mannwhitneyu(range(n), range(10, 10 + m),"
	    " method='exact').pvalue)\n");
	fclose(f);
	run_python(want, 3);
	check_close(stats_mw_pmin(3, 3), want[0], 1e-12, "pmin 3,3");
	check_close(stats_mw_pmin(5, 5), want[1], 1e-12, "pmin 5,5");
	check_close(stats_mw_pmin(3, 5), want[2], 1e-12, "pmin 3,5");
	ATF_CHECK(stats_mw_pmin(3, 3) > 0.05);
	stats_mannwhitney(lo, 5, hi, 5, &mw);
	check_close(mw.p, stats_mw_pmin(5, 5), 1e-12, "separated 5,5");
}

ATF_TC_WITHOUT_HEAD(chi2_sf);
ATF_TC_BODY(chi2_sf, tc)
{
	static const double x[] = {0.01, 0.5, 1, 3.84, 7, 20, 60, 150, 400};
	static const unsigned dof[] = {1, 2, 3, 5, 10, 40};
	double want[9 * 6];
	FILE *f;

	require_scipy();
	f = open_script();
	py_list(f, "x", x, 9);
	fprintf(f,
	    "for d in (1, 2, 3, 5, 10, 40):\n"
	    "    for v in x:\n"
	    "        print(repr(st.chi2.sf(v, d)))\n");
	fclose(f);
	run_python(want, 9 * 6);
	for (size_t d = 0; d < 6; d++)
		for (size_t i = 0; i < 9; i++) {
			char what[64];

			snprintf(what, sizeof(what), "chi2.sf(%g, %u)", x[i],
			    dof[d]);
			check_close(stats_chi2_sf(x[i], dof[d]),
			    want[d * 9 + i], 1e-9, what);
		}
}

ATF_TC_WITHOUT_HEAD(chi2_hist);
ATF_TC_BODY(chi2_hist, tc)
{
	/* Dense enough that no bucket is merged. */
	uint64_t a[8] = {0, 40, 55, 120, 300, 80, 30, 10};
	uint64_t b[8] = {0, 35, 70, 100, 250, 120, 45, 12};
	/* Sparse: 1 and 2 merge with 3, 7 and 8 fold into 6. */
	uint64_t sa[9] = {0, 1, 2, 30, 60, 50, 20, 2, 1};
	uint64_t sb[9] = {0, 0, 3, 20, 80, 40, 25, 1, 0};
	uint64_t ma[4] = {33, 60, 50, 23}, mb[4] = {23, 80, 40, 26};
	double want[6];
	struct stats_chi2 c;
	FILE *f;

	require_scipy();
	f = open_script();
	py_hist(f, "a", a + 1, 7);
	py_hist(f, "b", b + 1, 7);
	fprintf(f, "chi2(a, b)\n");
	/* The table the merging should have made, merged by hand. */
	py_hist(f, "a", ma, 4);
	py_hist(f, "b", mb, 4);
	fprintf(f, "chi2(a, b)\n");
	fclose(f);
	run_python(want, 6);

	stats_chi2_hist(a, b, 8, &c);
	ATF_CHECK(c.valid);
	ATF_CHECK_EQ(c.columns, 7);
	check_close(c.chi2, want[0], 1e-9, "dense chi2");
	ATF_CHECK_EQ(c.dof, (unsigned)want[1]);
	check_close(c.p, want[2], 1e-9, "dense p");

	stats_chi2_hist(sa, sb, 9, &c);
	ATF_CHECK_EQ(c.columns, 4);
	check_close(c.chi2, want[3], 1e-9, "merged chi2");
	ATF_CHECK_EQ(c.dof, (unsigned)want[4]);
	check_close(c.p, want[5], 1e-9, "merged p");

	/* One shared bucket: nothing to test. */
	stats_chi2_hist((uint64_t[]){0, 9}, (uint64_t[]){0, 90}, 2, &c);
	ATF_CHECK(c.valid && c.dof == 0 && c.p == 1);
	stats_chi2_hist((uint64_t[]){0, 0}, (uint64_t[]){0, 90}, 2, &c);
	ATF_CHECK(!c.valid);
}

ATF_TC_WITHOUT_HEAD(emd);
ATF_TC_BODY(emd, tc)
{
	uint64_t a[16] = {0}, b[16] = {0};
	double want[2];
	FILE *f;

	require_scipy();
	a[10] = 500, a[13] = 1200, a[14] = 80, a[15] = 7;
	b[10] = 900, b[11] = 300, b[13] = 400, b[12] = 35;
	f = open_script();
	py_hist(f, "a", a, 16);
	py_hist(f, "b", b, 16);
	fprintf(f,
	    "k = range(16)\n"
	    "print(repr(st.wasserstein_distance(k, k, a, b)))\n"
	    "print(repr(np.average(k, weights=b) -"
	    " np.average(k, weights=a)))\n");
	fclose(f);
	run_python(want, 2);
	check_close(stats_emd_hist(a, b, 16), want[0], 1e-12, "emd");
	check_close(stats_shift_hist(a, b, 16), want[1], 1e-12, "shift");
	ATF_CHECK(stats_shift_hist(a, b, 16) < 0);
	ATF_CHECK_EQ(stats_emd_hist(a, a, 16), 0);

	/* 1787 counts: the 894th (index 893) is in bucket 13. */
	ATF_CHECK_EQ(stats_median_bucket(a, 16), 13);
	/* 1635 counts: the 818th is in bucket 10 (900 there). */
	ATF_CHECK_EQ(stats_median_bucket(b, 16), 10);
	ATF_CHECK_EQ(stats_median_bucket((uint64_t[]){0, 1, 1}, 3), 1);
	ATF_CHECK_EQ(stats_median_bucket((uint64_t[]){0, 0}, 2), -1);
}

/*
 * The change against the Python reference over the same runs: the
 * independent sets' (na against nb), or with paired set n pairs (na = nb).
 */
static void
change_check(const double *a, size_t na, const double *b, size_t nb,
    double level, int paired)
{
	double want[3];
	struct stats_change ch;
	char err[128];
	FILE *f = open_script();

	py_list(f, "a", a, na);
	py_list(f, "b", b, nb);
	fprintf(f, "%s(a, b, %g)\n", paired ? "pchange" : "change", level);
	fclose(f);
	run_python(want, 3);
	ATF_REQUIRE_EQ(paired
	        ? stats_change_paired(a, b, na, level, &ch, err, sizeof(err))
	        : stats_change(a, na, b, nb, level, &ch, err, sizeof(err)),
	    0);
	ATF_REQUIRE(ch.valid);
	check_close(ch.est, want[0], 1e-12, "estimate");
	ATF_CHECK_EQ(ch.bounded, !isinf(want[1]));
	if (ch.bounded) {
		check_close(ch.lo, want[1], 1e-12, "interval low");
		check_close(ch.hi, want[2], 1e-12, "interval high");
	}
}

static void
change_against_python(
    const double *a, size_t na, const double *b, size_t nb, double level)
{
	change_check(a, na, b, nb, level, 0);
}

ATF_TC_WITHOUT_HEAD(change);
ATF_TC_BODY(change, tc)
{
	double a[30], b[30];
	size_t sizes[][2] = {
	    {3, 3}, {4, 4}, {5, 5}, {7, 9}, {10, 6}, {20, 20}, {25, 30}};

	require_scipy();
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t i = 0; i < sizes[s][0]; i++)
			a[i] = 10 + uniform();
		for (size_t i = 0; i < sizes[s][1]; i++)
			b[i] = 11 + 2 * uniform();
		change_against_python(a, sizes[s][0], b, sizes[s][1], 0.95);
		change_against_python(a, sizes[s][0], b, sizes[s][1], 0.9);
	}
	/* A count that can be 0: a shift over the baseline's median. */
	for (size_t i = 0; i < 8; i++) {
		a[i] = floor(4 * uniform());
		b[i] = floor(6 * uniform());
	}
	a[0] = 0;
	a[1] = a[2] = 3;
	change_against_python(a, 8, b, 8, 0.95);
}

ATF_TC_WITHOUT_HEAD(change_edges);
ATF_TC_BODY(change_edges, tc)
{
	double a[] = {1.2, 1.3, 1.1, 1.25, 1.22};
	double b[] = {2.0, 2.1, 1.9, 2.2, 2.05};
	double same[] = {7, 7, 7, 7, 7}, zero[] = {0, 0, 0, 1, 2};
	struct stats_change ch;
	char err[128];

	/* Three against three can never bound a 95% interval. */
	ATF_REQUIRE_EQ(
	    stats_change(a, 3, b, 3, 0.95, &ch, err, sizeof(err)), 0);
	ATF_CHECK(ch.valid && !ch.bounded);
	ATF_CHECK(isinf(ch.lo) && ch.lo < 0 && isinf(ch.hi) && ch.hi > 0);
	/* Four against four can: the extreme differences. */
	ATF_REQUIRE_EQ(
	    stats_change(a, 4, b, 4, 0.95, &ch, err, sizeof(err)), 0);
	ATF_CHECK(ch.bounded);
	check_close(ch.lo, 1.9 / 1.3, 1e-12, "4,4 low");
	check_close(ch.hi, 2.2 / 1.1, 1e-12, "4,4 high");
	/* What the header's example says. */
	ATF_REQUIRE_EQ(
	    stats_change(a, 5, b, 5, 0.95, &ch, err, sizeof(err)), 0);
	ATF_CHECK_MSG(fabs(ch.est - 1.68) < 0.005 &&
	        fabs(ch.lo - 1.54) < 0.005 && fabs(ch.hi - 1.86) < 0.005,
	    "example: %.3f [%.3f, %.3f]", ch.est, ch.lo, ch.hi);
	/* No spread at all: the interval is the change itself. */
	ATF_REQUIRE_EQ(
	    stats_change(same, 5, same, 5, 0.95, &ch, err, sizeof(err)), 0);
	ATF_CHECK(ch.bounded && ch.est == 1 && ch.lo == 1 && ch.hi == 1);
	/* A baseline whose median is 0 has no scale. */
	ATF_REQUIRE_EQ(
	    stats_change(zero, 5, b, 5, 0.95, &ch, err, sizeof(err)), 0);
	ATF_CHECK(!ch.valid);
	ATF_REQUIRE_EQ(
	    stats_change(a, 0, b, 5, 0.95, &ch, err, sizeof(err)), 0);
	ATF_CHECK(!ch.valid);
}

/* Normal noise from the test's generator (Box-Muller). */
static double
normal(void)
{
	double u = uniform(), v = uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * acos(-1.0) * v);
}

/* n runs of a metric: value times e^(sigma N(0,1)). */
static void
draw(double *v, size_t n, double value, double sigma)
{
	for (size_t i = 0; i < n; i++)
		v[i] = value * exp(sigma * normal());
}

/*
 * Trials of n runs a side, b truth times a in noise sigma: the share whose
 * interval holds truth, and the share whose interval misses limit.
 */
static void
trials(size_t n, double truth, double sigma, double limit, unsigned count,
    double *covered, double *decided)
{
	double a[256], b[256];
	struct stats_change ch;
	char err[128];
	unsigned hold = 0, miss = 0;

	for (unsigned t = 0; t < count; t++) {
		draw(a, n, 1000, sigma);
		draw(b, n, 1000 * truth, sigma);
		ATF_REQUIRE_EQ(
		    stats_change(a, n, b, n, 0.95, &ch, err, sizeof(err)), 0);
		hold += ch.lo <= truth && truth <= ch.hi;
		miss += ch.bounded && (ch.lo > limit || ch.hi < limit);
	}
	*covered = (double)hold / count;
	*decided = (double)miss / count;
}

ATF_TC_WITHOUT_HEAD(change_coverage);
ATF_TC_BODY(change_coverage, tc)
{
	double c6, c30, unused;

	/*
	 * 6 against 6 at 95% reaches 1 - 2 * 19 / 924 = 95.9% exactly;
	 * 2000 trials put the share within 1.6 points of it, nearly always.
	 */
	trials(6, 1.1, 0.05, 1, 2000, &c6, &unused);
	trials(30, 0.9, 0.1, 1, 2000, &c30, &unused);
	ATF_CHECK_MSG(c6 >= 0.943 && c6 <= 0.975, "6 a side: %.3f", c6);
	ATF_CHECK_MSG(c30 >= 0.934 && c30 <= 0.966, "30 a side: %.3f", c30);
}

/* stats_change_runs at 95% on the change of a and b. */
static size_t
runs_to_decide(
    const double *a, size_t na, const double *b, size_t nb, double limit)
{
	struct stats_change ch;
	char err[128];

	ATF_REQUIRE_EQ(
	    stats_change(a, na, b, nb, 0.95, &ch, err, sizeof(err)), 0);
	return stats_change_runs(a, na, b, nb, &ch, 0.95, limit);
}

ATF_TC_WITHOUT_HEAD(change_runs);
ATF_TC_BODY(change_runs, tc)
{
	double a[200], b[200], at, below, unused;
	size_t n;

	/* A 10% rise, 5% noise, against a +5% limit: measured well. */
	draw(a, 200, 1000, 0.05);
	draw(b, 200, 1100, 0.05);
	n = runs_to_decide(a, 200, b, 200, 1.05);
	ATF_REQUIRE_MSG(n >= 4 && n <= 200, "runs: %zu", n);
	/* Four in five decide at that count; far fewer at a third of it. */
	trials(n, 1.1, 0.05, 1.05, 500, &unused, &at);
	trials(n / 3 > 4 ? n / 3 : 4, 1.1, 0.05, 1.05, 500, &unused, &below);
	ATF_CHECK_MSG(at >= 0.7 && at <= 0.92, "%zu runs: %.2f decided", n, at);
	ATF_CHECK_MSG(below < at - 0.2, "%zu runs: %.2f decided, %zu: %.2f",
	    n / 3, below, n, at);
	/* On the limit, nothing decides; no spread, the fewest runs do. */
	ATF_CHECK_EQ(runs_to_decide(a, 200, a, 200, 1.0), SIZE_MAX);
	for (size_t i = 0; i < 3; i++)
		a[i] = 5, b[i] = 6;
	ATF_CHECK_EQ(runs_to_decide(a, 3, b, 3, 1.1), 4);
}

/* The signed-rank test of n pairs against scipy.stats.wilcoxon. */
static void
signedrank_against_python(
    const double *a, const double *b, size_t n, const char *method)
{
	double want[2];
	struct stats_mw sr;
	FILE *f = open_script();

	py_list(f, "a", a, n);
	py_list(f, "b", b, n);
	fprintf(f, "sr(a, b, '%s')\n", method);
	fclose(f);
	run_python(want, 2);
	stats_signedrank(a, b, n, &sr);
	check_close(sr.u, want[0], 1e-12, "T+");
	check_close(sr.p, want[1], 1e-9, "p");
	ATF_CHECK_EQ(sr.method,
	    strcmp(method, "exact") == 0 ? STATS_MW_EXACT : STATS_MW_NORMAL);
}

ATF_TC_WITHOUT_HEAD(signedrank);
ATF_TC_BODY(signedrank, tc)
{
	double a[72], b[72];
	size_t sizes[] = {5, 8, 13, 30};

	require_scipy();
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t i = 0; i < sizes[s]; i++) {
			a[i] = 10 + 3 * uniform();
			b[i] = a[i] * (1.02 + 0.1 * (uniform() - 0.5));
		}
		signedrank_against_python(a, b, sizes[s], "exact");
	}
	/* Past 50 pairs that differ, ties or not, the normal approximation. */
	for (size_t i = 0; i < 72; i++) {
		a[i] = 10;
		b[i] = 10 + (double)(i % 4);
	}
	signedrank_against_python(a, b, 72, "approx");
	/* 60 pairs: past the exact limit. */
	for (size_t i = 0; i < 60; i++) {
		a[i] = 10 + 3 * uniform();
		b[i] = a[i] * (1.01 + 0.1 * (uniform() - 0.5));
	}
	signedrank_against_python(a, b, 60, "approx");
	ATF_CHECK_EQ(stats_sr_pmin(5), 0.0625);
	ATF_CHECK(stats_sr_pmin(6) < 0.05);
}

/*
 * Equal differences (ties), and pairs that do not differ, up to 50 pairs:
 * the exact p over every choice of signs, as scipy's permutation_test
 * counts it, never the normal approximation (4 pairs that all differ
 * alike gave p 0.072, where every choice of signs has 1 chance in 16).
 */
ATF_TC_WITHOUT_HEAD(signedrank_ties);
ATF_TC_BODY(signedrank_ties, tc)
{
	double a[3][12], b[3][12], want[3];
	size_t n[3] = {4, 12, 9};
	struct stats_mw sr;
	FILE *f;

	require_scipy();
	for (size_t i = 0; i < 12; i++) {
		a[0][i] = a[1][i] = 10;
		b[0][i] = 11;
		b[1][i] = 10 + (double)(i % 4);
		a[2][i] = 20 + floor(3 * uniform());
		b[2][i] = a[2][i] + floor(3 * uniform());
	}
	f = open_script();
	for (size_t c = 0; c < 3; c++) {
		py_list(f, "a", a[c], n[c]);
		py_list(f, "b", b[c], n[c]);
		fprintf(f, "perm_sr(a, b)\n");
	}
	fclose(f);
	run_python(want, 3);
	for (size_t c = 0; c < 3; c++) {
		char what[64];

		stats_signedrank(a[c], b[c], n[c], &sr);
		snprintf(what, sizeof(what), "%zu pairs with ties: p", n[c]);
		check_close(sr.p, want[c], 1e-9, what);
		ATF_CHECK_EQ(sr.method, STATS_MW_EXACT);
	}
	stats_signedrank(a[0], b[0], 4, &sr);
	check_close(sr.p, 0.125, 1e-12, "4 pairs alike");
}

static void
paired_against_python(const double *a, const double *b, size_t n, double level)
{
	change_check(a, n, b, n, level, 1);
}

ATF_TC_WITHOUT_HEAD(change_paired);
ATF_TC_BODY(change_paired, tc)
{
	double a[30], b[30];
	size_t sizes[] = {5, 6, 8, 10, 25};

	require_scipy();
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t i = 0; i < sizes[s]; i++) {
			a[i] = 10 + 5 * uniform();
			b[i] = a[i] * (1.1 + 0.05 * (uniform() - 0.5));
		}
		paired_against_python(a, b, sizes[s], 0.95);
		paired_against_python(a, b, sizes[s], 0.9);
	}
	/* A count that can be 0: differences over the baseline's median. */
	for (size_t i = 0; i < 8; i++) {
		a[i] = floor(4 * uniform());
		b[i] = a[i] + floor(3 * uniform());
	}
	a[0] = 0;
	a[1] = a[2] = 3;
	paired_against_python(a, b, 8, 0.95);
}

/*
 * Pairs on a common seed: each seed moves both sides by seed (a factor
 * spread 20%), each run then by its own noise (2%), b truth times a. The
 * paired interval covers truth as often as its level says, and is far
 * narrower than the unpaired one over the same runs.
 */
ATF_TC_WITHOUT_HEAD(change_paired_coverage);
ATF_TC_BODY(change_paired_coverage, tc)
{
	double a[8], b[8], s[8], wp = 0, wu = 0;
	struct stats_change pc, uc;
	char err[128];
	unsigned hold = 0, count = 2000;

	for (unsigned t = 0; t < count; t++) {
		draw(s, 8, 1000, 0.2);
		for (size_t i = 0; i < 8; i++) {
			a[i] = s[i] * exp(0.02 * normal());
			b[i] = s[i] * 1.05 * exp(0.02 * normal());
		}
		ATF_REQUIRE_EQ(
		    stats_change_paired(a, b, 8, 0.95, &pc, err, sizeof(err)),
		    0);
		ATF_REQUIRE_EQ(
		    stats_change(a, 8, b, 8, 0.95, &uc, err, sizeof(err)), 0);
		hold += pc.lo <= 1.05 && 1.05 <= pc.hi;
		wp += log(pc.hi / pc.lo);
		wu += log(uc.hi / uc.lo);
	}
	/* 8 pairs at 95% reach 1 - 2 * 5 / 256 = 96.1% exactly. */
	ATF_CHECK_MSG(hold >= 0.945 * count && hold <= 0.977 * count,
	    "covered %u of %u", hold, count);
	ATF_CHECK_MSG(wp < wu / 4, "mean log width paired %.4f, unpaired %.4f",
	    wp / count, wu / count);
	/* Five pairs cannot bound 95%. */
	ATF_REQUIRE_EQ(
	    stats_change_paired(a, b, 5, 0.95, &pc, err, sizeof(err)), 0);
	ATF_CHECK(!pc.bounded && isinf(pc.lo) && isinf(pc.hi));
}

/*
 * Pairs that all differ alike (a deterministic machine) have no shortcut:
 * like any pairs they bound an interval at 95% from 6 on, at 99% from 8,
 * and then it is the change itself. Four such pairs made a point interval
 * at any level, where the signed-rank test cannot reject with fewer than
 * 6 (95%) or 8 (99%).
 */
ATF_TC_WITHOUT_HEAD(change_paired_alike);
ATF_TC_BODY(change_paired_alike, tc)
{
	double a[8], b[8];
	struct stats_change pc;
	char err[128];
	const struct {
		size_t n;
		double level;
		int bounded;
	} want[] = {
	    {4, 0.95, 0},
	    {4, 0.99, 0},
	    {5, 0.95, 0},
	    {6, 0.95, 1},
	    {6, 0.99, 0},
	    {7, 0.99, 0},
	    {8, 0.99, 1},
	};

	draw(a, 8, 1000, 0.2);
	for (size_t i = 0; i < 8; i++)
		b[i] = a[i] * 0.9;
	for (size_t c = 0; c < sizeof(want) / sizeof(want[0]); c++) {
		for (int same = 0; same < 2; same++) {
			ATF_REQUIRE_EQ(
			    stats_change_paired(a, same ? a : b, want[c].n,
			        want[c].level, &pc, err, sizeof(err)),
			    0);
			ATF_CHECK_MSG(pc.bounded == want[c].bounded,
			    "%zu pairs %s at %g: bounded %d, want %d",
			    want[c].n, same ? "alike at 0" : "alike at -10%",
			    want[c].level, pc.bounded, want[c].bounded);
			/* The change itself, but for rounding. */
			if (pc.bounded)
				ATF_CHECK(
				    fabs(pc.lo - (same ? 1 : 0.9)) < 1e-12 &&
				    fabs(pc.hi - (same ? 1 : 0.9)) < 1e-12);
		}
		ATF_CHECK_EQ(stats_fewest(want[c].level, 1) <= want[c].n,
		    want[c].bounded);
	}
	ATF_CHECK_EQ(stats_fewest(0.95, 0), 4);
	ATF_CHECK_EQ(stats_fewest(0.99, 0), 5);
	ATF_CHECK_EQ(stats_fewest(0.95, 1), 6);
	ATF_CHECK_EQ(stats_fewest(0.99, 1), 8);
}

ATF_TC_WITHOUT_HEAD(change_paired_runs);
ATF_TC_BODY(change_paired_runs, tc)
{
	double a[200], b[200], s[200];
	struct stats_change ch;
	char err[128];
	size_t n;
	unsigned decided = 0;

	/* A 10% rise, 5% noise in the differences, against +5%. */
	draw(s, 200, 1000, 0.2);
	for (size_t i = 0; i < 200; i++) {
		a[i] = s[i];
		b[i] = s[i] * 1.1 * exp(0.05 * normal());
	}
	ATF_REQUIRE_EQ(
	    stats_change_paired(a, b, 200, 0.95, &ch, err, sizeof(err)), 0);
	n = stats_change_paired_runs(a, b, 200, &ch, 0.95, 1.05);
	ATF_REQUIRE_MSG(n >= 6 && n <= 200, "pairs: %zu", n);
	/* Four in five decide at that count. */
	for (unsigned t = 0; t < 500; t++) {
		draw(s, n, 1000, 0.2);
		for (size_t i = 0; i < n; i++) {
			a[i] = s[i];
			b[i] = s[i] * 1.1 * exp(0.05 * normal());
		}
		ATF_REQUIRE_EQ(
		    stats_change_paired(a, b, n, 0.95, &ch, err, sizeof(err)),
		    0);
		decided += ch.bounded && ch.lo > 1.05;
	}
	ATF_CHECK_MSG(decided >= 0.7 * 500 && decided <= 0.93 * 500,
	    "%zu pairs: %u of 500 decided", n, decided);
	/* On the limit, nothing decides. */
	ATF_REQUIRE_EQ(
	    stats_change_paired(a, a, n, 0.95, &ch, err, sizeof(err)), 0);
	ATF_CHECK_EQ(
	    stats_change_paired_runs(a, a, n, &ch, 0.95, 1.0), SIZE_MAX);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, median);
	ATF_TP_ADD_TC(tp, mannwhitney_exact);
	ATF_TP_ADD_TC(tp, mannwhitney_normal);
	ATF_TP_ADD_TC(tp, mannwhitney_ties);
	ATF_TP_ADD_TC(tp, mannwhitney_pmin);
	ATF_TP_ADD_TC(tp, chi2_sf);
	ATF_TP_ADD_TC(tp, chi2_hist);
	ATF_TP_ADD_TC(tp, emd);
	ATF_TP_ADD_TC(tp, change);
	ATF_TP_ADD_TC(tp, change_edges);
	ATF_TP_ADD_TC(tp, change_coverage);
	ATF_TP_ADD_TC(tp, change_runs);
	ATF_TP_ADD_TC(tp, signedrank);
	ATF_TP_ADD_TC(tp, change_paired);
	ATF_TP_ADD_TC(tp, signedrank_ties);
	ATF_TP_ADD_TC(tp, change_paired_coverage);
	ATF_TP_ADD_TC(tp, change_paired_alike);
	ATF_TP_ADD_TC(tp, change_paired_runs);
	return atf_no_error();
}
