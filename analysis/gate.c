/*
 * gate.c - CI gates judged on a comparison; see gate.h.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"

int
cmp_gate_parse(const char *spec, struct cmp_gate *g, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	char *end;
	double pct;

	memset(g, 0, sizeof(*g));
	snprintf(g->spec, sizeof(g->spec), "%s", spec);
	if (colon == NULL || colon == spec ||
	    (size_t)(colon - spec) >= sizeof(g->metric) ||
	    (colon[1] != '+' && colon[1] != '-')) {
		snprintf(err, errlen,
		    "bad --fail-if '%s': want METRIC:+PCT%% "
		    "or METRIC:-PCT%%, e.g. elapsed:+10%%",
		    spec);
		return -1;
	}
	memcpy(g->metric, spec, (size_t)(colon - spec));
	g->direction = colon[1] == '+' ? 1 : -1;
	errno = 0;
	pct = strtod(colon + 2, &end);
	if (end == colon + 2 || errno != 0 || !isfinite(pct) || pct < 0 ||
	    (*end == '%' ? end[1] != '\0' : *end != '\0')) {
		snprintf(err, errlen,
		    "bad --fail-if '%s': the limit must be a "
		    "percentage, e.g. %s:%c10%%",
		    spec, g->metric, colon[1]);
		return -1;
	}
	g->limit_pct = pct;
	return 0;
}

double
gate_limit_ratio(const struct cmp_gate *g)
{
	return 1 + g->direction * g->limit_pct / 100;
}

int
gate_rule_parse(const char *s, enum gate_rule *rule)
{
	if (strcmp(s, "interval") == 0)
		*rule = GATE_RULE_INTERVAL;
	else if (strcmp(s, "significance") == 0)
		*rule = GATE_RULE_SIGNIFICANCE;
	else
		return -1;
	return 0;
}

const char *
gate_rule_name(enum gate_rule rule)
{
	return rule == GATE_RULE_INTERVAL ? "interval" : "significance";
}

const char *
gate_outcome_name(enum gate_outcome o)
{
	return o == GATE_PASS ? "PASS" : o == GATE_FAIL ? "FAIL" : "UNDECIDED";
}

/* Whether the gate can be judged at all on c; -1 with the reason if not. */
static int
judgeable(const struct cmp *c, const struct cmp_gate *gate,
    const struct cmp_row *row, char *err, size_t errlen)
{
	if (row == NULL) {
		size_t len;

		snprintf(err, errlen,
		    "--fail-if %s: no metric '%s' in these results; there are:",
		    gate->spec, gate->metric);
		for (size_t k = 0; k < c->nrow; k++)
			if ((len = strlen(err)) + 2 < errlen)
				snprintf(err + len, errlen - len, " %s",
				    c->row[k].name);
		return -1;
	}
	if (row->unit == CMP_NS && !c->times_ok) {
		snprintf(err, errlen,
		    "--fail-if %s: cannot judge a time: %s; gate on sizes or "
		    "counts instead",
		    gate->spec, c->times_why);
		return -1;
	}
	if (row->unit != CMP_NS && !c->sizes_ok &&
	    strncmp(gate->metric, "app.", 4) != 0) {
		snprintf(err, errlen,
		    "--fail-if %s: cannot judge sizes across machines: %s; run "
		    "them on one machine",
		    gate->spec, c->sizes_why);
		return -1;
	}
	return 0;
}

/* The old rule: beyond the limit and significant, else PASS. */
static int
judge_significance(const struct cmp *c, const struct cmp_row *row,
    const struct cmp_cell *cell, struct gate_verdict *v, char *err,
    size_t errlen)
{
	const struct cmp_gate *gate = v->gate;
	int beyond;

	if (cell->verdict == CMP_TOO_FEW) {
		snprintf(err, errlen,
		    "--fail-if %s: %zu runs against %zu are too few to test (the "
		    "smallest p they allow is %.3g, not below %g): use 4 or "
		    "more runs each",
		    gate->spec, row->cell[0].sum.n, cell->sum.n, cell->pmin,
		    c->opts.alpha);
		return -1;
	}
	beyond = gate->direction > 0 ? cell->change_pct > gate->limit_pct
	                             : cell->change_pct < -gate->limit_pct;
	v->outcome =
	    beyond && cell->verdict == CMP_CHANGED ? GATE_FAIL : GATE_PASS;
	return 0;
}

