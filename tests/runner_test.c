/*
 * runner_test.c - runner/ (the matrix runner of `ubcreplay vm`) driven by a
 * fake cell runner: a cell "boots" at once (or after a few polls) and hands
 * back a result made from fixtures/runner_test/result.json, each run's
 * write sizes scaled by its cell's factor and a small deterministic noise.
 * No guest boots; the whole program runs in milliseconds. What is checked:
 * the looks stop at the first decided one and go on to MAX while
 * undecided, a bisection names the first bad cell and stops at a step it
 * cannot decide, a merge refuses a directory that misses a cell and judges
 * a whole one, and the cells are scheduled -j at a time, on a seeded
 * machine a boot a run on the seeds after each cell's last.
 */
#include <sys/stat.h>

#include <atf-c.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../runner/runner.h"
#include "testlib.h"

#define MAX_CELLS 16

/* The fake: each cell's factor, and what it saw. */
struct fake {
	json_t *tmpl;             /* a result of one run */
	double factor[MAX_CELLS]; /* the cell's write sizes against 1 */
	int seeded;
	int polls;             /* polls before a cell ends */
	int later_sooner;      /* a cell's later boots end sooner */
	int fail_cell;         /* a cell whose start fails, -1 none */
	int starts[MAX_CELLS]; /* boots of each cell */
	int runs[MAX_CELLS];   /* the runs asked of its last boot */
	long long seed[MAX_CELLS][64];
	int boot_runs[MAX_CELLS][64]; /* the runs asked of each boot */
	int live, most_live;          /* handles under way, and the most */
	int most_parallel;            /* the most a poll was told */
	int failed_events, done_events;
	int nlook, look_runs[RUNNER_MAX_LOOKS];
	enum runner_verdict look_v[RUNNER_MAX_LOOKS];
	int nstep;
	struct runner_step step[32];
	/* Every start in order: its cell and runs; a drift of the host. */
	int nstart, start_cell[256], start_runs[256];
	double drift; /* each later boot's sizes this much smaller */
};

struct handle {
	size_t cell;
	int runs, left, seq, at;
};

/* A noise of -1% to +1% for run k of cell i: deterministic. */
static double
noise(size_t i, int k)
{
	return 1 + 0.01 * (double)((k * 7919 + (int)i * 104729) % 11 - 5) / 5;
}

/* Run k's write bytes scaled by f; mean_bytes follows, as a result's. */
static void
scale(json_t *run, double f)
{
	json_t *ph, *dev;
	size_t i, j;

	json_array_foreach (json_object_get(run, "phases"), i, ph)
		json_array_foreach (json_object_get(ph, "devices"), j, dev) {
			json_t *w = json_object_get(dev, "write");
			json_int_t ops =
			    json_integer_value(json_object_get(w, "ops"));
			json_int_t b =
			    (json_int_t)((double)json_integer_value(
			                     json_object_get(w, "bytes")) *
			        f);

			json_object_set_new(w, "bytes", json_integer(b));
			json_object_set_new(w, "mean_bytes",
			    json_integer(ops > 0 ? b / ops : 0));
		}
}

/*
 * A result of runs runs of cell i, the first numbered from first, its
 * sizes scaled by drift (the host's at its boot).
 */
static json_t *
result_at(struct fake *f, size_t i, int first, int runs, double drift)
{
	json_t *doc = json_deep_copy(f->tmpl), *run0, *a = json_array();
	char label[32];

	run0 = json_array_get(json_object_get(f->tmpl, "runs"), 0);
	for (int k = 0; k < runs; k++) {
		json_t *r = json_deep_copy(run0);

		json_object_set_new(r, "run", json_integer(first + k + 1));
		scale(r, f->factor[i] * noise(i, first + k) * drift);
		json_array_append_new(a, r);
	}
	json_object_set_new(doc, "runs", a);
	snprintf(label, sizeof(label), "cell %zu", i);
	json_object_set_new(doc, "label", json_string(label));
	json_object_set_new(doc, "vm", json_pack("{s:s}", "accel", "kvm"));
	return doc;
}

static json_t *
result(struct fake *f, size_t i, int first, int runs)
{
	return result_at(f, i, first, runs, 1);
}

static int
f_seeded(void *ctx, size_t i)
{
	(void)i;
	return ((struct fake *)ctx)->seeded;
}

