/*
 * sys_other.c - syncing and dropping caches where Linux's calls are missing:
 * sync(2) syncs every filesystem, and there is no portable way to drop the
 * page cache, which we say rather than pretend.
 */
#include <stdio.h>
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
