/*
 * target_dir.c - a host directory as the main job's target: each run in a
 * fresh directory made under it (ubcreplay-run.XXXXXX), each phase in a
 * child of its own. Before each run the filesystem is synced, so that no
 * earlier work is counted in the run.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/nfs_report.h"
#include "../model/stop.h"
#include "../traces/mountstats.h"
#include "../traces/nfs.h"
#include "job.h"

struct dir {
	/*
	 * The target and the run directory, held open: a run directory is
	 * removed through them even after someone unmounted its filesystem
	 * (lazily) or moved it, and they tell whether it is still where it
	 * was made.
	 */
	int dirfd, runfd;
	dev_t dev;           /* of the target directory, when it was resolved */
	const char *runname; /* in rundir */
	int nfs;             /* an NFS mount: its client's counters kept */
	struct mountstats client; /* at the last reading */
	int watching;             /* o->nfs_iface's capture */
	struct nfs_watch watch;
};

/* The options of an image in a NetBSD kernel, not a host directory's. */
static const char *
dir_refuse(const struct job_opts *o)
{
	return job_ffs_refused(o, "an ffs:IMAGE target");
}

static int
is_nfs(const struct target *t)
{
	return strcmp(t->fstype, "nfs") == 0 || strcmp(t->fstype, "nfs4") == 0;
}

/*
 * The capture's filter: an NFS target mounted from a port of its own (the
 * kernel shows port= only when it is not 2049) is watched on that port.
 */
static const char *
wire_filter(const struct target *t, char *buf, size_t len)
{
	const char *p = strstr(t->options, ",port=");
	unsigned port;

	if (!is_nfs(t) || p == NULL || sscanf(p, ",port=%u", &port) != 1 ||
	    port == 0 || port > 65535)
		return NULL;
	snprintf(buf, len, "port %u", port);
	return buf;
}

/* An NFS mount's counters from now on; the capture started. */
static int
nfs_open(struct job *j, struct dir *d, char *err, size_t errlen)
{
	char filter[32], why[512];

	if ((d->nfs = is_nfs(j->t)) &&
	    mountstats_read(j->t->mountpoint, &d->client, err, errlen) == -1)
		return -1;
	if (j->o->nfs_iface == NULL)
		return 0;
	if (nfs_watch_start(&d->watch, j->o->nfs_iface,
	        wire_filter(j->t, filter, sizeof(filter)), why,
	        sizeof(why)) == -1) {
		snprintf(err, errlen, "--nfs-iface: %s", why);
		return -1;
	}
	d->watching = 1;
	return 0;
}

/*
 * The run's share of the traffic captured, and the NFS client's own
 * counters since the previous reading (the job's start for the first
 * run); a mount whose counters cannot be read is said and left out.
 */
static int
dir_took(
    struct job *j, int last, struct run_result *run, char *err, size_t errlen)
{
	struct dir *d = j->tpriv;
	struct nfs_stats st;
	struct mountstats now;
	char why[512];

	if (stop_signal())
		return 0;
	if (d->watching) {
		if (nfs_watch_take(&d->watch, last, &st, why, sizeof(why)) ==
		    -1) {
			snprintf(err, errlen, "--nfs-iface: %s", why);
			return -1;
		}
		run->nfs = nfs_stats_json(&st);
	}
	if (!d->nfs)
		return 0;
	if (mountstats_read(j->t->mountpoint, &now, why, sizeof(why)) == -1) {
		snprintf(j->warning, sizeof(j->warning), "%s", why);
		return 0;
	}
	run->mountstats = mountstats_delta_json(&d->client, &now);
	d->client = now;
	return 0;
}

static int
tick(void *probe, char *err, size_t errlen)
{
	return probe_tick(probe, err, errlen);
}

int
job_child_phase(struct job *j, replay_fn fn, void *arg, int ticking,
    struct replay_outcome *out, char *err, size_t errlen)
{
	return replay_child(fn, arg, ticking ? j->o->interval_ns : 0,
	    ticking ? tick : NULL, j->probe, out, err, errlen);
}

