/*
 * dd.c - `ubcreplay dd if=SRC of=DST bs=N ...`: dd's copy as a measured
 * workload, and the runner that `sweep` and `matrix` share (dd.h).
 *
 * The runs are the job's (job/: job_dd on job_target_ends, or on
 * job_target_ffs for of=ffs:IMAGE): two phases, copy (what dd does, and
 * what dd's closing line times) and sync (fsync of the destination, or
 * the kernel's sync, so that buffered writes reach the device inside a
 * phase); on an image a third removes the run directory. Before each run
 * the destination is synced (and caches dropped with --drop-caches), and
 * what the devices do then is kept apart as "between runs". With --ntp,
 * the clock's offset against the server is taken just before the copy and
 * just after the sync; its change is the run's lossage.
 */
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dd.h"

#define DEFAULT_INTERVAL_NS 100000000LL

int
ddrun_parse_probe(const char *s)
{
	if (strcmp(s, "auto") != 0 && strcmp(s, "exact") != 0 &&
	    strcmp(s, "interval") != 0 && strcmp(s, "none") != 0) {
		warnx("probe '%s' is not auto, exact, interval or none", s);
		return -1;
	}
	return 0;
}

int
ddrun_set_out(struct replay_dd *dd, const char *out)
{
	dd->out = out;
	dd->out_kernel = strncmp(out, "ffs:", 4) == 0;
	if (dd->out_kernel && out[4] == '\0') {
		warnx("of=ffs: names no image");
		return -1;
	}
	return 0;
}

int
ddrun_prepare(struct ddrun *r, const struct ddrun_opts *o,
    const struct replay_dd *dd, char *err, size_t errlen)
{
	const char *why;
	int rv;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->dd = *dd;
	if (replay_dd_check(&r->dd, err, errlen) == -1)
		return -1;
	r->jo = (struct job_opts){.dir = dd->out,
	    .source = dd->in,
	    .dd = &r->dd,
	    .ntp = o->ntp,
	    .fsync = FSYNC_END,
	    .drop_caches = o->drop_caches,
	    .interval_ns = o->interval_ns,
	    .probe = o->probe,
	    .image = dd->out_kernel ? dd->out + 4 : NULL,
	    .mount_opts = o->mount_opts,
	    .rump_dir = o->rump_dir,
	    .rump_mem_bytes = o->rump_mem_bytes};
	r->j.o = &r->jo;
	r->j.wl = &job_dd;
	r->j.tops = dd->out_kernel ? &job_target_ffs : &job_target_ends;
	if ((why = job_refused(&r->j)) != NULL) {
		snprintf(err, errlen, "%s", why);
		return -2;
	}
	if ((rv = job_open(&r->j, err, errlen)) != 0) {
		ddrun_close(r);
		return rv == -2 && r->j.tops->open_usage ? -2 : -1;
	}
	return 0;
}

/* Room for n more runs. */
static int
grow(struct ddrun *r, char *err, size_t errlen)
{
	struct run_result *nr;
	struct ddrun_extra *ne;
	size_t cap = r->nrun + 1;

	if ((nr = realloc(r->runs, cap * sizeof(*nr))) == NULL) {
		snprintf(err, errlen, "cannot allocate run %zu", cap);
		return -1;
	}
	r->runs = nr;
	if ((ne = realloc(r->extra, cap * sizeof(*ne))) == NULL) {
		snprintf(err, errlen, "cannot allocate run %zu", cap);
		return -1;
	}
	r->extra = ne;
	memset(&r->runs[r->nrun], 0, sizeof(*nr));
	memset(&r->extra[r->nrun], 0, sizeof(*ne));
	return 0;
}

int
ddrun_next(struct ddrun *r, char *err, size_t errlen)
{
	struct run_result *run;
	struct ddrun_extra *x;
	char buf[512];
	int rv;

	if (grow(r, err, errlen) == -1)
		return -1;
	run = &r->runs[r->nrun];
	x = &r->extra[r->nrun];
	r->nrun++;
	if (r->started == 0)
		r->started = time(NULL);
	rv = job_run(&r->j, (int)r->nrun, run);
	job_dd_last(&r->j, &x->counts, &x->loss);
	if (r->j.warning[0] != '\0' && !r->o->quiet)
		warnx("run %zu: %s", r->nrun, r->j.warning);
	/* The copy ran: dd's lines, and whether the lossage was taken. */
	if (run->nphase > 0) {
		if (r->o->closing)
			fputs(replay_dd_closing(&x->counts, buf, sizeof(buf)),
			    stderr);
		if (r->o->ntp != NULL && !x->loss.ok && !r->o->quiet)
			warnx(
			    "run %zu: no lossage: %s", r->nrun, x->loss.error);
	}
	if (rv == -1)
		snprintf(err, errlen, "%s", run->error);
	return rv;
}

