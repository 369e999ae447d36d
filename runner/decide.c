/*
 * decide.c - the cells of a run that is not a bisection: booted once for
 * the job's runs, or, with -n MIN..MAX, again for the runs of each look
 * until the gates are decided.
 */
#include "runner.h"

int
runner_until_decided(
    struct runner *r, const size_t *idx, size_t n, enum runner_verdict *v)
{
	*v = RUNNER_UNDECIDED;
	for (int j = 0; j < r->nlook && *v == RUNNER_UNDECIDED; j++) {
		if (runner_cells(r, idx, n,
		        r->look[j] - (j > 0 ? r->look[j - 1] : 0),
		        r->jobs) == -1)
			return -1;
		*v = runner_series(r->doc, r->name, r->ncell, &r->judge, NULL,
		    r->err, sizeof(r->err));
		if (r->report != NULL && r->report->look != NULL)
			r->report->look(r->report_ctx, j, r->nlook, r->look[j],
			    *v, *v == RUNNER_ERROR ? r->err : NULL);
	}
	return 0;
}

int
runner_local(struct runner *r, const size_t *idx, size_t n)
{
	enum runner_verdict v;

	if (r->nlook > 0)
		return runner_until_decided(r, idx, n, &v);
	return runner_cells(r, idx, n, r->own ? 0 : r->runs, r->jobs);
}