static void *
f_start(void *ctx, size_t i, int runs, long long seed, char *err, size_t len)
{
	struct fake *f = ctx;
	struct handle *h;

	ATF_REQUIRE(i < MAX_CELLS);
	if ((int)i == f->fail_cell) {
		snprintf(err, len, "cell %zu: mkfs failed", i);
		return NULL;
	}
	if (f->starts[i] < 64) {
		f->seed[i][f->starts[i]] = seed;
		f->boot_runs[i][f->starts[i]] = runs;
	}
	f->runs[i] = runs;
	h = calloc(1, sizeof(*h));
	ATF_REQUIRE(h != NULL);
	h->cell = i;
	h->runs = runs > 0 ? runs : 1;
	h->seq = f->starts[i]++;
	h->left = f->polls + (f->later_sooner ? 16 - h->seq : 0);
	h->at = f->nstart;
	if (f->nstart < 256) {
		f->start_cell[f->nstart] = (int)i;
		f->start_runs[f->nstart] = runs;
	}
	f->nstart++;
	if (++f->live > f->most_live)
		f->most_live = f->live;
	return h;
}

static int
f_poll(void *ctx, void *hp, int parallel, json_t **doc, char *err, size_t len)
{
	struct fake *f = ctx;
	struct handle *h = hp;

	(void)err;
	(void)len;
	if (parallel > f->most_parallel)
		f->most_parallel = parallel;
	if (h->left-- > 0)
		return 1;
	/* Each boot's runs numbered apart, so that their noise differs. */
	*doc =
	    result_at(f, h->cell, h->seq * 1000, h->runs, 1 - f->drift * h->at);
	return 0;
}

static void
f_stop(void *ctx, void *hp)
{
	((struct fake *)ctx)->live--;
	free(hp);
}

static const struct runner_cell_ops fake_cells = {
    f_seeded, f_start, f_poll, f_stop, NULL};

static void
r_cell(void *ctx, const struct runner_event *e)
{
	struct fake *f = ctx;

	if (e->kind == RUNNER_CELL_FAILED) {
		f->failed_events++;
		ATF_CHECK(e->why != NULL && strstr(e->why, "mkfs failed"));
	} else if (e->kind == RUNNER_CELL_DONE)
		f->done_events++;
}

static void
r_look(void *ctx, int j, int nlook, int runs, enum runner_verdict v,
    const char *why)
{
	struct fake *f = ctx;

	(void)nlook;
	(void)why;
	ATF_REQUIRE(j == f->nlook && j < RUNNER_MAX_LOOKS);
	f->look_runs[j] = runs;
	f->look_v[f->nlook++] = v;
}

static void
r_step(void *ctx, const struct runner_step *s)
{
	struct fake *f = ctx;

	ATF_REQUIRE(f->nstep < 32);
	f->step[f->nstep++] = *s;
}

static const struct runner_report report = {r_cell, r_look, r_step};

static const char *const names[MAX_CELLS] = {"k0", "k1", "k2", "k3", "k4", "k5",
    "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13", "k14", "k15"};

static struct cmp_gate gate;
static int look[RUNNER_MAX_LOOKS];

/* A runner of n cells over f, gated on write.mean_bytes by spec. */
static void
setup(const atf_tc_t *tc, struct runner *r, struct fake *f, size_t n,
    const char *spec)
{
	char err[256], *text = tl_read(tc, "fixtures/runner_test/result.json");
	json_error_t je;

	memset(f, 0, sizeof(*f));
	f->fail_cell = -1;
	ATF_REQUIRE((f->tmpl = json_loads(text, 0, &je)) != NULL);
	free(text);
	for (size_t i = 0; i < MAX_CELLS; i++)
		f->factor[i] = 1;
	ATF_REQUIRE_EQ_MSG(
	    cmp_gate_parse(spec, &gate, err, sizeof(err)), 0, "%s", err);
	memset(r, 0, sizeof(*r));
	r->ncell = n;
	r->name = names;
	r->cells = &fake_cells;
	r->cells_ctx = f;
	r->report = &report;
	r->report_ctx = f;
	r->jobs = 1;
	r->runs = 5;
	r->seed = 1;
	r->judge = (struct runner_judge){&gate, 1, GATE_RULE_INTERVAL, 0.95};
	ATF_REQUIRE(runner_open(r) == 0);
}

/* -n MIN..MAX's looks. */
static void
with_looks(struct runner *r, int min, int max)
{
	r->judge.level = runner_looks(min, max, look, &r->nlook);
	r->look = look;
}

