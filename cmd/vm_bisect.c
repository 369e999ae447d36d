/*
 * vm_bisect.c - `ubcreplay vm --bisect`: over kernels given good first
 * and bad last, the first whose cell crosses the gates against the first
 * kernel's. The two ends boot first (side by side with -j 2 or more),
 * then the kernels between, halving; each step is judged by the series
 * and the gates of a local run (vmrun_series), at each look of
 * -n MIN..MAX in turn, and a step that cannot tell good from bad stops
 * it (exit 3) rather than guess.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "vm_run.h"

/*
 * Boots cell at once more, when it has had fewer than want runs, for the
 * runs it lacks.
 */
static int
top_up(struct vmrun *r, size_t at, int want)
{
	int have = vmrun_runs(r, at);

	if (have >= want)
		return 0;
	snprintf(r->o->runs_arg, 16, "%d", want - have);
	return vmrun_cells(r, &at, 1, 1);
}

/*
 * Good (0) or bad (1), or undecided (3): kernel i's cell against the
 * first's, by the gates, at each look of -n MIN..MAX in turn until one
 * decides; v gets the first gate's verdict.
 */
static int
judge(struct vmrun *r, size_t i, struct gate_verdict *v)
{
	const struct vm_opts *o = r->o;
	json_t *pair[2];
	char pn[2][PATH_MAX];
	int s;

	for (int j = 0;; j++) {
		int want = o->runs_max > 0 ? o->look[j] : o->runs;

		if (top_up(r, 0, want) == -1 || top_up(r, i, want) == -1)
			return -1;
		pair[0] = r->doc[0];
		pair[1] = r->doc[i];
		snprintf(pn[0], PATH_MAX, "%s", r->k[0].path);
		snprintf(pn[1], PATH_MAX, "%s", r->k[i].path);
		s = vmrun_series(pair, pn, 2, r->o, 0, v);
		if (s != EXIT_UNDECIDED || j + 1 >= o->nlook)
			return s;
	}
}

/* The kernels the bisection booted. */
static size_t
boots(const struct vmrun *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ncell; i++)
		n += r->doc[i] != NULL;
	return n;
}

/* One bisection line: the kernel, its verdict, the change that made it. */
static void
print_step(const char *what, const struct vm_kernel *k, int v,
    const struct gate_verdict *gv)
{
	char chg[96] = "";

	if (gv->gate != NULL)
		cmp_format_change(chg, sizeof(chg), &gv->ch);
	printf("  %-6s %-32s %s (%s %s)\n", what, vm_kernel_name(k),
	    v == EXIT_SUCCESS       ? "good"
	        : v == EXIT_FAILURE ? "bad"
	                            : "undecided",
	    gv->gate != NULL ? gv->gate->metric : "", chg);
}

/* A step that cannot tell good from bad stops the bisection, and says so. */
static int
undecided(struct vmrun *r, size_t i, const struct gate_verdict *gv)
{
	warnx("%s cannot be called good or bad: the interval of %s holds the "
	      "gate's limit; run more (-n, about %zu runs) and bisect again",
	    r->k[i].path, gv->gate != NULL ? gv->gate->metric : "the metric",
	    gv->runs);
	return EXIT_UNDECIDED;
}

int
vmrun_bisect(struct vmrun *r)
{
	size_t lo = 0, hi = r->ncell - 1, ends[2] = {0, r->ncell - 1};
	struct gate_verdict gv;
	char step[16];
	int v, n = 0;

	/* The ends first, side by side when -j allows. */
	if (vmrun_cells(r, ends, 2, r->o->jobs > 1 ? 2 : 1) == -1)
		return EXIT_USAGE;
	printf(
	    "Bisection over %zu kernels (good first, bad last):\n", r->ncell);
	printf(
	    "  first: %-32s good (the baseline)\n", vm_kernel_name(&r->k[0]));
	if ((v = judge(r, hi, &gv)) == EXIT_USAGE || v == -1)
		return EXIT_USAGE;
	print_step("last:", &r->k[hi], v, &gv);
	if (v == EXIT_UNDECIDED)
		return undecided(r, hi, &gv);
	if (v == EXIT_SUCCESS) {
		warnx("the last kernel, %s, passes the gate against the first: "
		      "nothing to bisect",
		    r->k[hi].path);
		return EXIT_USAGE;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if ((v = judge(r, mid, &gv)) == EXIT_USAGE || v == -1)
			return EXIT_USAGE;
		snprintf(step, sizeof(step), "step %d:", ++n);
		print_step(step, &r->k[mid], v, &gv);
		if (v == EXIT_UNDECIDED)
			return undecided(r, mid, &gv);
		if (v)
			hi = mid;
		else
			lo = mid;
	}
	printf("first bad kernel: %s (%s), after %s; %zu boots for %zu "
	       "kernels\n",
	    vm_kernel_name(&r->k[hi]), r->k[hi].path, vm_kernel_name(&r->k[lo]),
	    boots(r), r->ncell);
	return EXIT_SUCCESS;
}
