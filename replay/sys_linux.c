/*
 * sys_linux.c - syncing one filesystem, dropping the page cache, opening a
 * path that may not leave its directory, and a process that dies with its
 * parent, on Linux.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdint.h>
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

/*
 * openat2 with RESOLVE_BENEATH: symbolic links are followed only while
 * they stay under dirfd, ".." never climbs out of it, and /proc's magic
 * links are refused; the kernel decides, so no race can move a path out
 * between a check and its use.
 */
int
replay_open_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	/* O_TMPFILE holds O_DIRECTORY's bit: test it whole. */
	how.mode =
	    (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* The parent may have died before the call: then it is not the parent. */
int
replay_die_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		return -1;
	if (getppid() != parent) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}
