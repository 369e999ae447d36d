/*
 * compare_svg.c - the picture of one result or of a comparison, as a
 * stand-alone SVG file:
 *
 *   - per layer (the workload's write() calls, device writes, device reads)
 *     the share of transfers in each log2 size bucket, one bar per result
 *     side by side in each bucket, so a shift to smaller transfers reads as
 *     bars moving left;
 *   - what the writes were (attribution: data, dir, inode, ...), each
 *     class's share of the device's write requests, one bar per result,
 *     so the class that took over reads at once;
 *   - every run's elapsed time as a dot on one line per result, its median
 *     as a bar, so the spread the tests weigh is visible;
 *   - every change against the baseline as its estimate (a dot) and its
 *     interval (a bar) on a ratio scale, the gates first with their limit
 *     and outcome, so what a gate decided and why is seen at once.
 *
 * Each panel names its results right above it in their colours, so nothing
 * has to be looked up elsewhere.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "gate.h"
#include "../model/layout.h"
#include "../model/outfile.h"

#define WIDTH   880
#define LEFT    70 /* room for the axis labels */
#define RIGHT   20
#define PANEL_H 210 /* plot height of a histogram panel */
#define KEY_H   18  /* one line of the key */
#define ROW_H   26  /* one result's line in the times panel */

/* Told apart by people with the common colour-vision deficiencies. */
static const char *const colour[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
    "#e69f00", "#56b4e9", "#000000", "#f0e442"};
#define NCOLOUR (sizeof(colour) / sizeof(colour[0]))

static const char *const layer_title[CMP_NLAYER] = {"workload write() calls",
    "device writes", "device reads", "NFS WRITE calls on the wire",
    "NFS READ calls on the wire"};

static void
xml_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, fp);
		}
	}
}

static void
text(FILE *fp, double x, double y, const char *anchor, const char *style,
    const char *s)
{
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y,
	    anchor, *style ? " " : "", style);
	xml_text(fp, s);
	fputs("</text>\n", fp);
}

/* The results' names in their colours, left to right; returns its height. */
static double
key(FILE *fp, const struct cmp *c, double y)
{
	double x = LEFT;

	for (size_t i = 0; i < c->nresult; i++) {
		char name[128];
		size_t len;

		snprintf(name, sizeof(name), "%c %s%s", (int)('A' + i % 26),
		    c->result[i]->label,
		    i == 0 && c->nresult > 1 ? " (baseline)" : "");
		len = strlen(name);
		if (x + 16 + 7.0 * (double)len > WIDTH - RIGHT && x > LEFT) {
			x = LEFT;
			y += KEY_H;
		}
		fprintf(fp,
		    "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
		    "height=\"12\" fill=\"%s\"/>\n",
		    x, y - 11, colour[i % NCOLOUR]);
		text(fp, x + 16, y, "start", "", name);
		x += 16 + 7.0 * (double)len + 18;
	}
	return y + KEY_H;
}

/* A round step for about five grid lines up to top. */
static double
grid_step(double top)
{
	double step = pow(10, floor(log10(top / 5)));

	if (top / step > 25)
		step *= 5;
	else if (top / step > 10)
		step *= 2;
	return step;
}

/*
 * The grid of a panel of shares whose largest is top, on the base line
 * base: lines at round percentages. Returns the share the panel's height
 * stands for.
 */
static double
share_grid(FILE *fp, double base, double top)
{
	double step = grid_step(top * 100);

	top = fmin(1.0, ceil(top * 100 / step) * step / 100);
	for (double g = 0; g <= top * 100 + 1e-9; g += step) {
		double gy = base - g / (top * 100) * PANEL_H;
		char gl[16];

		fprintf(fp,
		    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"#dddddd\"/>\n",
		    LEFT, gy, WIDTH - RIGHT, gy);
		snprintf(gl, sizeof(gl), "%g%%", g);
		text(fp, LEFT - 6, gy + 4, "end", "", gl);
	}
	return top;
}

