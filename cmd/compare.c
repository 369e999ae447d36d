/*
 * compare.c - `ubcreplay compare`: reads results, says what changed
 * against the first (or --baseline) and whether it is more than noise, and
 * with --fail-if gates a CI job on it.
 *
 *	ubcreplay compare [-a] [--alpha P] [--baseline FILE]
 *	    [--fail-if METRIC:+PCT%|METRIC:-PCT%] ... [--gate-rule RULE]
 *	    [--json FILE] [--svg FILE] RESULT ...
 *
 * Exit status: 0 when every gate passed, 1 when one failed, 3 when none
 * failed but one is undecided (each is listed), 2 for a usage or input
 * error, or a gate that cannot be judged.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/compare.h"
#include "../analysis/gate.h"
#include "cmd.h"

#define MAX_GATES   32
#define MAX_RESULTS 64

static const struct option longopts[] = {
    {"all", no_argument, NULL, 'a'},
    {"alpha", required_argument, NULL, 'A'},
    {"baseline", required_argument, NULL, 'b'},
    {"fail-if", required_argument, NULL, 'f'},
    {"gate-rule", required_argument, NULL, 'g'},
    {"json", required_argument, NULL, 'j'},
    {"svg", required_argument, NULL, 's'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The synopsis's lines, and what a change is. */
static void
compare_usage(FILE *f)
{
	usage_command(f, "compare");
	fputs(
	    "       change: +pct% (fail on a rise) or -pct% (on a fall)\n", f);
}

struct compare_opts {
	int all;
	double alpha;
	int alpha_given, rule_given;
	const char *baseline;
	const char *svg;
	const char *json;
	size_t ngate;
	struct cmp_gate gate[MAX_GATES];
	int rule; /* enum gate_rule */
};

static int
parse(int argc, char **argv, struct compare_opts *o)
{
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->alpha = 0.05;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ah", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->all = 1;
			break;
		case 'A':
			errno = 0;
			o->alpha = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || errno != 0 ||
			    !(o->alpha > 0 && o->alpha < 0.5)) {
				warnx("alpha '%s' is not a level between 0 and "
				      "0.5 (e.g. 0.05)",
				    optarg);
				return -1;
			}
			o->alpha_given = 1;
			break;
		case 'b':
			o->baseline = optarg;
			break;
		case 'f':
			if (cmd_add_gate(
			        optarg, o->gate, &o->ngate, MAX_GATES) == -1)
				return -1;
			break;
		case 'g':
			if (cmd_gate_rule(optarg, &o->rule) == -1)
				return -1;
			o->rule_given = 1;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 's':
			o->svg = optarg;
			break;
		case 'h':
			compare_usage(stdout);
			return 1;
		default:
			return -1;
		}
	}
	return 0;
}

/*
 * Results that `ubcreplay vm` judged are judged as it did: at the level of
 * its looks (the strictest, when they differ) and by its rule, unless
 * --alpha or --gate-rule say otherwise; an --alpha looser than that level
 * is refused, since it would spend the looks' error budget again. *j gets
 * the record followed, NULL when none is or --alpha overrides it.
 */
static int
judged_as(struct cmp_result *const *res, size_t n, struct compare_opts *o,
    struct cmp_opts *copts, const struct cmp_judged **j)
{
	const struct cmp_judged *rec = gate_judged_find(res, n);
	enum gate_rule rule;

	*j = NULL;
	if (rec == NULL)
		return 0;
	if (o->alpha_given) {
		if (1 - o->alpha < rec->level - 1e-9) {
			warnx("--alpha %g judges at %g%%, but ubcreplay vm "
			      "judged these runs at %g%% over %zu look%s: a "
			      "looser level would spend their error budget "
			      "again; give --alpha %g or less, or none",
			    o->alpha, (1 - o->alpha) * 100, rec->level * 100,
			    rec->nlook, rec->nlook == 1 ? "" : "s",
			    1 - rec->level);
			return -1;
		}
		return 0;
	}
	copts->level = rec->level;
	if (!o->rule_given && gate_rule_parse(rec->rule, &rule) == 0)
		o->rule = (int)rule;
	*j = rec;
	return 0;
}

