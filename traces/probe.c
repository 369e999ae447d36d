/*
 * probe.c - choosing a probe, and the none probe that is always there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces.h"

const char *
probe_resolution_name(enum probe_resolution r)
{
	switch (r) {
	case PROBE_EXACT:
		return "exact";
	case PROBE_INTERVAL:
		return "interval";
	default:
		return "none";
	}
}

/* The none probe: a target without block devices, or a system we cannot see. */
static int
none_open(struct probe *p, char *err, size_t errlen)
{
	(void)p;
	(void)err;
	(void)errlen;
	return 0;
}

static int
none_tick(struct probe *p, char *err, size_t errlen)
{
	(void)p;
	(void)err;
	(void)errlen;
	return 0;
}

static int
none_mark(struct probe *p, struct devstats *out, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (out != NULL)
		memset(out, 0, sizeof(*out) * p->target->ndev);
	return 0;
}

static void
none_close(struct probe *p)
{
	(void)p;
}

const struct probe_ops probe_none_ops = {
    .name = "none",
    .resolution = PROBE_NONE,
    .open = none_open,
    .tick = none_tick,
    .mark = none_mark,
    .close = none_close,
};

static struct probe *
try_open(const struct probe_ops *ops, const struct target *t,
    int64_t interval_ns, void *arg, char *err, size_t errlen)
{
	struct probe *p;

	if ((p = calloc(1, sizeof(*p))) == NULL) {
		snprintf(err, errlen, "cannot allocate probe");
		return NULL;
	}
	p->ops = ops;
	p->target = t;
	p->interval_ns = interval_ns;
	p->priv = arg;
	if (ops->open(p, err, errlen) == -1) {
		free(p);
		return NULL;
	}
	return p;
}

struct probe *
probe_open(const char *want, const struct target *t, int64_t interval_ns,
    char *err, size_t errlen)
{
	return probe_open_from(probe_table, "on this system", want, t,
	    interval_ns, NULL, err, errlen);
}

struct probe *
probe_open_from(const struct probe_ops *const *table, const char *where,
    const char *want, const struct target *t, int64_t interval_ns, void *arg,
    char *err, size_t errlen)
{
	char why[256] = "";
	struct probe *p;
	int any = strcmp(want, "auto") == 0;

	if (t->ndev == 0 || strcmp(want, "none") == 0) {
		if ((p = try_open(&probe_none_ops, t, interval_ns, NULL, err,
		         errlen)) != NULL)
			snprintf(p->why, sizeof(p->why), "%s",
			    t->ndev == 0 ? t->nodev_reason : "asked for none");
		return p;
	}
	for (size_t i = 0; table[i] != NULL; i++) {
		const struct probe_ops *ops = table[i];
		const char *res = probe_resolution_name(ops->resolution);
		char oerr[256];

		if (!any && strcmp(want, res) != 0 &&
		    strcmp(want, ops->name) != 0)
			continue;
		if ((p = try_open(ops, t, interval_ns, arg, oerr,
		         sizeof(oerr))) != NULL) {
			char note[sizeof(p->why)];

			/* What the probe said while opening comes last. */
			snprintf(note, sizeof(note), "%s", p->why);
			if (any)
				snprintf(p->why, sizeof(p->why), "%s%s%s%s%s",
				    why, *why ? "; " : "", "chosen by -p auto",
				    *note ? "; " : "", note);
			else
				snprintf(p->why, sizeof(p->why),
				    "asked for with -p %s%s%s", want,
				    *note ? "; " : "", note);
			return p;
		}
		if (!any) {
			snprintf(err, errlen, "probe %s: %s", ops->name, oerr);
			return NULL;
		}
		/* Remember why the more exact probe was passed over. */
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
		    "%s%s unavailable: %s", *why ? "; " : "", ops->name, oerr);
	}
	snprintf(err, errlen, "no %s probe %s%s%s", any ? "usable" : want,
	    where, *why ? ": " : "", why);
	return NULL;
}

int
probe_tick(struct probe *p, char *err, size_t errlen)
{
	return p->ops->tick(p, err, errlen);
}

int
probe_mark(struct probe *p, struct devstats *out, char *err, size_t errlen)
{
	return p->ops->mark(p, out, err, errlen);
}

void
probe_close(struct probe *p)
{
	if (p == NULL)
		return;
	p->ops->close(p);
	free(p);
}

int
probe_keep_records(struct probe *p, char *err, size_t errlen)
{
	if (p->ops->keep == NULL) {
		snprintf(err, errlen,
		    "the %s probe sees no events to keep "
		    "(the exact probe does: -p exact)",
		    p->ops->name);
		return -1;
	}
	return p->ops->keep(p, err, errlen);
}

void
probe_label(struct probe *p, const char *label)
{
	snprintf(p->label, sizeof(p->label), "%s", label);
}

int
probe_trace_write(struct probe *p, const char *path, const char *result,
    char *err, size_t errlen)
{
	if (p->ops->trace_write == NULL) {
		snprintf(
		    err, errlen, "the %s probe kept no events", p->ops->name);
		return -1;
	}
	return p->ops->trace_write(p, path, result, err, errlen);
}

int
probe_keep_xfers(struct probe *p, char *err, size_t errlen)
{
	if (p->ops->acc == NULL) {
		snprintf(err, errlen,
		    "the %s probe does not see each request's place (the "
		    "exact probe does)",
		    p->ops->name);
		return -1;
	}
	blkev_acc_keep_xfers(p->ops->acc(p));
	return 0;
}

void
probe_take_xfers(struct probe *p, size_t i, struct blkev_xfers *out)
{
	if (p->ops->acc == NULL) {
		memset(out, 0, sizeof(*out));
		return;
	}
	blkev_acc_take_xfers(p->ops->acc(p), i, out);
}
