/*
 * common.c - what the workload front ends share: integers and the sampling
 * interval as the user writes them, and one measured phase (a workload
 * function in a child, the probe ticking meanwhile, then the probe's mark).
 */
#include <sys/ioctl.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/compare.h"
#include "cmd.h"
#include "../job/job.h"

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

static int
tick(void *probe, char *err, size_t errlen)
{
	return probe_tick(probe, err, errlen);
}

int
cmd_phase(struct probe *probe, int64_t interval_ns, const char *name,
    replay_fn fn, void *arg, struct phase_result *p, char *err, size_t errlen)
{
	struct replay_outcome out;

	/* A phase that could not be run is in its run as failed, and why. */
	if (replay_child(
	        fn, arg, interval_ns, tick, probe, &out, err, errlen) == -1) {
		p->name = name;
		p->failed = 1;
		snprintf(p->error, sizeof(p->error), "%s", err);
		return -1;
	}
	return job_phase_result(probe, name, &out, p, err, errlen);
}

void
cmd_print_gates(const struct cmp *c, const struct cmp_gate *gate, size_t ngate,
    const struct cmp_failure *fail, size_t nfail)
{
	if (ngate == 0)
		return;
	printf("Gates (--fail-if: beyond the limit and significant):\n");
	for (size_t i = 0; i < nfail; i++)
		printf("  FAIL %s: %s changed %+.1f%% (p %.2g) in %s against "
		       "%s\n",
		    fail[i].gate->spec, fail[i].gate->metric,
		    fail[i].change_pct, fail[i].p,
		    c->result[fail[i].result]->path, c->result[0]->path);
	if (nfail == 0) {
		printf("  all passed:");
		for (size_t g = 0; g < ngate; g++)
			printf(" %s", gate[g].spec);
		putchar('\n');
	}
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
