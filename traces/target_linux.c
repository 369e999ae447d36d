/*
 * target_linux.c - from a directory to its filesystem and the block devices
 * behind it, on Linux: the mount from /proc/self/mountinfo, the devices from
 * sysfs (/sys/dev/block/MAJ:MIN links to the device; its slaves/ directory
 * lists the members of a device-mapper or md device); and what ext4 reads
 * by itself after its mount, read before the first run.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#include "traces.h"

static char *
slurp(const char *path, char *err, size_t errlen)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (buf == NULL) {
		snprintf(err, errlen, "cannot allocate for '%s'", path);
		return NULL;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (n == -1) {
		snprintf(
		    err, errlen, "cannot read '%s': %s", path, strerror(errno));
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static int
adddev(struct target *t, const char *sysroot, unsigned ma, unsigned mi,
    const char *role, int depth, char *err, size_t errlen)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct target_dev *d;
	const char *name;
	DIR *dir;
	struct dirent *de;
	ssize_t n;

	for (size_t i = 0; i < t->ndev; i++)
		if (t->dev[i].major == ma && t->dev[i].minor == mi)
			return 0;
	if (t->ndev == TARGET_MAXDEV || depth > 8) {
		snprintf(err, errlen, "more than %d devices behind '%s'",
		    TARGET_MAXDEV, t->path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", sysroot, ma, mi);
	if ((n = readlink(path, link, sizeof(link) - 1)) == -1) {
		snprintf(err, errlen, "device %u:%u has no entry in %s: %s", ma,
		    mi, sysroot, strerror(errno));
		return -1;
	}
	link[n] = '\0';
	name = strrchr(link, '/') != NULL ? strrchr(link, '/') + 1 : link;
	d = &t->dev[t->ndev++];
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->major = ma;
	d->minor = mi;
	d->role = role;

	/* A device-mapper or md device lists what it is made of. */
	snprintf(
	    path, sizeof(path), "%s/dev/block/%u:%u/slaves", sysroot, ma, mi);
	if ((dir = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		char devpath[PATH_MAX], *txt;
		unsigned sma, smi;

		if (de->d_name[0] == '.')
			continue;
		snprintf(devpath, sizeof(devpath), "%s/class/block/%s/dev",
		    sysroot, de->d_name);
		if ((txt = slurp(devpath, err, errlen)) == NULL) {
			closedir(dir);
			return -1;
		}
		if (sscanf(txt, "%u:%u", &sma, &smi) != 2) {
			snprintf(
			    err, errlen, "'%s' is not MAJOR:MINOR", devpath);
			free(txt);
			closedir(dir);
			return -1;
		}
		free(txt);
		if (adddev(t, sysroot, sma, smi, "member", depth + 1, err,
		        errlen) == -1) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	return 0;
}

int
target_resolve_from(const char *dir, unsigned major, unsigned minor,
    const char *mountinfo, const char *sysroot, struct target *t, char *err,
    size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	unsigned ma = major, mi = minor;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", dir);
	if (mountinfo_find(mountinfo, major, minor, dir, t, err, errlen) == -1)
		return -1;

	/*
	 * btrfs (and other filesystems that span devices) report an anonymous
	 * device number (major 0); the source names the block device.
	 */
	if (ma == 0) {
		if (t->source[0] != '/' || stat(t->source, &st) == -1 ||
		    !S_ISBLK(st.st_mode)) {
			snprintf(t->nodev_reason, sizeof(t->nodev_reason),
			    "%s filesystem from '%s' has no block device",
			    t->fstype, t->source);
			return 0;
		}
		ma = major(st.st_rdev);
		mi = minor(st.st_rdev);
	}
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", sysroot, ma, mi);
	if (lstat(path, &st) == -1) {
		snprintf(t->nodev_reason, sizeof(t->nodev_reason),
		    "%s filesystem from '%s' has no block device", t->fstype,
		    t->source);
		return 0;
	}
	return adddev(t, sysroot, ma, mi, "fs", 0, err, errlen);
}

int
target_resolve(const char *dir, struct target *t, char *err, size_t errlen)
{
	char real[PATH_MAX], *mi;
	struct stat st;
	int rv;

	if (realpath(dir, real) == NULL) {
		snprintf(err, errlen, "cannot resolve '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	if (stat(real, &st) == -1) {
		snprintf(
		    err, errlen, "cannot stat '%s': %s", dir, strerror(errno));
		return -1;
	}
	if ((mi = slurp("/proc/self/mountinfo", err, errlen)) == NULL)
		return -1;
	rv = target_resolve_from(real, major(st.st_dev), minor(st.st_dev), mi,
	    "/sys", t, err, errlen);
	free(mi);
	if (rv == 0)
		snprintf(t->path, sizeof(t->path), "%s", dir);
	return rv;
}

int
target_resolve_node(
    const char *path, struct target *t, char *err, size_t errlen)
{
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;
	char *slash;

	if (stat(path, &st) == -1) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "cannot stat '%s': %s", path,
			    strerror(errno));
			return -1;
		}
		/* Not there yet: it will be made in its directory. */
		snprintf(dir, sizeof(dir), "%s", path);
		if ((slash = strrchr(dir, '/')) == NULL)
			snprintf(dir, sizeof(dir), ".");
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		if (target_resolve(dir, t, err, errlen) == -1)
			return -1;
		snprintf(t->path, sizeof(t->path), "%s", path);
		return 0;
	}
	if (S_ISBLK(st.st_mode)) {
		memset(t, 0, sizeof(*t));
		snprintf(t->path, sizeof(t->path), "%s", path);
		snprintf(t->source, sizeof(t->source), "%s",
		    realpath(path, real) != NULL ? real : path);
		snprintf(t->fstype, sizeof(t->fstype), "block device");
		t->major = major(st.st_rdev);
		t->minor = minor(st.st_rdev);
		return adddev(
		    t, "/sys", t->major, t->minor, "fs", 0, err, errlen);
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode)) {
		memset(t, 0, sizeof(*t));
		snprintf(t->path, sizeof(t->path), "%s", path);
		snprintf(t->source, sizeof(t->source), "%s", path);
		snprintf(t->fstype, sizeof(t->fstype), "%s",
		    S_ISCHR(st.st_mode) ? "character device" : "pipe");
		snprintf(t->nodev_reason, sizeof(t->nodev_reason),
		    "'%s' is a %s, not on a block device", path, t->fstype);
		return 0;
	}
	return target_resolve(path, t, err, errlen);
}

