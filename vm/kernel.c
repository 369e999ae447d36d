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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

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

	if (isdir(path))
		return vm_ktree_open(k, path, err, errlen);
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

/* The PVH entry note: Xen's ELF note 18 (XEN_ELFNOTE_PHYS32_ENTRY). */
static int
haspvh(const unsigned char *elf, size_t len)
{
	uint64_t phoff;
	uint16_t phentsize, phnum;

	if (len < 64 || memcmp(elf, "\177ELF\2\1", 6) != 0)
		return 0;
	memcpy(&phoff, elf + 32, 8);
	memcpy(&phentsize, elf + 54, 2);
	memcpy(&phnum, elf + 56, 2);
	for (uint16_t i = 0; i < phnum; i++) {
		const unsigned char *ph = elf + phoff + (uint64_t)i * phentsize;
		uint64_t off, size;
		uint32_t type;

		if (phoff + ((uint64_t)i + 1) * phentsize > len ||
		    phentsize < 56)
			return 0;
		memcpy(&type, ph, 4);
		memcpy(&off, ph + 8, 8);
		memcpy(&size, ph + 32, 8);
		if (type != 4 || off > len || size > len - off)
			continue;
		for (uint64_t p = off; p + 12 <= off + size;) {
			uint32_t namesz, descsz, ntype;

			memcpy(&namesz, elf + p, 4);
			memcpy(&descsz, elf + p + 4, 4);
			memcpy(&ntype, elf + p + 8, 4);
			if (namesz == 4 && ntype == 18 &&
			    p + 16 <= off + size &&
			    memcmp(elf + p + 12, "Xen", 4) == 0)
				return 1;
			p += 12 + ((namesz + 3ULL) & ~3ULL) +
			    ((descsz + 3ULL) & ~3ULL);
		}
	}
	return 0;
}

int
vm_kernel_unpack(
    const struct vm_kernel *k, const char *out, char *err, size_t errlen)
{
	unsigned char hdr[0x250], *payload = NULL, *elf = NULL;
	uint32_t off, len;
	size_t have = 0, cap = 0;
	struct archive *a = NULL;
	struct archive_entry *e;
	int fd, r = -1;
	FILE *f;

	if ((fd = open(k->path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    (hdr[0x206] | hdr[0x207] << 8) < 0x208) {
		snprintf(err, errlen, "'%s': no payload fields", k->path);
		goto out;
	}
	memcpy(&off, hdr + 0x248, 4);
	memcpy(&len, hdr + 0x24c, 4);
	off += ((hdr[0x1f1] != 0 ? hdr[0x1f1] : 4) + 1) * 512;
	/* The payload ends with its uncompressed size, 4 bytes. */
	if (len < 8 || (payload = malloc(len)) == NULL ||
	    pread(fd, payload, len, off) != (ssize_t)len) {
		snprintf(err, errlen, "'%s': cannot read the payload", k->path);
		goto out;
	}
	if ((a = archive_read_new()) == NULL ||
	    archive_read_support_filter_all(a) != ARCHIVE_OK ||
	    archive_read_support_format_raw(a) != ARCHIVE_OK ||
	    archive_read_open_memory(a, payload, len - 4) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		snprintf(err, errlen, "'%s': payload: %s", k->path,
		    a != NULL ? archive_error_string(a) : "out of memory");
		goto out;
	}
	for (;;) {
		la_ssize_t n;

		if (cap - have < 1 << 20) {
			unsigned char *p = realloc(elf, cap + (16 << 20));

			if (p == NULL)
				goto out;
			elf = p;
			cap += 16 << 20;
		}
		if ((n = archive_read_data(a, elf + have, cap - have)) < 0) {
			snprintf(err, errlen, "'%s': payload: %s", k->path,
			    archive_error_string(a));
			goto out;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (!haspvh(elf, have)) {
		snprintf(err, errlen, "'%s': no PVH entry", k->path);
		goto out;
	}
	if ((f = fopen(out, "we")) == NULL) {
		snprintf(
		    err, errlen, "cannot write '%s': %s", out, strerror(errno));
		goto out;
	}
	r = fwrite(elf, 1, have, f) == have ? 0 : -1;
	if (fclose(f) == EOF || r == -1) {
		snprintf(err, errlen, "cannot write '%s'", out);
		unlink(out);
		r = -1;
	}
out:
	if (fd != -1)
		close(fd);
	if (a != NULL)
		archive_read_free(a);
	free(payload);
	free(elf);
	return r;
}
