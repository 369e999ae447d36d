/*
 * result.c - the result of one invocation as JSON (docs/json.md): built
 * after the work is done, written atomically, read back with checks.
 */
#include <sys/stat.h>
#include <sys/utsname.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "../model/infile.h"
#include "../model/outfile.h"

static const char *const dirname_[DIR_N] = {"read", "write"};

json_t *
result_hist_json(const struct hist *h, const char *kind)
{
	json_t *buckets = json_array();

	for (unsigned b = 0; b < HIST_NBUCKETS; b++)
		if (h->count[b] != 0)
			json_array_append_new(buckets,
			    json_pack("{s:I,s:I}", "min_bytes",
			        (json_int_t)hist_bucket_min(b), "count",
			        (json_int_t)h->count[b]));
	return json_pack("{s:s,s:o}", "kind", kind, "buckets", buckets);
}

void
result_hist_from_json(const json_t *h, const char *minkey, struct hist *out)
{
	const json_t *b;
	size_t i;

	memset(out, 0, sizeof(*out));
	json_array_foreach (json_object_get(h, "buckets"), i, b) {
		uint64_t min = (uint64_t)result_geti(b, minkey);

		out->count[hist_bucket(min)] +=
		    (uint64_t)result_geti(b, "count");
	}
}

static json_int_t
mean(uint64_t bytes, uint64_t ops)
{
	return ops == 0 ? 0 : (json_int_t)(bytes / ops);
}

/* A histogram of something other than bytes: its bounds named by unit. */
static json_t *
hist_unit_json(const struct hist *h, const char *minkey)
{
	json_t *buckets = json_array();

	for (unsigned b = 0; b < HIST_NBUCKETS; b++)
		if (h->count[b] != 0)
			json_array_append_new(buckets,
			    json_pack("{s:I,s:I}", minkey,
			        (json_int_t)hist_bucket_min(b), "count",
			        (json_int_t)h->count[b]));
	return json_pack("{s:s,s:o}", "kind", "exact", "buckets", buckets);
}

/* The size x latency table as a list of its non-empty cells. */
static json_t *
lat_by_size_json(const struct xfer *x)
{
	json_t *cells = json_array();

	for (unsigned r = 0; r < DEVSTATS_LAT_ROWS; r++)
		for (unsigned c = 0; c < DEVSTATS_LAT_COLS; c++)
			if (x->lat_by_size[r][c] != 0)
				json_array_append_new(cells,
				    json_pack("{s:I,s:I,s:I}", "min_bytes",
				        (json_int_t)hist_bucket_min(r),
				        "min_ns",
				        (json_int_t)(c == 0
				                ? 0
				                : hist_bucket_min(
				                      c + DEVSTATS_LAT_COL0)),
				        "count",
				        (json_int_t)x->lat_by_size[r][c]));
	return cells;
}

static json_t *
xfer_json(const struct xfer *x, const char *kind, int exact)
{
	json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:o}", "ops",
	    (json_int_t)x->ops, "bytes", (json_int_t)x->bytes, "mean_bytes",
	    mean(x->bytes, x->ops), "merges", (json_int_t)x->merges, "time_ns",
	    (json_int_t)x->time_ns, "size_hist",
	    result_hist_json(&x->size, kind));

	if (o != NULL && exact) {
		/* The exact probe's layers and timings (docs/json.md). */
		json_object_set_new(
		    o, "bios", json_integer((json_int_t)x->bios));
		json_object_set_new(
		    o, "splits", json_integer((json_int_t)x->splits));
		json_object_set_new(
		    o, "bio_bytes", json_integer((json_int_t)x->bio_bytes));
		json_object_set_new(o, "bio_size_hist",
		    result_hist_json(&x->bio_size, "exact"));
		json_object_set_new(o, "bio_preflush",
		    json_integer((json_int_t)x->bio_preflush));
		json_object_set_new(
		    o, "bio_fua", json_integer((json_int_t)x->bio_fua));
		json_object_set_new(o, "fua", json_integer((json_int_t)x->fua));
		json_object_set_new(
		    o, "seq_ops", json_integer((json_int_t)x->seq_ops));
		json_object_set_new(o, "seq_run_hist",
		    hist_unit_json(&x->seq_runs, "min_requests"));
		json_object_set_new(
		    o, "lat_hist", hist_unit_json(&x->lat, "min_ns"));
		json_object_set_new(o, "lat_by_size", lat_by_size_json(x));
	}
	return o;
}