json_t *
ddrun_workload_json(const struct ddrun *r)
{
	return r->j.wl->json(&r->j, NULL);
}

static json_t *
sample_json(const struct sntp_sample *s, int have)
{
	if (!have)
		return json_null();
	return json_pack("{s:I,s:I,s:i,s:s}", "offset_ns",
	    (json_int_t)s->offset_ns, "delay_ns", (json_int_t)s->delay_ns,
	    "stratum", (int)s->stratum, "refid", s->refid);
}

static json_t *
lossage_json(const struct sntp_lossage *l)
{
	return json_pack("{s:s?,s:s,s:s?,s:o,s:o,s:o,s:I}", "server", l->server,
	    "status",
	    l->server == NULL ? "none"
	        : l->ok       ? "ok"
	                      : "failed",
	    "error", l->server != NULL && !l->ok ? l->error : NULL, "before",
	    sample_json(&l->before, l->have_before), "after",
	    sample_json(&l->after, l->have_after), "lossage_ns",
	    l->ok ? json_integer((json_int_t)l->lossage_ns) : json_null(),
	    "realtime_drift_ns", (json_int_t)l->realtime_drift_ns);
}

static json_t *
counts_json(const struct ddrun *r, size_t i)
{
	const struct replay_dd_counts *c = &r->extra[i].counts;
	const struct run_result *run = &r->runs[i];
	int64_t xfer = 0;
	char buf[512];

	/* The copy and its sync: not an image's removal after them. */
	for (size_t k = 0; k < run->nphase && k < 2; k++)
		xfer += run->phase[k].elapsed_ns;
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s}",
	    "records_in_full", (json_int_t)c->full_in, "records_in_partial",
	    (json_int_t)c->partial_in, "records_out_full",
	    (json_int_t)c->full_out, "records_out_partial",
	    (json_int_t)c->partial_out, "bytes", (json_int_t)c->bytes_out,
	    "copy_ns", (json_int_t)c->copy_ns, "xfer_ns", (json_int_t)xfer,
	    "rate_bytes_per_s",
	    c->copy_ns > 0
	        ? (json_int_t)((double)c->bytes_out * 1e9 / (double)c->copy_ns)
	        : 0,
	    "closing", replay_dd_closing(c, buf, sizeof(buf)));
}

/* Over the ok runs: dd's own figures and the lossage, median min max. */
static json_t *
dd_summary_json(const struct ddrun *r, json_t *runs)
{
	static const char *const key[] = {
	    "copy_ns", "xfer_ns", "rate_bytes_per_s"};
	int64_t *v = calloc(r->nrun + 1, sizeof(*v));
	json_t *o = json_object(), *run;
	size_t n, i;

	if (v == NULL)
		return o;
	for (size_t k = 0; k < 3; k++) {
		n = 0;
		json_array_foreach (runs, i, run)
			if (strcmp(r->runs[i].status, "ok") == 0)
				v[n++] = json_integer_value(json_object_get(
				    json_object_get(run, "dd"), key[k]));
		json_object_set_new(o, key[k], result_spread_json(v, n));
	}
	n = 0;
	for (i = 0; i < r->nrun; i++)
		if (strcmp(r->runs[i].status, "ok") == 0 && r->extra[i].loss.ok)
			v[n++] = r->extra[i].loss.lossage_ns;
	json_object_set_new(
	    o, "lossage_ns", n > 0 ? result_spread_json(v, n) : json_null());
	n = 0;
	for (i = 0; i < r->nrun; i++)
		if (strcmp(r->runs[i].status, "ok") == 0)
			v[n++] = r->extra[i].loss.realtime_drift_ns;
	json_object_set_new(o, "realtime_drift_ns", result_spread_json(v, n));
	free(v);
	return o;
}

