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

static void
hist_from(const json_t *h, struct hist *out)
{
	result_hist_from_json(h, "min_bytes", out);
}

/*
 * The guest the result was measured in (`ubcreplay vm`), and what that
 * means for its times.
 */
static void
vm_line(json_t *doc, FILE *fp)
{
	const json_t *vm = json_object_get(doc, "vm");

	if (!json_is_object(vm))
		return;
	fprintf(fp,
	    "vm       kernel %s, accel %s, %" PRId64 " cpus, %" PRId64
	    " MiB, booted in %.2f s\n",
	    result_gets(vm, "kernel_release"), result_gets(vm, "accel"),
	    result_geti(vm, "cpus"), result_geti(vm, "mem_mib"),
	    (double)result_geti(vm, "boot_ns") / 1e9);
	if (strcmp(result_gets(vm, "accel"), "uml") == 0)
		fprintf(fp,
		    "         the elapsed times are simulated (UML "
		    "time-travel): not comparable with QEMU or bare metal\n");
	else if (strcmp(result_gets(vm, "accel"), "kvm") != 0)
		fprintf(fp,
		    "         the elapsed times are emulated (%s): not "
		    "comparable with KVM or bare metal\n",
		    result_gets(vm, "accel"));
	if (result_geti(vm, "parallel_guests") > 1)
		fprintf(fp,
		    "         %" PRId64 " guests ran in parallel: their times "
		    "are not comparable\n",
		    result_geti(vm, "parallel_guests"));
}

static void
header(json_t *doc, FILE *fp)
{
	const json_t *w = json_object_get(doc, "workload");
	const json_t *p = json_object_get(doc, "probe");
	const json_t *t;
	size_t i;

	fprintf(fp, "ubcreplay %s: %s", result_gets(doc, "kind"),
	    result_gets(doc, "label"));
	fprintf(fp, "\n");
	if (json_object_get(w, "archive") != NULL)
		fprintf(fp,
		    "archive  %s: %" PRId64 " entries, %.1f MB "
		    "(%s, %s); fsync %s%s\n",
		    result_gets(w, "archive"), result_geti(w, "entries"),
		    (double)result_geti(w, "bytes") / 1e6,
		    result_gets(w, "format"), result_gets(w, "filter"),
		    result_gets(w, "fsync"),
		    json_is_true(json_object_get(w, "drop_caches"))
		        ? ", caches dropped before each run"
		        : "");
	if (strcmp(result_gets(doc, "kind"), "nfs") == 0)
		fprintf(fp,
		    "capture  %s %s, filter '%s', link %s, snaplen %" PRId64
		    "\n",
		    result_gets(w, "source"), result_gets(w, "name"),
		    result_gets(w, "filter"), result_gets(w, "linktype"),
		    result_geti(w, "snaplen"));
	json_array_foreach (json_object_get(doc, "targets"), i, t) {
		const json_t *d;
		size_t k;

		fprintf(fp, "target   %s: %s (%s) from %s",
		    result_gets(t, "path"), result_gets(t, "fstype"),
		    result_gets(t, "options"), result_gets(t, "source"));
		json_array_foreach (json_object_get(t, "devices"), k, d)
			fprintf(fp, "%s%s%s%s", k == 0 ? " [" : ", ",
			    result_gets(d, "name"),
			    strcmp(result_gets(d, "role"), "fs") != 0 ? " "
			                                              : "",
			    strcmp(result_gets(d, "role"), "fs") != 0
			        ? result_gets(d, "role")
			        : "");
		fprintf(fp, "%s\n",
		    json_array_size(json_object_get(t, "devices")) ? "]" : "");
		if (json_object_get(t, "nodev_reason") != NULL)
			fprintf(fp, "         no device statistics: %s\n",
			    result_gets(t, "nodev_reason"));
	}
	fprintf(fp, "probe    %s, %s", result_gets(p, "name"),
	    result_gets(p, "resolution"));
	if (strcmp(result_gets(p, "resolution"), "interval") == 0)
		fprintf(fp, " every %" PRId64 " ms",
		    result_geti(p, "interval_ns") / 1000000);
	fprintf(fp, ": %s\n", result_gets(p, "why"));
	vm_line(doc, fp);
}

