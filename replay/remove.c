/*
 * remove.c - the sync and remove phases: what `sync` and `rm -rf` did
 * between the runs of the experiments this tool replaces.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

/*
 * Past this depth a tree is emptied without holding a descriptor per level:
 * an archive can nest directories deeper than the process may open files.
 */
#define REMOVE_MAXOPEN 64

/* A directory the archive made without search or write permission must open. */
static void
open_up(int dfd, const char *name, const struct stat *st)
{
	if ((st->st_mode & S_IRWXU) != S_IRWXU)
		fchmodat(dfd, name, S_IRWXU, 0);
}

/*
 * Empties the tree under directory fd top (closed here) holding two
 * descriptors at most: it goes down into the first directory that is not
 * empty, and back up through "..", until top is empty. Each climb reads the
 * parent again from its start, which costs a rescan per directory; that is
 * why the shallow levels are left to empty_dir.
 */
static int
empty_deep(int top, const char *path, char *err, size_t errlen)
{
	struct stat root, st;
	int cur = top, rv = 0;

	if (fstat(top, &root) == -1) {
		snprintf(
		    err, errlen, "cannot stat '%s': %s", path, strerror(errno));
		close(top);
		return -1;
	}
	for (;;) {
		struct dirent *de;
		int down = -1, fd;
		DIR *d;

		if ((fd = openat(
		         cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
		    (d = fdopendir(fd)) == NULL) {
			snprintf(err, errlen,
			    "cannot read a directory under "
			    "'%s': %s",
			    path, strerror(errno));
			if (fd != -1)
				close(fd);
			rv = -1;
			break;
		}
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (fstatat(cur, de->d_name, &st,
			        AT_SYMLINK_NOFOLLOW) == -1)
				continue; /* gone meanwhile */
			if (!S_ISDIR(st.st_mode)) {
				if (unlinkat(cur, de->d_name, 0) == -1 &&
				    errno != ENOENT)
					break;
				continue;
			}
			if (unlinkat(cur, de->d_name, AT_REMOVEDIR) == 0 ||
			    errno == ENOENT)
				continue;
			if (errno != ENOTEMPTY && errno != EEXIST)
				break;
			open_up(cur, de->d_name, &st);
			down = openat(cur, de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (down == -1 && errno == ENOENT)
				continue;
			break;
		}
		if (de != NULL && down == -1) {
			snprintf(err, errlen,
			    "cannot remove '%s' under '%s': %s", de->d_name,
			    path, strerror(errno));
			closedir(d);
			rv = -1;
			break;
		}
		closedir(d);
		if (down != -1) {
			close(cur);
			cur = down;
			continue;
		}
		/* cur is empty: done if it is the top, else climb. */
		if (fstat(cur, &st) == -1) {
			snprintf(err, errlen,
			    "cannot stat a directory under "
			    "'%s': %s",
			    path, strerror(errno));
			rv = -1;
			break;
		}
		if (st.st_dev == root.st_dev && st.st_ino == root.st_ino)
			break;
		if ((fd = openat(cur, "..",
		         O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
			snprintf(err, errlen,
			    "cannot climb back under '%s': %s", path,
			    strerror(errno));
			rv = -1;
			break;
		}
		close(cur);
		cur = fd;
	}
	close(cur);
	return rv;
}

/* Removes what directory fd dfd holds; dfd is closed. */
static int
empty_dir(int dfd, const char *path, int depth, char *err, size_t errlen)
{
	struct dirent *de;
	int rv = 0;
	DIR *d;

	if (depth >= REMOVE_MAXOPEN)
		return empty_deep(dfd, path, err, errlen);
	if ((d = fdopendir(dfd)) == NULL) {
		snprintf(
		    err, errlen, "cannot read '%s': %s", path, strerror(errno));
		close(dfd);
		return -1;
	}
	while (rv == 0 && (de = readdir(d)) != NULL) {
		char sub[PATH_MAX];
		struct stat st;
		int cfd;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		/* What someone else removed meanwhile is as good as removed. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1) {
			if (errno == ENOENT)
				continue;
			snprintf(err, errlen, "cannot stat '%s': %s", sub,
			    strerror(errno));
			rv = -1;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			open_up(dirfd(d), de->d_name, &st);
			cfd = openat(dirfd(d), de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd == -1 && errno == ENOENT)
				continue;
			if (cfd == -1) {
				snprintf(err, errlen, "cannot open '%s': %s",
				    sub, strerror(errno));
				rv = -1;
				break;
			}
			rv = empty_dir(cfd, sub, depth + 1, err, errlen);
			if (rv == 0 &&
			    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) ==
			        -1 &&
			    errno != ENOENT) {
				snprintf(err, errlen, "cannot remove '%s': %s",
				    sub, strerror(errno));
				rv = -1;
			}
		} else if (unlinkat(dirfd(d), de->d_name, 0) == -1 &&
		    errno != ENOENT) {
			snprintf(err, errlen, "cannot remove '%s': %s", sub,
			    strerror(errno));
			rv = -1;
		}
	}
	closedir(d);
	return rv;
}

int
replay_remove_tree(const char *path, char *err, size_t errlen)
{
	return replay_remove_tree_at(AT_FDCWD, path, path, err, errlen);
}

int
replay_remove_tree_at(
    int atfd, const char *name, const char *path, char *err, size_t errlen)
{
	int fd;

	fchmodat(atfd, name, S_IRWXU, 0);
	fd =
	    openat(atfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (empty_dir(fd, path, 0, err, errlen) == -1)
		return -1;
	if (unlinkat(atfd, name, AT_REMOVEDIR) == -1 && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

void
replay_sync(void *path, struct replay_report *rep)
{
	rep->failed = replay_syncfs(path, rep->error, sizeof(rep->error)) == -1;
}

void
replay_remove(void *path, struct replay_report *rep)
{
	char parent[PATH_MAX], *slash;

	snprintf(parent, sizeof(parent), "%s", (const char *)path);
	if ((slash = strrchr(parent, '/')) != NULL && slash != parent)
		*slash = '\0';
	rep->failed =
	    replay_remove_tree(path, rep->error, sizeof(rep->error)) == -1 ||
	    replay_syncfs(parent, rep->error, sizeof(rep->error)) == -1;
}