static void
teardown(struct runner *r, struct fake *f)
{
	runner_close(r);
	json_decref(f->tmpl);
	ATF_CHECK_EQ(f->live, 0);
}

ATF_TC_WITHOUT_HEAD(looks);
ATF_TC_BODY(looks, tc)
{
	int l[RUNNER_MAX_LOOKS], n;
	const int want[] = {5, 8, 12, 18, 20};
	double level;

	(void)tc;
	level = runner_looks(5, 20, l, &n);
	ATF_REQUIRE_EQ(n, 5);
	for (int j = 0; j < n; j++)
		ATF_CHECK_EQ_MSG(l[j], want[j], "look %d: %d runs", j, l[j]);
	ATF_CHECK(level > 0.98999 && level < 0.99001);
	/* MIN and MAX one apart: two looks, MAX the last. */
	runner_looks(5, 6, l, &n);
	ATF_CHECK(n == 2 && l[0] == 5 && l[1] == 6);
	/* Never more than RUNNER_MAX_LOOKS, and the last is MAX. */
	runner_looks(5, 1000000, l, &n);
	ATF_CHECK(n <= RUNNER_MAX_LOOKS && l[n - 1] == 1000000);
}

/*
 * A against B, B's write sizes scaled by b, looked at 5..20 runs until
 * the gate is decided: the last look's verdict.
 */
static enum runner_verdict
decide(const atf_tc_t *tc, struct runner *r, struct fake *f, double b)
{
	const size_t idx[] = {0, 1};
	enum runner_verdict v;

	setup(tc, r, f, 2, "write.mean_bytes:-10%");
	with_looks(r, 5, 20);
	f->factor[1] = b;
	ATF_REQUIRE(runner_until_decided(r, idx, 2, &v) == 0);
	return v;
}

/*
 * The looks stop at the first that decides, and go on to MAX runs while
 * none does.
 */
ATF_TC_WITHOUT_HEAD(until_decided);
ATF_TC_BODY(until_decided, tc)
{
	struct runner r;
	struct fake f;

	/* B sends pieces 40% smaller: FAIL at the first look. */
	ATF_CHECK_EQ(decide(tc, &r, &f, 0.6), RUNNER_FAIL);
	ATF_CHECK_EQ_MSG(f.nlook, 1, "%d looks for a decided gate", f.nlook);
	ATF_CHECK_EQ(f.look_v[0], RUNNER_FAIL);
	ATF_CHECK(f.starts[0] == 1 && f.starts[1] == 1);
	ATF_CHECK(runner_runs(&r, 0) == 5 && runner_runs(&r, 1) == 5);
	teardown(&r, &f);
	/* B the same as A: PASS at the first look. */
	ATF_CHECK_EQ(decide(tc, &r, &f, 1), RUNNER_PASS);
	ATF_CHECK_EQ(f.nlook, 1);
	teardown(&r, &f);
	/* B's change sits on the gate's limit: no look can decide it. */
	ATF_CHECK_EQ(decide(tc, &r, &f, 0.9), RUNNER_UNDECIDED);
	ATF_CHECK_EQ_MSG(f.nlook, 5, "%d looks, not 5", f.nlook);
	for (int j = 0; j < f.nlook; j++) {
		ATF_CHECK_EQ(f.look_runs[j], look[j]);
		ATF_CHECK_EQ(f.look_v[j], RUNNER_UNDECIDED);
	}
	/* Each look boots every cell again for the runs it lacks. */
	ATF_CHECK(f.starts[0] == 5 && f.starts[1] == 5);
	ATF_CHECK(runner_runs(&r, 0) == 20 && runner_runs(&r, 1) == 20);
	ATF_CHECK_EQ(f.runs[1], 20 - 18);
	teardown(&r, &f);
}

/* 8 kernels, good up to first_bad - 1 and bad from it. */
static enum runner_bisection
bisect(const atf_tc_t *tc, struct runner *r, struct fake *f,
    struct runner_bisect_end *e, size_t first_bad, double bad)
{
	setup(tc, r, f, 8, "write.mean_bytes:-10%");
	for (size_t i = first_bad; i < 8; i++)
		f->factor[i] = bad;
	return runner_bisect(r, e);
}

