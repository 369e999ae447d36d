/*
 * retrace.c - a result computed again from a trace file (--trace-out): the
 * device statistics from the trace's records, through the same accumulator
 * the live probe used (blkev.c), and everything the trace cannot know (the
 * times, the rusage, the workload's write() calls, what the blocks held)
 * from the result the run wrote into the trace. The document is then built
 * by result_json, the same as a live run's, so the two can be compared byte
 * for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"

static void
target_of(const json_t *o, struct target *t, char (*role)[16])
{
	const json_t *d;
	size_t i;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", result_gets(o, "path"));
	snprintf(t->mountpoint, sizeof(t->mountpoint), "%s",
	    result_gets(o, "mountpoint"));
	snprintf(t->fstype, sizeof(t->fstype), "%s", result_gets(o, "fstype"));
	snprintf(
	    t->options, sizeof(t->options), "%s", result_gets(o, "options"));
	snprintf(t->source, sizeof(t->source), "%s", result_gets(o, "source"));
	snprintf(t->nodev_reason, sizeof(t->nodev_reason), "%s",
	    result_gets(o, "nodev_reason"));
	json_array_foreach (json_object_get(o, "devices"), i, d) {
		if (i == TARGET_MAXDEV)
			break;
		snprintf(t->dev[i].name, sizeof(t->dev[i].name), "%s",
		    result_gets(d, "name"));
		t->dev[i].major = (unsigned)result_geti(d, "major");
		t->dev[i].minor = (unsigned)result_geti(d, "minor");
		snprintf(role[i], 16, "%s", result_gets(d, "role"));
		t->dev[i].role = role[i];
		t->ndev = i + 1;
	}
}

static void
phase_of(const json_t *o, struct phase_result *p)
{
	const json_t *app = json_object_get(o, "app_write");

	p->name = result_gets(o, "phase");
	p->failed = strcmp(result_gets(o, "status"), "ok") != 0;
	snprintf(p->error, sizeof(p->error), "%s", result_gets(o, "error"));
	p->elapsed_ns = result_geti(o, "elapsed_ns");
	p->user_ns = result_geti(o, "user_ns");
	p->sys_ns = result_geti(o, "sys_ns");
	p->maxrss_kib = result_geti(o, "maxrss_kib");
	p->inblock = (uint64_t)result_geti(o, "inblock");
	p->oublock = (uint64_t)result_geti(o, "oublock");
	p->majflt = (uint64_t)result_geti(o, "majflt");
	p->minflt = (uint64_t)result_geti(o, "minflt");
	p->nswap = (uint64_t)result_geti(o, "nswap");
	p->nvcsw = (uint64_t)result_geti(o, "nvcsw");
	p->nivcsw = (uint64_t)result_geti(o, "nivcsw");
	p->entries = (uint64_t)result_geti(o, "entries");
	p->bytes = (uint64_t)result_geti(o, "bytes");
	p->app_ops = (uint64_t)result_geti(app, "ops");
	p->app_bytes = (uint64_t)result_geti(app, "bytes");
	result_hist_from_json(
	    json_object_get(app, "size_hist"), "min_bytes", &p->app_size);
	p->app_unseen = app == NULL;
	/* What the blocks held: the layout is not in the trace. */
	p->attrib = result_attrib_from_json(json_object_get(o, "attribution"));
	/*
	 * The devices come from the trace's mark for this phase
	 * (result_phase_devices); a phase the trace has no mark for has none,
	 * not a count of devices with no room for them.
	 */
	p->ndev = 0;
}

/* "2026-11-29T20:49:00Z" to seconds since the epoch; 0 when it is not. */
static time_t
utc_seconds(const char *s)
{
	int y, mo, d, h, mi, sec;
	int64_t days;

	if (sscanf(s, "%d-%d-%dT%d:%d:%dZ", &y, &mo, &d, &h, &mi, &sec) != 6 ||
	    mo < 1 || mo > 12)
		return 0;
	/* Days from 1970-01-01 in the proleptic Gregorian calendar. */
	y -= mo <= 2;
	days = (int64_t)(y >= 0 ? y : y - 399) / 400 * 146097;
	{
		int yoe = y - (y >= 0 ? y : y - 399) / 400 * 400;
		int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
		int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

		days += doe - 719468;
	}
	return (time_t)(days * 86400 + h * 3600 + mi * 60 + sec);
}

/* "run N PHASE": the phase result it names, or NULL. */
static struct phase_result *
labelled(struct run_result *runs, size_t nrun, const char *label)
{
	unsigned long n;
	int used = 0;

	if (sscanf(label, "run %lu %n", &n, &used) != 1 || used == 0 ||
	    n == 0 || n > nrun)
		return NULL;
	for (size_t i = 0; i < runs[n - 1].nphase; i++)
		if (strcmp(runs[n - 1].phase[i].name, label + used) == 0)
			return &runs[n - 1].phase[i];
	return NULL;
}

