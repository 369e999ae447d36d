/*
 * compare_text.c - the text report of a comparison: the results, a table
 * of every metric side by side with its change against the baseline, what
 * changed significantly and how sure we are, the transfer sizes per layer,
 * and with more than two results the series. When the side-by-side table is
 * wider than the page, the series (one row per result) takes its place and
 * the prose lines are broken to the page's width.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

/* How a unit prints at the size of a given value. */
struct scale {
	double div;
	const char *suffix;
	int decimals;
};

static struct scale
scale_for(enum cmp_unit unit, double v)
{
	static const char *const bunit[] = {"", "K", "M", "G", "T"};
	struct scale s = {1, "", 0};
	double a = fabs(v);

	switch (unit) {
	case CMP_NS:
		if (a >= 1e9) {
			s.div = 1e9, s.suffix = " s";
			s.decimals = a >= 1e11 ? 0 : a >= 1e10 ? 1 : 2;
		} else if (a >= 1e6) {
			s.div = 1e6, s.suffix = " ms";
			s.decimals = a >= 1e8 ? 0 : 1;
		} else {
			s.div = 1e3, s.suffix = " us";
		}
		break;
	case CMP_BYTES:
		for (int u = 0; u + 1 < 5 && a >= 1024 * s.div; u++) {
			s.div *= 1024;
			s.suffix = bunit[u + 1];
			s.decimals = 1;
		}
		break;
	case CMP_COUNT:
		break;
	}
	return s;
}

void
cmp_format_value(char *buf, size_t len, double v, enum cmp_unit unit)
{
	struct scale s = scale_for(unit, v);

	snprintf(buf, len, "%.*f%s", s.decimals, v / s.div, s.suffix);
}

/* min-max in the median's scale, without the unit: "1.20-1.30". */
static void
format_range(
    char *buf, size_t len, const struct stats_summary *sum, enum cmp_unit unit)
{
	struct scale s = scale_for(unit, sum->median);

	if (sum->min == sum->max)
		snprintf(buf, len, "=");
	else
		snprintf(buf, len, "%.*f-%.*f", s.decimals, sum->min / s.div,
		    s.decimals, sum->max / s.div);
}

static const char *
marker(enum cmp_verdict v)
{
	return v == CMP_CHANGED ? "*" : v == CMP_TOO_FEW ? "?" : " ";
}

/*
 * A time that cannot be compared shows no change: "emulated" when TCG
 * measured either side, else "n/c".
 */
static void
format_change(char *buf, size_t len, const struct cmp *c,
    const struct cmp_row *row, size_t i)
{
	const struct cmp_cell *cell = &row->cell[i];

	if (cell->present && row->unit == CMP_NS && !c->times_ok)
		snprintf(buf, len, "%s",
		    strcmp(c->result[i]->accel, "tcg") == 0 ||
		            strcmp(c->result[0]->accel, "tcg") == 0
		        ? "emulated"
		        : "n/c");
	else if (!cell->present)
		snprintf(buf, len, "-");
	else if (!cell->ratio_valid)
		snprintf(buf, len, "n/a %s", marker(cell->verdict));
	else
		snprintf(buf, len, "%+.1f%% %s", cell->change_pct,
		    marker(cell->verdict));
}

/*
 * Prints text as lines of at most width columns (0: no limit), the ones
 * after the first indented by indent spaces. Breaks after a "; " where one
 * is near enough, else at a space; a word longer than the line (a path) is
 * printed whole.
 */
static void
print_fit(FILE *fp, const char *text, int width, int indent)
{
	size_t room = (size_t)width, from = (size_t)indent;

	while (width > 0 && strlen(text) > room) {
		size_t cut = 0, semi = 0, end;

		for (size_t i = from + 1; i <= room; i++)
			if (text[i] == ' ' && text[i - 1] != ' ') {
				cut = i;
				if (text[i - 1] == ';')
					semi = i;
			}
		/* A "; " in the last third of the line is the better break. */
		if (semi > 0 && semi * 3 >= room * 2)
			cut = semi;
		if (cut == 0)
			break;
		for (end = cut; text[end] == ' '; end++)
			;
		fprintf(fp, "%.*s\n%*s", (int)cut, text, indent, "");
		text += end;
		room = width > indent + 1 ? (size_t)(width - indent) : 1;
		from = 0;
	}
	fprintf(fp, "%s\n", text);
}