ATF_TC_WITHOUT_HEAD(bisect_names_first_bad);
ATF_TC_BODY(bisect_names_first_bad, tc)
{
	struct runner_bisect_end e;
	struct runner r;
	struct fake f;

	for (size_t first_bad = 1; first_bad < 8; first_bad++) {
		ATF_REQUIRE_EQ(bisect(tc, &r, &f, &e, first_bad, 0.6),
		    RUNNER_BISECT_FOUND);
		ATF_CHECK_EQ_MSG(e.bad, first_bad, "first bad %zu, not %zu",
		    e.bad, first_bad);
		ATF_CHECK_EQ(e.good, first_bad - 1);
		/* The ends, the last judged, then halving: log2(7) steps. */
		ATF_CHECK(f.nstep >= 2 && f.step[0].kind == RUNNER_STEP_ENDS);
		ATF_CHECK(f.step[1].kind == RUNNER_STEP_LAST &&
		    f.step[1].cell == 7 && f.step[1].v == RUNNER_FAIL);
		ATF_CHECK(f.nstep - 2 <= 3);
		/*
		 * No kernel booted twice but the first, which boots again
		 * beside each kernel between the ends, right before or after
		 * it, the order reversed each round.
		 */
		ATF_CHECK_EQ(f.starts[0], 1 + f.nstep - 2);
		for (size_t i = 1; i < 8; i++)
			ATF_CHECK(f.starts[i] <= 1);
		for (int k = 2; k + 1 < f.nstart; k += 2)
			ATF_CHECK_MSG((f.start_cell[k] == 0) !=
			        (f.start_cell[k + 1] == 0),
			    "boots %d and %d: cells %d and %d", k, k + 1,
			    f.start_cell[k], f.start_cell[k + 1]);
		teardown(&r, &f);
	}
}

ATF_TC_WITHOUT_HEAD(bisect_nothing_and_undecided);
ATF_TC_BODY(bisect_nothing_and_undecided, tc)
{
	struct runner_bisect_end e;
	struct runner r;
	struct fake f;

	/* Every kernel passes: nothing to bisect, after the ends alone. */
	ATF_CHECK_EQ(bisect(tc, &r, &f, &e, 8, 1), RUNNER_BISECT_NOTHING);
	ATF_CHECK_EQ(f.nstep, 2);
	teardown(&r, &f);
	/* The last kernel sits on the limit: the bisection stops there. */
	ATF_CHECK_EQ(bisect(tc, &r, &f, &e, 4, 0.9), RUNNER_BISECT_UNDECIDED);
	ATF_CHECK_EQ(e.at, 7);
	ATF_CHECK(e.gv.gate == &gate);
	teardown(&r, &f);
	/*
	 * A job of its own (the fake's: one run when none is asked) against
	 * -n 5: the ends boot once for the job's runs, then again for the
	 * runs they lack before they are judged.
	 */
	setup(tc, &r, &f, 2, "write.mean_bytes:-10%");
	r.own = 1;
	f.factor[1] = 0.6;
	ATF_CHECK_EQ(runner_bisect(&r, &e), RUNNER_BISECT_FOUND);
	ATF_CHECK(f.starts[0] == 2 && f.starts[1] == 2 && f.runs[1] == 4);
	ATF_CHECK(runner_runs(&r, 0) == 5 && runner_runs(&r, 1) == 5);
	teardown(&r, &f);
	/* A kernel that cannot boot ends it, reported. */
	setup(tc, &r, &f, 8, "write.mean_bytes:-10%");
	f.fail_cell = 7;
	ATF_CHECK_EQ(runner_bisect(&r, &e), RUNNER_BISECT_ERROR);
	ATF_CHECK_EQ(f.failed_events, 1);
	teardown(&r, &f);
}

