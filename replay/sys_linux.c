/*
 * sys_linux.c - syncing one filesystem, dropping the page cache, doing now
 * what a filesystem would do in the background after its mount, opening a
 * path that may not leave its directory, and a process that dies with its
 * parent, on Linux.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* Whether the comma list opts holds the option word. */
static int
has_option(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; p != NULL; p = strchr(p, ',')) {
		p += *p == ',';
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
	}
	return 0;
}

/*
 * ext4 (and ext2 and ext3 when its driver mounts them) has its lazy-init
 * thread read the block bitmaps, starting at a random moment up to 5 s after
 * the mount and going on in batches. Reading mb_groups loads every group's
 * bitmap now, and the thread then finds none left to read. A filesystem
 * mounted not to prefetch is left so. Other filesystems, and devices
 * without one, have no such file.
 */
int
replay_settle(const char *devname, const char *fsopts, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[65536];
	ssize_t n;
	int fd;

	if (has_option(fsopts, "no_prefetch_block_bitmaps"))
		return 0;
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