static double
hist_panel(FILE *fp, const struct cmp *c, int l, double y)
{
	int lo = HIST_NBUCKETS, hi = -1;
	double top = 0, x0 = LEFT, plotw = WIDTH - LEFT - RIGHT, slot, barw;
	double base;
	char title[160], lab[16];

	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_result *r = c->result[i];
		uint64_t t = r->has_layer[l] ? hist_total(&r->layer[l]) : 0;

		for (int b = 0; t && b < HIST_NBUCKETS; b++) {
			double share = (double)r->layer[l].count[b] / (double)t;

			if (r->layer[l].count[b] == 0)
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
			top = share > top ? share : top;
		}
	}
	if (hi < 0)
		return y;
	snprintf(title, sizeof(title),
	    "%s: share of transfers per size "
	    "(log2 buckets, %s)",
	    layer_title[l],
	    strcmp(c->result[0]->layer_kind[l], "exact") == 0
	        ? "one count per transfer"
	        : strcmp(c->result[0]->layer_kind[l], "interval_mean") == 0
	        ? "interval means, as iostat shows them"
	        : "of unknown kind");
	text(fp, LEFT, y + 16, "start", "font-weight=\"bold\"", title);
	y = key(fp, c, y + 36);

	base = y + PANEL_H;
	top = share_grid(fp, base, top);
	/* A few buckets get bars of a readable width, not the whole row. */
	slot = fmin(plotw / (hi - lo + 1), 40.0 * (double)c->nresult + 20);
	x0 = LEFT + (plotw - slot * (hi - lo + 1)) / 2;
	barw = (slot * 0.8) / (double)c->nresult;
	for (int b = lo; b <= hi; b++) {
		double sx = x0 + (b - lo) * slot;

		for (size_t i = 0; i < c->nresult; i++) {
			const struct cmp_result *r = c->result[i];
			uint64_t t =
			    r->has_layer[l] ? hist_total(&r->layer[l]) : 0;
			double share = t
			    ? (double)r->layer[l].count[b] / (double)t
			    : 0,
			       h = share / top * PANEL_H;

			if (share == 0)
				continue;
			fprintf(fp,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"%s\"><title>%c %s: "
			    "%.1f%%</title></rect>\n",
			    sx + slot * 0.1 + barw * (double)i, base - h, barw,
			    h, colour[i % NCOLOUR], (int)('A' + i % 26),
			    hist_label((unsigned)b, lab, sizeof(lab)),
			    share * 100);
		}
		text(fp, sx + slot / 2, base + 16, "middle", "",
		    hist_label((unsigned)b, lab, sizeof(lab)));
	}
	fprintf(fp,
	    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
	    "stroke=\"#000000\"/>\n",
	    LEFT, base, WIDTH - RIGHT, base);
	text(fp, LEFT + plotw / 2, base + 34, "middle", "",
	    "transfer size (bucket's lower bound, bytes)");
	return base + 50;
}

/* The median of a class's write requests in result i, or -1 (no row). */
static double
class_ops(const struct cmp *c, size_t i, int k)
{
	char name[64];
	const struct cmp_row *row;

	snprintf(
	    name, sizeof(name), "write.class.%s.ops", layout_class_name(k));
	row = cmp_row_find(c, name);
	return row != NULL && row->cell[i].present ? row->cell[i].sum.median
	                                           : -1;
}