/* A row is worth showing unless detail or zero in every result. */
static int
row_shown(const struct cmp *c, const struct cmp_row *row, int all)
{
	if (row->detail && !all)
		return 0;
	if (all)
		return 1;
	for (size_t i = 0; i < c->nresult; i++)
		if (row->cell[i].present &&
		    (row->cell[i].sum.max != 0 || row->cell[i].sum.min != 0))
			return 1;
	return 0;
}

/*
 * Where the runs ran in rounds, the cells taking turns (vm.design), how
 * they are counted: every run as one. The rounds balance the host's
 * drift; a boot that shifts its runs as a whole (docs/vm-machine.md,
 * "Twenty boots a cell": none in most cells on a host as is, a share up
 * to 0.37 in one, and beside CPU hogs) makes runs of one boot count for
 * more than they are, unless each boot has one run.
 */
static void
print_design(const struct cmp *c, FILE *fp, int width)
{
	size_t lo = SIZE_MAX, hi = 0, per = 0;
	char line[1024], rounds[64];
	int alt = 1, uml = 0;

	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_result *r = c->result[i];

		if (r->rounds < 2)
			continue;
		lo = r->rounds < lo ? r->rounds : lo;
		hi = r->rounds > hi ? r->rounds : hi;
		per = r->round_runs > per ? r->round_runs : per;
		alt &= r->alternating;
		uml |= r->machine.uml;
	}
	if (hi == 0)
		return;
	if (lo == hi)
		snprintf(rounds, sizeof(rounds), "%zu", hi);
	else
		snprintf(rounds, sizeof(rounds), "%zu to %zu", lo, hi);
	snprintf(line, sizeof(line),
	    "Runs in rounds: %s rounds a cell of up to %zu run%s a boot%s. "
	    "The unit of replication is the run%s, not the round%s",
	    rounds, per, per == 1 ? "" : "s",
	    alt ? ", the cells in turn and their order reversed each round "
	          "(A B, B A), so that a change in the host's load falls on "
	          "each alike"
	        : "",
	    uml ? " (paired by seed)" : "",
	    uml ? ": on simulated time the host's load does not reach the "
	          "runs."
	        : per == 1
	        ? ", and each run is a boot of its own, so a boot's shift is "
	          "counted as spread."
	        : ": where a boot shifts its runs as a whole (measured beside "
	          "CPU hogs, docs/vm-machine.md), the verdict is surer than "
	          "it should be; --boot-runs 1 gives every run its boot.");
	print_fit(fp, line, width, 0);
}

static void
print_results(const struct cmp *c, FILE *fp, int width)
{
	char line[2048];

	fprintf(fp, "Results (the first is the baseline):\n");
	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_result *r = c->result[i];
		char boots[32] = "";

		fprintf(fp, "  %c  %-20s %s\n", (int)('A' + i % 26), r->label,
		    r->path);
		if (r->boots > 1)
			snprintf(
			    boots, sizeof(boots), " in %zu boots", r->boots);
		snprintf(line, sizeof(line),
		    "     %zu of %zu runs ok%s; %s%s%s; device %s; "
		    "probe %s (%s)",
		    r->runs_ok, r->runs, boots, r->kind,
		    *r->target ? " on " : "", r->target,
		    *r->devices ? r->devices : "none",
		    *r->probe ? r->probe : "?",
		    *r->resolution ? r->resolution : "?");
		print_fit(fp, line, width, 5);
		if (strcmp(r->accel, "none") != 0)
			fprintf(fp, "     guest kernel %s, accel %s%s\n",
			    *r->kernel_release ? r->kernel_release : "?",
			    r->accel,
			    r->parallel_guests > 1 ? ", parallel guests" : "");
	}
	print_design(c, fp, width);
	for (size_t w = 0; w < c->nwarn; w++)
		fprintf(fp, "warning: %s\n", c->warn[w]);
	fputc('\n', fp);
}

#define NAMEW  26
#define MEDW   10
#define RANGEW 16
#define CHGW   11

