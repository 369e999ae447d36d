/*
 * report_text.c - the text report, rendered from the result document alone,
 * so that `ubcreplay report r.json` prints what the live run printed.
 *
 * Per run: the csh time line, then per device the operations, bytes and mean
 * transfer size per direction, and the write sizes as a table of buckets with
 * the layers side by side (the workload's write() calls, then what the device
 * saw) and bars for the device. Then a summary over the runs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "nfs_report.h"

#define BAR_WIDTH 32

static int64_t
geti(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static const char *
gets_(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

static void
seconds(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

static void
megabytes(char *buf, size_t len, int64_t bytes)
{
	snprintf(buf, len, "%.1f MB", (double)bytes / 1e6);
}

/* A size_hist object back into a histogram. */
static void
hist_from(const json_t *h, struct hist *out)
{
	const json_t *b;
	size_t i;

	memset(out, 0, sizeof(*out));
	json_array_foreach(json_object_get(h, "buckets"), i, b) {
		uint64_t min = (uint64_t)geti(b, "min_bytes");

		out->count[hist_bucket(min)] += (uint64_t)geti(b, "count");
	}
}

static void
header(json_t *doc, FILE *fp)
{
	const json_t *w = json_object_get(doc, "workload");
	const json_t *p = json_object_get(doc, "probe");
	const json_t *t;
	size_t i;

	fprintf(fp, "ubcreplay %s: %s", gets_(doc, "kind"), gets_(doc, "label"));
	fprintf(fp, "\n");
	if (json_object_get(w, "archive") != NULL)
		fprintf(fp, "archive  %s: %" PRId64 " entries, %.1f MB "
		    "(%s, %s); fsync %s%s\n", gets_(w, "archive"),
		    geti(w, "entries"), (double)geti(w, "bytes") / 1e6,
		    gets_(w, "format"), gets_(w, "filter"), gets_(w, "fsync"),
		    json_is_true(json_object_get(w, "drop_caches")) ?
		    ", caches dropped before each run" : "");
	if (strcmp(gets_(doc, "kind"), "nfs") == 0)
		fprintf(fp, "capture  %s %s, filter '%s', link %s, snaplen %"
		    PRId64 "\n", gets_(w, "source"), gets_(w, "name"),
		    gets_(w, "filter"), gets_(w, "linktype"),
		    geti(w, "snaplen"));
	json_array_foreach(json_object_get(doc, "targets"), i, t) {
		const json_t *d;
		size_t k;

		fprintf(fp, "target   %s: %s (%s) from %s", gets_(t, "path"),
		    gets_(t, "fstype"), gets_(t, "options"),
		    gets_(t, "source"));
		json_array_foreach(json_object_get(t, "devices"), k, d)
			fprintf(fp, "%s%s%s%s", k == 0 ? " [" : ", ",
			    gets_(d, "name"),
			    strcmp(gets_(d, "role"), "fs") != 0 ? " " : "",
			    strcmp(gets_(d, "role"), "fs") != 0 ?
			    gets_(d, "role") : "");
		fprintf(fp, "%s\n",
		    json_array_size(json_object_get(t, "devices")) ? "]" : "");
		if (json_object_get(t, "nodev_reason") != NULL)
			fprintf(fp, "         no device statistics: %s\n",
			    gets_(t, "nodev_reason"));
	}
	fprintf(fp, "probe    %s, %s", gets_(p, "name"),
	    gets_(p, "resolution"));
	if (strcmp(gets_(p, "resolution"), "interval") == 0)
		fprintf(fp, " every %" PRId64 " ms",
		    geti(p, "interval_ns") / 1000000);
	fprintf(fp, ": %s\n", gets_(p, "why"));
}

static void
xfer_line(FILE *fp, const char *dir, const json_t *x)
{
	char mb[32];

	megabytes(mb, sizeof(mb), geti(x, "bytes"));
	fprintf(fp, "  %-5s %9" PRId64 " ops %11s %8.1f KB/t", dir,
	    geti(x, "ops"), mb, (double)geti(x, "mean_bytes") / 1024);
}

/*
 * The bucket table: one row per bucket that any column uses, the columns
 * side by side, a bar for the last one.
 */
