/*
 * common.c - what the front ends share: integers, lists and the sampling
 * interval as the user writes them, and the gates' verdicts as compare
 * prints them.
 */
#include <sys/ioctl.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/compare.h"
#include "../analysis/gate.h"
#include "../replay/replay.h"
#include "cmd.h"

/*
 * s as a whole decimal number from lo to hi: digits only, a '-' first only
 * when lo is negative, nothing before or after them. Parsed by hand rather
 * than by strtoll, which takes leading blanks and a '+', and whose errno a
 * caller must remember to clear.
 */
static int
parse_int(const char *s, long long lo, long long hi, long long *v)
{
	int neg = *s == '-' && lo < 0;
	long long n = 0;
	const char *p = s + neg;

	if (*p == '\0')
		return -1;
	for (; *p != '\0'; p++) {
		int d = *p - '0';

		if (d < 0 || d > 9)
			return -1;
		/* Accumulated negative: LLONG_MIN has no positive twin. */
		if (n < (LLONG_MIN + d) / 10)
			return -1;
		n = n * 10 - d;
	}
	if (!neg && n == LLONG_MIN)
		return -1;
	n = neg ? n : -n;
	if (n < lo || n > hi)
		return -1;
	*v = n;
	return 0;
}

int
cmd_parse_int(
    const char *what, const char *s, long long lo, long long hi, long long *v)
{
	if (parse_int(s, lo, hi, v) == -1) {
		warnx("%s '%s' is not a whole number from %lld to %lld", what,
		    s, lo, hi);
		return -1;
	}
	return 0;
}

int
cmd_parse_intv(const char *what, const char *s, int lo, int hi, int *v)
{
	long long n;

	if (cmd_parse_int(what, s, lo, hi, &n) == -1)
		return -1;
	*v = (int)n;
	return 0;
}

int
cmd_split_list(const char *opt, const char *what, char *arg, char **v,
    size_t max, size_t *n)
{
	size_t len = strlen(arg);
	char *e = arg, *next;

	if (len == 0 || arg[0] == ',' || arg[len - 1] == ',' ||
	    strstr(arg, ",,") != NULL) {
		warnx(
		    "%s '%s': an empty item in the list of %s", opt, arg, what);
		return -1;
	}
	*n = 0;
	do {
		if ((next = strchr(e, ',')) != NULL)
			*next++ = '\0';
		if (*n == max) {
			warnx("%s: more than %zu %s", opt, max, what);
			return -1;
		}
		v[(*n)++] = e;
	} while ((e = next) != NULL);
	return 0;
}

int
cmd_parse_rump(const char *s, const char **dir)
{
	if (*s == '\0') {
		warnx("--rump '': names no directory (leave it out for the "
		      "default build)");
		return -1;
	}
	*dir = s;
	return 0;
}

int
cmd_parse_rump_mem(const char *s, uint64_t *bytes)
{
	char err[256] = "";

	if (replay_dd_parse_size(s, bytes, err, sizeof(err)) == -1 ||
	    *bytes < ((uint64_t)64 << 20)) {
		warnx("--rump-mem '%s': %s", s, *err ? err : "less than 64m");
		return -1;
	}
	return 0;
}

int
cmd_parse_interval(const char *s, int64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || v <= 0)
		return -1;
	if (strcmp(end, "") == 0 || strcmp(end, "s") == 0)
		v *= 1e9;
	else if (strcmp(end, "ms") == 0)
		v *= 1e6;
	else if (strcmp(end, "us") == 0)
		v *= 1e3;
	else
		return -1;
	if (v < 1e6 || v > 3600e9)
		return -1;
	*ns = (int64_t)v;
	return 0;
}

/* What might decide an undecided gate. */
static void
print_undecided(const struct gate_verdict *v)
{
	if (v->runs == SIZE_MAX)
		printf(": the change sits on the limit; more runs are unlikely "
		       "to decide it\n");
	else if (v->pairs > 0 && !v->ch.bounded)
		printf(": %zu pairs of runs on the same seeds are too few for "
		       "an interval; about %zu would likely decide it\n",
		    v->pairs, v->runs);
	else if (v->pairs > 0)
		printf(
		    ": the interval holds the limit; about %zu pairs of runs "
		    "on the same seeds would likely decide it (%zu now)\n",
		    v->runs, v->pairs);
	else if (!v->ch.bounded)
		printf(": %zu runs against %zu are too few for an interval; "
		       "about %zu a side would likely decide it\n",
		    v->na, v->nb, v->runs);
	else
		printf(": the interval holds the limit; about %zu runs a side "
		       "would likely decide it (%zu against %zu now)\n",
		    v->runs, v->na, v->nb);
}

void
cmd_print_gates(
    const struct cmp *c, int rule, const struct gate_verdict *v, size_t n)
{
	size_t count[3] = {0, 0, 0};
	char chg[96], movers[192];

	if (n == 0)
		return;
	if (rule == GATE_RULE_SIGNIFICANCE)
		printf(
		    "Gates (--fail-if, by the old rule: beyond the limit and "
		    "significant, else PASS):\n");
	else
		printf("Gates (--fail-if: the change's %g%% interval against "
		       "the limit):\n",
		    c->opts.level * 100);
	for (size_t i = 0; i < n; i++) {
		cmp_format_change(chg, sizeof(chg), &v[i].ch);
		count[v[i].outcome]++;
		printf("  %s %s: %s %s in %s against %s",
		    gate_outcome_name(v[i].outcome), v[i].gate->spec,
		    v[i].gate->metric, chg, c->result[v[i].result]->path,
		    c->result[0]->path);
		if (rule == GATE_RULE_SIGNIFICANCE)
			printf(" (p %.2g)\n", v[i].p);
		else if (v[i].outcome == GATE_UNDECIDED)
			print_undecided(&v[i]);
		else
			putchar('\n');
		/* What the blocks that moved were, when it is known. */
		if (v[i].outcome == GATE_FAIL &&
		    cmp_class_movers(c, v[i].result, v[i].gate->metric, movers,
		        sizeof(movers)))
			printf("    moved most: %s\n", movers);
	}
	printf("  %zu failed, %zu undecided, %zu passed\n", count[GATE_FAIL],
	    count[GATE_UNDECIDED], count[GATE_PASS]);
}

int
cmd_gate_rule(const char *arg, int *rule)
{
	enum gate_rule r;

	if (gate_rule_parse(arg, &r) == -1) {
		warnx("--gate-rule '%s': 'interval' (the default) or "
		      "'significance' (the old rule, which passes what it "
		      "cannot tell)",
		    arg);
		return -1;
	}
	*rule = (int)r;
	return 0;
}

int
cmd_page_width(void)
{
	const char *s = getenv("COLUMNS");
	struct winsize ws;
	long long v;

	/* A COLUMNS that is not a width is ignored, as ls(1) does. */
	if (s != NULL && parse_int(s, 1, 100000, &v) == 0)
		return (int)v;
	if (isatty(STDOUT_FILENO) &&
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

int
cmd_add_gate(const char *spec, struct cmp_gate *gate, size_t *ngate, size_t max)
{
	char errbuf[256];

	if (*ngate == max) {
		warnx("more than %zu --fail-if", max);
		return -1;
	}
	if (cmp_gate_parse(spec, &gate[*ngate], errbuf, sizeof(errbuf)) == -1) {
		warnx("%s", errbuf);
		return -1;
	}
	(*ngate)++;
	return 0;
}
