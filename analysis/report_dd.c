/*
 * report_dd.c - the text of dd results, rendered from the document alone
 * like the rest of the report: dd's closing lines and the lossage of each
 * run of `ubcreplay dd`, the block-size table of `sweep`, and the source by
 * destination table of `matrix` (docs/json.md says where each figure is).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"

static int64_t
median(const json_t *o, const char *key)
{
	return result_geti(json_object_get(o, key), "median");
}

static void
signed_s(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%+.6f s", (double)ns / 1e9);
}

/* A rate in dd's style, decimal units: "359 MB/s", "1.5 GB/s". */
static void
rate(char *buf, size_t len, int64_t bps)
{
	static const char *unit[] = {"B", "kB", "MB", "GB", "TB"};
	double v = (double)bps;
	int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(
	    buf, len, v < 100 && u > 0 ? "%.1f %s/s" : "%.0f %s/s", v, unit[u]);
}

static void
dd_runs(json_t *doc, FILE *fp)
{
	const json_t *run,
	    *s = json_object_get(json_object_get(doc, "summary"), "dd");
	char a[32], b[32], c[32];
	size_t i;

	fprintf(fp, "\ndd, each run\n");
	json_array_foreach (json_object_get(doc, "runs"), i, run) {
		const json_t *dd = json_object_get(run, "dd");
		const json_t *l = json_object_get(run, "lossage");
		const char *closing = result_gets(dd, "closing");
		const char *nl;

		fprintf(fp, "  run %" PRId64 "\n", result_geti(run, "run"));
		/* dd's own lines, as dd printed them. */
		while (*closing != '\0') {
			nl = strchr(closing, '\n');
			fprintf(fp, "    %.*s\n",
			    nl ? (int)(nl - closing) : (int)strlen(closing),
			    closing);
			closing = nl ? nl + 1 : closing + strlen(closing);
		}
		signed_s(c, sizeof(c), result_geti(l, "realtime_drift_ns"));
		if (strcmp(result_gets(l, "status"), "ok") == 0) {
			signed_s(a, sizeof(a),
			    result_geti(
			        json_object_get(l, "before"), "offset_ns"));
			signed_s(b, sizeof(b),
			    result_geti(
			        json_object_get(l, "after"), "offset_ns"));
			fprintf(fp,
			    "    lossage %+.6f s against %s (offset "
			    "%s before, %s after)\n",
			    (double)result_geti(l, "lossage_ns") / 1e9,
			    result_gets(l, "server"), a, b);
		} else if (strcmp(result_gets(l, "status"), "failed") == 0)
			fprintf(fp, "    lossage unknown: %s\n",
			    result_gets(l, "error"));
		fprintf(fp,
		    "    CLOCK_REALTIME - CLOCK_MONOTONIC over the run: "
		    "%s\n",
		    c);
	}
	if (s == NULL)
		return;
	rate(a, sizeof(a), median(s, "rate_bytes_per_s"));
	fprintf(fp, "  median: copy %.6f s, %s, copy and sync %.6f s",
	    (double)median(s, "copy_ns") / 1e9, a,
	    (double)median(s, "xfer_ns") / 1e9);
	if (json_is_object(json_object_get(s, "lossage_ns"))) {
		signed_s(b, sizeof(b), median(s, "lossage_ns"));
		fprintf(fp, ", lossage %s", b);
	}
	fprintf(fp, "\n");
}

static void
head(json_t *doc, FILE *fp)
{
	const json_t *p = json_object_get(doc, "probe");
	const json_t *t;
	size_t i;

	fprintf(fp, "ubcreplay %s: %s\n", result_gets(doc, "kind"),
	    result_gets(doc, "label"));
	json_array_foreach (json_object_get(doc, "targets"), i, t) {
		const json_t *d;
		size_t k;

		fprintf(fp, "target   %s: %s", result_gets(t, "path"),
		    result_gets(t, "fstype"));
		json_array_foreach (json_object_get(t, "devices"), k, d)
			fprintf(fp, "%s%s", k == 0 ? " [" : ", ",
			    result_gets(d, "name"));
		fprintf(fp, "%s\n",
		    json_array_size(json_object_get(t, "devices")) ? "]" : "");
	}
	fprintf(fp, "probe    %s, %s: %s\n", result_gets(p, "name"),
	    result_gets(p, "resolution"), result_gets(p, "why"));
}

