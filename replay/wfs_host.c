/*
 * wfs_host.c - the trace workload's system calls on the host (wfs_impl.h):
 * the calls themselves, paths beneath the run directory through
 * replay_open_beneath.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "../model/wtrace.h"
#include "replay.h"
#include "wfs_impl.h"

static int
host_flags(uint64_t w)
{
	int f = (w & WT_O_READ) && (w & WT_O_WRITE) ? O_RDWR
	    : (w & WT_O_WRITE)                      ? O_WRONLY
	                                            : O_RDONLY;

	f |= (w & WT_O_CREAT) ? O_CREAT : 0;
	f |= (w & WT_O_EXCL) ? O_EXCL : 0;
	f |= (w & WT_O_TRUNC) ? O_TRUNC : 0;
	f |= (w & WT_O_APPEND) ? O_APPEND : 0;
#ifdef O_DIRECT
	f |= (w & WT_O_DIRECT) ? O_DIRECT : 0;
#endif
	f |= (w & WT_O_SYNC) ? O_SYNC : 0;
	f |= (w & WT_O_DSYNC) ? O_DSYNC : 0;
	f |= (w & WT_O_DIRECTORY) ? O_DIRECTORY : 0;
	return f;
}

static int
h_open_root(const char *path)
{
	return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int
h_open_beneath(int root, const char *path, uint64_t wt, mode_t mode)
{
	return replay_open_beneath(root, path, host_flags(wt), mode);
}

static int
h_create_at(int dfd, const char *name, mode_t mode)
{
	return openat(
	    dfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
}

static int
h_unlinkat(int dfd, const char *name, int dir)
{
	return unlinkat(dfd, name, dir ? AT_REMOVEDIR : 0);
}

static int
h_linkat(int d1, const char *n1, int d2, const char *n2)
{
	return linkat(d1, n1, d2, n2, 0);
}

static ssize_t
h_pread(int fd, void *buf, size_t n, int64_t off)
{
	return pread(fd, buf, n, (off_t)off);
}

static ssize_t
h_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
	return pwrite(fd, buf, n, (off_t)off);
}

static ssize_t
h_copy_range(int in, int64_t off_in, int out, int64_t off_out, size_t n)
{
	loff_t oi = (loff_t)off_in, oo = (loff_t)off_out;

	return copy_file_range(in, &oi, out, &oo, n, 0);
}

static int
h_sync_range(int fd, int64_t off, int64_t n, unsigned flags)
{
	return sync_file_range(fd, (off_t)off, (off_t)n,
	    flags &
	        (SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
	            SYNC_FILE_RANGE_WAIT_AFTER));
}

static int
h_fallocate(int fd, int mode, int64_t off, int64_t n)
{
	return fallocate(fd, mode & 0x7f, (off_t)off, (off_t)n);
}

static int
h_ftruncate(int fd, int64_t off)
{
	return ftruncate(fd, (off_t)off);
}

static int
h_setattr(int fd, uint64_t what)
{
	struct stat st;
	int rv = 0;

	if ((what & WT_ATTR_MODE) &&
	    (fstat(fd, &st) == -1 || fchmod(fd, st.st_mode & 07777) == -1))
		rv = -1;
	if ((what & WT_ATTR_OWNER) && fchown(fd, (uid_t)-1, (gid_t)-1) == -1)
		rv = -1;
	if ((what & WT_ATTR_TIMES) && futimens(fd, NULL) == -1)
		rv = -1;
	return rv;
}

const struct wfs wfs_host = {
    .open_root = h_open_root,
    .open_beneath = h_open_beneath,
    .create_at = h_create_at,
    .dup = dup,
    .close = close,
    .mkdirat = mkdirat,
    .unlinkat = h_unlinkat,
    .symlinkat = symlinkat,
    .renameat = renameat,
    .linkat = h_linkat,
    .pread = h_pread,
    .pwrite = h_pwrite,
    .write = write,
    .copy_range = h_copy_range,
    .fsync = fsync,
    .fdatasync = fdatasync,
    .sync_range = h_sync_range,
    .fallocate = h_fallocate,
    .ftruncate = h_ftruncate,
    .syncfs = syncfs,
    .setattr = h_setattr,
};
