/*
 * vm_judge.c - judging the cells' results of `ubcreplay vm`: the series
 * over them and the gates, as compare prints and judges them (one
 * function for a local run, a --bisect step and a --merge), on each
 * machine apart when there are more than one; the looks of -n MIN..MAX,
 * which boot the cells again until the gates are decided; and what a
 * local run prints at its end.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_run.h"

/*
 * The series over the results in docs (paths names), and the gates. 0 when
 * every gate passed, 1 when one failed, 3 when one is undecided and none
 * failed, 2 when they cannot be judged. change, when not NULL, gets the
 * first gate's verdict on the last result (zeroed without gates).
 */
int
vmrun_series(json_t **docs, char names[][PATH_MAX], size_t n,
    const struct vm_opts *o, int print, struct gate_verdict *change)
{
	struct cmp_opts copts = CMP_OPTS_DEFAULT;
	struct cmp_result **res = calloc(n, sizeof(*res));
	struct gate_verdict *v;
	char errbuf[2048];
	struct cmp *c;
	size_t k = 0;
	int nv, status;

	copts.level = o->level;
	if (res == NULL) {
		warnx("out of memory");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < n; i++) {
		if (docs[i] == NULL)
			continue;
		if ((res[k] = cmp_result_from_json(
		         docs[i], names[i], errbuf, sizeof(errbuf))) == NULL) {
			warnx("%s", errbuf);
			while (k > 0)
				cmp_result_free(res[--k]);
			free(res);
			return EXIT_USAGE;
		}
		k++;
	}
	c = cmp_new(res, k, &copts, errbuf, sizeof(errbuf));
	free(res);
	if (c == NULL) {
		warnx("%s", errbuf);
		return EXIT_USAGE;
	}
	if (print & VMRUN_REPORT)
		cmp_report_text(c, stdout, 0, cmd_page_width());
	if ((nv = cmd_judge_gates(c, o->gate, o->ngate, o->rule, &v)) == -1) {
		fflush(stdout);
		cmp_free(c);
		return EXIT_USAGE;
	}
	if (print & VMRUN_GATES) {
		cmd_print_gates(c, o->rule, v, (size_t)nv);
		fflush(stdout);
	}
	if (change != NULL) {
		memset(change, 0, sizeof(*change));
		/* The first gate's verdicts come first, result by result. */
		if (nv > 0)
			*change = v[c->nresult - 2];
	}
	status = gate_status(v, (size_t)nv);
	free(v);
	cmp_free(c);
	return status;
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
	char(*nm)[PATH_MAX] = calloc(per, sizeof(*nm));
	int rc, s;

	if (docs == NULL || nm == NULL) {
		free(docs);
		free(nm);
		warnx("out of memory");
		return EXIT_USAGE;
	}
	nogate.ngate = 0;
	rc = vmrun_series(
	    r->doc, r->names, r->ncell, &nogate, VMRUN_REPORT, NULL);
	for (size_t m = 0; m < r->o->nmachine; m++) {
		n = 0;
		for (size_t j = m; j < r->ncell; j += r->o->nmachine)
			if (r->doc[j] != NULL) {
				docs[n] = r->doc[j];
				snprintf(nm[n++], PATH_MAX, "%s", r->names[j]);
			}
		printf("On %s:\n", vmrun_tag(r, m));
		if (n < 2) {
			printf("  fewer than two results: no gates\n");
			s = EXIT_USAGE;
		} else
			s = vmrun_series(docs, nm, n, r->o, VMRUN_GATES, NULL);
		rc = gate_worse(rc, s);
	}
	free(docs);
	free(nm);
	return rc;
}

/*
 * The looks of -n MIN..MAX: MIN runs, then half as many again each time
 * (at least one more), up to MAX. Each look judges the gates at
 * 1 - alpha / nlook, so that over all of them a wrong outcome stays below
 * alpha / 2 (docs/compare.md, "Runs until decided").
 */
void
vmrun_plan_looks(struct vm_opts *o)
{
	int n = o->runs;

	o->nlook = 0;
	for (;;) {
		o->look[o->nlook++] = n;
		if (n >= o->runs_max || o->nlook == MAX_LOOKS)
			break;
		n = n + (n + 1) / 2 < o->runs_max ? n + (n + 1) / 2
		                                  : o->runs_max;
	}
	o->look[o->nlook - 1] = o->runs_max;
	o->level = 1 - 0.05 / o->nlook;
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

/*
 * -n MIN..MAX: every cell booted again for the runs of the next look, in
 * the matrix's order (A, B, A, B...: a change in the host's load falls on
 * both), until the gates are decided or MAX runs are reached.
 */
int
vmrun_until_decided(struct vmrun *r, const size_t *idx, size_t n)
{
	struct vm_opts *o = r->o;
	char(*nm)[PATH_MAX] = calloc(r->ncell, sizeof(*nm));
	int s = EXIT_UNDECIDED;

	if (nm == NULL) {
		warnx("out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->ncell; i++)
		snprintf(nm[i], PATH_MAX, "%s %s", vm_kernel_name(&r->k[i]),
		    vmrun_fsname(&r->conf[i]));
	for (int j = 0; j < o->nlook && s == EXIT_UNDECIDED; j++) {
		snprintf(o->runs_arg, 16, "%d",
		    o->look[j] - (j > 0 ? o->look[j - 1] : 0));
		if (vmrun_cells(r, idx, n, o->jobs) == -1) {
			free(nm);
			return -1;
		}
		s = vmrun_series(r->doc, nm, r->ncell, o, 0, NULL);
		fprintf(stderr,
		    "ubcreplay vm: look %d of %d, %d runs a cell: %s\n", j + 1,
		    o->nlook, o->look[j],
		    s == EXIT_SUCCESS       ? "every gate passed"
		        : s == EXIT_FAILURE ? "a gate failed"
		        : s == EXIT_UNDECIDED
		        ? (j + 1 < o->nlook ? "undecided: more runs"
		                            : "undecided at the most runs")
		        : "the gates cannot be judged");
	}
	free(nm);
	return 0;
}

/* What the results' machines say about their times. */
static void
caveats(const struct vmrun *r)
{
	int tcg = 0, parallel = 1;

	for (size_t i = 0; i < r->ncell; i++) {
		json_t *vm = json_object_get(r->doc[i], "vm");

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
vmrun_report(struct vmrun *r, int rc)
{
	const struct vm_opts *o = r->o;
	size_t nok = 0;

	for (size_t i = 0; i < r->ncell; i++)
		nok += r->doc[i] != NULL;
	caveats(r);
	if (o->runs_max > 0)
		print_looks(o);
	if (nok >= 2) {
		int s = o->nmachine > 1 && o->ngate > 0
		    ? per_machine(r)
		    : vmrun_series(r->doc, r->names, r->ncell, o,
		          VMRUN_REPORT | VMRUN_GATES, NULL);

		if (rc == EXIT_SUCCESS)
			rc = s;
	} else if (nok == 1) {
		for (size_t i = 0; i < r->ncell; i++)
			if (r->doc[i] != NULL)
				report_text(r->doc[i], stdout, 0);
		if (o->ngate > 0) {
			warnx("--fail-if needs two results or more to compare");
			rc = EXIT_USAGE;
		}
	}
	return rc;
}