/* What judged_as followed, above the gates. */
static void
print_judged(const struct cmp_judged *j, int rule)
{
	printf("Judged as ubcreplay vm judged these runs:");
	if (j->nlook > 1) {
		printf(" looks at");
		for (size_t i = 0; i < j->nlook; i++)
			printf("%s %u", i > 0 ? "," : "", j->look[i]);
		printf(" runs a cell, each at %g%% (0.05 spread over the %zu),",
		    j->level * 100, j->nlook);
	} else
		printf(" at %g%%,", j->level * 100);
	printf(" by the %s rule.\n\n", gate_rule_name((enum gate_rule)rule));
}

int
cmd_compare(int argc, char **argv)
{
	struct cmp_opts copts = CMP_OPTS_DEFAULT;
	struct cmp_result *res[MAX_RESULTS];
	const struct cmp_judged *judged;
	struct gate_verdict *v;
	struct compare_opts o;
	char errbuf[2048];
	struct cmp *c;
	size_t n = 0, want;
	int r, nv, status;

	if ((r = parse(argc, argv, &o)) != 0) {
		if (r < 0)
			compare_usage(stderr);
		return r < 0 ? EXIT_USAGE : EXIT_SUCCESS;
	}
	want = (size_t)(argc - optind) + (o.baseline != NULL);
	if (want < 2 || want > MAX_RESULTS) {
		if (want > MAX_RESULTS)
			warnx("compare takes at most %d results", MAX_RESULTS);
		else
			warnx("compare needs two results or more (or "
			      "--baseline and one)");
		compare_usage(stderr);
		return EXIT_USAGE;
	}

	/* Every input is checked before anything is printed or written. */
	for (size_t i = 0; i < want; i++) {
		const char *path = o.baseline == NULL ? argv[optind + i]
		    : i == 0                          ? o.baseline
		                                      : argv[optind + i - 1];

		if ((res[n] = cmp_result_load(path, errbuf, sizeof(errbuf))) ==
		    NULL) {
			warnx("%s", errbuf);
			while (n > 0)
				cmp_result_free(res[--n]);
			return EXIT_USAGE;
		}
		n++;
	}
	copts.alpha = o.alpha;
	copts.level = 1 - o.alpha;
	if (judged_as(res, n, &o, &copts, &judged) == -1) {
		while (n > 0)
			cmp_result_free(res[--n]);
		return EXIT_USAGE;
	}
	if ((c = cmp_new(res, n, &copts, errbuf, sizeof(errbuf))) == NULL) {
		warnx("%s", errbuf);
		return EXIT_USAGE;
	}
	if ((nv = gate_judge_all(c, o.gate, o.ngate, (enum gate_rule)o.rule, &v,
	         errbuf, sizeof(errbuf))) == -1) {
		warnx("%s", errbuf);
		cmp_free(c);
		return EXIT_USAGE;
	}
	if ((o.svg != NULL &&
	        cmp_svg_write(
	            c, v, (size_t)nv, o.svg, errbuf, sizeof(errbuf)) == -1) ||
	    (o.json != NULL &&
	        cmp_json_write(c, v, (size_t)nv, o.rule, o.json, errbuf,
	            sizeof(errbuf)) == -1)) {
		warnx("%s", errbuf);
		free(v);
		cmp_free(c);
		return EXIT_USAGE;
	}

	cmp_report_text(c, stdout, o.all, cmd_page_width());
	if (judged != NULL &&
	    (judged->nlook > 1 || o.rule != GATE_RULE_INTERVAL))
		print_judged(judged, o.rule);
	cmd_print_gates(c, o.rule, v, (size_t)nv);
	status = gate_status(v, (size_t)nv);
	free(v);
	cmp_free(c);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("cannot write the report");
		return EXIT_USAGE;
	}
	if (status == EXIT_FAILURE)
		warnx("a gate failed: the runs show a change beyond its limit");
	else if (status == EXIT_UNDECIDED)
		warnx("a gate is undecided: more runs are needed (listed "
		      "above)");
	return status;
}