static json_t *
device_json(const char *name, const struct devstats *d, const char *kind)
{
	json_t *o = json_pack("{s:s,s:o,s:o,s:I,s:I,s:I,s:I}", "device", name,
	    "read", xfer_json(&d->xfer[DIR_READ], kind, d->exact), "write",
	    xfer_json(&d->xfer[DIR_WRITE], kind, d->exact), "flushes",
	    (json_int_t)d->flushes, "discards", (json_int_t)d->discards,
	    "discard_bytes", (json_int_t)d->discard_bytes, "busy_ns",
	    (json_int_t)d->busy_ns);

	if (o == NULL || !d->exact)
		return o;
	json_object_set_new(
	    o, "empty_preflush", json_integer((json_int_t)d->empty_preflush));
	json_object_set_new(
	    o, "lost_events", json_integer((json_int_t)d->lost_events));
	json_object_set_new(
	    o, "flush_first_ns", json_integer((json_int_t)d->flush_first_ns));
	json_object_set_new(
	    o, "flush_last_ns", json_integer((json_int_t)d->flush_last_ns));
	json_object_set_new(
	    o, "flush_gap_hist", hist_unit_json(&d->flush_gap, "min_ns"));
	if (d->has_kern)
		json_object_set_new(o, "diskstats",
		    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "read_ops",
		        (json_int_t)d->kern_ops[DIR_READ], "read_bytes",
		        (json_int_t)d->kern_bytes[DIR_READ], "read_merges",
		        (json_int_t)d->kern_merges[DIR_READ], "write_ops",
		        (json_int_t)d->kern_ops[DIR_WRITE], "write_bytes",
		        (json_int_t)d->kern_bytes[DIR_WRITE], "write_merges",
		        (json_int_t)d->kern_merges[DIR_WRITE], "flushes",
		        (json_int_t)d->kern_flushes));
	return o;
}

/* The names of the devices, in order, over every target. */
static const char *
devname_at(const struct result *r, size_t i)
{
	for (size_t t = 0; t < r->ntarget; t++) {
		if (i < r->targets[t].ndev)
			return r->targets[t].dev[i].name;
		i -= r->targets[t].ndev;
	}
	return "?";
}

static size_t
ndevices(const struct result *r)
{
	size_t n = 0;

	for (size_t t = 0; t < r->ntarget; t++)
		n += r->targets[t].ndev;
	return n;
}

static const char *
size_kind(const struct result *r)
{
	return r->probe != NULL && r->probe->ops->resolution == PROBE_EXACT
	    ? "exact"
	    : "interval_mean";
}

/* One direction's transfers by class, every class in enum order. */
static json_t *
attrib_dir_json(const struct layout_attrib *a)
{
	json_t *cls = json_object();

	for (int c = 0; c < LAYOUT_NCLASS; c++) {
		const struct layout_xfer *x = &a->cls[c];

		json_object_set_new(cls, layout_class_name(c),
		    json_pack("{s:I,s:I,s:I,s:o}", "ops", (json_int_t)x->ops,
		        "bytes", (json_int_t)x->bytes, "mean_bytes",
		        mean(x->bytes, x->ops), "size_hist",
		        result_hist_json(&x->size, "exact")));
	}
	return json_pack(
	    "{s:I,s:o}", "mixed", (json_int_t)a->mixed, "classes", cls);
}

static json_t *
attrib_json(const struct phase_attrib *a)
{
	if (a == NULL)
		return NULL;
	if (!a->ok)
		return json_pack(
		    "{s:s,s:s}", "device", a->device, "error", a->why);
	return json_pack("{s:s,s:s,s:s,s:I,s:o,s:o}", "device", a->device,
	    "layout", a->source, "note", a->note, "dropped",
	    (json_int_t)a->dropped, "read", attrib_dir_json(&a->dir[DIR_READ]),
	    "write", attrib_dir_json(&a->dir[DIR_WRITE]));
}