/* The interval against the limit, and if undecided what might decide. */
static void
judge_interval(const struct cmp *c, const struct cmp_row *row, size_t result,
    struct gate_verdict *v)
{
	const struct cmp_series *sa =
	    cmp_result_series(c->result[0], row->name);
	const struct cmp_series *sb =
	    cmp_result_series(c->result[result], row->name);
	double ratio = gate_limit_ratio(v->gate), limit = ratio;
	double lo = v->ch.lo, hi = v->ch.hi;

	if (v->gate->direction < 0) {
		lo = -v->ch.hi;
		hi = -v->ch.lo;
		limit = -ratio;
	}
	/* Now a rise beyond limit fails: [lo, hi] against it. */
	if (v->ch.bounded && lo > limit)
		v->outcome = GATE_FAIL;
	else if (v->ch.bounded && hi < limit)
		v->outcome = GATE_PASS;
	else {
		v->outcome = GATE_UNDECIDED;
		v->runs = cmp_change_runs(c, sa, sb, &row->cell[result], ratio);
	}
}

int
gate_judge(const struct cmp *c, const struct cmp_gate *gates, size_t ngate,
    enum gate_rule rule, struct gate_verdict *out, size_t nout, char *err,
    size_t errlen)
{
	size_t n = 0;

	for (size_t g = 0; g < ngate; g++) {
		const struct cmp_gate *gate = &gates[g];
		const struct cmp_row *row = cmp_row_find(c, gate->metric);

		if (judgeable(c, gate, row, err, errlen) == -1)
			return -1;
		for (size_t i = 1; i < c->nresult; i++) {
			const struct cmp_cell *cell = &row->cell[i];
			struct gate_verdict v;

			if (!row->cell[0].present || !cell->present) {
				snprintf(err, errlen,
				    "--fail-if %s: '%s' has no %s", gate->spec,
				    c->result[cell->present ? 0 : i]->path,
				    gate->metric);
				return -1;
			}
			if (!cell->ratio_valid || !cell->ch.valid) {
				snprintf(err, errlen,
				    "--fail-if %s: the baseline's median %s is "
				    "0, so a change in percent means nothing",
				    gate->spec, gate->metric);
				return -1;
			}
			memset(&v, 0, sizeof(v));
			v.gate = gate;
			v.result = i;
			v.ch = cell->ch;
			v.p = cell->mw.p;
			v.na = row->cell[0].sum.n;
			v.nb = cell->sum.n;
			v.pairs = cell->pairs;
			if (rule == GATE_RULE_SIGNIFICANCE) {
				if (judge_significance(
				        c, row, cell, &v, err, errlen) == -1)
					return -1;
			} else
				judge_interval(c, row, i, &v);
			if (n < nout)
				out[n] = v;
			n++;
		}
	}
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

int
gate_judge_all(const struct cmp *c, const struct cmp_gate *gates, size_t ngate,
    enum gate_rule rule, struct gate_verdict **v, char *err, size_t errlen)
{
	size_t want = ngate * (c->nresult - 1);
	int n;

	if ((*v = calloc(want > 0 ? want : 1, sizeof(**v))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((n = gate_judge(c, gates, ngate, rule, *v, want, err, errlen)) ==
	    -1) {
		free(*v);
		*v = NULL;
	}
	return n;
}

int
gate_status(const struct gate_verdict *v, size_t n)
{
	int status = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].outcome == GATE_FAIL)
			return 1;
		else if (v[i].outcome == GATE_UNDECIDED)
			status = 3;
	return status;
}

json_t *
gate_judged_json(
    enum gate_rule rule, double level, const int *look, size_t nlook)
{
	json_t *looks = json_array();

	for (size_t i = 0; looks != NULL && i < nlook; i++)
		if (json_array_append_new(looks, json_integer(look[i])) == -1) {
			json_decref(looks);
			return NULL;
		}
	if (looks == NULL)
		return NULL;
	return json_pack("{s:s, s:f, s:o}", "rule", gate_rule_name(rule),
	    "level", level, "looks", looks);
}

const struct cmp_judged *
gate_judged_find(struct cmp_result *const *r, size_t n)
{
	const struct cmp_judged *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct cmp_judged *j = &r[i]->judged;

		if (j->level == 0)
			continue;
		if (best == NULL || j->level > best->level ||
		    (j->level == best->level &&
		        strcmp(j->rule, "interval") == 0))
			best = j;
	}
	return best;
}

int
gate_worse(int a, int b)
{
	static const int rank[] = {0, 2, 3, 1}; /* by status 0..3 */

	if (a < 0 || a > 3 || b < 0 || b > 3)
		return a > b ? a : b;
	return rank[a] >= rank[b] ? a : b;
}