/* The side-by-side table's width: the names, then a column per result. */
static size_t
table_width(const struct cmp *c)
{
	return NAMEW + (MEDW + RANGEW) +
	    (c->nresult - 1) * (MEDW + RANGEW + CHGW);
}

static void
print_table(const struct cmp *c, FILE *fp, int all)
{
	fprintf(fp, "%-*s", NAMEW, "");
	for (size_t i = 0; i < c->nresult; i++)
		fprintf(fp, "%c %-*.*s%s", (int)('A' + i % 26),
		    MEDW + RANGEW - 2, MEDW + RANGEW - 3, c->result[i]->label,
		    i > 0 ? "           " : "");
	fprintf(fp, "\n%-*s", NAMEW, "metric");
	for (size_t i = 0; i < c->nresult; i++) {
		fprintf(fp, "%*s  %-*s", MEDW, "median", RANGEW - 2, "range");
		if (i > 0)
			fprintf(fp, "%*s", CHGW, "change");
	}
	fputc('\n', fp);

	for (size_t k = 0; k < c->nrow; k++) {
		const struct cmp_row *row = &c->row[k];

		if (!row_shown(c, row, all))
			continue;
		fprintf(fp, "%-*s", NAMEW, row->name);
		for (size_t i = 0; i < c->nresult; i++) {
			const struct cmp_cell *cell = &row->cell[i];
			char med[32] = "-", range[48] = "", chg[32];

			if (cell->present) {
				cmp_format_value(med, sizeof(med),
				    cell->sum.median, row->unit);
				format_range(range, sizeof(range), &cell->sum,
				    row->unit);
			}
			fprintf(fp, "%*s  %-*s", MEDW, med, RANGEW - 2, range);
			if (i > 0) {
				format_change(chg, sizeof(chg), c, row, i);
				fprintf(fp, "%*s", CHGW, chg);
			}
		}
		fputc('\n', fp);
	}
	fprintf(fp,
	    "\n  median and range (min-max) over each result's successful "
	    "runs; change: median\n  against the baseline's. * significant "
	    "(Mann-Whitney U over runs, p < %g);\n  ? too few runs to test; "
	    "unmarked: no significant change.\n",
	    c->opts.alpha);
	if (!c->times_ok)
		fprintf(fp,
		    "  %s: times not compared (the warning above says "
		    "why).\n",
		    c->emulated ? "emulated" : "n/c");
	fputc('\n', fp);
}

/* A change as a signed percentage: "+12.3%", "-inf%" for unbounded. */
static void
format_pct(char *buf, size_t len, double ratio)
{
	double pct = (ratio - 1) * 100;

	if (isinf(ratio))
		snprintf(buf, len, "%s", ratio > 0 ? "+inf" : "-inf");
	else /* no "-0.0" for a change that rounds to nothing */
		snprintf(buf, len, "%+.1f", fabs(pct) < 0.05 ? 0.0 : pct);
}

void
cmp_format_change(char *buf, size_t len, const struct stats_change *ch)
{
	char e[32], lo[32], hi[32];

	format_pct(e, sizeof(e), ch->est);
	format_pct(lo, sizeof(lo), ch->lo);
	format_pct(hi, sizeof(hi), ch->hi);
	snprintf(buf, len, "%s%% [%s, %s]", e, lo, hi);
}

/*
 * One metric's change against the baseline: the estimate and its interval,
 * then the rank test's p, which goes on a line of its own under the change
 * when both do not fit in width (0: no limit); '*' when significant.
 */
static void
print_change(
    FILE *fp, const struct cmp_row *row, const struct cmp_cell *cell, int width)
{
	char head[192], chg[96], p[80], how[32];

	if (cell->ch.valid)
		cmp_format_change(chg, sizeof(chg), &cell->ch);
	else
		snprintf(chg, sizeof(chg), "the baseline's median is 0");
	snprintf(head, sizeof(head), "  %-24s %-26s", row->name, chg);
	snprintf(how, sizeof(how), "%s%s",
	    cell->mw.method == STATS_MW_EXACT ? "exact" : "normal approx.",
	    cell->pairs > 0 ? ", paired" : "");
	snprintf(p, sizeof(p),
	    cell->mw.p < 1e-4 ? "p %.1e (%s)%s" : "p %.4f (%s)%s", cell->mw.p,
	    how, cell->verdict == CMP_CHANGED ? " *" : "");
	if (width <= 0 || strlen(head) + 2 + strlen(p) <= (size_t)width)
		fprintf(fp, "%s  %s\n", head, p);
	else
		fprintf(fp, "%s\n%28s%s\n", head, "", p);
}

