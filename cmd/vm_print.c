/*
 * vm_print.c - what `ubcreplay vm` prints of its run: the runner's news
 * (a cell again under TCG, a cell's end or failure, each look of
 * -n MIN..MAX, each step of --bisect), the series and the gates as
 * compare prints them, on each machine apart when there are more than
 * one, and what a local run prints at its end; and the exit status each
 * verdict calls for.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_run.h"

int
vmprint_status(enum runner_verdict v)
{
	switch (v) {
	case RUNNER_PASS:
		return EXIT_SUCCESS;
	case RUNNER_FAIL:
		return EXIT_FAILURE;
	case RUNNER_UNDECIDED:
		return EXIT_UNDECIDED;
	case RUNNER_ERROR:
		break;
	}
	return EXIT_USAGE;
}

/* A cell's news, on stderr as it comes. */
static void
cell(void *ctx, const struct runner_event *e)
{
	const struct vmrun *r = ctx;
	const struct vm_cell_conf *cf = &r->conf[e->cell];
	const char *tag = vmrun_tag(r, e->cell);

	switch (e->kind) {
	case RUNNER_CELL_RETRY:
		fprintf(stderr,
		    "ubcreplay vm: %s %s: KVM cannot run it; again under "
		    "TCG\n",
		    vm_kernel_name(cf->kernel), runner_fsname(cf));
		break;
	case RUNNER_CELL_DONE:
		fprintf(stderr,
		    "ubcreplay vm: %s %s%s%s: done under %s in %.1f s (%.1f s "
		    "to the job)\n",
		    vm_kernel_name(cf->kernel), runner_fsname(cf),
		    *tag ? " " : "", tag, e->accel, (double)e->guest_ns / 1e9,
		    (double)e->boot_ns / 1e9);
		break;
	case RUNNER_CELL_FAILED:
		warnx("%s", e->why);
		break;
	}
}

/* A look of -n MIN..MAX judged. */
static void
look(void *ctx, int j, int nlook, int runs, enum runner_verdict v,
    const char *why)
{
	(void)ctx;
	if (why != NULL)
		warnx("%s", why);
	fprintf(stderr, "ubcreplay vm: look %d of %d, %d runs a cell: %s\n",
	    j + 1, nlook, runs,
	    v == RUNNER_PASS       ? "every gate passed"
	        : v == RUNNER_FAIL ? "a gate failed"
	        : v == RUNNER_UNDECIDED
	        ? (j + 1 < nlook ? "undecided: more runs"
	                         : "undecided at the most runs")
	        : "the gates cannot be judged");
}

/* One bisection line: the kernel, its verdict, the change that made it. */
static void
print_step(const char *what, const struct vm_kernel *k, enum runner_verdict v,
    const struct gate_verdict *gv)
{
	char chg[96] = "";

	if (gv->gate != NULL)
		cmp_format_change(chg, sizeof(chg), &gv->ch);
	printf("  %-6s %-32s %s (%s %s)\n", what, vm_kernel_name(k),
	    v == RUNNER_PASS       ? "good"
	        : v == RUNNER_FAIL ? "bad"
	                           : "undecided",
	    gv->gate != NULL ? gv->gate->metric : "", chg);
}

/* A step of --bisect, on stdout as it comes. */
static void
step(void *ctx, const struct runner_step *s)
{
	const struct vmrun *r = ctx;
	char what[16];

	switch (s->kind) {
	case RUNNER_STEP_ENDS:
		printf("Bisection over %zu kernels (good first, bad last):\n",
		    r->ncell);
		printf("  first: %-32s good (the baseline)\n",
		    vm_kernel_name(&r->k[0]));
		break;
	case RUNNER_STEP_LAST:
		print_step("last:", &r->k[s->cell], s->v, s->gv);
		break;
	case RUNNER_STEP_MID:
		snprintf(what, sizeof(what), "step %d:", s->n);
		print_step(what, &r->k[s->cell], s->v, s->gv);
		break;
	}
}

const struct runner_report vmprint_report = {cell, look, step};

int
vmprint_judged(const struct runner_series *s, const char *why,
    const struct vm_opts *o, int print)
{
	if (s->c != NULL && (print & VMRUN_REPORT))
		cmp_report_text(s->c, stdout, 0, cmd_page_width());
	if (s->verdict == RUNNER_ERROR) {
		fflush(stdout);
		warnx("%s", why);
	} else if (print & VMRUN_GATES) {
		cmd_print_gates(s->c, o->rule, s->v, s->nv);
		fflush(stdout);
	}
	return vmprint_status(s->verdict);
}

int
vmprint_series(json_t *const *docs, const char *const *names, size_t n,
    const struct vm_opts *o, int print)
{
	struct runner_judge j = {o->gate, o->ngate, o->rule, o->level};
	struct runner_series s;
	char errbuf[2048];
	int rc;

	runner_series(docs, names, n, &j, &s, errbuf, sizeof(errbuf));
	rc = vmprint_judged(&s, errbuf, o, print);
	runner_series_free(&s);
	return rc;
}

/*
 * More than one machine: the series of every cell, then the gates judged on
 * each machine apart (its kernels and filesystems against its first), since
 * sizes are not judged across machines. The worst exit status of them.
 */