json_t *
ddrun_json(const struct ddrun *r, const char *kind, const char *label,
    json_t *workload)
{
	struct result res;
	const char *status = "ok";
	json_t *doc, *runs, *run;
	size_t i;

	for (i = 0; i < r->nrun; i++)
		if (strcmp(r->runs[i].status, "ok") != 0)
			status = strcmp(r->runs[i].status, "interrupted") == 0
			    ? "interrupted"
			    : "failed";
	memset(&res, 0, sizeof(res));
	res.kind = kind;
	res.label = label;
	res.status = status;
	res.started = r->started;
	res.workload = workload;
	res.ntarget = r->j.nt;
	res.targets = r->j.t;
	res.probe = r->j.probe;
	res.nrun = r->nrun;
	res.runs = r->runs;
	res.between = r->j.between;
	res.adds = r->j.adds;
	if ((doc = result_json(&res)) == NULL)
		return NULL;
	runs = json_object_get(doc, "runs");
	json_array_foreach (runs, i, run) {
		json_object_set_new(run, "dd", counts_json(r, i));
		json_object_set_new(
		    run, "lossage", lossage_json(&r->extra[i].loss));
	}
	json_object_set_new(
	    json_object_get(doc, "summary"), "dd", dd_summary_json(r, runs));
	return doc;
}

void
ddrun_close(struct ddrun *r)
{
	job_close(&r->j);
	for (size_t i = 0; i < r->nrun; i++)
		result_run_free(&r->runs[i]);
	free(r->runs);
	r->runs = NULL;
	free(r->extra);
	r->extra = NULL;
}

/* `ubcreplay dd` itself. */

/*
 * The options every dd command shares; c is getopt's answer. Returns 1 when
 * c was one of them, 0 when not, -1 when its value is bad (warned), -2 when
 * it is bad as a dd operand is (a size).
 */
static int
ddrun_option(int c, const char *arg, struct ddrun_opts *o)
{
	char err[256];

	switch (c) {
	case 'i':
		if (cmd_parse_interval(arg, &o->interval_ns) == -1) {
			warnx("interval '%s' is not a time between 1ms and 1h "
			      "(e.g. 100ms, 1s)",
			    arg);
			return -1;
		}
		return 1;
	case 'l':
		o->label = arg;
		return 1;
	case 'n':
		if (cmd_parse_intv("-n", arg, 1, DDRUN_MAX_RUNS, &o->runs) ==
		    -1)
			return -1;
		return 1;
	case 'o':
		o->output = arg;
		return 1;
	case 'O':
		o->mount_opts = arg;
		return 1;
	case DDOPT_RUMP:
		return cmd_parse_rump(arg, &o->rump_dir) == -1 ? -1 : 1;
	case DDOPT_RUMP_MEM:
		return cmd_parse_rump_mem(arg, &o->rump_mem_bytes) == -1 ? -1
		                                                         : 1;
	case 'p':
		if (ddrun_parse_probe(arg) == -1)
			return -1;
		o->probe = arg;
		return 1;
	case 'q':
		o->quiet = 1;
		return 1;
	case DDOPT_DROP:
		o->drop_caches = 1;
		return 1;
	case DDOPT_NTP: {
		char host[256], port[16];

		if (sntp_parse_server(arg, host, sizeof(host), port,
		        sizeof(port), err, sizeof(err)) == -1) {
			warnx("%s", err);
			return -1;
		}
		o->ntp = arg;
		return 1;
	}
	case DDOPT_SIZE:
		if (replay_dd_parse_size(
		        arg, &o->size_bytes, err, sizeof(err)) == -1 ||
		    o->size_bytes == 0) {
			warnx("--size: %s",
			    o->size_bytes == 0 ? "must be at least 1 byte"
			                       : err);
			return -2;
		}
		return 1;
	}
	return 0;
}

int
ddrun_operands(int argc, char **argv, const char *const *refused,
    const char *why, struct replay_dd *dd)
{
	char err[512];

	for (int i = optind; i < argc; i++) {
		for (size_t k = 0; refused != NULL && refused[k] != NULL; k++)
			if (strncmp(argv[i], refused[k], strlen(refused[k])) ==
			    0) {
				warnx("operand '%s': %s", argv[i], why);
				return -1;
			}
		if (replay_dd_operand(dd, argv[i], err, sizeof(err)) == -1) {
			warnx("%s", err);
			return -1;
		}
	}
	if (dd->in != NULL && strncmp(dd->in, "ffs:", 4) == 0) {
		warnx("operand 'if=%s': a dd reads a host file or device; "
		      "ffs:IMAGE is for of=",
		    dd->in);
		return -1;
	}
	return dd->out != NULL ? ddrun_set_out(dd, dd->out) : 0;
}

void
ddrun_opts_init(struct ddrun_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->runs = 1;
	o->interval_ns = DEFAULT_INTERVAL_NS;
	o->probe = "auto";
	o->size_bytes = DDRUN_SIZE_BYTES;
}