static void
print_verdicts(const struct cmp *c, FILE *fp, int all, int width)
{
	for (size_t i = 1; i < c->nresult; i++) {
		size_t same = 0, few = 0, changed = 0, fa = 0, fb = 0;
		double pmin = 1;

		fprintf(fp, "%c %s against A %s:\n", (int)('A' + i % 26),
		    c->result[i]->label, c->result[0]->label);
		for (size_t k = 0; k < c->nrow; k++) {
			const struct cmp_row *row = &c->row[k];
			const struct cmp_cell *cell = &row->cell[i];

			if (!row_shown(c, row, all) || !cell->present ||
			    !row->cell[0].present ||
			    (row->unit == CMP_NS && !c->times_ok))
				continue;
			print_change(fp, row, cell, width);
			if (cell->verdict == CMP_TOO_FEW) {
				few++;
				pmin = cell->pmin;
				fa = row->cell[0].sum.n;
				fb = cell->sum.n;
			} else if (cell->verdict == CMP_CHANGED)
				changed++;
			else
				same++;
		}
		if (changed + same + few > 0)
			fprintf(fp,
			    "  (the change: Hodges-Lehmann estimate with its "
			    "%g%% interval; * significant)\n",
			    c->opts.level * 100);
		/*
		 * Many metrics tested at once: some pass the level by chance,
		 * and the reader should know how many to expect.
		 */
		if (changed > 0 && changed + same >= 10)
			fprintf(fp,
			    "  (%zu metrics tested at p < %g: about %.1f "
			    "may pass by chance alone)\n",
			    changed + same, c->opts.alpha,
			    (double)(changed + same) * c->opts.alpha);
		if (few > 0)
			fprintf(fp,
			    "  too few runs to test%s: %zu against %zu "
			    "runs cannot give p below %.3g\n",
			    changed + same > 0 ? " for some metrics" : "", fa,
			    fb, pmin);
		if (!c->times_ok)
			fprintf(fp, "  times not compared: %s\n",
			    c->emulated ? "emulated (TCG)" : "not comparable");
		if (changed == 0 && same > 0 && few == 0)
			fprintf(fp, "  no significant change\n");
		fputc('\n', fp);
	}
}

