/*
 * image.c - the cell's disk: a sparse file of the size asked for, with a
 * filesystem made by the host's mkfs.TYPE on the file itself (no loop
 * device, no root needed). ext4's inode tables and journal are written at
 * once, so that no lazy initialisation in the guest adds writes of its own
 * to what the job measures. Before that, whether an archive's files can
 * fit the image at all.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "vm_impl.h"

/* The most words the mkfs options may have. */
#define MAXOPTS 64

/* mkfs.TYPE on PATH, or in the sbin directories a user's PATH may lack. */
static int
findmkfs(const char *fstype, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[8192];
	char *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin",
	    path != NULL ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d != NULL;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/mkfs.%s", d, fstype);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

int
vm_image_check(const char *fstype, char *err, size_t errlen)
{
	char path[PATH_MAX];

	if (strcmp(fstype, "none") == 0)
		return 0;
	if (fstype[0] == '\0' || strchr(fstype, '/') != NULL ||
	    findmkfs(fstype, path, sizeof(path)) == -1) {
		snprintf(err, errlen,
		    "unknown filesystem type '%s': no mkfs.%s on PATH", fstype,
		    fstype);
		return -1;
	}
	return 0;
}

/* mke2fs's clock, for a fixed filesystem (in the child, before exec). */
static int
fixtime(const void *arg)
{
	(void)arg;
	return setenv("E2FSPROGS_FAKE_TIME", "1700000000", 1);
}

static int
runmkfs(
    char *const *argv, int fixed, const char *logpath, char *err, size_t errlen)
{
	struct vm_spawn sp = {.argv = argv,
	    .log = logpath,
	    .truncate = 1,
	    .out = -1,
	    .netns = -1,
	    .mntns = -1,
	    .pdeathsig = SIGKILL,
	    .child = fixed ? fixtime : NULL};
	pid_t pid;
	int st = 0;

	if ((pid = vm_spawn(&sp, err, errlen)) == -1)
		return -1;
	vm_spawn_wait(&pid, &st);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char tail[512];

		vm_tail(logpath, 2, tail, sizeof(tail));
		snprintf(err, errlen, "%s failed: %s", argv[0], tail);
		return -1;
	}
	return 0;
}

