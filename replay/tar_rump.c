/*
 * tar_rump.c - the tar workload inside a NetBSD rump kernel: the same
 * extraction loop as on the host (tar.c), writing each entry through the
 * kernel's system calls, in the order libarchive's disk writer uses: the
 * file made, its data in the blocks libarchive decoded, each one write(),
 * then its owner, mode and times; directories' modes and times at the end,
 * as libarchive leaves them for last.
 *
 * What keeps an entry inside the run directory is what the host's writer
 * checks: no absolute name, no "..", no writing through a symbolic link
 * (each directory on the way is looked at, not followed), and the same for
 * a hard link's target.
 */
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rump.h"
#include "tar_impl.h"

#define NETBSD_MAXPATHLEN 1024

struct fixup {
	char *path;
	mode_t mode;
	int64_t atime_us, mtime_us;
};

struct sink {
	const char *rundir;
	int fd;      /* the file being written, or -1 */
	int64_t pos; /* where its next write() lands */
	char path[PATH_MAX];
	char parent[PATH_MAX]; /* the last parent made sure of */
	struct fixup *fix;     /* directories, for the end */
	size_t nfix, cap;
	int owner; /* as root: owners as the archive says */
};

static int
say(char *err, size_t errlen, const char *what, const char *path)
{
	snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
	return -1;
}

/*
 * The entry's name under the run directory, refused when it would leave
 * it: absolute, or with a ".." component.
 */
static int
inside(const struct sink *s, const char *name, char *out, size_t len, char *err,
    size_t errlen)
{
	const char *p = name;

	if (name == NULL || *name == '\0') {
		snprintf(err, errlen, "an empty name");
		return -1;
	}
	if (*name == '/') {
		snprintf(err, errlen, "an absolute path");
		return -1;
	}
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			snprintf(err, errlen, "a path with '..' in it");
			return -1;
		}
		p += n;
		p += strspn(p, "/");
	}
	/*
	 * NetBSD looks up no path longer than MAXPATHLEN; the host's writer
	 * walks down a long one a directory at a time, this one does not.
	 */
	if ((size_t)snprintf(out, len, "%s/%s", s->rundir, name) >= len ||
	    strlen(out) >= NETBSD_MAXPATHLEN) {
		snprintf(err, errlen,
		    "a path of %zu bytes in the run directory: longer than "
		    "NetBSD's MAXPATHLEN (%d)",
		    strlen(s->rundir) + 1 + strlen(name), NETBSD_MAXPATHLEN);
		return -1;
	}
	/* "a/b/" names the directory a/b. */
	for (size_t n = strlen(out); n > 0 && out[n - 1] == '/'; n--)
		out[n - 1] = '\0';
	return 0;
}

/*
 * Every directory between the run directory and path's last component:
 * made when missing, refused when it is a symbolic link or not a
 * directory. Entries of one directory come together, so the last parent
 * is remembered.
 */
