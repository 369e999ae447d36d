/*
 * sys_linux.c - syncing one filesystem and dropping the page cache, on Linux.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

int
replay_syncfs(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1 || syncfs(fd) == -1) {
		snprintf(err, errlen, "cannot sync the filesystem of '%s': %s",
		    path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int
replay_syncfs_fd(int fd, const char *path, char *err, size_t errlen)
{
	if (syncfs(fd) == -1) {
		snprintf(err, errlen, "cannot sync the filesystem of '%s': %s",
		    path, strerror(errno));
		return -1;
	}
	return 0;
}

int
replay_drop_caches(char *err, size_t errlen)
{
	const char *path = "/proc/sys/vm/drop_caches";
	int fd;

	sync();
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1 ||
	    write(fd, "3\n", 2) != 2) {
		snprintf(err, errlen, "cannot drop caches through '%s': %s%s",
		    path, strerror(errno),
		    errno == EACCES || errno == EPERM ? " (needs root)" : "");
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