int
vm_image_make(const char *path, const char *fstype, const char *mkfs_opts,
    uint64_t size_bytes, int fixed, const char *logpath, char *err,
    size_t errlen)
{
	char mkfs[PATH_MAX], opts[1024], *argv[MAXOPTS + 8], *save = NULL;
	size_t n = 0, nopt = 0;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -1 || ftruncate(fd, (off_t)size_bytes) == -1) {
		snprintf(err, errlen, "cannot make the image '%s': %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	if (strcmp(fstype, "none") == 0)
		return 0;
	if (vm_image_check(fstype, err, errlen) == -1)
		return -1;
	findmkfs(fstype, mkfs, sizeof(mkfs));
	argv[n++] = mkfs;
	/* Quiet, and no question about writing over a file. */
	if (strncmp(fstype, "ext", 3) == 0) {
		argv[n++] = "-F";
		argv[n++] = "-q";
		if (fixed) {
			argv[n++] = "-U";
			argv[n++] = VM_IMAGE_UUID;
		}
		if (strcmp(fstype, "ext4") == 0) {
			argv[n++] = "-E";
			argv[n++] = fixed
			    ? "lazy_itable_init=0,lazy_journal_init=0,"
			      "hash_seed=" VM_IMAGE_UUID
			    : "lazy_itable_init=0,lazy_journal_init=0";
		} else if (fixed) {
			argv[n++] = "-E";
			argv[n++] = "hash_seed=" VM_IMAGE_UUID;
		}
	} else if (strcmp(fstype, "xfs") == 0 || strcmp(fstype, "btrfs") == 0) {
		argv[n++] = "-f";
		argv[n++] = "-q";
	}
	if (strlen(mkfs_opts) >= sizeof(opts)) {
		snprintf(err, errlen,
		    "the mkfs options are too long (%zu bytes, "
		    "at most %zu)",
		    strlen(mkfs_opts), sizeof(opts) - 1);
		return -1;
	}
	snprintf(opts, sizeof(opts), "%s", mkfs_opts);
	for (char *o = strtok_r(opts, " \t", &save); o != NULL;
	     o = strtok_r(NULL, " \t", &save)) {
		if (nopt++ == MAXOPTS) {
			snprintf(err, errlen,
			    "too many mkfs options (more than %d words)",
			    MAXOPTS);
			return -1;
		}
		argv[n++] = o;
	}
	argv[n++] = (char *)path;
	argv[n] = NULL;
	return runmkfs(argv, fixed, logpath, err, errlen);
}

/*
 * What the archive's files take on a filesystem: each file's data in whole
 * 4 KiB blocks, and a block more for every entry (its inode, its name in a
 * directory, an extent or a symlink's target). The filesystem's own
 * metadata is left out here and taken from the image's size instead: a
 * tenth of it (ext4's inode tables are about 1.6% and its journal up to
 * about 3%, xfs's log and allocation groups about 2%, btrfs keeps its
 * metadata twice); the 5% ext4 reserves is the root's, and the job runs as
 * root.
 */
#define FIT_BLOCK 4096ULL

int
vm_image_fits(
    const char *archive, uint64_t size_bytes, char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	uint64_t need = 0, data = 0, room = size_bytes - size_bytes / 10;
	size_t n = 0;
	int r;

	if (a == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, archive, 1 << 16) != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot open archive '%s': %s", archive,
		    archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN) {
		uint64_t s =
		    archive_entry_size_is_set(e) && archive_entry_size(e) > 0
		    ? (uint64_t)archive_entry_size(e)
		    : 0;

		data += s;
		need += (s + FIT_BLOCK - 1) / FIT_BLOCK * FIT_BLOCK + FIT_BLOCK;
		n++;
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, errlen, "archive '%s': %s", archive,
		    archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	archive_read_free(a);
	if (need > room) {
		snprintf(err, errlen,
		    "archive '%s' does not fit a %llu MiB disk: its %zu "
		    "entries hold %llu MiB of data and take about %llu MiB "
		    "with their blocks and inodes, and the filesystem keeps a "
		    "tenth for itself; give --size %lluM or more",
		    archive, (unsigned long long)(size_bytes >> 20), n,
		    (unsigned long long)(data >> 20),
		    (unsigned long long)(need >> 20),
		    (unsigned long long)((need / 9 * 10 >> 20) + 1));
		return -1;
	}
	return 0;
}

const char *
vm_tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp";
}

/*
 * QEMU opens the disk with cache=none, that is O_DIRECT, so that the
 * host's page cache neither absorbs the guest's writes and flushes nor
 * makes their pace depend on the host's memory. A directory whose
 * filesystem refuses O_DIRECT (ramfs, tmpfs before Linux 6.6) would fail
 * only once QEMU starts: found here, before any boot.
 */
int
vm_image_direct_check(const char *dir, char *err, size_t errlen)
{
	char p[PATH_MAX];
	int fd, d, e;

	snprintf(p, sizeof(p), "%s/ubcreplay-direct.XXXXXX", dir);
	if ((fd = mkstemp(p)) == -1) {
		snprintf(err, errlen, "cannot make a file in '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	d = open(p, O_RDWR | O_DIRECT | O_CLOEXEC);
	e = errno;
	unlink(p);
	close(fd);
	if (d != -1) {
		close(d);
		return 0;
	}
	snprintf(err, errlen,
	    "the temporary directory '%s' cannot hold the guest's disk: its "
	    "filesystem refuses O_DIRECT (%s), which QEMU's cache=none needs; "
	    "set TMPDIR to a directory on a disk filesystem",
	    dir, strerror(e));
	return -1;
}