static int
parents(struct sink *s, const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], *slash;
	size_t root = strlen(s->rundir);

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL ||
	    (size_t)(slash - dir) <= root)
		return 0;
	*slash = '\0';
	if (strcmp(dir, s->parent) == 0)
		return 0;
	for (char *p = dir + root + 1;; p++) {
		mode_t mode;
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (rumpk_lstat_mode(dir, &mode) == -1) {
			if (errno != ENOENT ||
			    (rumpk_mkdir(dir, 0755) == -1 && errno != EEXIST))
				return say(err, errlen, "cannot make", dir);
		} else if (S_ISLNK(mode)) {
			snprintf(err, errlen,
			    "'%s' is a symbolic link: not written through",
			    dir + root + 1);
			return -1;
		} else if (!S_ISDIR(mode)) {
			snprintf(err, errlen, "'%s' is not a directory",
			    dir + root + 1);
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	snprintf(s->parent, sizeof(s->parent), "%s", dir);
	return 0;
}

/*
 * What is in the way of the new entry goes, as the host's writer does: a
 * file or link, or an empty directory where the entry is not one (a
 * directory with entries stays, and the entry is then refused, as there).
 */
static void
clear_way(const char *path, int dir)
{
	mode_t mode;

	if (rumpk_lstat_mode(path, &mode) == -1)
		return;
	if (!S_ISDIR(mode))
		rumpk_unlink(path);
	else if (!dir)
		rumpk_rmdir(path);
}

static int64_t
us(time_t sec, long nsec)
{
	return (int64_t)sec * 1000000 + nsec / 1000;
}

static int
rump_header(void *ctx, struct archive_entry *e, char *err, size_t errlen)
{
	struct sink *s = ctx;
	mode_t perm = archive_entry_perm(e);
	const char *link = archive_entry_hardlink(e);
	char target[PATH_MAX];

	if (inside(s, archive_entry_pathname(e), s->path, sizeof(s->path), err,
	        errlen) == -1 ||
	    parents(s, s->path, err, errlen) == -1)
		return -1;
	if (strcmp(s->path, s->rundir) == 0)
		return 0; /* "." is the run directory itself */
	if (link != NULL) {
		if (inside(s, link, target, sizeof(target), err, errlen) ==
		        -1 ||
		    parents(s, target, err, errlen) == -1)
			return -1;
		clear_way(s->path, 0);
		if (rumpk_link(target, s->path) == -1)
			return say(err, errlen, "cannot link to", link);
		/* A hard link with data rewrites the file it joins. */
		if (archive_entry_size(e) > 0 &&
		    (s->fd = rumpk_open(
		         s->path, RUMPK_O_WRONLY | RUMPK_O_NOFOLLOW, 0)) == -1)
			return say(err, errlen, "cannot open", s->path);
		s->pos = 0;
		return 0;
	}
	switch (archive_entry_filetype(e)) {
	case AE_IFDIR:
		clear_way(s->path, 1);
		if (rumpk_mkdir(s->path, 0700) == -1 && errno != EEXIST)
			return say(err, errlen, "cannot make", s->path);
		return 0;
	case AE_IFLNK:
		clear_way(s->path, 0);
		if (rumpk_symlink(archive_entry_symlink(e), s->path) == -1)
			return say(err, errlen, "cannot make", s->path);
		return 0;
	case AE_IFIFO:
		clear_way(s->path, 0);
		if (rumpk_mkfifo(s->path, perm) == -1)
			return say(err, errlen, "cannot make", s->path);
		return 0;
	case AE_IFREG:
		clear_way(s->path, 0);
		if ((s->fd = rumpk_open(s->path,
		         RUMPK_O_WRONLY | RUMPK_O_CREAT | RUMPK_O_EXCL |
		             RUMPK_O_NOFOLLOW,
		         perm & 0777)) == -1)
			return say(err, errlen, "cannot create", s->path);
		s->pos = 0;
		return 0;
	default:
		snprintf(err, errlen, "a file type FFS is not given here");
		return -1;
	}
}

static int
rump_data(void *ctx, const void *buf, size_t size, int64_t off, char *err,
    size_t errlen)
{
	struct sink *s = ctx;
	ssize_t n;

	if (s->fd == -1) {
		snprintf(err, errlen, "data for an entry that is not a file");
		return -1;
	}
	/* At the file's end it is write(); a hole before it, pwrite(). */
	n = off == s->pos ? rumpk_write(s->fd, buf, size)
	                  : rumpk_pwrite(s->fd, buf, size, off);
	if (n == -1) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if ((size_t)n != size) {
		snprintf(
		    err, errlen, "a short write (%zd of %zu bytes)", n, size);
		return -1;
	}
	s->pos = off + (int64_t)size;
	return 0;
}

static int
remember(struct sink *s, struct archive_entry *e)
{
	struct fixup *f;

	if (s->nfix == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct fixup *n = realloc(s->fix, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		s->fix = n;
		s->cap = cap;
	}
	f = &s->fix[s->nfix];
	if ((f->path = strdup(s->path)) == NULL)
		return -1;
	f->mode = archive_entry_perm(e);
	f->atime_us = us(archive_entry_atime(e), archive_entry_atime_nsec(e));
	f->mtime_us = us(archive_entry_mtime(e), archive_entry_mtime_nsec(e));
	if (!archive_entry_atime_is_set(e))
		f->atime_us = f->mtime_us;
	s->nfix++;
	return 0;
}

static int
rump_finish(
    void *ctx, struct archive_entry *e, int sync, char *err, size_t errlen)
{
	struct sink *s = ctx;
	int64_t mtime = us(archive_entry_mtime(e), archive_entry_mtime_nsec(e));
	int64_t atime = archive_entry_atime_is_set(e)
	    ? us(archive_entry_atime(e), archive_entry_atime_nsec(e))
	    : mtime;
	int rv = 0;

	if (strcmp(s->path, s->rundir) == 0)
		return 0;
	if (archive_entry_filetype(e) == AE_IFDIR &&
	    archive_entry_hardlink(e) == NULL) {
		if (remember(s, e) == -1) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		return 0;
	}
	if (s->fd == -1) {
		/* A symbolic link, a FIFO, a hard link without data. */
		if (archive_entry_hardlink(e) != NULL)
			return 0;
		if ((s->owner &&
		        rumpk_lchown(s->path, archive_entry_uid(e),
		            archive_entry_gid(e)) == -1) ||
		    rumpk_lutimes(s->path, atime, mtime) == -1)
			return say(err, errlen, "cannot set", s->path);
		return 0;
	}
	if ((s->owner &&
	        rumpk_fchown(
	            s->fd, archive_entry_uid(e), archive_entry_gid(e)) == -1) ||
	    rumpk_fchmod(s->fd, archive_entry_perm(e)) == -1 ||
	    rumpk_futimes(s->fd, atime, mtime) == -1)
		rv = say(err, errlen, "cannot set", s->path);
	else if (sync && rumpk_fsync(s->fd) == -1)
		rv = say(err, errlen, "cannot fsync", s->path);
	rumpk_close(s->fd);
	s->fd = -1;
	return rv;
}

/*
 * Directories' modes and times, in the reverse of the archive's order, so
 * that a directory's own time is set after its entries changed it.
 */
static int
rump_close(void *ctx, char *err, size_t errlen)
{
	struct sink *s = ctx;

	while (s->nfix > 0) {
		struct fixup *f = &s->fix[--s->nfix];
		mode_t mode;
		int fd, bad;

		/* A later entry made the name something else: left alone. */
		if (rumpk_lstat_mode(f->path, &mode) == 0 && !S_ISDIR(mode)) {
			free(f->path);
			continue;
		}
		fd = rumpk_open(f->path,
		    RUMPK_O_RDONLY | RUMPK_O_DIRECTORY | RUMPK_O_NOFOLLOW, 0);
		bad = fd == -1 || rumpk_fchmod(fd, f->mode) == -1 ||
		    rumpk_futimes(fd, f->atime_us, f->mtime_us) == -1;
		if (bad)
			say(err, errlen, "cannot set", f->path);
		if (fd != -1)
			rumpk_close(fd);
		free(f->path);
		if (bad)
			return -1;
	}
	return 0;
}

void
replay_tar_extract_rump(void *arg, struct replay_report *rep)
{
	const struct replay_tar_job *job = arg;
	struct sink s = {
	    .rundir = job->rundir, .fd = -1, .owner = geteuid() == 0};
	struct tar_sink k = {.ctx = &s,
	    .header = rump_header,
	    .data = rump_data,
	    .finish = rump_finish,
	    .close = rump_close};

	replay_tar_into(job, &k, rep);
	if (s.fd != -1)
		rumpk_close(s.fd);
	while (s.nfix > 0)
		free(s.fix[--s.nfix].path);
	free(s.fix);
}