static double
class_panel(FILE *fp, const struct cmp *c, double y)
{
	double share[LAYOUT_NCLASS][NCOLOUR] = {{0}}, top = 0, base;
	double plotw = WIDTH - LEFT - RIGHT, slot, x0, barw;
	size_t n = c->nresult < NCOLOUR ? c->nresult : NCOLOUR;
	int used[LAYOUT_NCLASS] = {0}, nused = 0, col = 0;
	char tip[96];

	for (size_t i = 0; i < n; i++) {
		double tot = 0;

		for (int k = 0; k < LAYOUT_NCLASS; k++)
			tot += fmax(class_ops(c, i, k), 0);
		for (int k = 0; tot > 0 && k < LAYOUT_NCLASS; k++) {
			share[k][i] = fmax(class_ops(c, i, k), 0) / tot;
			top = fmax(top, share[k][i]);
			used[k] |= share[k][i] > 0;
		}
	}
	for (int k = 0; k < LAYOUT_NCLASS; k++)
		nused += used[k];
	if (nused == 0)
		return y;
	text(fp, LEFT, y + 16, "start", "font-weight=\"bold\"",
	    "what the writes are: share of the device's write requests by "
	    "what their blocks held (medians)");
	y = key(fp, c, y + 36);
	base = y + PANEL_H;
	top = share_grid(fp, base, top);
	slot = fmin(plotw / nused, 40.0 * (double)n + 20);
	x0 = LEFT + (plotw - slot * nused) / 2;
	barw = (slot * 0.8) / (double)n;
	for (int k = 0; k < LAYOUT_NCLASS; k++) {
		double sx = x0 + col * slot;

		if (!used[k])
			continue;
		for (size_t i = 0; i < n; i++) {
			double h = share[k][i] / top * PANEL_H;

			if (share[k][i] == 0)
				continue;
			snprintf(tip, sizeof(tip), "%c %s: %.1f%%",
			    (int)('A' + i % 26), layout_class_name(k),
			    share[k][i] * 100);
			fprintf(fp,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"%s\"><title>",
			    sx + slot * 0.1 + barw * (double)i, base - h, barw,
			    h, colour[i % NCOLOUR]);
			xml_text(fp, tip);
			fputs("</title></rect>\n", fp);
		}
		text(fp, sx + slot / 2, base + 16, "middle", "",
		    layout_class_name(k));
		col++;
	}
	fprintf(fp,
	    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
	    "stroke=\"#000000\"/>\n",
	    LEFT, base, WIDTH - RIGHT, base);
	return base + 34;
}

static double
times_panel(FILE *fp, const struct cmp *c, double y)
{
	double top = 0, plotw = WIDTH - LEFT - RIGHT - 120, x0 = LEFT + 120;
	double base, step;
	int any = 0;

	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_series *s =
		    cmp_result_series(c->result[i], "elapsed");

		for (size_t k = 0; s != NULL && k < s->n; k++) {
			top = s->v[k] > top ? s->v[k] : top;
			any = 1;
		}
	}
	if (!any || top <= 0)
		return y;
	top /= 1e9;
	step = grid_step(top);
	top = ceil(top / step) * step;
	text(fp, LEFT, y + 16, "start", "font-weight=\"bold\"",
	    c->times_ok
	        ? "elapsed time of every run (dots) and the median (bar), "
	          "seconds"
	        : c->emulated
	        ? "elapsed time of every run (dots) and the median (bar), "
	          "seconds: emulated (TCG), not comparable"
	        : "elapsed time of every run (dots) and the median (bar), "
	          "seconds: not comparable (accelerators or parallel guests)");
	y += 30;
	base = y + ROW_H * (double)c->nresult;
	for (double g = 0; g <= top + 1e-9; g += step) {
		double gx = x0 + g / top * plotw;
		char gl[32];

		fprintf(fp,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
		    gx, y, gx, base);
		snprintf(gl, sizeof(gl), "%g", g);
		text(fp, gx, base + 16, "middle", "", gl);
	}
	for (size_t i = 0; i < c->nresult; i++) {
		const struct cmp_series *s =
		    cmp_result_series(c->result[i], "elapsed");
		double ry = y + ROW_H * ((double)i + 0.5);
		char name[64];

		snprintf(name, sizeof(name), "%c %.20s", (int)('A' + i % 26),
		    c->result[i]->label);
		fprintf(fp, "<g fill=\"%s\">\n", colour[i % NCOLOUR]);
		text(fp, x0 - 8, ry + 4, "end", "", name);
		for (size_t k = 0; s != NULL && k < s->n; k++)
			fprintf(fp,
			    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			    "fill-opacity=\"0.6\"><title>run %zu: %.3f s"
			    "</title></circle>\n",
			    x0 + s->v[k] / 1e9 / top * plotw, ry, k + 1,
			    s->v[k] / 1e9);
		if (s != NULL && s->n > 0) {
			double mx =
			    x0 + stats_median(s->v, s->n) / 1e9 / top * plotw;

			fprintf(fp,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" "
			    "height=\"18\"/>\n",
			    mx - 1.5, ry - 9);
		}
		fputs("</g>\n", fp);
	}
	return base + 40;
}