ATF_TC_WITHOUT_HEAD(cells_scheduled);
ATF_TC_BODY(cells_scheduled, tc)
{
	const size_t idx[] = {0, 1, 2, 3, 4};
	struct runner r;
	struct fake f;

	/* -j 2: never more than two under way, each told so. */
	setup(tc, &r, &f, 5, "write.mean_bytes:-10%");
	f.polls = 3;
	ATF_REQUIRE(runner_cells(&r, idx, 5, 4, 2) == 0);
	ATF_CHECK_EQ(f.most_live, 2);
	ATF_CHECK_EQ(f.most_parallel, 2);
	ATF_CHECK_EQ(f.done_events, 0); /* the fake reports none itself */
	for (size_t i = 0; i < 5; i++)
		ATF_CHECK_EQ(runner_runs(&r, i), 4);
	teardown(&r, &f);

	/* A cell that cannot start: said, the others run, -1. */
	setup(tc, &r, &f, 5, "write.mean_bytes:-10%");
	f.fail_cell = 2;
	ATF_CHECK_EQ(runner_cells(&r, idx, 5, 4, 2), -1);
	ATF_CHECK_EQ(f.failed_events, 1);
	ATF_CHECK(r.doc[2] == NULL && r.doc[4] != NULL);
	teardown(&r, &f);

	/* Seeded: 3 runs are 3 boots of one, on seeds 7, 8, 9 each. */
	setup(tc, &r, &f, 2, "write.mean_bytes:-10%");
	f.seeded = 1;
	r.seed = 7;
	ATF_REQUIRE(runner_cells(&r, idx, 2, 3, 1) == 0);
	for (size_t i = 0; i < 2; i++) {
		ATF_CHECK_EQ(f.starts[i], 3);
		ATF_CHECK_EQ(f.runs[i], 1);
		for (int b = 0; b < 3; b++)
			ATF_CHECK_EQ(f.seed[i][b], 7 + b);
		ATF_CHECK_EQ(runner_runs(&r, i), 3);
		ATF_CHECK_EQ(
		    json_array_size(json_object_get(r.doc[i], "boots")), 2);
	}
	teardown(&r, &f);

	/*
	 * Seeded, -j 3: one cell's seeds boot side by side, and its results
	 * are kept in the order of their seeds, whatever order they end in
	 * (here the later the sooner); a second call goes on from seed 5.
	 */
	setup(tc, &r, &f, 1, "write.mean_bytes:-10%");
	f.seeded = 1;
	f.later_sooner = 1;
	r.seed = 1;
	ATF_REQUIRE(runner_cells(&r, idx, 1, 4, 3) == 0);
	ATF_CHECK_EQ(f.most_live, 3);
	ATF_REQUIRE(runner_cells(&r, idx, 1, 2, 3) == 0);
	ATF_CHECK_EQ(f.starts[0], 6);
	for (int b = 0; b < 6; b++) {
		json_t *boots = json_object_get(r.doc[0], "boots");
		json_t *doc = b == 0 ? r.doc[0] : json_array_get(boots, b - 1);
		json_t *run = json_array_get(json_object_get(doc, "runs"), 0);

		ATF_CHECK_EQ(f.seed[0][b], 1 + b);
		ATF_CHECK_EQ_MSG(
		    json_integer_value(json_object_get(run, "run")),
		    b * 1000 + 1, "boot %d kept out of its seed's order", b);
	}
	teardown(&r, &f);

	/*
	 * Seeded, at most 3 runs a boot: 8 runs are boots of 3, 3 and 2 on
	 * seeds 1, 4 and 7, the seed of each boot's first run, the same for
	 * both cells; a second call of 4 goes on from seed 9, in boots of 2.
	 */
	setup(tc, &r, &f, 2, "write.mean_bytes:-10%");
	f.seeded = 1;
	r.seed = 1;
	r.seeded_runs = 3;
	ATF_REQUIRE(runner_cells(&r, idx, 2, 8, 2) == 0);
	ATF_REQUIRE(runner_cells(&r, idx, 2, 4, 2) == 0);
	for (size_t i = 0; i < 2; i++) {
		const int seed[] = {1, 4, 7, 9, 11}, runs[] = {3, 3, 2, 2, 2};

		ATF_CHECK_EQ(f.starts[i], 5);
		for (int b = 0; b < 5; b++) {
			ATF_CHECK_EQ(f.seed[i][b], seed[b]);
			ATF_CHECK_EQ(f.boot_runs[i][b], runs[b]);
		}
		ATF_CHECK_EQ(runner_runs(&r, i), 12);
	}
	teardown(&r, &f);
}

/*
 * Rounds: -n 5 by at most 3 runs a boot is two rounds (3, 2), each
 * booting both cells, A B, then B A, rounds coming in pairs so that a
 * steady drift cancels; a later call (a look) of 3 runs fits one round,
 * the alternation going on (A B).
 */