/* DIR must be a directory we can make a run directory in. */
static int
check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) == -1) {
		snprintf(err, errlen, "target directory '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "target '%s' is not a directory", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) == -1) {
		snprintf(err, errlen,
		    "target directory '%s' is not writable: %s", dir,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int
dir_open(struct job *j, char *err, size_t errlen)
{
	struct dir *d = calloc(1, sizeof(*d));
	struct stat st;

	if (d == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	d->runfd = -1;
	d->dirfd = -1;
	j->tpriv = d;
	if (check_dir(j->o->dir, err, errlen) == -1 ||
	    target_resolve(j->o->dir, &j->tgt, err, errlen) == -1)
		return -1;
	j->t = &j->tgt;
	j->nt = 1;
	for (size_t i = 0; i < j->o->nwatch; i++)
		if (target_watch_dev(&j->tgt, j->o->watch[i], err, errlen) ==
		    -1) {
			snprintf(err + strlen(err), errlen - strlen(err),
			    " (--watch-dev)");
			return -1;
		}
	if (target_settle(&j->tgt, err, errlen) == -1)
		return -1;
	if ((d->dirfd = open(j->o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	        -1 ||
	    fstat(d->dirfd, &st) == -1) {
		snprintf(err, errlen, "cannot open target directory '%s': %s",
		    j->o->dir, strerror(errno));
		return -1;
	}
	d->dev = st.st_dev;
	j->probe =
	    probe_open(j->o->probe, j->t, j->o->interval_ns, err, errlen);
	if (j->probe == NULL)
		return -1;
	return nfs_open(j, d, err, errlen);
}

static void
dir_close(struct job *j)
{
	struct dir *d = j->tpriv;

	probe_close(j->probe);
	j->probe = NULL;
	if (d == NULL)
		return;
	if (d->watching)
		nfs_watch_kill(&d->watch);
	if (d->dirfd != -1)
		close(d->dirfd);
	if (d->runfd != -1)
		close(d->runfd);
	free(d);
	j->tpriv = NULL;
}

/*
 * The target must still be the filesystem the probe watches: after a lazy
 * unmount its path leads to the directory beneath, on another device.
 */
static int
check_target(const struct job *j, const struct dir *d, char *err, size_t errlen)
{
	struct stat st;

	if (stat(j->o->dir, &st) == -1) {
		snprintf(err, errlen, "target directory '%s': %s", j->o->dir,
		    strerror(errno));
		return -1;
	}
	if (st.st_dev != d->dev) {
		snprintf(err, errlen,
		    "target directory '%s' is no longer on the filesystem "
		    "of device %u:%u (%s): was it unmounted?",
		    j->o->dir, j->t->major, j->t->minor, j->t->fstype);
		return -1;
	}
	return 0;
}

static int
dir_begin(struct job *j, char *err, size_t errlen)
{
	struct dir *d = j->tpriv;
	char tmpl[PATH_MAX];

	if (check_target(j, d, err, errlen) == -1)
		return -1;
	if (replay_syncfs(j->o->dir, err, errlen) == -1)
		return -1;
	snprintf(tmpl, sizeof(tmpl), "%s/ubcreplay-run.XXXXXX", j->o->dir);
	if (mkdtemp(tmpl) == NULL) {
		snprintf(err, errlen, "cannot make a run directory in '%s': %s",
		    j->o->dir, strerror(errno));
		return -1;
	}
	snprintf(j->rundir, sizeof(j->rundir), "%s", tmpl);
	snprintf(j->where, sizeof(j->where), "%s", tmpl);
	d->runname = strrchr(j->rundir, '/') + 1;
	if ((d->runfd = open(j->rundir,
	         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cannot open run directory '%s': %s",
		    j->rundir, strerror(errno));
		rmdir(j->rundir);
		return -1;
	}
	return 0;
}

static void
dir_sync(void *arg, struct replay_report *rep)
{
	struct job *j = arg;

	replay_sync(j->rundir, rep);
}

/* The tree, then (unless --fsync none) a sync. */
static void
dir_remove(void *arg, struct replay_report *rep)
{
	struct job *j = arg;
	struct dir *d = j->tpriv;

	rep->failed = replay_remove_tree_at(d->dirfd, d->runname, j->rundir,
	                  rep->error, sizeof(rep->error)) == -1 ||
	    (j->o->fsync != FSYNC_NONE &&
	        replay_syncfs_fd(
	            d->dirfd, j->o->dir, rep->error, sizeof(rep->error)) == -1);
}

/*
 * Whether the run directory is still there, and still at its path; then
 * held no longer: the last reference frees the directory's inode, and that
 * write belongs in the remove phase, not after its mark.
 */
static int
dir_check(struct job *j, char *err, size_t errlen)
{
	struct dir *d = j->tpriv;
	struct stat held, now;
	int rv = 0;

	if (fstat(d->runfd, &held) == -1 || held.st_nlink == 0) {
		snprintf(err, errlen,
		    "run directory '%s' was removed during the run "
		    "(by someone else)",
		    j->rundir);
		rv = -1;
	} else if (stat(j->rundir, &now) == -1 || now.st_dev != held.st_dev ||
	    now.st_ino != held.st_ino) {
		snprintf(err, errlen,
		    "run directory '%s' is no longer at its path: its "
		    "filesystem was unmounted or it was moved during the run",
		    j->rundir);
		rv = -1;
	}
	close(d->runfd);
	d->runfd = -1;
	return rv;
}

static void
dir_end(struct job *j, int done)
{
	struct dir *d = j->tpriv;
	char rerr[768];

	if (!done && !j->o->keep &&
	    replay_remove_tree_at(
	        d->dirfd, d->runname, j->rundir, rerr, sizeof(rerr)) == -1)
		snprintf(j->warning, sizeof(j->warning),
		    "run directory '%s' left behind: %s", j->rundir, rerr);
	if (d->runfd != -1)
		close(d->runfd);
	d->runfd = -1;
}

static int
dir_layout(struct job *j, struct layout *l, char *err, size_t errlen)
{
	return layout_read_dir(j->t, l, err, errlen);
}

const struct job_target_ops job_target_dir = {
    .kind = "dir",
    .fs = JOB_HOST,
    .refuse = dir_refuse,
    .open = dir_open,
    .begin = dir_begin,
    .phase = job_child_phase,
    .sync = dir_sync,
    .remove = dir_remove,
    .layout = dir_layout,
    .check = dir_check,
    .end = dir_end,
    .took = dir_took,
    .close = dir_close,
};
