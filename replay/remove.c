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

/* Removes what directory fd dfd holds; dfd is closed. */
static int
empty_dir(int dfd, const char *path, char *err, size_t errlen)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int rv = 0;

	if (d == NULL) {
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
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1) {
			snprintf(err, errlen, "cannot stat '%s': %s", sub,
			    strerror(errno));
			rv = -1;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			/* A directory the archive made read-only must open. */
			if ((st.st_mode & S_IRWXU) != S_IRWXU)
				fchmodat(dirfd(d), de->d_name, S_IRWXU, 0);
			cfd = openat(dirfd(d), de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd == -1) {
				snprintf(err, errlen, "cannot open '%s': %s",
				    sub, strerror(errno));
				rv = -1;
				break;
			}
			rv = empty_dir(cfd, sub, err, errlen);
			if (rv == 0 &&
			    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) ==
			        -1) {
				snprintf(err, errlen, "cannot remove '%s': %s",
				    sub, strerror(errno));
				rv = -1;
			}
		} else if (unlinkat(dirfd(d), de->d_name, 0) == -1) {
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
	int fd;

	chmod(path, S_IRWXU);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (empty_dir(fd, path, err, errlen) == -1)
		return -1;
	if (rmdir(path) == -1) {
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
