/*
 * kernel.c - recognising an x86 bzImage and finding its modules.
 *
 * The boot protocol's setup header starts at 0x1f1; "HdrS" at 0x202 says it
 * is there, and the 16-bit kernel_version field at 0x20e, plus 0x200, is the
 * offset of the version string ("6.1.0-57-amd64 (debian-kernel@...) #1
 * SMP ..."), whose first word is the release uname -r will say.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vm.h"

static int
isdir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
readversion(struct vm_kernel *k, int fd, char *err, size_t errlen)
{
	unsigned char hdr[0x210];
	unsigned off;
	ssize_t n;

	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4) != 0) {
		snprintf(err, errlen,
		    "'%s' is not a kernel image (no x86 boot header)", k->path);
		return -1;
	}
	off = (unsigned)hdr[0x20e] | (unsigned)hdr[0x20f] << 8;
	if (off == 0) {
		snprintf(err, errlen, "'%s': the kernel image has no version",
		    k->path);
		return -1;
	}
	n = pread(fd, k->version, sizeof(k->version) - 1, (off_t)off + 0x200);
	if (n <= 0) {
		snprintf(err, errlen,
		    "'%s': the kernel's version string is past its end",
		    k->path);
		return -1;
	}
	k->version[n] = '\0';
	k->version[strcspn(k->version, "\n")] = '\0';
	snprintf(k->release, sizeof(k->release), "%.*s",
	    (int)strcspn(k->version, " "), k->version);
	if (k->release[0] == '\0' || strchr(k->release, '/') != NULL) {
		snprintf(err, errlen,
		    "'%s': the kernel's version string is not one", k->path);
		return -1;
	}
	return 0;
}

int
vm_kernel_open(struct vm_kernel *k, const char *path, const char *modules_dir,
    char *err, size_t errlen)
{
	char dir[PATH_MAX];
	int fd, r;

	memset(k, 0, sizeof(*k));
	snprintf(k->path, sizeof(k->path), "%s", path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cannot open kernel '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	r = readversion(k, fd, err, errlen);
	close(fd);
	if (r == -1)
		return -1;
	if (modules_dir != NULL) {
		if (!isdir(modules_dir)) {
			snprintf(err, errlen,
			    "--modules '%s' is not a directory", modules_dir);
			return -1;
		}
		snprintf(k->moddir, sizeof(k->moddir), "%s", modules_dir);
	} else {
		/* The unpacked package: ROOT/boot/vmlinuz-REL. */
		snprintf(dir, sizeof(dir), "%s", path);
		snprintf(k->moddir, sizeof(k->moddir), "%s/../lib/modules/%s",
		    dirname(dir), k->release);
		if (!isdir(k->moddir))
			k->moddir[0] = '\0';
	}
	return vm_sha256_file(path, k->sha256, err, errlen);
}
