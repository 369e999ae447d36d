/*
 * cells.c - the cells of a matrix booted through a cell runner: up to -j
 * at once, each polled in turn between naps, a signal stopping them all;
 * their runs in rounds of a few runs a boot, the cells in turn and their
 * order reversed each round (on a seeded machine boots of a few runs each,
 * on the seed after the cell's last run's, all side by side); each result
 * kept, a cell's later boots in its first's "boots".
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
keep(json_t **into, json_t *doc)
{
	json_t *boots;

	if (*into == NULL) {
		*into = doc;
		return 0;
	}
	if ((boots = json_object_get(*into, "boots")) == NULL &&
	    json_object_set_new(*into, "boots", boots = json_array()) == -1)
		return -1;
	return json_array_append_new(boots, doc);
}

int
runner_doc_runs(const json_t *doc)
{
	json_t *b;
	size_t k, n;

	if (doc == NULL)
		return 0;
	n = json_array_size(json_object_get(doc, "runs"));
	json_array_foreach (json_object_get(doc, "boots"), k, b)
		n += json_array_size(json_object_get(b, "runs"));
	return (int)n;
}

int
runner_runs(const struct runner *r, size_t i)
{
	return runner_doc_runs(r->doc[i]);
}

/* A cell of one boot: its runner's handle while under way. */
struct slot {
	void *h;
	int parallel; /* the most cells under way at once while it was */
};

/*
 * One boot of the cells idx, up to jobs at once, for runs[k] runs on
 * seed[k] each (-1: as made), each result kept in *into[k]. -1 when one
 * failed (each failure reported), or a signal came (every cell stopped).
 * Each cell is told the most cells that were under way at once while it
 * was.
 */
static int
boot_once(struct runner *r, const size_t *idx, json_t **const *into, size_t n,
    const int *runs, const long long *seed, int jobs)
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
			slot[next].h = ops->start(r->cells_ctx, i, runs[next],
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
			if (s == 0 && keep(into[k], doc) == -1) {
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
 * How runs are laid out in time: the rounds, each *per runs a cell (the
 * first runs % rounds of them one more; a seeded machine's are laid out
 * by seeded_boots): a job of its own (runs < 1) boots once; one boot
 * when round_runs is 0 or the runs fit one round (too few a side to
 * judge a gate by: 3 cannot bound a 95% interval); else rounds of at most
 * round_runs runs, an even number of them (A B, then B A), as alike as
 * they can be: 5 by 3 is 3 and 2, 7 by 3 is 2, 2, 2 and 1.
 */
static int
rounds(const struct runner *r, int runs, int *per)
{
	int n;

	if (runs < 1) {
		*per = runs;
		return 1;
	}
	if (r->round_runs <= 0)
		n = 1;
	else {
		n = (runs + r->round_runs - 1) / r->round_runs;
		n += n % 2 == 1 && n > 1;
	}
	*per = runs / n;
	return n;
}

/*
 * On a seeded machine: the runs of the cells idx in boots of at most
 * seeded_runs runs (as even as can be: 8 by 3 is 3, 3 and 2), each boot
 * on its seed, the one after the cell's last run's (SEED + the runs it
 * has), so that a run's seed and place in its boot are the same for every
 * cell and every -n; all up to jobs at once, since on simulated time when
 * a boot runs moves none of its counts: the boots of one cell side by
 * side, not only the cells. Each cell's results are kept in the order of
 * their seeds, up to its first failure.
 */
static int
seeded_boots(struct runner *r, const size_t *idx, json_t **const *into,
    size_t n, int runs, int jobs)
{
	int per = r->seeded_runs > 1 ? r->seeded_runs : 1;
	int nbc = (runs + per - 1) / per;
	size_t nb = n * (size_t)nbc;
	size_t *order = calloc(nb, sizeof(*order));
	long long *seed = calloc(nb, sizeof(*seed));
	int *nrun = calloc(nb, sizeof(*nrun));
	json_t **got = calloc(nb, sizeof(*got));
	json_t ***to = calloc(nb, sizeof(*to));
	int rc = -1;

	if (order != NULL && seed != NULL && nrun != NULL && got != NULL &&
	    to != NULL) {
		for (size_t k = 0; k < n; k++) {
			json_t **doc = into != NULL ? into[k] : &r->doc[idx[k]];
			long long next = r->seed + runner_doc_runs(*doc);
			int j = 0;

			for (size_t m = k; m < nb; m += n, j++) {
				order[m] = idx[k];
				nrun[m] = runs / nbc + (j < runs % nbc);
				seed[m] = next;
				next += nrun[m];
				to[m] = &got[m];
			}
		}
		rc = boot_once(r, order, to, nb, nrun, seed, jobs);
		for (size_t k = 0; k < n; k++) {
			json_t **doc = into != NULL ? into[k] : &r->doc[idx[k]];
			int whole = 1;

			for (size_t m = k; m < nb; m += n) {
				if (whole && got[m] != NULL &&
				    keep(doc, got[m]) == 0)
					continue;
				if (whole && got[m] != NULL) {
					failed(r, idx[k], "out of memory");
					rc = -1;
				}
				whole = 0;
				json_decref(got[m]);
			}
		}
		r->round += runs;
	} else
		failed(r, idx[0], "out of memory");
	free(order);
	free(seed);
	free(nrun);
	free(got);
	free(to);
	return rc;
}

/*
 * The cells idx, each kept in *into[k], booted round by round: each round
 * every cell once for its share of the runs, in the matrix's order one
 * round and the reverse the next (A B, B A, A B, ...), the alternation
 * going on across calls (r->round), so that a change in the host's load
 * falls on every cell alike, and a steady drift nearly cancels over each
 * two rounds (exactly when they have as many runs). On a seeded machine,
 * seeded_boots.
 */
int
runner_cells_into(struct runner *r, const size_t *idx, json_t **const *into,
    size_t n, int runs, int jobs)
{
	int sd = seeded(r, idx, n), per, nround, rc = 0;
	size_t *order;
	json_t ***slot;
	long long *seed;
	int *nrun;

	if (n > r->nturn)
		r->nturn = n;
	if (sd && runs >= 1)
		return seeded_boots(r, idx, into, n, runs, jobs);
	order = calloc(n > 0 ? n : 1, sizeof(*order));
	slot = calloc(n > 0 ? n : 1, sizeof(*slot));
	seed = calloc(n > 0 ? n : 1, sizeof(*seed));
	nrun = calloc(n > 0 ? n : 1, sizeof(*nrun));
	if (order == NULL || slot == NULL || seed == NULL || nrun == NULL) {
		free(order);
		free(slot);
		free(seed);
		free(nrun);
		failed(r, idx[0], "out of memory");
		return -1;
	}
	nround = rounds(r, runs, &per);
	for (int j = 0; j < nround && rc == 0; j++, r->round++) {
		for (size_t k = 0; k < n; k++) {
			size_t at = r->round % 2 == 0 ? k : n - 1 - k;

			order[k] = idx[at];
			slot[k] = into != NULL ? into[at] : &r->doc[idx[at]];
			seed[k] = r->seed + runner_doc_runs(*slot[k]);
		}
		for (size_t k = 0; k < n; k++)
			nrun[k] = runs < 1 ? runs : per + (j < runs % nround);
		rc = boot_once(r, order, slot, n, nrun, sd ? seed : NULL, jobs);
	}
	free(order);
	free(slot);
	free(seed);
	free(nrun);
	return rc;
}

int
runner_cells(struct runner *r, const size_t *idx, size_t n, int runs, int jobs)
{
	return runner_cells_into(r, idx, NULL, n, runs, jobs);
}
