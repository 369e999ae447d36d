/*
 * bisect.c - `ubcreplay vm --bisect`: over cells, one a kernel, given
 * good first and bad last, the first whose cell crosses the gates against
 * the first's. The two ends boot first (side by side when -j allows),
 * then the kernels between, halving, each with the first booted again
 * beside it in the same rounds; each step is judged by the series and
 * the gates against those runs of the first, at each look of -n MIN..MAX
 * in turn, and a step that cannot tell good from bad stops it rather than
 * guess.
 */
#include <string.h>

#include "runner.h"

/*
 * Boots cell i and the first (its runs kept in *base) again, in the same
 * rounds, for the runs they lack of want; side by side when jobs allows,
 * as the ends are.
 */
static int
top_up(struct runner *r, size_t i, json_t **base, int want)
{
	size_t idx[2] = {0, i};
	json_t **into[2] = {base, &r->doc[i]};
	int have = runner_doc_runs(*base), hi = runner_runs(r, i);

	/* Both grow together; a job of its own may have given them more. */
	have = have < hi ? have : hi;
	if (have >= want)
		return 0;
	return runner_cells_into(
	    r, idx, into, 2, want - have, r->jobs > 1 ? 2 : 1);
}

/*
 * Cell i against the first's runs in *base, by the gates, at each look
 * in turn until one decides; gv gets the first gate's verdict. -1 when a
 * cell failed.
 */
static int
judge(struct runner *r, size_t i, json_t **base, enum runner_verdict *v,
    struct gate_verdict *gv)
{
	json_t *pair[2];
	const char *pn[2];
	struct runner_series s;

	for (int j = 0;; j++) {
		int want = r->nlook > 0 ? r->look[j] : r->runs;

		if (top_up(r, i, base, want) == -1)
			return -1;
		pair[0] = *base;
		pair[1] = r->doc[i];
		pn[0] = r->name[0];
		pn[1] = r->name[i];
		*v = runner_series(
		    pair, pn, 2, &r->judge, &s, r->err, sizeof(r->err));
		runner_series_change(&s, gv);
		runner_series_free(&s);
		if (*v != RUNNER_UNDECIDED || j + 1 >= r->nlook)
			return 0;
	}
}

/*
 * A kernel between the ends, judged against the first booted again
 * beside it: a change in the host's load since the ends ran falls on
 * both, not on the kernel alone.
 */
static int
judge_mid(
    struct runner *r, size_t i, enum runner_verdict *v, struct gate_verdict *gv)
{
	json_t *base = NULL;
	int rc = judge(r, i, &base, v, gv);

	/* gv keeps no pointer into the series, which is gone. */
	json_decref(base);
	return rc;
}

static void
step(struct runner *r, enum runner_step_kind kind, int n, size_t i,
    enum runner_verdict v, const struct gate_verdict *gv)
{
	struct runner_step s = {kind, n, i, v, gv};

	if (r->report != NULL && r->report->step != NULL)
		r->report->step(r->report_ctx, &s);
}

enum runner_bisection
runner_bisect(struct runner *r, struct runner_bisect_end *end)
{
	size_t lo = 0, hi = r->ncell - 1, ends[2] = {0, r->ncell - 1};
	enum runner_verdict v;
	int n = 0;

	memset(end, 0, sizeof(*end));
	r->err[0] = '\0';
	if (runner_cells(
	        r, ends, 2, r->own ? 0 : r->runs, r->jobs > 1 ? 2 : 1) == -1)
		return RUNNER_BISECT_ERROR;
	step(r, RUNNER_STEP_ENDS, 0, 0, RUNNER_PASS, NULL);
	if (judge(r, hi, &r->doc[0], &v, &end->gv) == -1 || v == RUNNER_ERROR)
		return RUNNER_BISECT_ERROR;
	step(r, RUNNER_STEP_LAST, 0, hi, v, &end->gv);
	end->at = hi;
	if (v == RUNNER_UNDECIDED)
		return RUNNER_BISECT_UNDECIDED;
	if (v == RUNNER_PASS)
		return RUNNER_BISECT_NOTHING;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (judge_mid(r, mid, &v, &end->gv) == -1 || v == RUNNER_ERROR)
			return RUNNER_BISECT_ERROR;
		step(r, RUNNER_STEP_MID, ++n, mid, v, &end->gv);
		end->at = mid;
		if (v == RUNNER_UNDECIDED)
			return RUNNER_BISECT_UNDECIDED;
		if (v == RUNNER_FAIL)
			hi = mid;
		else
			lo = mid;
	}
	end->good = lo;
	end->bad = hi;
	return RUNNER_BISECT_FOUND;
}