#define CHG_LABEL 250 /* room for a change's name on its left */
#define CHG_ROW   20

/* The x of a ratio on the changes panel's log scale, clipped to it. */
static double
ratio_x(double ratio, double lo, double hi)
{
	double l = isfinite(ratio) && ratio > 0 ? log2(ratio)
	    : ratio > 0                         ? hi
	                                        : lo;

	l = fmin(hi, fmax(lo, l));
	return LEFT + CHG_LABEL +
	    (l - lo) / (hi - lo) * (WIDTH - LEFT - RIGHT - CHG_LABEL);
}

/* One change's row: its name, its interval, its estimate. */
static void
change_row(FILE *fp, const char *name, const struct stats_change *ch,
    const char *colour_of, double y, double lo, double hi)
{
	char chg[96];

	cmp_format_change(chg, sizeof(chg), ch);
	text(fp, LEFT + CHG_LABEL - 8, y + 4, "end", "", name);
	fprintf(fp,
	    "<g stroke=\"%s\" fill=\"%s\"><title>%s</title>\n"
	    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	    "stroke-width=\"3\"%s/>\n<circle cx=\"%.1f\" cy=\"%.1f\" "
	    "r=\"4\"/></g>\n",
	    colour_of, colour_of, chg, ratio_x(ch->lo, lo, hi), y,
	    ratio_x(ch->hi, lo, hi), y,
	    ch->bounded ? "" : " stroke-dasharray=\"4 3\"",
	    ratio_x(ch->est, lo, hi), y);
}

/* Whether a metric's changes are drawn: as the text report's rows are. */
static int
drawn(const struct cmp *c, const struct cmp_row *row)
{
	return !row->detail && (row->unit != CMP_NS || c->times_ok) &&
	    row->cell[0].present;
}

