/*
 * gate_judge.c - bench/gate.py's judge: the gate of `ubcreplay compare`
 * (cmp_result_from_json, cmp_new, gate_judge: the same functions, linked
 * from build/libubc.a) on results assembled from pooled runs, without a
 * process, a file or a report per look.
 *
 *	gate_judge SPEC TEMPLATE POOL...
 *
 * TEMPLATE is a result whose runs are replaced; each POOL a JSON file
 * {"runs": [...]}. Each line on stdin is one look:
 *
 *	LEVEL a P:R P:R ... b P:R P:R ...
 *
 * (run R of pool P, both from 0), and its answer on stdout is
 *
 *	OUTCOME ESTIMATE LO HI
 *
 * the gate's outcome and the change with its interval at LEVEL, as ratios
 * (nan where unbounded).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../analysis/compare.h"
#include "../analysis/gate.h"

static json_t *
side(json_t *tmpl, json_t **pool, int npool, char **tok, const char *end)
{
	json_t *doc = json_copy(tmpl), *runs = json_array();

	for (; *tok != NULL && strcmp(*tok, end) != 0; tok++) {
		int p, r;

		if (sscanf(*tok, "%d:%d", &p, &r) != 2 || p < 0 || p >= npool ||
		    json_array_get(pool[p], (size_t)r) == NULL) {
			fprintf(stderr, "gate_judge: bad run %s\n", *tok);
			exit(2);
		}
		json_array_append(runs, json_array_get(pool[p], (size_t)r));
	}
	json_object_set_new(doc, "runs", runs);
	return doc;
}

int
main(int argc, char **argv)
{
	char line[65536], err[2048], *tok[1024];
	struct cmp_gate g;
	json_t *tmpl, **pool;
	json_error_t jerr;

	if (argc < 4 || cmp_gate_parse(argv[1], &g, err, sizeof(err)) == -1) {
		fprintf(stderr, "usage: gate_judge SPEC TEMPLATE POOL...\n");
		return 2;
	}
	if ((tmpl = json_load_file(argv[2], 0, &jerr)) == NULL) {
		fprintf(stderr, "gate_judge: %s: %s\n", argv[2], jerr.text);
		return 2;
	}
	pool = calloc((size_t)argc, sizeof(*pool));
	for (int i = 3; i < argc; i++) {
		json_t *doc = json_load_file(argv[i], 0, &jerr);

		if (doc == NULL ||
		    !json_is_array(json_object_get(doc, "runs"))) {
			fprintf(stderr, "gate_judge: %s: no runs\n", argv[i]);
			return 2;
		}
		pool[i - 3] = json_object_get(doc, "runs");
	}
	while (fgets(line, sizeof(line), stdin) != NULL) {
		struct cmp_opts opts = CMP_OPTS_DEFAULT;
		struct cmp_result *res[2];
		struct gate_verdict v;
		struct cmp *c;
		size_t n = 0;
		char **b;
		json_t *da, *db;

		for (char *t = strtok(line, " \n"); t != NULL && n < 1023;
		     t = strtok(NULL, " \n"))
			tok[n++] = t;
		tok[n] = NULL;
		if (n < 2 || strcmp(tok[1], "a") != 0) {
			fprintf(stderr, "gate_judge: bad line\n");
			return 2;
		}
		opts.level = atof(tok[0]);
		opts.alpha = 1 - opts.level;
		for (b = tok + 2; *b != NULL && strcmp(*b, "b") != 0; b++)
			;
		if (*b == NULL) {
			fprintf(stderr, "gate_judge: no b\n");
			return 2;
		}
		da = side(tmpl, pool, argc - 3, tok + 2, "b");
		db = side(tmpl, pool, argc - 3, b + 1, "");
		res[0] = cmp_result_from_json(da, "a", err, sizeof(err));
		res[1] = cmp_result_from_json(db, "b", err, sizeof(err));
		json_decref(da);
		json_decref(db);
		if (res[0] == NULL || res[1] == NULL ||
		    (c = cmp_new(res, 2, &opts, err, sizeof(err))) == NULL ||
		    gate_judge(c, &g, 1, GATE_RULE_INTERVAL, &v, 1, err,
		        sizeof(err)) != 1) {
			fprintf(stderr, "gate_judge: %s\n", err);
			return 2;
		}
		printf("%s %.6g %.6g %.6g\n", gate_outcome_name(v.outcome),
		    v.ch.est, v.ch.bounded ? v.ch.lo : 0.0 / 0.0,
		    v.ch.bounded ? v.ch.hi : 0.0 / 0.0);
		fflush(stdout);
		cmp_free(c);
	}
	return 0;
}
