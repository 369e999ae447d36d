/*
 * cells.c - the cells of a matrix booted through a cell runner: up to -j
 * at once, each polled in turn between naps, a signal stopping them all;
 * on a seeded machine each run a boot of its own, on the seed after the
 * cell's last; each result kept, a cell's later boots in its first's
 * "boots".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/stop.h"
#include "runner.h"

int
runner_open(struct runner *r)
{
	r->err[0] = '\0';
	if ((r->doc = calloc(r->ncell > 0 ? r->ncell : 1, sizeof(*r->doc))) ==
	    NULL) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		return -1;
	}
	return 0;
}

void
runner_close(struct runner *r)
{
	for (size_t i = 0; r->doc != NULL && i < r->ncell; i++)
		json_decref(r->doc[i]);
	free(r->doc);
	r->doc = NULL;
}

static void
failed(struct runner *r, size_t i, const char *why)
{
	struct runner_event e = {RUNNER_CELL_FAILED, i, NULL, -1, -1, why};

	if (r->report != NULL && r->report->cell != NULL)
		r->report->cell(r->report_ctx, &e);
}

/*
 * Keeps a cell's result: its first boot's as it is, a later one's (a look
 * of -n MIN..MAX) in the first's "boots", which compare reads with it.
 */
static int
keep(struct runner *r, size_t i, json_t *doc)
{
	json_t *boots;

	if (r->doc[i] == NULL) {
		r->doc[i] = doc;
		return 0;
	}
	if ((boots = json_object_get(r->doc[i], "boots")) == NULL &&
	    json_object_set_new(r->doc[i], "boots", boots = json_array()) == -1)
		return -1;
	return json_array_append_new(boots, doc);
}

int
runner_runs(const struct runner *r, size_t i)
{
	json_t *b;
	size_t k, n;

	if (r->doc[i] == NULL)
		return 0;
	n = json_array_size(json_object_get(r->doc[i], "runs"));
	json_array_foreach (json_object_get(r->doc[i], "boots"), k, b)
		n += json_array_size(json_object_get(b, "runs"));
	return (int)n;
}

/* A cell of one boot: its runner's handle while under way. */
struct slot {
	void *h;
	int parallel; /* the most cells under way at once while it was */
};

/*
 * One boot of the cells idx, up to jobs at once, on seed[i] each (-1: as
 * made). -1 when one failed (each failure reported), or a signal came
 * (every cell stopped). Each cell is told the most cells that were under
 * way at once while it was.
 */
static int
boot_once(struct runner *r, const size_t *idx, size_t n, int runs,
    const long long *seed, int jobs)
{
	const struct runner_cell_ops *ops = r->cells;
	struct slot *slot = calloc(n > 0 ? n : 1, sizeof(*slot));
	size_t next = 0, running = 0;
	char err[4096];
	int status = 0;

	if (slot == NULL) {
		failed(r, idx[0], "out of memory");
		return -1;
	}
	for (;;) {
		while (!stop_signal() && running < (size_t)jobs && next < n) {
			size_t i = idx[next];

			err[0] = '\0';
			slot[next].h = ops->start(r->cells_ctx, i, runs,
			    seed != NULL ? seed[next] : -1, err, sizeof(err));
			next++;
			if (slot[next - 1].h == NULL) {
				failed(r, i, err);
				status = -1;
				continue;
			}
			running++;
		}
		for (size_t k = 0; k < next; k++)
			if (slot[k].h != NULL &&
			    slot[k].parallel < (int)running)
				slot[k].parallel = (int)running;
		if (stop_signal() || running == 0)
			break;
		for (size_t k = 0; k < next; k++) {
			json_t *doc = NULL;
			int s;

			if (slot[k].h == NULL || stop_signal())
				continue;
			err[0] = '\0';
			if ((s = ops->poll(r->cells_ctx, slot[k].h,
			         slot[k].parallel, &doc, err, sizeof(err))) ==
			    1)
				continue;
			if (s == 0 && keep(r, idx[k], doc) == -1) {
				json_decref(doc);
				snprintf(err, sizeof(err), "out of memory");
				s = -1;
			}
			if (s == -1) {
				failed(r, idx[k], err);
				status = -1;
			}
			ops->stop(r->cells_ctx, slot[k].h);
			slot[k].h = NULL;
			running--;
		}
		if (ops->nap != NULL)
			ops->nap(r->cells_ctx);
	}
	for (size_t k = 0; k < next; k++)
		if (slot[k].h != NULL)
			ops->stop(r->cells_ctx, slot[k].h);
	free(slot);
	return stop_signal() ? -1 : status;
}

/* Whether every cell idx names runs on a seeded machine. */
static int
seeded(const struct runner *r, const size_t *idx, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!r->cells->seeded(r->cells_ctx, idx[k]))
			return 0;
	return n > 0;
}

/*
 * On a seeded machine each run is a boot of its own, on the seed after
 * the cell's last: runs become as many boots of one run, seeds SEED,
 * SEED + 1, ..., the same for every cell, so that the cells' runs pair up
 * by seed. Elsewhere the cells boot once for all of them.
 */
int
runner_cells(struct runner *r, const size_t *idx, size_t n, int runs, int jobs)
{
	long long *seed;
	int boots = runs, rc = 0;

	if (!seeded(r, idx, n))
		return boot_once(r, idx, n, runs, NULL, jobs);
	if ((seed = calloc(n, sizeof(*seed))) == NULL) {
		failed(r, idx[0], "out of memory");
		return -1;
	}
	/* A job of its own (no -n of ours) boots once. */
	if (runs < 1)
		boots = 1;
	for (int b = 0; b < boots && rc == 0; b++) {
		for (size_t k = 0; k < n; k++)
			seed[k] = r->seed + runner_runs(r, idx[k]);
		rc = boot_once(r, idx, n, runs < 1 ? runs : 1, seed, jobs);
	}
	free(seed);
	return rc;
}
