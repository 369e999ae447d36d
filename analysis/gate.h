/*
 * gate.h - what a CI gate promises: a limit on how far one metric may move
 * against the baseline, judged for every other result with three outcomes
 * (docs/compare.md, "Gates"):
 *
 *	FAIL		the change's interval lies wholly beyond the limit:
 *			the runs show a change beyond it
 *	PASS		the interval lies wholly within: they show the change
 *			is within it (a change beyond it is ruled out)
 *	UNDECIDED	neither; with about how many runs a side would likely
 *			decide, were the runs to go on as they are
 *
 * The interval is the one compare prints (stats_change at the comparison's
 * level), so each wrong outcome, FAIL on a change within the limit or PASS
 * on one beyond it, has a probability of at most (1 - level) / 2 for one
 * gate and result, however noisy the runs: noise makes a gate UNDECIDED,
 * never PASS. Too few runs for an interval (3 against 3 at 95%) are
 * UNDECIDED too.
 *
 * The rule before this one (GATE_RULE_SIGNIFICANCE: FAIL when the median's
 * change is beyond the limit and the rank test calls it significant, else
 * PASS) is kept for those who ask for it by name: it passes changes beyond
 * the limit that the runs cannot separate from noise.
 *
 *	struct cmp_gate g;
 *	struct gate_verdict v[8];
 *
 *	cmp_gate_parse("write.mean_bytes:-10%", &g, err, sizeof(err));
 *	n = gate_judge(c, &g, 1, GATE_RULE_INTERVAL, v, 8, err, sizeof(err));
 *	status = gate_status(v, n);		0, 1 or 3, as compare exits
 *
 * Nothing here prints or exits.
 */
#ifndef UBC_GATE_H
#define UBC_GATE_H

#include <stddef.h>

#include <jansson.h>

#include "compare.h"
#include "stats.h"

/* "METRIC:+PCT%" (fail on a rise beyond PCT) or "METRIC:-PCT%". */
struct cmp_gate {
	char metric[64];
	int direction;    /* +1 or -1 */
	double limit_pct; /* >= 0 */
	char spec[96];    /* as written, for messages */
};

/*
 * Parses "METRIC:+PCT%" or "METRIC:-PCT%" ('%' optional, PCT a decimal
 * number), e.g. "elapsed:+10%", "write.mean_bytes:-20%".
 */
int cmp_gate_parse(
    const char *spec, struct cmp_gate *g, char *err, size_t errlen);

/* The limit as a ratio to the baseline: 1.1 for +10%, 0.8 for -20%. */
double gate_limit_ratio(const struct cmp_gate *g);

enum gate_rule { GATE_RULE_INTERVAL, GATE_RULE_SIGNIFICANCE };

/* Parses "interval" or "significance". */
int gate_rule_parse(const char *s, enum gate_rule *rule);
const char *gate_rule_name(enum gate_rule rule);

enum gate_outcome { GATE_PASS, GATE_FAIL, GATE_UNDECIDED };

/* "PASS", "FAIL", "UNDECIDED". */
const char *gate_outcome_name(enum gate_outcome o);

/* One gate judged on one result against the baseline. */
struct gate_verdict {
	const struct cmp_gate *gate;
	size_t result;
	enum gate_outcome outcome;
	struct stats_change ch; /* the change and its interval */
	double p;               /* the rank test's */
	size_t na, nb;          /* the runs judged */
	size_t pairs;           /* as pairs on the same seeds; 0: not */
	/*
	 * UNDECIDED: about how many runs a side would likely decide it;
	 * SIZE_MAX when the estimate sits on the limit. 0 when decided.
	 */
	size_t runs;
};

/*
 * Judges every gate on every result but the baseline, writing up to nout
 * verdicts (gate by gate, result by result). Returns their number, or -1
 * when a gate cannot be judged: its metric is unknown or missing from a
 * result, the baseline's median is 0 (a change in percent means nothing),
 * it is a time and the times are not comparable (c->times_ok), or it is a
 * size or count of the device or the wire (all but app.*) and the guests'
 * machines differ in a knob that moves them (c->sizes_ok); and, under the
 * old rule only, too few runs for the rank test to ever reach alpha.
 */
int gate_judge(const struct cmp *c, const struct cmp_gate *gates, size_t ngate,
    enum gate_rule rule, struct gate_verdict *out, size_t nout, char *err,
    size_t errlen);

/*
 * gate_judge over every gate and every result but the baseline, into
 * verdicts it allocates (*v, free it): their number, or -1 with err saying
 * why (*v then NULL). The one way compare and vm's runner judge gates.
 */
int gate_judge_all(const struct cmp *c, const struct cmp_gate *gates,
    size_t ngate, enum gate_rule rule, struct gate_verdict **v, char *err,
    size_t errlen);

/*
 * The exit status the verdicts call for: 1 when some gate failed, else 3
 * when some is undecided, else 0.
 */
int gate_status(const struct gate_verdict *v, size_t n);

/*
 * The comparison and the verdicts as one document (docs/json.md, "A
 * comparison"); NULL when memory runs out. rule is an enum gate_rule.
 */
json_t *cmp_to_json(
    const struct cmp *c, const struct gate_verdict *v, size_t nv, int rule);

/*
 * The same into the file path, whole or not at all (model/outfile.h).
 * Returns -1 with the reason, naming the file.
 */
int cmp_json_write(const struct cmp *c, const struct gate_verdict *v, size_t nv,
    int rule, const char *path, char *err, size_t errlen);

/*
 * The record of how a run of `ubcreplay vm` judged its results, for their
 * "vm" object's "judged" (docs/json.md): the rule, the level of every
 * interval, and the looks (runs a cell at each; one for a fixed -n). NULL
 * when memory runs out.
 */
json_t *gate_judged_json(
    enum gate_rule rule, double level, const int *look, size_t nlook);

/*
 * The strictest of the records of how results r[0 .. n-1] were judged
 * (the highest level; at the same level, the interval rule's), or NULL
 * when none was judged. Judging the results together at that level keeps
 * every look's error budget.
 */
const struct cmp_judged *gate_judged_find(
    struct cmp_result *const *r, size_t n);

/*
 * The worse of two exit statuses of gates: a usage or input error (2),
 * FAIL (1), UNDECIDED (3), PASS (0), in that order.
 */
int gate_worse(int a, int b);

#endif