static void
bucket_table(FILE *fp, const char *title, const struct hist *cols,
    const char *const *names, size_t ncol)
{
	const struct hist *bar = &cols[ncol - 1];
	uint64_t max = 0;
	unsigned lo = HIST_NBUCKETS, hi = 0;
	char label[16];

	for (unsigned b = 0; b < HIST_NBUCKETS; b++)
		for (size_t c = 0; c < ncol; c++)
			if (cols[c].count[b] != 0) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
	if (lo == HIST_NBUCKETS)
		return;
	for (unsigned b = lo; b <= hi; b++)
		max = bar->count[b] > max ? bar->count[b] : max;
	fprintf(fp, "  %s\n  %6s", title, "size");
	for (size_t c = 0; c < ncol; c++)
		fprintf(fp, " %12s", names[c]);
	fprintf(fp, "\n");
	for (unsigned b = lo; b <= hi; b++) {
		int w = max == 0 ? 0 :
		    (int)((bar->count[b] * BAR_WIDTH + max - 1) / max);

		fprintf(fp, "  %6s", hist_label(b, label, sizeof(label)));
		for (size_t c = 0; c < ncol; c++)
			fprintf(fp, " %12" PRIu64, cols[c].count[b]);
		fprintf(fp, " |%.*s\n", w, "################################");
	}
}

static const char *
hist_title(const json_t *doc)
{
	const json_t *p = json_object_get(doc, "probe");

	return strcmp(gets_(p, "resolution"), "exact") == 0 ?
	    "write sizes (one count per request)" :
	    "write sizes (device column: interval means weighted by "
	    "operations, not single requests)";
}

static void
run_block(json_t *doc, const json_t *run, FILE *fp)
{
	const json_t *phases = json_object_get(run, "phases"), *ph, *d;
	struct hist app, dev[DEVSTATS_MAXDEV];
	const char *names[2] = {"app write()", NULL};
	size_t i, k, ndev = 0;
	char el[32];

	fprintf(fp, "\nrun %-4" PRId64 " %s", geti(run, "run"),
	    gets_(run, "time_line"));
	if (strcmp(gets_(run, "status"), "ok") != 0)
		fprintf(fp, "  [%s: %s]", gets_(run, "status"),
		    gets_(run, "error"));
	fprintf(fp, "\n        ");
	json_array_foreach(phases, i, ph) {
		seconds(el, sizeof(el), geti(ph, "elapsed_ns"));
		fprintf(fp, " %s %s", gets_(ph, "phase"), el);
	}
	fprintf(fp, "\n");

	/* Sum the phases per device: the run as the device saw it. */
	memset(&app, 0, sizeof(app));
	memset(dev, 0, sizeof(dev));
	ph = json_array_get(phases, 0);
	ndev = json_array_size(json_object_get(ph, "devices"));
	if (ndev > DEVSTATS_MAXDEV)
		ndev = DEVSTATS_MAXDEV;
	for (size_t n = 0; n < ndev; n++) {
		int64_t v[2][3] = {{0}}, flushes = 0;
		const char *name = "";

		json_array_foreach(phases, i, ph) {
			struct hist h;

			d = json_array_get(json_object_get(ph, "devices"), n);
			name = gets_(d, "device");
			for (k = 0; k < 2; k++) {
				const json_t *x = json_object_get(d,
				    k == 0 ? "read" : "write");

				v[k][0] += geti(x, "ops");
				v[k][1] += geti(x, "bytes");
			}
			flushes += geti(d, "flushes");
			hist_from(json_object_get(json_object_get(d, "write"),
			    "size_hist"), &h);
			hist_merge(&dev[n], &h);
		}
		fprintf(fp, "  %s\n", name);
		for (k = 0; k < 2; k++) {
			json_t *x = json_pack("{s:I,s:I,s:I}", "ops",
			    (json_int_t)v[k][0], "bytes", (json_int_t)v[k][1],
			    "mean_bytes",
			    (json_int_t)(v[k][0] ? v[k][1] / v[k][0] : 0));

			xfer_line(fp, k == 0 ? "read" : "write", x);
			json_decref(x);
			fprintf(fp, k == 1 ? "   %" PRId64 " flushes\n" : "\n",
			    flushes);
		}
	}
	json_array_foreach(phases, i, ph) {
		struct hist h;

		hist_from(json_object_get(json_object_get(ph, "app_write"),
		    "size_hist"), &h);
		hist_merge(&app, &h);
	}
	for (size_t n = 0; n < ndev; n++) {
		struct hist cols[2] = {app, dev[n]};

		d = json_array_get(json_object_get(json_array_get(phases, 0),
		    "devices"), n);
		names[1] = gets_(d, "device");
		bucket_table(fp, hist_title(doc), cols, names, 2);
	}
	if (ndev == 0) {
		names[1] = "app write()";
		bucket_table(fp, "write sizes", &app, names + 1, 1);
	}
}