static void
sweep(json_t *doc, FILE *fp)
{
	const json_t *w = json_object_get(doc, "workload"), *sz, *d;
	const json_t *first = json_array_get(json_object_get(doc, "sizes"), 0);
	const char *name, *how, *cold = result_gets(w, "cold");
	size_t i;

	/* Say how the cache was kept out, or that it was not. */
	if (strcmp(cold, "drop_caches") == 0)
		how = json_is_true(json_object_get(w, "iflag_direct"))
		    ? "cold (caches dropped before each run), direct I/O"
		    : "cold (caches dropped before each run), buffered";
	else if (strcmp(cold, "direct") == 0)
		how = "cold (not root: direct I/O, iflag=direct)";
	else if (json_is_true(json_object_get(w, "iflag_direct")))
		how = "direct I/O (iflag=direct): no page cache";
	else
		how = "warm (page cache kept), buffered";
	head(doc, fp);
	fprintf(fp,
	    "sweep    %s -> %s, %" PRId64 " bytes per run, %s, "
	    "%" PRId64 " run%s per size\n\n",
	    result_gets(w, "if"), result_gets(w, "of"),
	    result_geti(w, "size_bytes"), how, result_geti(w, "runs"),
	    result_geti(w, "runs") == 1 ? "" : "s");
	fprintf(fp, "%8s %14s %14s %14s", "BS", "BYTES/S", "MIN", "MAX");
	json_object_foreach ((json_t *)json_object_get(
	                         json_object_get(first, "summary"), "devices"),
	    name, d) {
		char rd[32], wr[32];

		snprintf(rd, sizeof(rd), "%.7s RD", name);
		snprintf(wr, sizeof(wr), "%.7s WR", name);
		fprintf(fp, " %10s %7s %10s %7s", rd, "KB/t", wr, "KB/t");
	}
	fprintf(fp, "\n");
	json_array_foreach (json_object_get(doc, "sizes"), i, sz) {
		const json_t *s = json_object_get(sz, "summary");
		const json_t *r = json_object_get(
		    json_object_get(s, "dd"), "rate_bytes_per_s");

		fprintf(fp,
		    "%8" PRId64 " %14" PRId64 " %14" PRId64 " %14" PRId64,
		    result_geti(sz, "bs_bytes"), result_geti(r, "median"),
		    result_geti(r, "min"), result_geti(r, "max"));
		json_object_foreach (
		    (json_t *)json_object_get(s, "devices"), name, d) {
			const json_t *rd = json_object_get(d, "read");
			const json_t *wr = json_object_get(d, "write");

			fprintf(fp, " %10" PRId64 " %7.1f %10" PRId64 " %7.1f",
			    median(rd, "ops"),
			    (double)median(rd, "mean_bytes") / 1024,
			    median(wr, "ops"),
			    (double)median(wr, "mean_bytes") / 1024);
		}
		if (result_geti(s, "runs_ok") == 0)
			fprintf(fp, "  (no run ok)");
		fprintf(fp, "\n");
	}
	fprintf(fp,
	    "\nBYTES/S: bytes copied over the copy phase's time (dd's "
	    "own); device columns: requests per run (median) and their mean "
	    "size, %s\n",
	    strcmp(result_gets(json_object_get(doc, "probe"), "resolution"),
	        "exact") == 0
	        ? "per request"
	        : "from interval "
	          "counters");
}

static void
matrix(json_t *doc, FILE *fp)
{
	const json_t *w = json_object_get(doc, "workload"), *pr;
	char t[32], r[32], l[32], d[32];
	size_t i;

	fprintf(fp, "ubcreplay matrix: %s\n", result_gets(doc, "label"));
	fprintf(fp,
	    "matrix   bs=%" PRId64 ", %" PRId64 " bytes per run, "
	    "%" PRId64 " run%s per pair%s%s\n\n",
	    result_geti(w, "bs_bytes"), result_geti(w, "size_bytes"),
	    result_geti(w, "runs"), result_geti(w, "runs") == 1 ? "" : "s",
	    json_is_string(json_object_get(w, "ntp"))
	        ? ", lossage against "
	        : ", no NTP server: lossage not measured",
	    json_is_string(json_object_get(w, "ntp")) ? result_gets(w, "ntp")
	                                              : "");
	fprintf(fp, "%-22s %-22s %11s %11s %13s %13s\n", "DD FROM", "TO",
	    "XFER TIME", "RATE", "LOSSAGE", "RT-MONO");
	json_array_foreach (json_object_get(doc, "pairs"), i, pr) {
		const json_t *s =
		    json_object_get(json_object_get(pr, "summary"), "dd");

		fprintf(fp, "%-22s %-22s", result_gets(pr, "from"),
		    result_gets(pr, "to"));
		if (json_is_string(json_object_get(pr, "skipped"))) {
			fprintf(
			    fp, " (skipped: %s)\n", result_gets(pr, "skipped"));
			continue;
		}
		if (result_geti(json_object_get(pr, "summary"), "runs_ok") ==
		    0) {
			fprintf(
			    fp, " (failed: %s)\n", result_gets(pr, "error"));
			continue;
		}
		snprintf(
		    t, sizeof(t), "%.3f s", (double)median(s, "xfer_ns") / 1e9);
		rate(r, sizeof(r), median(s, "rate_bytes_per_s"));
		if (json_is_object(json_object_get(s, "lossage_ns")))
			signed_s(l, sizeof(l), median(s, "lossage_ns"));
		else
			snprintf(l, sizeof(l), "-");
		signed_s(d, sizeof(d), median(s, "realtime_drift_ns"));
		fprintf(fp, " %11s %11s %13s %13s\n", t, r, l, d);
	}
	fprintf(fp,
	    "\nXFER TIME: copy and sync of the destination (median); "
	    "RATE: dd's own (bytes over the copy's time); LOSSAGE: change of "
	    "the clock's offset against the NTP server over the run, positive "
	    "when the clock lost time; RT-MONO: CLOCK_REALTIME's advance less "
	    "CLOCK_MONOTONIC's\n");
}

int
report_dd_text(json_t *doc, FILE *fp, int part)
{
	const char *kind = result_gets(doc, "kind");

	if (part == REPORT_DD_TABLES && strcmp(kind, "sweep") == 0)
		sweep(doc, fp);
	else if (part == REPORT_DD_TABLES && strcmp(kind, "matrix") == 0)
		matrix(doc, fp);
	else if (part == REPORT_DD_RUNS && strcmp(kind, "dd") == 0)
		dd_runs(doc, fp);
	else
		return 0;
	return 1;
}
