/*
 * rump.h - a NetBSD rump kernel in this process: NetBSD's own FFS, WAPBL,
 * buffer cache and syncer, built as shared libraries (contrib/rump.sh),
 * loaded with dlopen, and an FFS image mounted in it. One kernel per
 * process, never torn down: the process that boots one exits with it, and a
 * NetBSD panic aborts it.
 *
 * What the kernel sends its block device goes through its rumpuser_bio
 * hypercall; this program exports its own rumpuser_bio, which the kernel's
 * libraries bind to, and which records every transfer into the shared
 * memory (model/rumpshm.h) before passing it on. Its console
 * (rumpuser_putchar) goes there too, where a panic's message is found.
 *
 *	if (rumpk_load(dir, err, errlen) == -1) ...	libraries not there
 *	if (rumpk_boot(shm, gen, err, errlen) == -1) ...
 *	if (rumpk_mount(image, image, flags, "/mnt", err, errlen) == -1) ...
 *	fd = rumpk_open("/mnt/f", RUMPK_O_WRONLY | RUMPK_O_CREAT, 0644);
 *	rumpk_write(fd, buf, n);	-1 with the host's errno on failure
 *	rumpk_unmount("/mnt", err, errlen);
 *
 * Flags and structures are NetBSD's: the RUMPK_* constants below.
 */
#ifndef UBC_RUMP_H
#define UBC_RUMP_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "../model/rumpshm.h"

/* NetBSD's open(2) flags. */
#define RUMPK_O_RDONLY    0x00000000
#define RUMPK_O_WRONLY    0x00000001
#define RUMPK_O_RDWR      0x00000002
#define RUMPK_O_APPEND    0x00000008
#define RUMPK_O_SYNC      0x00000080
#define RUMPK_O_NOFOLLOW  0x00000100
#define RUMPK_O_CREAT     0x00000200
#define RUMPK_O_TRUNC     0x00000400
#define RUMPK_O_EXCL      0x00000800
#define RUMPK_O_DSYNC     0x00010000
#define RUMPK_O_DIRECT    0x00080000
#define RUMPK_O_DIRECTORY 0x00200000

/* NetBSD's mount flags (sys/fstypes.h). */
#define RUMPK_MNT_SYNCHRONOUS 0x00000002
#define RUMPK_MNT_ASYNC       0x00000040
#define RUMPK_MNT_NODEVMTIME  0x00200000
#define RUMPK_MNT_LOG         0x02000000
#define RUMPK_MNT_NOATIME     0x04000000

/* The libraries a build must hold, in the order they are loaded. */
extern const char *const rumpk_libs[];
#define RUMPK_NLIBS 6

/*
 * NetBSD's mount options, as -O takes them ("log,noatime"), into flags:
 * rw (the default), sync, async, log, noatime, nodevmtime. softdep is
 * refused in NetBSD's own words, and anything else is named.
 */
int rumpk_mount_flags(const char *opts, int *flags, char *err, size_t errlen);

/*
 * Whether dir holds a build of the libraries (lib/ with each of
 * rumpk_libs); the error names the first one missing.
 */
int rumpk_check(const char *dir, char *err, size_t errlen);

/*
 * The kernel's memory ceiling, in bytes (0: none), before it boots. An
 * allocation past it, or one the host refuses, ends the process (SIGABRT)
 * with a line on the console that starts with RUMPK_OOM and says so.
 */
void rumpk_limit(uint64_t bytes);
#define RUMPK_OOM "ubcreplay: out of memory: "

int rumpk_load(const char *dir, char *err, size_t errlen);
/*
 * Boots the kernel, its transfers and console into shm. Once the image is
 * mounted, a thread samples its hw.iostats into shm every interval_ns, as
 * kernel number gen.
 */
int rumpk_boot(struct rumpshm *shm, uint64_t gen, int64_t interval_ns,
    char *err, size_t errlen);
/*
 * Registers image as the kernel's block device and mounts FFS on mnt; the
 * error names the image as name.
 */
int rumpk_mount(const char *image, const char *name, int flags, const char *mnt,
    char *err, size_t errlen);
int rumpk_unmount(const char *mnt, char *err, size_t errlen);
/* One more sample of hw.iostats now, after the last transfer. */
void rumpk_sample(void);

/*
 * NetBSD's system calls in the kernel: as the host's, but for the flags
 * above; -1 with errno set to the host's number for NetBSD's.
 */
int rumpk_open(const char *path, int flags, mode_t mode);
int rumpk_close(int fd);
ssize_t rumpk_write(int fd, const void *buf, size_t n);
ssize_t rumpk_pwrite(int fd, const void *buf, size_t n, int64_t off);
int rumpk_fsync(int fd);
int rumpk_mkdir(const char *path, mode_t mode);
int rumpk_rmdir(const char *path);
int rumpk_unlink(const char *path);
int rumpk_symlink(const char *target, const char *path);
int rumpk_link(const char *target, const char *path);
int rumpk_mkfifo(const char *path, mode_t mode);
int rumpk_fchmod(int fd, mode_t mode);
int rumpk_fchown(int fd, uid_t uid, gid_t gid);
int rumpk_lchown(const char *path, uid_t uid, gid_t gid);
/* Access and modification times, in microseconds as utimes(2) takes. */
int rumpk_futimes(int fd, int64_t atime_us, int64_t mtime_us);
int rumpk_lutimes(const char *path, int64_t atime_us, int64_t mtime_us);
/* The file's type and mode bits (S_IFMT: NetBSD's are the host's). */
int rumpk_lstat_mode(const char *path, mode_t *mode);
/* The names in a directory, one at a time: 1, 0 at the end, -1. */
int rumpk_readdir(int fd, char *name, size_t len);
/* The *at() calls, dirfd a descriptor of the kernel's. */
int rumpk_openat(int dfd, const char *path, int flags, mode_t mode);
int rumpk_mkdirat(int dfd, const char *name, mode_t mode);
int rumpk_unlinkat(int dfd, const char *name, int dir);
int rumpk_symlinkat(const char *target, int dfd, const char *name);
int rumpk_renameat(int d1, const char *n1, int d2, const char *n2);
int rumpk_linkat(int d1, const char *n1, int d2, const char *n2);
ssize_t rumpk_pread(int fd, void *buf, size_t n, int64_t off);
int rumpk_fdatasync(int fd);
int rumpk_ftruncate(int fd, int64_t off);
int rumpk_fstat_mode(int fd, mode_t *mode);
/* Access and modification times set to now. */
int rumpk_futimens_now(int fd);
int rumpk_dup(int fd);
/*
 * sync(2), then a wait for the writes it started, again until a pass
 * starts none: NetBSD's sync returns before its writes are done.
 */
void rumpk_sync_wait(void);

/*
 * remove_rump.c: the tree at path removed, as `rm -rf` would; a tree
 * already gone is not an error.
 */
int replay_rump_remove_tree(const char *path, char *err, size_t errlen);

#endif
