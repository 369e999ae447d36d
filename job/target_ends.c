/*
 * target_ends.c - a dd's two ends on the host as the job's target: the
 * source (o->source) and the destination (o->dir), each a file or a
 * device, and the probe on the devices of both, each device once, the
 * source's first. Each phase runs in a child of its own. Before each run
 * the destination, when it is there, is synced, so that no earlier write
 * is counted in the run; the run's sync phase is its fsync. There is no
 * run directory, and nothing of the run's to remove: the destination is
 * the user's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"

struct ends {
	/*
	 * [0] the source, [1] the destination without the devices the
	 * source lists, so that the result names each device once;
	 * probe_target holds them all, in the same order.
	 */
	struct target t[2];
	struct target probe_target;
};

static int
same_dev(const struct target_dev *a, const struct target_dev *b)
{
	return a->major == b->major && a->minor == b->minor;
}

/*
 * The destination's devices less those the source lists, and every device
 * in probe_target, source first.
 */
static int
merge(struct ends *e, char *err, size_t errlen)
{
	struct target *src = &e->t[0], *dst = &e->t[1];
	size_t keep = 0;

	for (size_t i = 0; i < dst->ndev; i++) {
		int dup = 0;

		for (size_t k = 0; k < src->ndev; k++)
			dup |= same_dev(&dst->dev[i], &src->dev[k]);
		if (!dup)
			dst->dev[keep++] = dst->dev[i];
	}
	if (dst->ndev > 0 && keep == 0)
		snprintf(dst->nodev_reason, sizeof(dst->nodev_reason),
		    "on the devices of '%s', listed with it", src->path);
	dst->ndev = keep;
	if (src->ndev + dst->ndev > DEVSTATS_MAXDEV) {
		snprintf(err, errlen,
		    "'%s' and '%s' are on more than %d devices", src->path,
		    dst->path, DEVSTATS_MAXDEV);
		return -1;
	}
	e->probe_target = *src;
	snprintf(e->probe_target.path, sizeof(e->probe_target.path),
	    "%s and %s", src->path, dst->path);
	for (size_t i = 0; i < dst->ndev; i++)
		e->probe_target.dev[e->probe_target.ndev++] = dst->dev[i];
	return 0;
}

static int
ends_open(struct job *j, char *err, size_t errlen)
{
	struct ends *e = calloc(1, sizeof(*e));

	if (e == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	j->tpriv = e;
	if (target_resolve_node(j->o->source, &e->t[0], err, errlen) == -1 ||
	    target_resolve_node(j->o->dir, &e->t[1], err, errlen) == -1 ||
	    merge(e, err, errlen) == -1 ||
	    target_settle(&e->t[0], err, errlen) == -1 ||
	    target_settle(&e->t[1], err, errlen) == -1)
		return -1;
	j->t = e->t;
	j->nt = 2;
	j->probe = probe_open(
	    j->o->probe, &e->probe_target, j->o->interval_ns, err, errlen);
	return j->probe == NULL ? -1 : 0;
}

static void
ends_close(struct job *j)
{
	probe_close(j->probe);
	j->probe = NULL;
	free(j->tpriv);
	j->tpriv = NULL;
}

/*
 * fsync of path: one that is not there yet is nothing to sync when
 * missing_ok; a character device (/dev/null) has nothing to sync.
 */
static int
fsync_path(const char *path, int missing_ok, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd == -1 && missing_ok && errno == ENOENT)
		return 0;
	if (fd == -1) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fsync(fd) == -1 && errno != EINVAL && errno != EROFS) {
		snprintf(err, errlen, "cannot fsync '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
ends_begin(struct job *j, char *err, size_t errlen)
{
	j->rundir[0] = '\0';
	snprintf(j->where, sizeof(j->where), "%s", j->o->dir);
	return fsync_path(j->o->dir, 1, err, errlen);
}

static void
ends_sync(void *arg, struct replay_report *rep)
{
	const struct job *j = arg;

	rep->failed =
	    fsync_path(j->o->dir, 0, rep->error, sizeof(rep->error)) == -1;
}

static void
ends_end(struct job *j, int done)
{
	(void)j, (void)done;
}

/* The options of of=ffs:IMAGE's kernel. */
static const char *
ends_refuse(const struct job_opts *o)
{
	return job_ffs_refused(o, "of=ffs:IMAGE");
}

const struct job_target_ops job_target_ends = {
    .kind = "ends",
    .fs = JOB_HOST,
    .refuse = ends_refuse,
    .open = ends_open,
    .begin = ends_begin,
    .phase = job_child_phase,
    .sync = ends_sync,
    .end = ends_end,
    .close = ends_close,
};