static void
attrib_dir_from(const json_t *o, struct layout_attrib *a)
{
	const json_t *cls = json_object_get(o, "classes");

	a->mixed = (uint64_t)result_geti(o, "mixed");
	for (int c = 0; c < LAYOUT_NCLASS; c++) {
		const json_t *x = json_object_get(cls, layout_class_name(c));

		a->cls[c].ops = (uint64_t)result_geti(x, "ops");
		a->cls[c].bytes = (uint64_t)result_geti(x, "bytes");
		result_hist_from_json(json_object_get(x, "size_hist"),
		    "min_bytes", &a->cls[c].size);
	}
}

struct phase_attrib *
result_attrib_from_json(const json_t *o)
{
	struct phase_attrib *a;

	if (!json_is_object(o) || (a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	snprintf(a->device, sizeof(a->device), "%s", result_gets(o, "device"));
	if (json_object_get(o, "error") != NULL) {
		snprintf(a->why, sizeof(a->why), "%s", result_gets(o, "error"));
		return a;
	}
	a->ok = 1;
	snprintf(a->source, sizeof(a->source), "%s", result_gets(o, "layout"));
	snprintf(a->note, sizeof(a->note), "%s", result_gets(o, "note"));
	a->dropped = (uint64_t)result_geti(o, "dropped");
	attrib_dir_from(json_object_get(o, "read"), &a->dir[DIR_READ]);
	attrib_dir_from(json_object_get(o, "write"), &a->dir[DIR_WRITE]);
	return a;
}

static json_t *
phase_json(const struct result *r, const struct phase_result *p)
{
	json_t *devs = json_array(), *app;

	for (size_t i = 0; i < p->ndev; i++)
		json_array_append_new(devs,
		    device_json(devname_at(r, i), &p->dev[i], size_kind(r)));
	/* A command's own calls are not seen: no layer, rather than zeros. */
	app = p->app_unseen
	    ? NULL
	    : json_pack("{s:I,s:I,s:I,s:o}", "ops", (json_int_t)p->app_ops,
	          "bytes", (json_int_t)p->app_bytes, "mean_bytes",
	          mean(p->app_bytes, p->app_ops), "size_hist",
	          result_hist_json(&p->app_size, "exact"));
	return json_pack("{s:s,s:s,s:s?,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
	                 "s:I,s:I,s:I,s:I,s:o*,s:o,s:o*}",
	    "phase", p->name, "status", p->failed ? "failed" : "ok", "error",
	    p->failed ? p->error : NULL, "elapsed_ns",
	    (json_int_t)p->elapsed_ns, "user_ns", (json_int_t)p->user_ns,
	    "sys_ns", (json_int_t)p->sys_ns, "maxrss_kib",
	    (json_int_t)p->maxrss_kib, "inblock", (json_int_t)p->inblock,
	    "oublock", (json_int_t)p->oublock, "majflt", (json_int_t)p->majflt,
	    "minflt", (json_int_t)p->minflt, "nswap", (json_int_t)p->nswap,
	    "nvcsw", (json_int_t)p->nvcsw, "nivcsw", (json_int_t)p->nivcsw,
	    "entries", (json_int_t)p->entries, "bytes", (json_int_t)p->bytes,
	    "app_write", app, "devices", devs, "attribution",
	    attrib_json(p->attrib));
}

/* The csh time line of the phases that are the job: all but remove. */
static void
run_time_line(const struct run_result *run, char *buf, size_t len)
{
	int64_t u = 0, s = 0, e = 0;
	uint64_t in = 0, out = 0, pf = 0, w = 0;

	for (size_t i = 0; i < run->nphase; i++) {
		const struct phase_result *p = &run->phase[i];

		if (strcmp(p->name, "remove") == 0)
			continue;
		u += p->user_ns;
		s += p->sys_ns;
		e += p->elapsed_ns;
		in += p->inblock;
		out += p->oublock;
		pf += p->majflt;
		w += p->nswap;
	}
	timefmt_csh(buf, len, u, s, e, in, out, pf, w);
}

json_t *
result_run_json(
    const struct result *r, const struct run_result *run, size_t idx)
{
	json_t *phases = json_array(), *o;
	char line[128];

	for (size_t i = 0; i < run->nphase; i++)
		json_array_append_new(phases, phase_json(r, &run->phase[i]));
	run_time_line(run, line, sizeof(line));
	o = json_pack("{s:I,s:s,s:s?,s:s,s:o}", "run", (json_int_t)idx + 1,
	    "status", run->status, "error",
	    strcmp(run->status, "ok") != 0 ? run->error : NULL, "time_line",
	    line, "phases", phases);
	if (o != NULL && run->nfs != NULL)
		json_object_set(o, "nfs", run->nfs);
	if (o != NULL && run->mountstats != NULL)
		json_object_set(o, "mountstats", run->mountstats);
	return o;
}

static json_t *
target_json(const struct target *t)
{
	json_t *devs = json_array(), *o;

	for (size_t i = 0; i < t->ndev; i++)
		json_array_append_new(devs,
		    json_pack("{s:s,s:i,s:i,s:s}", "name", t->dev[i].name,
		        "major", (int)t->dev[i].major, "minor",
		        (int)t->dev[i].minor, "role", t->dev[i].role));
	o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "path", t->path,
	    "mountpoint", t->mountpoint, "fstype", t->fstype, "options",
	    t->options, "source", t->source, "devices", devs);
	if (t->ndev == 0)
		json_object_set_new(
		    o, "nodev_reason", json_string(t->nodev_reason));
	return o;
}

json_t *
result_spread_json(const int64_t *v, size_t n)
{
	struct spread s = stats_spread(v, n);

	return json_pack("{s:I,s:I,s:I}", "median", (json_int_t)s.median, "min",
	    (json_int_t)s.min, "max", (json_int_t)s.max);
}

/* The spread of figure k of every row (n rows of row figures). */
static json_t *
figure_json(const struct result_figures *f, size_t k, int64_t *v)
{
	size_t row = RESULT_FIG_ROW(f->ndev);

	for (size_t i = 0; i < f->n; i++)
		v[i] = f->v[i * row + k];
	return result_spread_json(v, f->n);
}

static json_t *
summary_phases(const struct result_figures *f, int64_t *v)
{
	static const char *const key[] = {"elapsed_ns", "user_ns", "sys_ns"};
	json_t *phases = json_object();

	for (size_t ph = 0; f->n > 0 && ph < f->nphase; ph++) {
		json_t *po = json_object();

		for (size_t k = 0; k < RESULT_FIG_PHASE; k++)
			json_object_set_new(po, key[k],
			    figure_json(f, ph * RESULT_FIG_PHASE + k, v));
		json_object_set_new(phases, f->phase[ph], po);
	}
	return phases;
}

static json_t *
summary_device(const struct result *r, const struct result_figures *f, size_t d,
    int64_t *v)
{
	static const char *const key[] = {"ops", "bytes", "mean_bytes"};
	json_t *dobj = json_object(), *hists = json_object(), *w;
	size_t at = RESULT_MAXPHASE * RESULT_FIG_PHASE + d * RESULT_FIG_DEV;

	for (int k = 0; k < DIR_N; k++) {
		json_t *xo = json_object();

		for (size_t m = 0; m < 3; m++)
			json_object_set_new(
			    xo, key[m], figure_json(f, at + k * 3 + m, v));
		json_object_set_new(dobj, dirname_[k], xo);
		json_object_set_new(hists, dirname_[k],
		    result_hist_json(&f->size[d * DIR_N + k], size_kind(r)));
	}
	json_object_set_new(dobj, "flushes", figure_json(f, at + 6, v));
	if (f->exact[d]) {
		/* The exact probe's: bios before merging, and what was lost. */
		w = json_object_get(dobj, "write");
		json_object_set_new(w, "bios", figure_json(f, at + 7, v));
		json_object_set_new(w, "seq_ops", figure_json(f, at + 8, v));
		json_object_set_new(
		    dobj, "empty_preflush", figure_json(f, at + 9, v));
		json_object_set_new(
		    dobj, "lost_events", figure_json(f, at + 10, v));
	}
	json_object_set_new(dobj, "size_hist", hists);
	return dobj;
}

/* The summary from the runs' figures: r's own, or taken from its runs. */
static json_t *
summary_json(const struct result *r)
{
	struct result_figures own;
	const struct result_figures *f = r->figures;
	json_t *devs = json_object(), *o = NULL;
	int64_t *v;

	memset(&own, 0, sizeof(own));
	if (f == NULL) {
		for (size_t i = 0; i < r->nrun; i++)
			if (result_figures_add(&own, &r->runs[i]) == -1) {
				result_figures_free(&own);
				json_decref(devs);
				return NULL;
			}
		f = &own;
	}
	if ((v = calloc(f->n + 1, sizeof(*v))) != NULL) {
		for (size_t d = 0; d < f->ndev; d++)
			json_object_set_new(
			    devs, devname_at(r, d), summary_device(r, f, d, v));
		o = json_pack("{s:I,s:o,s:o}", "runs_ok", (json_int_t)f->n,
		    "phases", summary_phases(f, v), "devices", devs);
	} else
		json_decref(devs);
	free(v);
	result_figures_free(&own);
	return o;
}

int
result_phase_devices(struct phase_result *p, size_t ndev)
{
	free(p->dev);
	p->ndev = 0;
	if ((p->dev = calloc(ndev > 0 ? ndev : 1, sizeof(*p->dev))) == NULL)
		return -1;
	p->ndev = ndev;
	return 0;
}

void
result_run_free(struct run_result *run)
{
	for (size_t i = 0; i < run->nphase; i++) {
		free(run->phase[i].dev);
		run->phase[i].dev = NULL;
		free(run->phase[i].attrib);
		run->phase[i].attrib = NULL;
		run->phase[i].ndev = 0;
	}
}

json_t *
result_json(const struct result *r)
{
	json_t *doc, *targets = json_array(), *runs = json_array(), *probe;
	struct utsname u;
	char started[32], host[256];
	struct tm tm;

	if (uname(&u) == -1)
		memset(&u, 0, sizeof(u));
	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "%s", u.nodename);
	host[sizeof(host) - 1] = '\0';
	gmtime_r(&r->started, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (size_t i = 0; i < r->ntarget; i++)
		json_array_append_new(targets, target_json(&r->targets[i]));
	for (size_t i = 0; i < r->nrun; i++)
		json_array_append_new(runs, result_run_json(r, &r->runs[i], i));
	probe = json_pack("{s:s,s:s,s:I,s:s}", "name",
	    r->probe ? r->probe->ops->name : "none", "resolution",
	    probe_resolution_name(
	        r->probe ? r->probe->ops->resolution : PROBE_NONE),
	    "interval_ns", (json_int_t)(r->probe ? r->probe->interval_ns : 0),
	    "why", r->probe ? r->probe->why : "");
	doc = json_pack("{s:i,s:{s:s,s:s},s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s},"
	                "s:s,s:o,s:o,s:o,s:o}",
	    "schema", RESULT_SCHEMA, "tool", "name", "ubcreplay", "version",
	    UBC_VERSION, "kind", r->kind, "label", r->label, "status",
	    r->status, "host", "name", host, "system", u.sysname, "release",
	    u.release, "machine", u.machine, "started", started, "workload",
	    r->workload, "targets", targets, "probe", probe, "runs", runs);
	if (doc != NULL && r->between != NULL) {
		json_t *devs = json_array();

		for (size_t i = 0; i < ndevices(r); i++)
			json_array_append_new(devs,
			    device_json(devname_at(r, i), &r->between[i],
			        size_kind(r)));
		json_object_set_new(
		    doc, "between_runs", json_pack("{s:o}", "devices", devs));
	}
	if (doc != NULL && r->adds != NULL)
		json_object_update(doc, r->adds);
	if (doc != NULL)
		json_object_set_new(doc, "summary", summary_json(r));
	return doc;
}

static int
dump_doc(void *arg, json_t *doc, FILE *fp)
{
	(void)arg;
	return json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
}

int
result_write(json_t *doc, const char *path, char *err, size_t errlen)
{
	return result_write_with(dump_doc, NULL, doc, path, err, errlen);
}

int
result_write_with(int (*dump)(void *arg, json_t *doc, FILE *fp), void *arg,
    json_t *doc, const char *path, char *err, size_t errlen)
{
	struct outfile of;

	if (strcmp(path, "-") == 0) {
		if (dump(arg, doc, stdout) == -1 ||
		    fputc('\n', stdout) == EOF || fflush(stdout) == EOF) {
			snprintf(err, errlen,
			    "cannot write the result to "
			    "standard output: %s",
			    strerror(errno));
			return -1;
		}
		return 0;
	}
	if (outfile_open(&of, path, "result", err, errlen) == -1)
		return -1;
	if (dump(arg, doc, of.fp) == -1 || fputc('\n', of.fp) == EOF) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
		    strerror(errno));
		outfile_abort(&of);
		return -1;
	}
	return outfile_commit(&of, err, errlen);
}