/* scale 0: a count, printed as an integer. */
static void
spread_line(FILE *fp, const char *what, const json_t *s, double scale,
    const char *unit)
{
	if (scale == 0)
		fprintf(fp, "  %-24s %10" PRId64 "    [%" PRId64 " .. %" PRId64
		    "]\n", what, geti(s, "median"), geti(s, "min"),
		    geti(s, "max"));
	else
		fprintf(fp, "  %-24s %10.2f %-2s [%.2f .. %.2f]\n", what,
		    (double)geti(s, "median") / scale, unit,
		    (double)geti(s, "min") / scale,
		    (double)geti(s, "max") / scale);
}

static void
summary(json_t *doc, FILE *fp)
{
	const json_t *s = json_object_get(doc, "summary"), *v;
	const char *key;
	char what[64];

	fprintf(fp, "\nsummary over %" PRId64 " run%s (median [min .. max])\n",
	    geti(s, "runs_ok"), geti(s, "runs_ok") == 1 ? "" : "s");
	json_object_foreach((json_t *)json_object_get(s, "phases"), key, v) {
		snprintf(what, sizeof(what), "%s elapsed", key);
		spread_line(fp, what, json_object_get(v, "elapsed_ns"), 1e9,
		    "s");
	}
	json_object_foreach((json_t *)json_object_get(s, "devices"), key, v) {
		const json_t *w = json_object_get(v, "write");

		snprintf(what, sizeof(what), "%s write ops", key);
		spread_line(fp, what, json_object_get(w, "ops"), 0, "");
		snprintf(what, sizeof(what), "%s write bytes", key);
		spread_line(fp, what, json_object_get(w, "bytes"), 1e6, "MB");
		snprintf(what, sizeof(what), "%s write KB/t", key);
		spread_line(fp, what, json_object_get(w, "mean_bytes"), 1024,
		    "KB");
		snprintf(what, sizeof(what), "%s flushes", key);
		spread_line(fp, what, json_object_get(v, "flushes"), 0, "");
	}
}

/* What the devices did outside the runs, so that nothing is hidden. */
static void
between(json_t *doc, FILE *fp)
{
	const json_t *d;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(doc,
	    "between_runs"), "devices"), i, d) {
		const json_t *r = json_object_get(d, "read");
		const json_t *w = json_object_get(d, "write");

		fprintf(fp, "%s  %s: %" PRId64 " reads, %" PRId64 " writes "
		    "(%" PRId64 " bytes), %" PRId64 " flushes\n",
		    i == 0 ? "\noutside the runs (the sync before each run)\n" :
		    "", gets_(d, "device"), geti(r, "ops"), geti(w, "ops"),
		    geti(w, "bytes"), geti(d, "flushes"));
	}
}

void
report_text(json_t *doc, FILE *fp, int quiet)
{
	const json_t *run;
	size_t i;

	header(doc, fp);
	if (strcmp(gets_(doc, "kind"), "nfs") == 0) {
		/* The wire view has no phases: one run, its nfs object. */
		json_array_foreach(json_object_get(doc, "runs"), i, run)
			nfs_report_text(json_object_get(run, "nfs"), fp);
		return;
	}
	if (!quiet)
		json_array_foreach(json_object_get(doc, "runs"), i, run)
			run_block(doc, run, fp);
	between(doc, fp);
	summary(doc, fp);
	if (strcmp(gets_(doc, "status"), "ok") != 0)
		fprintf(fp, "\nstatus: %s\n", gets_(doc, "status"));
}
