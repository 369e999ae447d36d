/*
 * merge.c - `ubcreplay vm --merge DIR`: a directory of one plan's results,
 * however its cells were run, read back whole (vm_plan_load refuses two
 * plans, a cell twice or one missing) and judged by the series and the
 * gates of a local run.
 */
#include <stdlib.h>
#include <string.h>

#include "runner.h"

enum runner_verdict
runner_merge(const char *dir, const char *expect, const struct runner_judge *j,
    struct runner_merged *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	err[0] = '\0';
	if (vm_plan_load(
	        dir, expect, &m->docs, &m->names, &m->n, err, errlen) == -1) {
		memset(m, 0, sizeof(*m));
		return RUNNER_ERROR;
	}
	m->s.verdict = RUNNER_PASS;
	if (m->n < 2)
		return RUNNER_PASS;
	return runner_series(m->docs, (const char *const *)m->names, m->n, j,
	    &m->s, err, errlen);
}

void
runner_merged_free(struct runner_merged *m)
{
	runner_series_free(&m->s);
	for (size_t i = 0; i < m->n; i++)
		json_decref(m->docs[i]);
	free(m->docs);
	if (m->names != NULL)
		vm_plan_names_free(m->names, m->n);
	memset(m, 0, sizeof(*m));
}
