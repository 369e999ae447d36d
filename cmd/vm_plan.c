/*
 * vm_plan.c - the matrix of `ubcreplay vm` as data (vm/plan.c): the plan
 * of its cells, --plan's forms of it (JSON lines, a GitHub matrix, a
 * GitLab child pipeline whose merge job takes this invocation's gates and
 * their rule), --cell's choice among them, and --merge, which reads a
 * directory of one plan's results and judges them by the series and the
 * gates of a local run.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_run.h"

/* One shell word, single-quoted. */
static void
shell_word(FILE *f, const char *w)
{
	fputs(" '", f);
	for (; *w != '\0'; w++)
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	fputc('\'', f);
}

/*
 * The arguments of this invocation, a shell word each, for the jobs a CI
 * plan runs: --plan and -o left out (the jobs give their own), or only the
 * gates (and their rule) for the merge job. After --, the job's own words go as
 * they are.
 */
static void
shell_args(FILE *f, int argc, char **argv, int gates_only)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int gate = strcmp(a, "--fail-if") == 0 ||
		    strncmp(a, "--fail-if=", 10) == 0 ||
		    strcmp(a, "--gate-rule") == 0 ||
		    strncmp(a, "--gate-rule=", 12) == 0;
		int drop =
		    strncmp(a, "--plan", 6) == 0 || strncmp(a, "-o", 2) == 0;
		int takes =
		    (strcmp(a, "-o") == 0 || strcmp(a, "--fail-if") == 0 ||
		        strcmp(a, "--gate-rule") == 0) &&
		    i + 1 < argc;

		if (strcmp(a, "--") == 0) {
			for (; !gates_only && i < argc; i++)
				shell_word(f, argv[i]);
			return;
		}
		if (gates_only ? gate : !drop) {
			shell_word(f, a);
			if (takes)
				shell_word(f, argv[i + 1]);
		}
		i += takes;
	}
}

/*
 * --plan: the cells, one JSON object a line; or a GitHub Actions matrix
 * (fromJSON of an "include" list); or a GitLab child pipeline, a job per
 * cell and a merge job with the gates.
 */
void
vmrun_plan_print(const struct vmrun *r, int argc, char **argv)
{
	const char *form = r->o->plan;
	json_t *c;
	size_t i;

	if (strcmp(form, "lines") == 0) {
		json_array_foreach (r->plan.cells, i, c) {
			json_object_set_new(c, "plan", json_string(r->plan.id));
			json_dumpf(c, stdout, JSON_COMPACT);
			putchar('\n');
		}
	} else if (strcmp(form, "github") == 0) {
		json_t *inc = json_array();

		json_array_foreach (r->plan.cells, i, c)
			json_array_append_new(inc,
			    json_pack("{s:O, s:O}", "cell",
			        json_object_get(c, "id"), "label",
			        json_object_get(c, "label")));
		json_t *m = json_pack("{s:o}", "include", inc);

		json_dumpf(m, stdout, JSON_COMPACT);
		json_decref(m);
		putchar('\n');
	} else {
		printf("# The cells of plan %s, made by ubcreplay vm "
		       "--plan=gitlab:\n# a job per cell, then the series "
		       "and the gates.\n",
		    r->plan.id);
		printf("stages: [cells, merge]\ncell:\n  stage: cells\n"
		       "  parallel:\n    matrix:\n      - UBC_CELL:\n");
		json_array_foreach (r->plan.cells, i, c)
			printf("          - \"%s\"  # %s\n",
			    json_string_value(json_object_get(c, "id")),
			    json_string_value(json_object_get(c, "label")));
		printf("  script:\n    - >-\n      ubcreplay vm --cell "
		       "\"$UBC_CELL\" -o results");
		shell_args(stdout, argc, argv, 0);
		printf("\n"
		       "  artifacts:\n    paths: [results/]\n"
		       "merge:\n  stage: merge\n  script:\n    - >-\n"
		       "      ubcreplay vm --merge results");
		shell_args(stdout, argc, argv, 1);
		printf("\n");
	}
	fflush(stdout);
}

/*
 * --cell: the plan's cells named, in idx; an id that is not one of this
 * node's cells is an error naming what this node has, by digest, since a
 * kernel, archive or ubcreplay that differs from the planning node's
 * changes every id it is part of.
 */
int
vmrun_select(const struct vmrun *r, size_t *idx, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < r->o->ncell; i++) {
		long k = vm_plan_find(&r->plan, r->o->cell[i]);

		if (k >= 0) {
			idx[(*n)++] = (size_t)k;
			continue;
		}
		warnx("cell '%s' is not a cell of this plan (%s) on this "
		      "node; an id names the kernel, the archive and "
		      "ubcreplay by digest, so a copy here that differs from "
		      "the planning node's makes other ids. Here:",
		    r->o->cell[i], r->plan.id);
		fprintf(stderr, "  ubcreplay %s sha256 %s\n", r->prep.exe,
		    r->prep.exe_sha256);
		if (r->o->archive != NULL)
			fprintf(stderr, "  archive %s sha256 %s\n",
			    r->prep.archive, r->prep.archive_sha256);
		for (size_t c = 0; c < r->ncell; c++)
			fprintf(stderr, "  cell %s: %s (kernel %s sha256 %s)\n",
			    vm_plan_cell_id(&r->plan, c),
			    json_string_value(json_object_get(
			        json_array_get(r->plan.cells, c), "label")),
			    r->conf[c].kernel->path, r->conf[c].kernel->sha256);
		return -1;
	}
	return 0;
}

/*
 * --merge DIR: the series and the gates over a directory of one plan's
 * results, however its cells were run; the plan these arguments make,
 * when they name kernels, must be that plan.
 */
int
vmrun_merge(struct vmrun *r)
{
	const struct vm_opts *o = r->o;
	struct runner_judge j = {o->gate, o->ngate, o->rule, o->level};
	struct runner_merged m;
	char errbuf[4096];
	int rc;

	runner_merge(o->merge, o->nkernel > 0 ? r->plan.id : NULL, &j, &m,
	    errbuf, sizeof(errbuf));
	if (m.docs == NULL) {
		warnx("%s", errbuf);
		return EXIT_USAGE;
	}
	if (m.n >= 2)
		rc =
		    vmprint_judged(&m.s, errbuf, o, VMRUN_REPORT | VMRUN_GATES);
	else {
		report_text(m.docs[0], stdout, 0);
		rc = EXIT_SUCCESS;
		if (o->ngate > 0) {
			warnx("--fail-if needs two results or more to compare");
			rc = EXIT_USAGE;
		}
	}
	runner_merged_free(&m);
	return rc;
}
