/*
 * figures.c - the runs' figures the result's summary is computed from
 * (struct result_figures): taken from each run as it ends, so that the
 * runs themselves need not be held until the summary is made.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* What device d did over a whole run: the sum of its phases. */
static struct devstats
run_device(const struct run_result *run, size_t d)
{
	struct devstats sum;

	/* A phase that was not measured (a retraced one) has no devices. */
	memset(&sum, 0, sizeof(sum));
	for (size_t ph = 0; ph < run->nphase; ph++)
		if (d < run->phase[ph].ndev)
			devstats_add(&sum, &run->phase[ph].dev[d]);
	return sum;
}

/* The phases and devices of the first run that was ok. */
static int
first_run(struct result_figures *f, const struct run_result *run)
{
	f->nphase = run->nphase;
	for (size_t ph = 0; ph < run->nphase; ph++)
		f->phase[ph] = run->phase[ph].name;
	f->ndev = run->nphase > 0 ? run->phase[0].ndev : 0;
	if (f->ndev == 0)
		return 0;
	f->exact = calloc(f->ndev, sizeof(*f->exact));
	f->size = calloc(f->ndev * DIR_N, sizeof(*f->size));
	return f->exact == NULL || f->size == NULL ? -1 : 0;
}

int
result_figures_add(struct result_figures *f, const struct run_result *run)
{
	size_t row;
	int64_t *v;

	if (strcmp(run->status, "ok") != 0)
		return 0;
	if (f->n == 0 && first_run(f, run) == -1)
		return -1;
	row = RESULT_FIG_ROW(f->ndev);
	if (f->n == f->cap) {
		size_t cap = f->cap == 0 ? 16 : f->cap * 2;

		if ((v = realloc(f->v, cap * row * sizeof(*v))) == NULL)
			return -1;
		f->v = v;
		f->cap = cap;
	}
	v = &f->v[f->n * row];
	memset(v, 0, row * sizeof(*v));
	/* A phase this run did not have counts 0, as an unused slot did. */
	for (size_t ph = 0; ph < f->nphase && ph < run->nphase; ph++) {
		const struct phase_result *p = &run->phase[ph];

		v[ph * RESULT_FIG_PHASE] = p->elapsed_ns;
		v[ph * RESULT_FIG_PHASE + 1] = p->user_ns;
		v[ph * RESULT_FIG_PHASE + 2] = p->sys_ns;
	}
	v += RESULT_MAXPHASE * RESULT_FIG_PHASE;
	for (size_t d = 0; d < f->ndev; d++, v += RESULT_FIG_DEV) {
		struct devstats sum = run_device(run, d);

		for (int k = 0; k < DIR_N; k++) {
			const struct xfer *x = &sum.xfer[k];

			v[k * 3] = (int64_t)x->ops;
			v[k * 3 + 1] = (int64_t)x->bytes;
			v[k * 3 + 2] =
			    x->ops == 0 ? 0 : (int64_t)(x->bytes / x->ops);
			hist_merge(&f->size[d * DIR_N + k], &x->size);
		}
		v[6] = (int64_t)sum.flushes;
		v[7] = (int64_t)sum.xfer[DIR_WRITE].bios;
		v[8] = (int64_t)sum.xfer[DIR_WRITE].seq_ops;
		v[9] = (int64_t)sum.empty_preflush;
		v[10] = (int64_t)sum.lost_events;
		if (f->n == 0)
			f->exact[d] = sum.exact;
	}
	f->n++;
	return 0;
}

void
result_figures_free(struct result_figures *f)
{
	free(f->exact);
	free(f->size);
	free(f->v);
	memset(f, 0, sizeof(*f));
}