int
target_watch_dev(struct target *t, const char *node, char *err, size_t errlen)
{
	struct stat st;

	if (stat(node, &st) == -1) {
		snprintf(
		    err, errlen, "cannot stat '%s': %s", node, strerror(errno));
		return -1;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a block device", node);
		return -1;
	}
	t->nodev_reason[0] = '\0';
	return adddev(t, "/sys", major(st.st_rdev), minor(st.st_rdev),
	    "watched", 0, err, errlen);
}

/*
 * ext4 (and ext2 and ext3 when its driver mounts them) has its lazy-init
 * thread read the block bitmaps, starting at a random moment up to 5 s after
 * the mount and going on in batches. Reading mb_groups loads every group's
 * bitmap now, and the thread then finds none left to read. Other
 * filesystems, and devices without one, have no such file.
 */
static int
load_bitmaps(const char *devname, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[65536];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/mb_groups", devname);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		continue;
	if (n == -1)
		snprintf(err, errlen,
		    "cannot load ext4's block bitmaps through '%s': %s", path,
		    strerror(errno));
	close(fd);
	return n == -1 ? -1 : 0;
}

int
target_settle(const struct target *t, char *err, size_t errlen)
{
	/* Told not to prefetch: left so. A watched device's is not ours. */
	int keep = target_has_option(t, "no_prefetch_block_bitmaps");

	for (size_t i = 0; i < t->ndev; i++)
		if ((!keep || strcmp(t->dev[i].role, "watched") == 0) &&
		    load_bitmaps(t->dev[i].name, err, errlen) == -1)
			return -1;
	return 0;
}
