/*
 * series.c - judging results of `ubcreplay vm`: the comparison over them,
 * as compare makes it, and the gates judged on it by the rule and at the
 * level given; one function for a local run, its looks, a --bisect step
 * and a --merge, so that each judges alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

enum runner_verdict
runner_series(json_t *const *docs, const char *const *names, size_t n,
    const struct runner_judge *j, struct runner_series *out, char *err,
    size_t errlen)
{
	struct cmp_opts copts = CMP_OPTS_DEFAULT;
	struct cmp_result **res = calloc(n > 0 ? n : 1, sizeof(*res));
	struct runner_series s = {NULL, NULL, 0, RUNNER_ERROR};
	size_t k = 0;
	int nv;

	err[0] = '\0';
	copts.level = j->level;
	if (res == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (docs[i] == NULL)
			continue;
		if ((res[k] = cmp_result_from_json(
		         docs[i], names[i], err, errlen)) == NULL) {
			while (k > 0)
				cmp_result_free(res[--k]);
			free(res);
			goto out;
		}
		k++;
	}
	s.c = cmp_new(res, k, &copts, err, errlen);
	free(res);
	if (s.c == NULL)
		goto out;
	if ((nv = gate_judge_all(s.c, j->gate, j->ngate,
	         (enum gate_rule)j->rule, &s.v, err, errlen)) == -1)
		goto out;
	s.nv = (size_t)nv;
	switch (gate_status(s.v, s.nv)) {
	case 0:
		s.verdict = RUNNER_PASS;
		break;
	case 1:
		s.verdict = RUNNER_FAIL;
		break;
	default:
		s.verdict = RUNNER_UNDECIDED;
	}
out:
	if (out != NULL)
		*out = s;
	else
		runner_series_free(&s);
	return s.verdict;
}

/* The first gate's verdicts come first, result by result. */
void
runner_series_change(const struct runner_series *s, struct gate_verdict *change)
{
	memset(change, 0, sizeof(*change));
	if (s->v != NULL && s->nv > 0)
		*change = s->v[s->c->nresult - 2];
}

void
runner_series_free(struct runner_series *s)
{
	free(s->v);
	if (s->c != NULL)
		cmp_free(s->c);
	s->v = NULL;
	s->c = NULL;
	s->nv = 0;
}