static void
print_hist_layer(const struct cmp *c, FILE *fp, int l)
{
	int lo = HIST_NBUCKETS, hi = -1;
	uint64_t total[64];
	size_t n = c->nresult < 64 ? c->nresult : 64;
	const char *kind = "";
	char lab[16];

	for (size_t i = 0; i < n; i++) {
		const struct cmp_result *r = c->result[i];

		total[i] = r->has_layer[l] ? hist_total(&r->layer[l]) : 0;
		for (int b = 0; total[i] && b < HIST_NBUCKETS; b++)
			if (r->layer[l].count[b]) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
	}
	if (hi < 0)
		return;
	/* The kind of the first result that has the layer (a command has none).
	 */
	for (size_t i = 0; i < n && *kind == '\0'; i++)
		kind = c->result[i]->layer_kind[l];
	fprintf(fp, "%s transfer sizes: share of transfers per bucket (%s)\n",
	    cmp_layer_name(l), *kind ? kind : "?");
	fprintf(fp, "  %-8s", "bucket");
	for (size_t i = 0; i < n; i++)
		fprintf(fp, " %9c", (int)('A' + i % 26));
	fputc('\n', fp);
	for (int b = lo; b <= hi; b++) {
		int any = 0;

		/* Buckets empty in every result are left out. */
		for (size_t i = 0; i < n; i++)
			any |= c->result[i]->layer[l].count[b] != 0;
		if (!any)
			continue;
		fprintf(
		    fp, "  %-8s", hist_label((unsigned)b, lab, sizeof(lab)));
		for (size_t i = 0; i < n; i++) {
			uint64_t k = c->result[i]->layer[l].count[b];
			double pct =
			    total[i] ? 100.0 * (double)k / (double)total[i] : 0;

			if (total[i] == 0)
				fprintf(fp, " %9s", "-");
			else if (k > 0 && pct < 0.05)
				fprintf(fp, " %9s", "<0.1%");
			else
				fprintf(fp, " %8.1f%%", pct);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "  %-8s", "count");
	for (size_t i = 0; i < n; i++)
		fprintf(fp, " %9llu", (unsigned long long)total[i]);
	fputc('\n', fp);
	for (size_t i = 1; i < n; i++) {
		const struct cmp_hist *h = &c->hist[l][i];
		char la[16], lb[16];

		if (!h->present)
			continue;
		fprintf(fp, "  %c against A: ", (int)('A' + i % 26));
		if (h->chi2.dof == 0)
			fprintf(fp, "one bucket in common, nothing to test;");
		else
			fprintf(fp, "chi-square %.1f, %u df, p %s%.2g;",
			    h->chi2.chi2, h->chi2.dof,
			    h->chi2.p < 1e-16 ? "< " : "",
			    h->chi2.p < 1e-16 ? 1e-16 : h->chi2.p);
		fprintf(fp,
		    "\n    EMD %.2f buckets (%s); median %s -> %s: %s\n",
		    h->emd_buckets,
		    h->shift_buckets < 0       ? "smaller"
		        : h->shift_buckets > 0 ? "larger"
		                               : "no shift",
		    hist_label(
		        (unsigned)c->hist[l][0].median_bucket, la, sizeof(la)),
		    hist_label((unsigned)h->median_bucket, lb, sizeof(lb)),
		    h->verdict == CMP_CHANGED ? "changed"
		                              : "no significant change");
	}
	if (strcmp(c->result[0]->layer_kind[l], "interval_mean") == 0)
		fprintf(fp,
		    "  (interval means, not single transfers: the chi-square "
		    "counts operations that\n  are not independent; read the "
		    "EMD and the per-run mean_bytes test)\n");
	fputc('\n', fp);
}

static double
median_of(const struct cmp *c, size_t i, const char *name, int *ok)
{
	const struct cmp_row *row = cmp_row_find(c, name);

	*ok = row != NULL && row->cell[i].present;
	return *ok ? row->cell[i].sum.median : 0;
}

/* Whether any result was measured in a guest. */
static int
any_guest(const struct cmp *c)
{
	for (size_t i = 0; i < c->nresult; i++)
		if (strcmp(c->result[i]->accel, "none") != 0)
			return 1;
	return 0;
}

/*
 * The guests' machine, once: the knobs every guest shares, and which differ
 * (those are in the labels).
 */
static void
print_machine(const struct cmp *c, FILE *fp)
{
	const struct cmp_result *first = NULL;
	char tag[192], names[256];

	for (size_t i = 0; i < c->nresult && first == NULL; i++)
		if (strcmp(c->result[i]->accel, "none") != 0)
			first = c->result[i];
	if (first == NULL)
		return;
	cmp_machine_tag(&first->machine, first->accel,
	    (CMP_M_ACCEL | CMP_M_CPUS | CMP_M_MEM | CMP_M_QUEUES |
	        CMP_M_CLOCK) &
	        ~c->machine_differs,
	    ", ", tag, sizeof(tag));
	cmp_machine_names(c->machine_differs, names, sizeof(names));
	fprintf(fp, "  machine: %s%s%s%s\n", tag,
	    names[0] != '\0' ? "; differs in " : "", names,
	    names[0] != '\0' ? " (in the labels)" : "");
}

/*
 * The series: one row a result. Under TCG the sizes lead (with their ratio
 * to the first) and the emulated elapsed time comes last; else the elapsed
 * time and its ratios to the first and the previous lead.
 */
static void
print_series(const struct cmp *c, FILE *fp, int all, int width)
{
	const char *size = cmp_row_find(c, "write.mean_bytes") != NULL
	    ? "write.mean_bytes"
	    : "app.write.mean_bytes";
	int guest = any_guest(c);
	int lw = 22; /* the labels' column: as wide as the longest, up to 40 */

	for (size_t i = 0; i < c->nresult; i++)
		if (strlen(c->result[i]->label) > (size_t)lw)
			lw = strlen(c->result[i]->label) > 40
			    ? 40
			    : (int)strlen(c->result[i]->label);
	fprintf(fp, "Series (medians):\n");
	if (guest)
		print_machine(c, fp);
	if (c->emulated)
		fprintf(fp, "  %-*s %12s %8s %10s", lw, "label", "write size",
		    "/first", "elapsed");
	else
		fprintf(fp, "  %-*s %10s %8s %8s %12s", lw, "label", "elapsed",
		    "/first", "/prev", "write size");
	if (guest)
		fprintf(fp, "  %-24s %s", "kernel", "accel");
	fputc('\n', fp);
	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_result *r = c->result[i];
		char t[32] = "-", w[32] = "-", r1[16] = "-", rp[16] = "-",
		     w1[16] = "-";
		int ok, ok0, okp = 0, okw, okw0;
		double e = median_of(c, i, "elapsed", &ok);
		double e0 = median_of(c, 0, "elapsed", &ok0);
		double ep = i > 0 ? median_of(c, i - 1, "elapsed", &okp) : 0;
		double ws = median_of(c, i, size, &okw);
		double ws0 = median_of(c, 0, size, &okw0);

		if (ok) {
			cmp_format_value(t, sizeof(t), e, CMP_NS);
			if (ok0 && e0 > 0)
				snprintf(r1, sizeof(r1), "%.2f", e / e0);
			if (i > 0 && okp && ep > 0)
				snprintf(rp, sizeof(rp), "%.2f", e / ep);
			/* Ratios of times that cannot be compared: none. */
			if (!c->times_ok) {
				snprintf(r1, sizeof(r1), "n/c");
				snprintf(
				    rp, sizeof(rp), "%s", i > 0 ? "n/c" : "-");
			}
		}
		if (okw)
			cmp_format_value(w, sizeof(w), ws, CMP_BYTES);
		if (okw && okw0 && ws0 > 0)
			snprintf(w1, sizeof(w1), "%.2f", ws / ws0);
		if (c->emulated)
			fprintf(fp, "  %-*.*s %12s %8s %10s", lw, lw, r->label,
			    w, w1, t);
		else
			fprintf(fp, "  %-*.*s %10s %8s %8s %12s", lw, lw,
			    r->label, t, r1, rp, w);
		if (guest)
			fprintf(fp, "  %-24.24s %s%s",
			    *r->kernel_release ? r->kernel_release : "host",
			    r->accel,
			    strcmp(r->accel, "tcg") == 0 ? " (emulated times)"
			                                 : "");
		fputc('\n', fp);
	}
	if (!c->times_ok)
		fprintf(fp, "  n/c: %s\n", c->times_why);
	if (!c->sizes_ok)
		fprintf(fp, "  sizes not judged: %s\n", c->sizes_why);
	if (!all && table_width(c) > (size_t)width)
		fprintf(fp,
		    "  (the table of every metric side by side is %zu columns "
		    "wide: -a prints it)\n",
		    table_width(c));
	fputc('\n', fp);
}

void
cmp_report_text(const struct cmp *c, FILE *fp, int all, int width)
{
	/*
	 * Two results are one comparison and the table is all of it; with
	 * more, a table wider than the page is unreadable, and the series
	 * leads in its place.
	 */
	int table = all || c->nresult <= 2 || table_width(c) <= (size_t)width;
	/* With the table, the report is as wide as it takes, as it always was.
	 */
	int fit = table ? 0 : width;

	print_results(c, fp, fit);
	/* The guests' machine once; the series, when it leads, says it. */
	if (table && any_guest(c)) {
		print_machine(c, fp);
		fputc('\n', fp);
	}
	if (table)
		print_table(c, fp, all);
	else
		print_series(c, fp, all, width);
	print_verdicts(c, fp, all, fit);
	/* From the application down to the device, as the data goes. */
	for (int l = 0; l < CMP_NLAYER; l++)
		print_hist_layer(c, fp, l);
	if (table && c->nresult > 2)
		print_series(c, fp, all, width);
}