static void
xfer_line(FILE *fp, const char *dir, const json_t *x)
{
	char mb[32];

	megabytes(mb, sizeof(mb), result_geti(x, "bytes"));
	fprintf(fp, "  %-5s %9" PRId64 " ops %11s %8.1f KB/t", dir,
	    result_geti(x, "ops"), mb,
	    (double)result_geti(x, "mean_bytes") / 1024);
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
		int w = max == 0
		    ? 0
		    : (int)((bar->count[b] * BAR_WIDTH + max - 1) / max);

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

	return strcmp(result_gets(p, "resolution"), "exact") == 0
	    ? "write sizes (one count per request)"
	    : "write sizes (device column: interval means weighted by "
	      "operations, not single requests)";
}

/* Sums key over the phases' device n, in direction dir (NULL: the device). */
static int64_t
phase_sum(const json_t *phases, size_t n, const char *dir, const char *key)
{
	const json_t *ph;
	int64_t v = 0;
	size_t i;

	json_array_foreach (phases, i, ph) {
		const json_t *d =
		    json_array_get(json_object_get(ph, "devices"), n);

		v +=
		    result_geti(dir != NULL ? json_object_get(d, dir) : d, key);
	}
	return v;
}

static void
phase_hist(const json_t *phases, size_t n, const char *dir, const char *key,
    const char *minkey, struct hist *out)
{
	const json_t *ph;
	size_t i;

	memset(out, 0, sizeof(*out));
	json_array_foreach (phases, i, ph) {
		const json_t *d =
		    json_array_get(json_object_get(ph, "devices"), n);
		struct hist h;

		result_hist_from_json(
		    json_object_get(
		        dir != NULL ? json_object_get(d, dir) : d, key),
		    minkey, &h);
		hist_merge(out, &h);
	}
}

static const char *
nslabel(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
	else if (ns < 1000000000)
		snprintf(buf, len, "%" PRIu64 "ms", ns / 1000000);
	else
		snprintf(buf, len, "%.0fs", (double)ns / 1e9);
	return buf;
}

/*
 * The size x latency table of the write requests: a row per size bucket, a
 * column per latency bucket, counts of requests.
 */
static void
latency_table(FILE *fp, const json_t *phases, size_t n)
{
	static uint64_t cell[HIST_NBUCKETS][HIST_NBUCKETS];
	unsigned rlo = HIST_NBUCKETS, rhi = 0, clo = HIST_NBUCKETS, chi = 0;
	const json_t *ph, *c;
	char label[16];
	size_t i, k;

	memset(cell, 0, sizeof(cell));
	json_array_foreach (phases, i, ph) {
		const json_t *w = json_object_get(
		    json_array_get(json_object_get(ph, "devices"), n), "write");

		json_array_foreach (json_object_get(w, "lat_by_size"), k, c) {
			unsigned r =
			    hist_bucket((uint64_t)result_geti(c, "min_bytes"));
			unsigned l =
			    hist_bucket((uint64_t)result_geti(c, "min_ns"));

			cell[r][l] += (uint64_t)result_geti(c, "count");
			rlo = r < rlo ? r : rlo;
			rhi = r > rhi ? r : rhi;
			clo = l < clo ? l : clo;
			chi = l > chi ? l : chi;
		}
	}
	if (rlo == HIST_NBUCKETS)
		return;
	fprintf(fp,
	    "  write latency, issue to completion (requests by size "
	    "and time)\n  %6s",
	    "size");
	for (unsigned l = clo; l <= chi; l++)
		fprintf(fp, " %6s",
		    l == 0 ? "<1us"
		           : nslabel(hist_bucket_min(l), label, sizeof(label)));
	fprintf(fp, "\n");
	for (unsigned r = rlo; r <= rhi; r++) {
		fprintf(fp, "  %6s", hist_label(r, label, sizeof(label)));
		for (unsigned l = clo; l <= chi; l++)
			fprintf(fp, " %6" PRIu64, cell[r][l]);
		fprintf(fp, "\n");
	}
}

