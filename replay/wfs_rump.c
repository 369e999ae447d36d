/*
 * wfs_rump.c - the trace workload's system calls in a NetBSD rump kernel
 * (wfs_impl.h, rump.h). Where NetBSD has no such call, the nearest thing
 * is done: copy_file_range as reads and writes (counted as the one write
 * it replaces), sync_file_range that writes as fdatasync, syncfs as
 * sync(2) and a wait for its writes; fallocate does nothing (NetBSD's FFS
 * preallocates nothing). Paths are opened with openat beneath the run
 * directory; the trace's own check keeps its symbolic links inside, and
 * nothing of the host is in the kernel's namespace.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>

#include "../model/wtrace.h"
#include "rump.h"
#include "wfs_impl.h"

static int
nb_flags(uint64_t w)
{
	int f = (w & WT_O_READ) && (w & WT_O_WRITE) ? RUMPK_O_RDWR
	    : (w & WT_O_WRITE)                      ? RUMPK_O_WRONLY
	                                            : RUMPK_O_RDONLY;

	f |= (w & WT_O_CREAT) ? RUMPK_O_CREAT : 0;
	f |= (w & WT_O_EXCL) ? RUMPK_O_EXCL : 0;
	f |= (w & WT_O_TRUNC) ? RUMPK_O_TRUNC : 0;
	f |= (w & WT_O_APPEND) ? RUMPK_O_APPEND : 0;
	f |= (w & WT_O_DIRECT) ? RUMPK_O_DIRECT : 0;
	f |= (w & WT_O_SYNC) ? RUMPK_O_SYNC : 0;
	f |= (w & WT_O_DSYNC) ? RUMPK_O_DSYNC : 0;
	f |= (w & WT_O_DIRECTORY) ? RUMPK_O_DIRECTORY : 0;
	return f;
}

static int
r_open_root(const char *path)
{
	return rumpk_open(
	    path, RUMPK_O_RDONLY | RUMPK_O_DIRECTORY | RUMPK_O_NOFOLLOW, 0);
}

static int
r_open_beneath(int root, const char *path, uint64_t wt, mode_t mode)
{
	return rumpk_openat(root, path, nb_flags(wt), mode);
}

static int
r_create_at(int dfd, const char *name, mode_t mode)
{
	return rumpk_openat(
	    dfd, name, RUMPK_O_WRONLY | RUMPK_O_CREAT | RUMPK_O_NOFOLLOW, mode);
}

static ssize_t
r_copy_range(int in, int64_t off_in, int out, int64_t off_out, size_t n)
{
	size_t done = 0, chunk = 1 << 20;
	char *buf = malloc(chunk);

	if (buf == NULL) {
		errno = ENOMEM;
		return -1;
	}
	while (done < n) {
		size_t want = n - done < chunk ? n - done : chunk;
		ssize_t got =
		    rumpk_pread(in, buf, want, off_in + (int64_t)done);

		if (got <= 0 ||
		    rumpk_pwrite(out, buf, (size_t)got,
		        off_out + (int64_t)done) != got) {
			free(buf);
			return done > 0 ? (ssize_t)done : -1;
		}
		done += (size_t)got;
	}
	free(buf);
	return (ssize_t)done;
}

static int
r_sync_range(int fd, int64_t off, int64_t n, unsigned flags)
{
	(void)off, (void)n;
	/* SYNC_FILE_RANGE_WRITE (2) or _WAIT_AFTER (4): the data written. */
	return (flags & 6) ? rumpk_fdatasync(fd) : 0;
}

static int
r_fallocate(int fd, int mode, int64_t off, int64_t n)
{
	(void)fd, (void)mode, (void)off, (void)n;
	return 0;
}

static int
r_syncfs(int fd)
{
	(void)fd;
	rumpk_sync_wait();
	return 0;
}

static int
r_setattr(int fd, uint64_t what)
{
	mode_t mode;
	int rv = 0;

	if ((what & WT_ATTR_MODE) &&
	    (rumpk_fstat_mode(fd, &mode) == -1 ||
	        rumpk_fchmod(fd, mode & 07777) == -1))
		rv = -1;
	if ((what & WT_ATTR_OWNER) &&
	    rumpk_fchown(fd, (uid_t)-1, (gid_t)-1) == -1)
		rv = -1;
	if ((what & WT_ATTR_TIMES) && rumpk_futimens_now(fd) == -1)
		rv = -1;
	return rv;
}

const struct wfs wfs_rump = {
    .open_root = r_open_root,
    .open_beneath = r_open_beneath,
    .create_at = r_create_at,
    .dup = rumpk_dup,
    .close = rumpk_close,
    .mkdirat = rumpk_mkdirat,
    .unlinkat = rumpk_unlinkat,
    .symlinkat = rumpk_symlinkat,
    .renameat = rumpk_renameat,
    .linkat = rumpk_linkat,
    .pread = rumpk_pread,
    .pwrite = rumpk_pwrite,
    .write = rumpk_write,
    .copy_range = r_copy_range,
    .fsync = rumpk_fsync,
    .fdatasync = rumpk_fdatasync,
    .sync_range = r_sync_range,
    .fallocate = r_fallocate,
    .ftruncate = rumpk_ftruncate,
    .syncfs = r_syncfs,
    .setattr = r_setattr,
};
