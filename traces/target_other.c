/*
 * target_other.c - targets on systems without a probe yet (NetBSD's
 * hw.iostats and FreeBSD's devstat are to come): the directory is checked
 * and the run goes on with times only, saying why. No filesystem is known
 * to read by itself after its mount.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "traces.h"

int
target_resolve(const char *dir, struct target *t, char *err, size_t errlen)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (stat(dir, &st) == -1) {
		snprintf(
		    err, errlen, "cannot stat '%s': %s", dir, strerror(errno));
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s", dir);
	snprintf(t->fstype, sizeof(t->fstype), "unknown");
	snprintf(t->nodev_reason, sizeof(t->nodev_reason),
	    "device statistics are not supported on this system yet");
	return 0;
}

int
target_resolve_from(const char *dir, unsigned major, unsigned minor,
    const char *mountinfo, const char *sysroot, struct target *t, char *err,
    size_t errlen)
{
	(void)dir;
	(void)major;
	(void)minor;
	(void)mountinfo;
	(void)sysroot;
	(void)t;
	snprintf(err, errlen, "sysfs trees are read on Linux only");
	return -1;
}

int
target_resolve_node(
    const char *path, struct target *t, char *err, size_t errlen)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (stat(path, &st) == -1 && errno != ENOENT) {
		snprintf(
		    err, errlen, "cannot stat '%s': %s", path, strerror(errno));
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s", path);
	snprintf(t->fstype, sizeof(t->fstype), "unknown");
	snprintf(t->nodev_reason, sizeof(t->nodev_reason),
	    "device statistics are not supported on this system yet");
	return 0;
}

int
target_watch_dev(struct target *t, const char *node, char *err, size_t errlen)
{
	(void)t;
	snprintf(err, errlen,
	    "cannot watch '%s': device statistics are not supported on this "
	    "system yet",
	    node);
	return -1;
}

int
target_settle(const struct target *t, char *err, size_t errlen)
{
	(void)t;
	(void)err;
	(void)errlen;
	return 0;
}
