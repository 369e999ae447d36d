/*
 * sys_linux.c - syncing one filesystem, dropping the page cache, opening a
 * path that may not leave its directory, a process that dies with its
 * parent, and the processes a command left running, on Linux.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

int
replay_adopt_orphans(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/*
 * Whether process pid is a child of ours (-1 if not, or gone), and whether
 * it has exited (1, a zombie) or not (0); its command name in name.
 */
static int
child_state(pid_t pid, char *name, size_t len)
{
	char path[64], buf[512], *lp, *rp, state;
	long ppid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) S ppid ...": comm may hold spaces and parentheses. */
	if ((lp = strchr(buf, '(')) == NULL ||
	    (rp = strrchr(buf, ')')) == NULL ||
	    sscanf(rp + 1, " %c %ld", &state, &ppid) != 2 || ppid != getpid())
		return -1;
	snprintf(name, len, "%.*s", (int)(rp - lp - 1), lp + 1);
	return state == 'Z';
}

size_t
replay_kill_left(char *first, size_t firstlen)
{
	size_t left = 0;

	first[0] = '\0';
	for (;;) {
		char buf[4096], name[64], *p, *end;
		pid_t killed[256];
		size_t nk = 0;
		ssize_t n;
		int fd;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			continue;
		if ((fd = open("/proc/thread-self/children",
		         O_RDONLY | O_CLOEXEC)) == -1)
			break;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			break;
		buf[n] = '\0';
		/* A pid cut short by the buffer's end has no space after. */
		for (p = buf; nk < 256; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p || *end != ' ' || pid <= 0)
				break;
			if (child_state((pid_t)pid, name, sizeof(name)) != 0)
				continue;
			if (left++ == 0)
				snprintf(
				    first, firstlen, "%s (pid %ld)", name, pid);
			if (kill((pid_t)pid, SIGKILL) == 0)
				killed[nk++] = (pid_t)pid;
		}
		if (nk == 0)
			break;
		/* Their own children come to us when they die: next round. */
		for (size_t i = 0; i < nk; i++)
			while (
			    waitpid(killed[i], NULL, 0) == -1 && errno == EINTR)
				continue;
	}
	return left;
}