/* What only the exact probe sees: merging, sequentiality, flushes, latency. */
static void
exact_block(FILE *fp, const json_t *phases, size_t n, const char *counters)
{
	int64_t ops = phase_sum(phases, n, "write", "ops");
	int64_t bios = phase_sum(phases, n, "write", "bios");
	int64_t splits = phase_sum(phases, n, "write", "splits");
	int64_t seq = phase_sum(phases, n, "write", "seq_ops");
	int64_t flushes = phase_sum(phases, n, NULL, "flushes");
	int64_t lost = phase_sum(phases, n, NULL, "lost_events");
	int64_t ep = phase_sum(phases, n, NULL, "empty_preflush");
	struct hist runs, lat;
	unsigned longest = 0, b;
	char label[16];
	const json_t *ph;
	size_t i;
	int has_kern = 0;
	int64_t kw = 0, kf = 0;

	phase_hist(phases, n, "write", "seq_run_hist", "min_requests", &runs);
	for (b = 0; b < HIST_NBUCKETS; b++)
		if (runs.count[b] != 0)
			longest = b;
	fprintf(fp,
	    "  write: %" PRId64 " bios into %" PRId64
	    " requests (%.2f bios per request, %" PRId64
	    " splits); %.1f%% sequential, %" PRIu64
	    " runs, longest %s+ requests\n",
	    bios, ops, ops ? (double)bios / (double)ops : 0.0, splits,
	    ops ? 100.0 * (double)seq / (double)ops : 0.0, hist_total(&runs),
	    hist_label(longest, label, sizeof(label)));
	fprintf(fp,
	    "  flushes: %" PRId64 " issued; FUA: %" PRId64 " requests (%" PRId64
	    " bios asked); preflush: %" PRId64 " data bios, %" PRId64
	    " empty\n",
	    flushes, phase_sum(phases, n, "write", "fua"),
	    phase_sum(phases, n, "write", "bio_fua"),
	    phase_sum(phases, n, "write", "bio_preflush"), ep);
	json_array_foreach (phases, i, ph) {
		const json_t *d =
		    json_array_get(json_object_get(ph, "devices"), n);
		char a[16], z[16];

		if (result_geti(d, "flushes") > 0)
			fprintf(fp,
			    "    %s: %" PRId64 " flushes, first at %s, "
			    "last at %s\n",
			    result_gets(ph, "phase"), result_geti(d, "flushes"),
			    nslabel((uint64_t)result_geti(d, "flush_first_ns"),
			        a, sizeof(a)),
			    nslabel((uint64_t)result_geti(d, "flush_last_ns"),
			        z, sizeof(z)));
		if (json_object_get(d, "diskstats") != NULL) {
			const json_t *k = json_object_get(d, "diskstats");

			has_kern = 1;
			kw += result_geti(k, "write_ops");
			kf += result_geti(k, "flushes");
		}
	}
	phase_hist(phases, n, "write", "lat_hist", "min_ns", &lat);
	latency_table(fp, phases, n);
	/* Reconcile with the kernel's own counters, and say when they differ.
	 */
	if (has_kern) {
		int ok = kw == ops + ep && kf == flushes;

		fprintf(fp,
		    "  %s: %" PRId64 " write ops %s %" PRId64
		    " requests + %" PRId64 " empty preflush writes; %" PRId64
		    " flushes %s %" PRId64 "%s\n",
		    counters, kw, kw == ops + ep ? "=" : "!=", ops, ep, kf,
		    kf == flushes ? "=" : "!=", flushes,
		    ok ? ""
		       : " (requests in flight at a phase boundary, "
		         "or lost events)");
	}
	if (lost > 0)
		fprintf(fp,
		    "  LOST EVENTS: %" PRId64 " (the exact counts are "
		    "low by about that many events)\n",
		    lost);
}