static int
per_machine(struct vmrun *r)
{
	struct vm_opts nogate = *r->o;
	size_t per = r->ncell / r->o->nmachine, n;
	json_t **docs = calloc(per, sizeof(*docs));
	const char **nm = calloc(r->ncell, sizeof(*nm));
	int rc, s;

	if (docs == NULL || nm == NULL) {
		free(docs);
		free(nm);
		warnx("out of memory");
		return EXIT_USAGE;
	}
	for (size_t j = 0; j < r->ncell; j++)
		nm[j] = r->names[j];
	nogate.ngate = 0;
	rc = vmprint_series(r->run.doc, nm, r->ncell, &nogate, VMRUN_REPORT);
	for (size_t m = 0; m < r->o->nmachine; m++) {
		n = 0;
		for (size_t j = m; j < r->ncell; j += r->o->nmachine)
			if (r->run.doc[j] != NULL) {
				docs[n] = r->run.doc[j];
				nm[n++] = r->names[j];
			}
		printf("On %s:\n", vmrun_tag(r, m));
		if (n < 2) {
			printf("  fewer than two results: no gates\n");
			s = EXIT_USAGE;
		} else
			s = vmprint_series(docs, nm, n, r->o, VMRUN_GATES);
		rc = gate_worse(rc, s);
	}
	free(docs);
	free(nm);
	return rc;
}

/* How -n MIN..MAX judged, above the gates. */
static void
print_looks(const struct vm_opts *o)
{
	printf(
	    "Runs until decided (-n %d..%d): looks at", o->runs, o->runs_max);
	for (int j = 0; j < o->nlook; j++)
		printf("%s %d", j > 0 ? "," : "", o->look[j]);
	printf(" runs a cell, each judging at %g%% (0.05 spread over the "
	       "%d),\nso that no outcome is wrong more than 2.5%% of the "
	       "time over all of them.\n\n",
	    o->level * 100, o->nlook);
}

/* What the results' machines say about their times. */
static void
caveats(const struct vmrun *r)
{
	int tcg = 0, parallel = 1;

	for (size_t i = 0; i < r->ncell; i++) {
		json_t *vm = json_object_get(r->run.doc[i], "vm");

		if (vm == NULL)
			continue;
		tcg |= strcmp(json_string_value(json_object_get(vm, "accel")),
		           "tcg") == 0;
		if (result_geti(vm, "parallel_guests") > parallel)
			parallel = (int)result_geti(vm, "parallel_guests");
	}
	if (tcg)
		warnx("under TCG the guests' elapsed times are emulated: "
		      "compare sizes, not times");
	if (parallel > 1)
		warnx("warning: %d guests ran at once: their times are not "
		      "comparable",
		    parallel);
}

int
vmprint_end(struct vmrun *r, int rc)
{
	const struct vm_opts *o = r->o;
	size_t nok = 0;

	for (size_t i = 0; i < r->ncell; i++)
		nok += r->run.doc[i] != NULL;
	caveats(r);
	if (o->runs_max > 0)
		print_looks(o);
	if (nok >= 2) {
		const char **nm = calloc(r->ncell, sizeof(*nm));
		int s;

		if (nm == NULL) {
			warnx("out of memory");
			return EXIT_USAGE;
		}
		for (size_t i = 0; i < r->ncell; i++)
			nm[i] = r->names[i];
		s = o->nmachine > 1 && o->ngate > 0
		    ? per_machine(r)
		    : vmprint_series(r->run.doc, nm, r->ncell, o,
		          VMRUN_REPORT | VMRUN_GATES);
		free(nm);
		if (rc == EXIT_SUCCESS)
			rc = s;
	} else if (nok == 1) {
		for (size_t i = 0; i < r->ncell; i++)
			if (r->run.doc[i] != NULL)
				report_text(r->run.doc[i], stdout, 0);
		if (o->ngate > 0) {
			warnx("--fail-if needs two results or more to compare");
			rc = EXIT_USAGE;
		}
	}
	return rc;
}

/* The kernels the bisection booted. */
static size_t
boots(const struct vmrun *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ncell; i++)
		n += r->run.doc[i] != NULL;
	return n;
}

int
vmprint_bisect(struct vmrun *r)
{
	struct runner_bisect_end e;
	const struct gate_verdict *gv = &e.gv;

	vmrun_name_kernels(r);
	switch (runner_bisect(&r->run, &e)) {
	case RUNNER_BISECT_FOUND:
		printf("first bad kernel: %s (%s), after %s; %zu boots for "
		       "%zu kernels\n",
		    vm_kernel_name(&r->k[e.bad]), r->k[e.bad].path,
		    vm_kernel_name(&r->k[e.good]), boots(r), r->ncell);
		return EXIT_SUCCESS;
	case RUNNER_BISECT_NOTHING:
		warnx("the last kernel, %s, passes the gate against the first: "
		      "nothing to bisect",
		    r->k[e.at].path);
		return EXIT_USAGE;
	case RUNNER_BISECT_UNDECIDED:
		/* A step that cannot tell good from bad stops the bisection. */
		warnx("%s cannot be called good or bad: the interval of %s "
		      "holds the gate's limit; run more (-n, about %zu runs) "
		      "and bisect again",
		    r->k[e.at].path,
		    gv->gate != NULL ? gv->gate->metric : "the metric",
		    gv->runs);
		return EXIT_UNDECIDED;
	case RUNNER_BISECT_ERROR:
		break;
	}
	if (r->run.err[0] != '\0') {
		fflush(stdout);
		warnx("%s", r->run.err);
	}
	return EXIT_USAGE;
}
