/*
 * sys_other.c - syncing and dropping caches where Linux's calls are missing:
 * sync(2) syncs every filesystem, and there is no portable way to drop the
 * page cache, which we say rather than pretend; paths are walked without
 * following symbolic links; a process cannot ask to die with its parent,
 * nor find what a command left running.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

int
replay_syncfs(const char *path, char *err, size_t errlen)
{
	(void)path;
	(void)err;
	(void)errlen;
	sync();
	return 0;
}

int
replay_syncfs_fd(int fd, const char *path, char *err, size_t errlen)
{
	(void)fd;
	return replay_syncfs(path, err, errlen);
}

int
replay_drop_caches(char *err, size_t errlen)
{
	snprintf(err, errlen, "--drop-caches is not supported on this system");
	return -1;
}

/*
 * Without openat2, a path is walked a component at a time, none of them
 * followed if it is a symbolic link (O_NOFOLLOW): stricter than Linux's
 * RESOLVE_BENEATH, which follows links that stay inside. Paths reaching
 * here have no "..", no empty component (model/wtrace.c refuses them).
 */
int
replay_open_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
	char comp[PATH_MAX];
	const char *p = path, *slash;
	int fd = dirfd, next;

	while ((slash = strchr(p, '/')) != NULL) {
		size_t n = (size_t)(slash - p);

		if (n >= sizeof(comp)) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		next = openat(
		    fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd != dirfd)
			close(fd);
		if ((fd = next) == -1)
			return -1;
		p = slash + 1;
	}
	next = openat(fd, p, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd != dirfd) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return next;
fail:
	if (fd != dirfd)
		close(fd);
	return -1;
}

int
replay_die_with(pid_t parent)
{
	(void)parent;
	return 0;
}

int
replay_adopt_orphans(void)
{
	return 0;
}

size_t
replay_kill_left(char *first, size_t firstlen)
{
	if (firstlen > 0)
		first[0] = '\0';
	return 0;
}
