/*
 * wfs_impl.h - what the trace workload (wtrace.c) does its operations
 * through: a table of the system calls it needs, one for the host
 * (wfs_host.c) and one for a NetBSD rump kernel in this process
 * (wfs_rump.c), so that one replay does a trace on either. Descriptors
 * are the table's own; open flags are the trace's (WT_O_*, model/wtrace.h);
 * failures are -1 with the host's errno.
 */
#ifndef UBC_WFS_IMPL_H
#define UBC_WFS_IMPL_H

#include <sys/types.h>

#include <stdint.h>

struct wfs {
	/* The run directory, held: a directory, not through a symlink. */
	int (*open_root)(const char *path);
	/* path beneath root, never leaving it (WT_O_* flags). */
	int (*open_beneath)(
	    int root, const char *path, uint64_t wt, mode_t mode);
	/* A new file name in directory dfd, for writing; not followed. */
	int (*create_at)(int dfd, const char *name, mode_t mode);
	int (*dup)(int fd);
	int (*close)(int fd);
	int (*mkdirat)(int dfd, const char *name, mode_t mode);
	int (*unlinkat)(int dfd, const char *name, int dir);
	int (*symlinkat)(const char *target, int dfd, const char *name);
	int (*renameat)(int d1, const char *n1, int d2, const char *n2);
	int (*linkat)(int d1, const char *n1, int d2, const char *n2);
	ssize_t (*pread)(int fd, void *buf, size_t n, int64_t off);
	ssize_t (*pwrite)(int fd, const void *buf, size_t n, int64_t off);
	ssize_t (*write)(int fd, const void *buf, size_t n);
	/* copy_file_range's work: n bytes from in at off_in to out at off_out.
	 */
	ssize_t (*copy_range)(
	    int in, int64_t off_in, int out, int64_t off_out, size_t n);
	int (*fsync)(int fd);
	int (*fdatasync)(int fd);
	/* sync_file_range, its flags the host's SYNC_FILE_RANGE_*. */
	int (*sync_range)(int fd, int64_t off, int64_t n, unsigned flags);
	int (*fallocate)(int fd, int mode, int64_t off, int64_t n);
	int (*ftruncate)(int fd, int64_t off);
	/* The filesystem of fd, synced. */
	int (*syncfs)(int fd);
	/*
	 * What a recorded chmod, chown or utimes changed (WT_ATTR_*), done
	 * again: the mode the file has, no owner, the time now.
	 */
	int (*setattr)(int fd, uint64_t what);
};

extern const struct wfs wfs_host, wfs_rump;

#endif