json_t *
result_retrace(const struct tracefile *tf, char *err, size_t errlen)
{
	static struct probe_ops ops;
	json_error_t je;
	json_t *doc0, *doc = NULL, *o;
	struct target targets[4];
	char roles[4][TARGET_MAXDEV][16];
	struct run_result *runs = NULL;
	struct devstats between[DEVSTATS_MAXDEV], out[DEVSTATS_MAXDEV];
	struct blkev_acc *acc = NULL;
	uint32_t devs[TARGET_MAXDEV];
	struct probe probe;
	struct result r;
	size_t i, nrun, found = 0;

	if (tf->result == NULL) {
		snprintf(err, errlen, "the trace holds no result to recompute");
		return NULL;
	}
	if ((doc0 = json_loads(tf->result, 0, &je)) == NULL) {
		snprintf(err, errlen,
		    "the trace's result is not valid JSON "
		    "(line %d): %s",
		    je.line, je.text);
		return NULL;
	}
	doc0 = result_printable(doc0);
	memset(&r, 0, sizeof(r));
	r.kind = result_gets(doc0, "kind");
	r.label = result_gets(doc0, "label");
	r.status = result_gets(doc0, "status");
	r.started = utc_seconds(result_gets(doc0, "started"));
	r.workload = json_deep_copy(json_object_get(doc0, "workload"));
	json_array_foreach (json_object_get(doc0, "targets"), i, o) {
		if (i == 4)
			break;
		target_of(o, &targets[i], roles[i]);
		r.ntarget = i + 1;
	}
	r.targets = targets;

	o = json_object_get(doc0, "probe");
	memset(&probe, 0, sizeof(probe));
	ops.name = result_gets(o, "name");
	ops.resolution = PROBE_EXACT;
	probe.ops = &ops;
	probe.interval_ns = result_geti(o, "interval_ns");
	snprintf(probe.why, sizeof(probe.why), "%s", result_gets(o, "why"));
	r.probe = &probe;

	nrun = json_array_size(json_object_get(doc0, "runs"));
	if ((runs = calloc(nrun + 1, sizeof(*runs))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	json_array_foreach (json_object_get(doc0, "runs"), i, o) {
		const json_t *ph;
		size_t k;

		runs[i].status = result_gets(o, "status");
		snprintf(runs[i].error, sizeof(runs[i].error), "%s",
		    result_gets(o, "error"));
		json_array_foreach (json_object_get(o, "phases"), k, ph) {
			if (k == RESULT_MAXPHASE)
				break;
			phase_of(ph, &runs[i].phase[k]);
			runs[i].nphase = k + 1;
		}
	}
	r.nrun = nrun;
	r.runs = runs;

	/* The device statistics, again, from the records. */
	for (i = 0; i < tf->ndev; i++)
		devs[i] = BLKEV_DEV(tf->dev[i].major, tf->dev[i].minor);
	if ((acc = blkev_acc_new(devs, tf->ndev, 0)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memset(between, 0, sizeof(between));
	for (i = 0; i < tf->nrec; i++) {
		const struct blkev *rec = &tf->rec[i];
		const char *label;
		struct phase_result *p;

		blkev_apply(acc, rec, out);
		if (rec->kind != BLKEV_MARK || rec->sector == 0)
			continue;
		label = rec->nr_sector < tf->nlabel ? tf->label[rec->nr_sector]
		                                    : "-";
		if (strcmp(label, "between") == 0) {
			for (size_t d = 0; d < tf->ndev; d++)
				devstats_add(&between[d], &out[d]);
		} else if ((p = labelled(runs, nrun, label)) != NULL) {
			if (result_phase_devices(p, tf->ndev) == -1) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			memcpy(p->dev, out, tf->ndev * sizeof(out[0]));
			found++;
		}
	}
	if (json_object_get(doc0, "between_runs") != NULL)
		r.between = between;
	if ((doc = result_json(&r)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* Where the run was made, not where it is read again. */
	json_object_set(doc, "host", json_object_get(doc0, "host"));
	if (found == 0) {
		snprintf(err, errlen,
		    "no phase of the trace's result has "
		    "events in the trace");
		json_decref(doc);
		doc = NULL;
	}
out:
	blkev_acc_free(acc);
	for (i = 0; runs != NULL && i < nrun; i++)
		result_run_free(&runs[i]);
	free(runs);
	json_decref(doc0);
	return doc;
}