int
ddrun_getopt(int argc, char **argv, const struct option *own, const char *name,
    struct ddrun_opts *o, int *status)
{
	static const struct option shared[] = {
	    {"drop-caches", no_argument, NULL, DDOPT_DROP},
	    {"ntp", required_argument, NULL, DDOPT_NTP},
	    {"rump", required_argument, NULL, DDOPT_RUMP},
	    {"rump-mem", required_argument, NULL, DDOPT_RUMP_MEM},
	    {"help", no_argument, NULL, 'h'},
	};
	struct option
	    all[sizeof(shared) / sizeof(shared[0]) + DDRUN_MAX_OWN + 1];
	size_t n = 0;
	int c, rv;

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		all[n++] = shared[i];
	for (size_t i = 0; own != NULL && own[i].name != NULL; i++)
		if (i < DDRUN_MAX_OWN)
			all[n++] = own[i];
	memset(&all[n], 0, sizeof(all[n]));
	while (
	    (c = getopt_long(argc, argv, "hi:l:n:o:O:p:q", all, NULL)) != -1) {
		if (c == 'h') {
			usage_command(stdout, name);
			*status = EXIT_SUCCESS;
			return -1;
		}
		if (c >= DDOPT_FIRST_FREE)
			return c;
		if ((rv = ddrun_option(c, optarg, o)) == 1)
			continue;
		if (rv == 0)
			usage_command(stderr, name);
		*status = rv == -2 ? EXIT_FAILURE : EXIT_USAGE;
		return -1;
	}
	return 0;
}

/* Writes the result (when asked) and the report; returns the status. */
int
ddrun_finish(json_t *doc, const char *output, int quiet, int status)
{
	char err[512];

	if (doc == NULL) {
		warnx("cannot build the result: out of memory");
		return EXIT_FAILURE;
	}
	if (output != NULL &&
	    result_write(doc, output, err, sizeof(err)) == -1) {
		warnx("%s", err);
		status = EXIT_FAILURE;
	}
	if (!quiet)
		report_text(doc,
		    output != NULL && strcmp(output, "-") == 0 ? stderr
		                                               : stdout,
		    0);
	json_decref(doc);
	return status;
}

/* Dies of the signal that asked us to stop, as the tar job does. */
void
ddrun_die_if_stopped(struct ddrun *r)
{
	int sig = stop_signal();

	if (sig == 0)
		return;
	ddrun_close(r);
	signal(sig, SIG_DFL);
	raise(sig);
}

int
cmd_dd(int argc, char **argv)
{
	const char *label;
	struct ddrun_opts o;
	struct replay_dd dd;
	struct ddrun r;
	char err[768], deflabel[1024];
	int status = EXIT_SUCCESS, rv;
	json_t *doc;

	ddrun_opts_init(&o);
	o.closing = 1;
	replay_dd_init(&dd);
	optind = 1;
	if (ddrun_getopt(argc, argv, NULL, "dd", &o, &status) != 0)
		return status;
	if (ddrun_operands(argc, argv, NULL, NULL, &dd) == -1)
		return EXIT_FAILURE;
	if (dd.in == NULL || dd.out == NULL) {
		warnx("missing operand %s",
		    dd.in == NULL ? "if=FILE" : "of=FILE");
		usage_command(stderr, "dd");
		return EXIT_USAGE;
	}
	o.closing = !o.quiet;
	/*
	 * Caught before the probe opens: a signal that killed us outright
	 * would leave the exact probe's tracefs instance behind.
	 */
	stop_catch();
	if ((rv = ddrun_prepare(&r, &o, &dd, err, sizeof(err))) != 0) {
		warnx("%s", err);
		return rv == -2 ? EXIT_USAGE : EXIT_FAILURE;
	}
	for (int i = 0; i < o.runs; i++)
		if (ddrun_next(&r, err, sizeof(err)) == -1) {
			ddrun_die_if_stopped(&r);
			warnx("run %zu failed: %s", r.nrun, err);
			status = EXIT_FAILURE;
			break;
		}
	/* Nothing measured is nothing to keep: no result file. */
	if (status != EXIT_SUCCESS && r.nrun == 1) {
		ddrun_close(&r);
		return status;
	}
	if ((label = o.label) == NULL) {
		snprintf(deflabel, sizeof(deflabel), "if=%s of=%s bs=%" PRIu64,
		    dd.in, dd.out, dd.bs_bytes);
		label = deflabel;
	}
	doc = ddrun_json(&r, "dd", label, ddrun_workload_json(&r));
	ddrun_close(&r);
	return ddrun_finish(doc, o.output, o.quiet, status);
}