/* A copy of s with its control characters as '?', or NULL if it has none. */
static char *
clean(const char *s)
{
	const char *p;
	char *c;

	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			break;
	if (*p == '\0' || (c = strdup(s)) == NULL)
		return NULL;
	for (char *q = c; *q != '\0'; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	return c;
}

/*
 * v, its strings cleaned in place, or, when an object's keys needed it, a
 * new object (a new reference) to put in v's place.
 */
static json_t *
clean_value(json_t *v)
{
	const char *key;
	json_t *e, *n, *o;
	void *tmp;
	char *c;
	int dirty = 0;

	switch (json_typeof(v)) {
	case JSON_STRING:
		if ((c = clean(json_string_value(v))) != NULL) {
			json_string_set(v, c);
			free(c);
		}
		return v;
	case JSON_ARRAY:
		for (size_t i = 0; i < json_array_size(v); i++) {
			e = json_array_get(v, i);
			if ((n = clean_value(e)) != e)
				json_array_set_new(v, i, n);
		}
		return v;
	case JSON_OBJECT:
		json_object_foreach (v, key, e) {
			if ((c = clean(key)) != NULL) {
				free(c);
				dirty = 1;
			}
		}
		if (!dirty) {
			json_object_foreach_safe(v, tmp, key, e)
			{
				if ((n = clean_value(e)) != e)
					json_object_set_new(v, key, n);
			}
			return v;
		}
		if ((o = json_object()) == NULL)
			return v;
		json_object_foreach (v, key, e) {
			c = clean(key);
			n = clean_value(e);
			json_object_set(o, c != NULL ? c : key, n);
			if (n != e)
				json_decref(n);
			free(c);
		}
		return o;
	default:
		return v;
	}
}

json_t *
result_printable(json_t *doc)
{
	json_t *n = clean_value(doc);

	if (n != doc)
		json_decref(doc);
	return n;
}

json_t *
result_load(const char *path, char *err, size_t errlen)
{
	struct infile in;
	json_error_t je;
	json_t *doc, *schema;
	const char *first;
	FILE *fp;
	void *it;

	if ((fp = infile_open(path, "result", &in, err, errlen)) == NULL)
		return NULL;
	/* jansson reads to the end, so a .gz is checked whole. */
	doc = json_loadf(fp, 0, &je);
	if (ferror(fp)) {
		snprintf(err, errlen, "cannot read result '%s': %s", path,
		    in.why[0] != '\0' ? in.why : strerror(errno));
		json_decref(doc);
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	if (doc == NULL) {
		snprintf(err, errlen,
		    "result '%s' is not valid JSON (%sline %d): %s", path,
		    in.gzip ? "inflated, " : "", je.line, je.text);
		return NULL;
	}
	it = json_object_iter(doc);
	first = it != NULL ? json_object_iter_key(it) : NULL;
	schema = json_object_get(doc, "schema");
	if (first == NULL || strcmp(first, "schema") != 0 ||
	    !json_is_integer(schema)) {
		snprintf(err, errlen,
		    "'%s' is not a ubcreplay result (%sno "
		    "schema version first)",
		    path, in.gzip ? "inflated, " : "");
		json_decref(doc);
		return NULL;
	}
	if (json_integer_value(schema) > RESULT_SCHEMA) {
		snprintf(err, errlen,
		    "result '%s' has schema %lld, newer than "
		    "this ubcreplay reads (%d): use a newer ubcreplay",
		    path, (long long)json_integer_value(schema), RESULT_SCHEMA);
		json_decref(doc);
		return NULL;
	}
	if (!json_is_array(json_object_get(doc, "runs"))) {
		snprintf(err, errlen, "result '%s' has no runs", path);
		json_decref(doc);
		return NULL;
	}
	return result_printable(doc);
}

int64_t
result_geti(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

const char *
result_gets(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}