ATF_TC_WITHOUT_HEAD(rounds_interleave);
ATF_TC_BODY(rounds_interleave, tc)
{
	const size_t idx[] = {0, 1};
	const int cell[] = {0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
	const int runs[] = {3, 3, 2, 2, 3, 3, 2, 2, 1, 1};
	const int call[] = {5, 3, 3}, boots[] = {4, 6, 10};
	struct runner r;
	struct fake f;

	setup(tc, &r, &f, 2, "write.mean_bytes:-10%");
	r.round_runs = 3;
	for (int c = 0; c < 2; c++) {
		ATF_REQUIRE(runner_cells(&r, idx, 2, call[c], 1) == 0);
		ATF_REQUIRE_EQ(f.nstart, boots[c]);
	}
	/* Rounds of at most 2: 3 runs are two rounds (2, 1), B A, A B. */
	r.round_runs = 2;
	ATF_REQUIRE(runner_cells(&r, idx, 2, call[2], 1) == 0);
	ATF_REQUIRE_EQ(f.nstart, boots[2]);
	for (int k = 0; k < 10; k++) {
		ATF_CHECK_EQ_MSG(f.start_cell[k], cell[k], "boot %d: cell %d",
		    k, f.start_cell[k]);
		ATF_CHECK_EQ_MSG(f.start_runs[k], runs[k], "boot %d: %d runs",
		    k, f.start_runs[k]);
	}
	for (size_t i = 0; i < 2; i++) {
		json_t *d = runner_design_json(&r, i);

		ATF_CHECK_EQ(runner_runs(&r, i), 11);
		ATF_CHECK_EQ(
		    json_array_size(json_object_get(r.doc[i], "boots")), 4);
		ATF_CHECK_EQ(
		    json_integer_value(json_object_get(d, "rounds")), 5);
		ATF_CHECK_EQ(
		    json_integer_value(json_object_get(d, "runs_per_round")),
		    3);
		ATF_CHECK_STREQ(json_string_value(json_object_get(d, "order")),
		    "alternating");
		ATF_CHECK_EQ(
		    json_integer_value(json_object_get(d, "cells")), 2);
		json_decref(d);
	}
	teardown(&r, &f);
	/* A job of its own boots once, whatever round_runs says. */
	setup(tc, &r, &f, 2, "write.mean_bytes:-10%");
	r.round_runs = 2;
	ATF_REQUIRE(runner_cells(&r, idx, 2, 0, 1) == 0);
	ATF_CHECK(f.nstart == 2 && f.start_runs[0] == 0);
	teardown(&r, &f);
}

/*
 * A/A while the host drifts (each later boot 4% smaller): A's runs all
 * before B's (one boot each) show B 4% smaller; in rounds, A B then B A,
 * the drift falls on both alike and the change is about nothing.
 */
static double
drifted(const atf_tc_t *tc, int round_runs)
{
	const size_t idx[] = {0, 1};
	struct gate_verdict gv;
	struct runner_series s;
	struct runner r;
	struct fake f;
	char err[2048];

	setup(tc, &r, &f, 2, "write.mean_bytes:-10%");
	f.drift = 0.04;
	r.round_runs = round_runs;
	ATF_REQUIRE(runner_cells(&r, idx, 2, 6, 1) == 0);
	ATF_REQUIRE_MSG(runner_series(r.doc, r.name, 2, &r.judge, &s, err,
	                    sizeof(err)) != RUNNER_ERROR,
	    "%s", err);
	runner_series_change(&s, &gv);
	runner_series_free(&s);
	teardown(&r, &f);
	return gv.ch.est;
}

ATF_TC_WITHOUT_HEAD(rounds_against_drift);
ATF_TC_BODY(rounds_against_drift, tc)
{
	double once = drifted(tc, 0), rounds = drifted(tc, 3);

	ATF_CHECK_MSG(once < 0.975, "A then B: B %+.1f%%", (once - 1) * 100);
	ATF_CHECK_MSG(rounds > 0.985 && rounds < 1.015,
	    "in rounds: B %+.1f%%, not about 0", (rounds - 1) * 100);
}

/*
 * The results of n cells of one plan (made from fake kernels), written to
 * dir as dir/cellI.json, cell 1's write sizes scaled by b.
 */
/* n cells of one plan, p, on fake kernels 6.I.0, ext4, in conf. */
static void
fake_plan(size_t n, struct vm_cell_conf *conf, struct vm_plan *p)
{
	static struct vm_kernel k[MAX_CELLS];
	static char *job[] = {"dd", "-o", VM_GUEST_RESULT};
	struct vm_plan_inputs in = {"/bin/ubcreplay", "ab", NULL, NULL};
	char err[256];

	memset(conf, 0, n * sizeof(*conf));
	for (size_t i = 0; i < n; i++) {
		memset(&k[i], 0, sizeof(k[i]));
		snprintf(k[i].path, sizeof(k[i].path), "/k/vmlinuz-%zu", i);
		snprintf(k[i].release, sizeof(k[i].release), "6.%zu.0", i);
		snprintf(k[i].sha256, sizeof(k[i].sha256), "%064zu", i);
		conf[i] = (struct vm_cell_conf){.kernel = &k[i],
		    .fstype = "ext4",
		    .mkfs_opts = "",
		    .mount_opts = "",
		    .size_bytes = 1 << 30,
		    .accel = "auto",
		    .cpus = 1,
		    .mem_mib = 512,
		    .queues = 1,
		    .icount_shift = -1,
		    .njob = 3,
		    .job = job,
		    .qemu_version = "7.2",
		    .seed = -1};
	}
	ATF_REQUIRE_EQ_MSG(
	    vm_plan_make(p, conf, n, &in, err, sizeof(err)), 0, "%s", err);
}

/*
 * The results of n cells of one plan (made from fake kernels), written to
 * dir as dir/cellI.json, cell 1's write sizes scaled by b.
 */
static void
plan_results(const atf_tc_t *tc, const char *dir, size_t n, double b)
{
	struct vm_cell_conf conf[MAX_CELLS];
	struct vm_plan p;
	struct runner r;
	struct fake f;
	char path[64];

	fake_plan(n, conf, &p);
	setup(tc, &r, &f, n, "write.mean_bytes:-10%");
	f.factor[1] = b;
	ATF_REQUIRE(mkdir(dir, 0755) == 0);
	for (size_t i = 0; i < n; i++) {
		json_t *doc = result(&f, i, 0, 5);

		json_object_set_new(doc, "vm",
		    json_pack("{s:s, s:o}", "accel", "kvm", "plan",
		        vm_plan_stamp(&p, i)));
		snprintf(path, sizeof(path), "%s/cell%zu.json", dir, i);
		ATF_REQUIRE(json_dump_file(doc, path, 0) == 0);
		json_decref(doc);
	}
	vm_plan_free(&p);
	teardown(&r, &f);
}

/*
 * The results written: named after kernel and filesystem, stamped with
 * the plan, the design of their runs and how they were judged; with no
 * result, nothing and no directory.
 */
ATF_TC_WITHOUT_HEAD(write_stamped);
ATF_TC_BODY(write_stamped, tc)
{
	const size_t idx[] = {0, 1};
	const struct cmp_machine m = {.uml = 0,
	    .cpus = 1,
	    .mem_mib = 512,
	    .queues = 1,
	    .icount_shift = -1};
	char path[2][PATH_MAX], err[1024];
	struct vm_cell_conf conf[2];
	struct runner_output o;
	struct vm_plan p;
	struct runner r;
	struct fake f;
	json_error_t je;
	json_t *doc, *vm;

	fake_plan(2, conf, &p);
	setup(tc, &r, &f, 2, "write.mean_bytes:-10%");
	o = (struct runner_output){"none", conf, &m, 1, 0, &p, 1, "", 0, path};
	ATF_CHECK_EQ(
	    runner_write(&r, &o, err, sizeof(err)), RUNNER_WROTE_NOTHING);
	ATF_CHECK(access("none", F_OK) == -1);
	r.round_runs = 3;
	ATF_REQUIRE(runner_cells(&r, idx, 2, 5, 1) == 0);
	o.outdir = "out";
	ATF_REQUIRE_EQ_MSG(
	    runner_write(&r, &o, err, sizeof(err)), RUNNER_WROTE, "%s", err);
	ATF_CHECK(!o.fresh);
	ATF_CHECK_STREQ(path[0], "out/6.0.0-ext4.json");
	ATF_CHECK_STREQ(path[1], "out/6.1.0-ext4.json");
	ATF_REQUIRE((doc = json_load_file(path[1], 0, &je)) != NULL);
	vm = json_object_get(doc, "vm");
	ATF_CHECK(json_object_get(vm, "plan") != NULL);
	ATF_CHECK(json_object_get(vm, "judged") != NULL);
	ATF_CHECK_EQ(json_integer_value(json_object_get(
	                 json_object_get(vm, "design"), "rounds")),
	    2);
	json_decref(doc);
	/* A directory that cannot be made: said, nothing written. */
	o.outdir = "out/6.0.0-ext4.json/x";
	ATF_CHECK_EQ(
	    runner_write(&r, &o, err, sizeof(err)), RUNNER_WRITE_FAILED);
	ATF_CHECK_MSG(strstr(err, "cannot make") != NULL, "%s", err);
	vm_plan_free(&p);
	teardown(&r, &f);
}

/* The checks before any boot say which failed, and why, and print nothing. */
ATF_TC_WITHOUT_HEAD(prepare_refuses);
ATF_TC_BODY(prepare_refuses, tc)
{
	const char *kernel[] = {"no-such-kernel"}, *fs[] = {"ext4"};
	struct runner_inputs in = {
	    kernel, 1, NULL, fs, 1, "no-such.tar.gz", NULL, 1 << 30, 0};
	struct vm_kernel k[1];
	struct vm_modset mods[1];
	struct runner_prepared p = {.k = k, .mods = mods};
	char err[2048];

	(void)tc;
	memset(k, 0, sizeof(k));
	memset(mods, 0, sizeof(mods));
	/* No QEMU to ask for its version: the checks fail before they need it.
	 */
	ATF_REQUIRE(setenv("PATH", "/nonexistent", 1) == 0);
	ATF_CHECK_EQ(
	    runner_prepare(&in, &p, err, sizeof(err)), RUNNER_CHECK_ARCHIVE);
	ATF_CHECK_MSG(
	    strstr(err, "cannot read archive 'no-such.tar.gz'"), "%s", err);
	ATF_CHECK(p.exe[0] == '/' && strlen(p.exe_sha256) == 64);
	in.archive = NULL;
	ATF_CHECK_EQ(
	    runner_prepare(&in, &p, err, sizeof(err)), RUNNER_CHECK_KERNEL);
	ATF_CHECK_MSG(strstr(err, "no-such-kernel") != NULL, "%s", err);
}

ATF_TC_WITHOUT_HEAD(merge_whole_or_refused);
ATF_TC_BODY(merge_whole_or_refused, tc)
{
	struct runner_judge j = {&gate, 1, GATE_RULE_INTERVAL, 0.95};
	struct runner_merged m;
	char err[4096];

	ATF_REQUIRE(cmp_gate_parse(
	                "write.mean_bytes:-10%", &gate, err, sizeof(err)) == 0);
	/* A whole plan: judged as a local run, B 40% smaller fails. */
	plan_results(tc, "whole", 3, 0.6);
	ATF_CHECK_EQ_MSG(runner_merge("whole", NULL, &j, &m, err, sizeof(err)),
	    RUNNER_FAIL, "%s", err);
	ATF_CHECK(m.n == 3 && m.s.c != NULL && m.s.nv == 2);
	runner_merged_free(&m);
	/* One cell missing: refused, naming it. */
	plan_results(tc, "half", 3, 1);
	ATF_REQUIRE(unlink("half/cell2.json") == 0);
	ATF_CHECK_EQ(
	    runner_merge("half", NULL, &j, &m, err, sizeof(err)), RUNNER_ERROR);
	ATF_CHECK_MSG(
	    strstr(err, "misses 1 of the 3 cells") != NULL, "%s", err);
	ATF_CHECK(m.docs == NULL && m.n == 0);
	runner_merged_free(&m);
	/* A whole plan whose cells all pass. */
	plan_results(tc, "same", 2, 1);
	ATF_CHECK_EQ_MSG(runner_merge("same", NULL, &j, &m, err, sizeof(err)),
	    RUNNER_PASS, "%s", err);
	runner_merged_free(&m);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, looks);
	ATF_TP_ADD_TC(tp, until_decided);
	ATF_TP_ADD_TC(tp, bisect_names_first_bad);
	ATF_TP_ADD_TC(tp, bisect_nothing_and_undecided);
	ATF_TP_ADD_TC(tp, cells_scheduled);
	ATF_TP_ADD_TC(tp, rounds_interleave);
	ATF_TP_ADD_TC(tp, rounds_against_drift);
	ATF_TP_ADD_TC(tp, merge_whole_or_refused);
	ATF_TP_ADD_TC(tp, write_stamped);
	ATF_TP_ADD_TC(tp, prepare_refuses);
	return atf_no_error();
}