static void
run_block(json_t *doc, const json_t *run, FILE *fp)
{
	const json_t *phases = json_object_get(run, "phases"), *ph, *d;
	struct hist app, dev[DEVSTATS_MAXDEV], bios[DEVSTATS_MAXDEV];
	const char *names[3] = {"app write()", "bios", NULL};
	int exact, seen = 1;
	size_t i, k, ndev = 0;
	char el[32];

	fprintf(fp, "\nrun %-4" PRId64 " %s", result_geti(run, "run"),
	    result_gets(run, "time_line"));
	if (strcmp(result_gets(run, "status"), "ok") != 0)
		fprintf(fp, "  [%s: %s]", result_gets(run, "status"),
		    result_gets(run, "error"));
	fprintf(fp, "\n        ");
	json_array_foreach (phases, i, ph) {
		seconds(el, sizeof(el), result_geti(ph, "elapsed_ns"));
		fprintf(fp, " %s %s", result_gets(ph, "phase"), el);
	}
	fprintf(fp, "\n");

	/* Sum the phases per device: the run as the device saw it. */
	memset(&app, 0, sizeof(app));
	memset(dev, 0, sizeof(dev));
	memset(bios, 0, sizeof(bios));
	ph = json_array_get(phases, 0);
	ndev = json_array_size(json_object_get(ph, "devices"));
	/* An exact probe saw the bios too: a column of their own. */
	exact =
	    json_object_get(
	        json_object_get(
	            json_array_get(json_object_get(ph, "devices"), 0), "write"),
	        "bios") != NULL;
	if (ndev > DEVSTATS_MAXDEV)
		ndev = DEVSTATS_MAXDEV;
	for (size_t n = 0; n < ndev; n++) {
		int64_t v[2][3] = {{0}}, flushes = 0;
		const char *name = "";

		json_array_foreach (phases, i, ph) {
			struct hist h;

			d = json_array_get(json_object_get(ph, "devices"), n);
			name = result_gets(d, "device");
			for (k = 0; k < 2; k++) {
				const json_t *x = json_object_get(
				    d, k == 0 ? "read" : "write");

				v[k][0] += result_geti(x, "ops");
				v[k][1] += result_geti(x, "bytes");
			}
			flushes += result_geti(d, "flushes");
			hist_from(json_object_get(
			              json_object_get(d, "write"), "size_hist"),
			    &h);
			hist_merge(&dev[n], &h);
			hist_from(json_object_get(json_object_get(d, "write"),
			              "bio_size_hist"),
			    &h);
			hist_merge(&bios[n], &h);
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
	json_array_foreach (phases, i, ph) {
		const json_t *aw = json_object_get(ph, "app_write");
		struct hist h;

		seen &= aw != NULL;
		hist_from(json_object_get(aw, "size_hist"), &h);
		hist_merge(&app, &h);
	}
	/*
	 * A command's write() calls are not seen (its phase has no app_write):
	 * no column of zeros.
	 */
	for (size_t n = 0; n < ndev; n++) {
		struct hist cols[3] = {app, bios[n], dev[n]};

		d = json_array_get(
		    json_object_get(json_array_get(phases, 0), "devices"), n);
		if (exact) {
			names[2] = result_gets(d, "device");
			bucket_table(fp,
			    seen ? "write sizes per layer (write() calls, "
			           "bios submitted, device requests)"
			         : "write sizes per layer (bios submitted, "
			           "device requests)",
			    cols + !seen, names + !seen, 3 - !seen);
			/* The kernel's own counters: NetBSD's, or Linux's. */
			exact_block(fp, phases, n,
			    json_object_get(doc, "netbsd") != NULL
			        ? "hw.iostats"
			        : "diskstats");
		} else {
			cols[1] = dev[n];
			names[1] = result_gets(d, "device");
			bucket_table(fp, hist_title(doc), cols + !seen,
			    names + !seen, 2 - !seen);
		}
	}
	if (ndev == 0 && seen) {
		names[1] = "app write()";
		bucket_table(fp, "write sizes", &app, names + 1, 1);
	}
	report_attrib_text(run, fp);
}

/* scale 0: a count, printed as an integer. */
static void
spread_line(
    FILE *fp, const char *what, const json_t *s, double scale, const char *unit)
{
	if (scale == 0)
		fprintf(fp,
		    "  %-24s %10" PRId64 "    [%" PRId64 " .. %" PRId64 "]\n",
		    what, result_geti(s, "median"), result_geti(s, "min"),
		    result_geti(s, "max"));
	else
		fprintf(fp, "  %-24s %10.2f %-2s [%.2f .. %.2f]\n", what,
		    (double)result_geti(s, "median") / scale, unit,
		    (double)result_geti(s, "min") / scale,
		    (double)result_geti(s, "max") / scale);
}

static void
summary(json_t *doc, FILE *fp)
{
	const json_t *s = json_object_get(doc, "summary"), *v;
	const char *key;
	char what[64];

	fprintf(fp, "\nsummary over %" PRId64 " run%s (median [min .. max])\n",
	    result_geti(s, "runs_ok"),
	    result_geti(s, "runs_ok") == 1 ? "" : "s");
	json_object_foreach ((json_t *)json_object_get(s, "phases"), key, v) {
		snprintf(what, sizeof(what), "%s elapsed", key);
		spread_line(
		    fp, what, json_object_get(v, "elapsed_ns"), 1e9, "s");
	}
	json_object_foreach ((json_t *)json_object_get(s, "devices"), key, v) {
		const json_t *w = json_object_get(v, "write");

		snprintf(what, sizeof(what), "%s write ops", key);
		spread_line(fp, what, json_object_get(w, "ops"), 0, "");
		snprintf(what, sizeof(what), "%s write bytes", key);
		spread_line(fp, what, json_object_get(w, "bytes"), 1e6, "MB");
		snprintf(what, sizeof(what), "%s write KB/t", key);
		spread_line(
		    fp, what, json_object_get(w, "mean_bytes"), 1024, "KB");
		snprintf(what, sizeof(what), "%s flushes", key);
		spread_line(fp, what, json_object_get(v, "flushes"), 0, "");
		if (json_object_get(w, "bios") != NULL) {
			snprintf(what, sizeof(what), "%s write bios", key);
			spread_line(
			    fp, what, json_object_get(w, "bios"), 0, "");
			snprintf(what, sizeof(what), "%s sequential", key);
			spread_line(
			    fp, what, json_object_get(w, "seq_ops"), 0, "");
		}
		if (result_geti(json_object_get(v, "lost_events"), "max") > 0) {
			snprintf(what, sizeof(what), "%s LOST EVENTS", key);
			spread_line(
			    fp, what, json_object_get(v, "lost_events"), 0, "");
		}
	}
}

/* What the devices did outside the runs, so that nothing is hidden. */
static void
between(json_t *doc, FILE *fp)
{
	const json_t *d;
	size_t i;

	json_array_foreach (
	    json_object_get(json_object_get(doc, "between_runs"), "devices"), i,
	    d) {
		const json_t *r = json_object_get(d, "read");
		const json_t *w = json_object_get(d, "write");

		fprintf(fp,
		    "%s  %s: %" PRId64 " reads, %" PRId64 " writes "
		    "(%" PRId64 " bytes), %" PRId64 " flushes\n",
		    i > 0 ? ""
		        : json_object_get(doc, "netbsd") != NULL
		        ? "\noutside the runs (each run's kernel mounting "
		          "and unmounting the image)\n"
		        : "\noutside the runs (the sync before each run)\n",
		    result_gets(d, "device"), result_geti(r, "ops"),
		    result_geti(w, "ops"), result_geti(w, "bytes"),
		    result_geti(d, "flushes"));
	}
}

/* Run i of doc's own runs, a new reference. */
static json_t *
doc_run(void *doc, size_t i)
{
	return json_incref(json_array_get(json_object_get(doc, "runs"), i));
}

void
report_text(json_t *doc, FILE *fp, int quiet)
{
	report_text_from(doc, doc_run, doc, fp, quiet);
}

void
report_text_from(json_t *doc, json_t *(*get)(void *arg, size_t i), void *arg,
    FILE *fp, int quiet)
{
	json_t *run;

	/* A sweep or a matrix is a table of transfers, not runs. */
	if (report_dd_text(doc, fp, REPORT_DD_TABLES))
		return;
	header(doc, fp);
	if (strcmp(result_gets(doc, "kind"), "nfs") == 0) {
		/* The wire view has no phases: one run, its nfs object. */
		for (size_t i = 0; (run = get(arg, i)) != NULL; i++) {
			nfs_report_text(json_object_get(run, "nfs"), fp);
			json_decref(run);
		}
		return;
	}
	for (size_t i = 0; !quiet && (run = get(arg, i)) != NULL; i++) {
		run_block(doc, run, fp);
		/* The run's NFS traffic (--nfs-iface) under it. */
		if (json_object_get(run, "nfs") != NULL) {
			fprintf(fp, "  on the wire\n");
			nfs_report_text(json_object_get(run, "nfs"), fp);
		}
		json_decref(run);
	}
	if (!quiet)
		report_dd_text(doc, fp, REPORT_DD_RUNS);
	between(doc, fp);
	summary(doc, fp);
	if (strcmp(result_gets(doc, "status"), "ok") != 0)
		fprintf(fp, "\nstatus: %s\n", result_gets(doc, "status"));
}