static double
changes_panel(FILE *fp, const struct cmp *c, const struct gate_verdict *v,
    size_t nv, double y)
{
	static const double tick[] = {0.125, 0.25, 0.5, 0.8, 1, 1.25, 2, 4, 8};
	double lo = -0.5, hi = 0.5, top, base, last = -1e9;
	size_t rows = nv;
	char name[160];

	if (c->nresult < 2)
		return y;
	/* The scale: every bounded end, within 1/8 and 8 times. */
	for (size_t k = 0; k < c->nrow; k++)
		for (size_t i = 1; drawn(c, &c->row[k]) && i < c->nresult;
		     i++) {
			const struct stats_change *ch = &c->row[k].cell[i].ch;

			if (!c->row[k].cell[i].present || !ch->valid)
				continue;
			rows++;
			if (ch->bounded && ch->lo > 0)
				lo = fmin(lo, log2(ch->lo));
			if (ch->bounded)
				hi = fmax(hi, log2(ch->hi));
		}
	lo = fmax(-3, lo - 0.1);
	hi = fmin(3, hi + 0.1);
	text(fp, LEFT, y + 16, "start", "font-weight=\"bold\"",
	    "change against the baseline: estimate (dot) and interval (bar; "
	    "dashed: unbounded), ratio scale");
	top = y + 30;
	base = top + CHG_ROW * (double)rows;
	for (size_t t = 0; t < sizeof(tick) / sizeof(tick[0]); t++) {
		double tx = ratio_x(tick[t], lo, hi);
		char tl[16];

		/* Ticks too close to read apart are left out, but for 0%. */
		if (log2(tick[t]) < lo || log2(tick[t]) > hi ||
		    (tick[t] != 1 && tx - last < 45) ||
		    (tick[t] > 1 && tx - ratio_x(1, lo, hi) < 45))
			continue;
		last = tx;
		fprintf(fp,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"%s\"/>\n",
		    tx, top, tx, base, tick[t] == 1 ? "#888888" : "#dddddd");
		snprintf(tl, sizeof(tl), "%+g%%", (tick[t] - 1) * 100);
		text(fp, tx, base + 16, "middle", "", tl);
	}
	y = top + CHG_ROW / 2.0;
	for (size_t g = 0; g < nv; g++, y += CHG_ROW) {
		double limit = gate_limit_ratio(v[g].gate);
		double lx = ratio_x(limit, lo, hi);

		snprintf(name, sizeof(name), "%s %c: %s", v[g].gate->spec,
		    (int)('A' + v[g].result % 26),
		    gate_outcome_name(v[g].outcome));
		fprintf(fp,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#000000\" stroke-dasharray=\"2 2\"/>\n",
		    lx, y - 8, lx, y + 8);
		change_row(fp, name, &v[g].ch, colour[v[g].result % NCOLOUR], y,
		    lo, hi);
	}
	for (size_t k = 0; k < c->nrow; k++)
		for (size_t i = 1; drawn(c, &c->row[k]) && i < c->nresult;
		     i++) {
			const struct cmp_cell *cell = &c->row[k].cell[i];

			if (!cell->present || !cell->ch.valid)
				continue;
			snprintf(name, sizeof(name), "%s %c", c->row[k].name,
			    (int)('A' + i % 26));
			change_row(fp, name, &cell->ch, colour[i % NCOLOUR], y,
			    lo, hi);
			y += CHG_ROW;
		}
	return base + 40;
}

int
cmp_report_svg(const struct cmp *c, const struct gate_verdict *v, size_t nv,
    FILE *fp, char *err, size_t errlen)
{
	char *body = NULL;
	size_t len = 0;
	double y = 10;
	FILE *mem;

	/* The panels are drawn first: their height sizes the picture. */
	if ((mem = open_memstream(&body, &len)) == NULL) {
		snprintf(err, errlen, "cannot draw the picture: out of memory");
		return -1;
	}
	for (int l = 0; l < CMP_NLAYER; l++)
		y = hist_panel(mem, c, l, y);
	y = class_panel(mem, c, y);
	y = times_panel(mem, c, y);
	y = changes_panel(mem, c, v, nv, y);
	if (fclose(mem) == EOF) {
		free(body);
		snprintf(err, errlen, "cannot draw the picture: out of memory");
		return -1;
	}
	fprintf(fp,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
	    "fill=\"#ffffff\"/>\n",
	    WIDTH, y, WIDTH, y);
	fwrite(body, 1, len, fp);
	fputs("</svg>\n", fp);
	free(body);
	if (ferror(fp)) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	return 0;
}

int
cmp_svg_write(const struct cmp *c, const struct gate_verdict *v, size_t nv,
    const char *path, char *err, size_t errlen)
{
	struct outfile of;
	char why[256];

	if (outfile_open(&of, path, "svg", err, errlen) == -1)
		return -1;
	if (cmp_report_svg(c, v, nv, of.fp, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "cannot write '%s': %s", path, why);
		outfile_abort(&of);
		return -1;
	}
	return outfile_commit(&of, err, errlen);
}
