/*
 * kernel.c - recognising an x86 bzImage and finding its modules (an ELF
 * program goes to uml_kernel.c, which knows a UML kernel).
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
#include "../model/le.h"

/* The most an image's payload may unpack to (a vmlinux is ~20-80 MiB). */
#define VM_KERNEL_VMLINUX_MAX (1 << 30)

static int
isdir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * A release is a file name here (the result's, the modules' directory):
 * the characters kernel releases use, nothing that walks or breaks a path.
 */
static int
isrelease(const char *s)
{
	if (s[0] == '\0' || s[0] == '.')
		return 0;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		        (*s >= '0' && *s <= '9') ||
		        strchr(".-_+~", *s) != NULL))
			return 0;
	return 1;
}

int
vm_kernel_parse(const unsigned char *head, size_t len, uint64_t filesize,
    struct vm_bzimage *b, char *err, size_t errlen)
{
	size_t at, n;
	uint64_t setup;

	memset(b, 0, sizeof(*b));
	if (len < 0x210 || memcmp(head + 0x202, "HdrS", 4) != 0) {
		snprintf(
		    err, errlen, "is not a kernel image (no x86 boot header)");
		return -1;
	}
	if (le16(head + 0x20e) == 0) {
		snprintf(err, errlen, "has no version string");
		return -1;
	}
	/* kernel_version: the string's offset less 0x200, in the first 64 KiB.
	 */
	at = (size_t)le16(head + 0x20e) + 0x200;
	if (at >= len) {
		snprintf(err, errlen, "has its version string past its end");
		return -1;
	}
	n = strnlen((const char *)head + at, len - at);
	if (n > sizeof(b->version) - 1)
		n = sizeof(b->version) - 1;
	memcpy(b->version, head + at, n);
	b->version[n] = '\0';
	b->version[strcspn(b->version, "\n")] = '\0';
	snprintf(b->release, sizeof(b->release), "%.*s",
	    (int)strcspn(b->version, " "), b->version);
	if (!isrelease(b->release)) {
		snprintf(err, errlen, "has a version string that is not one");
		return -1;
	}
	/*
	 * The compressed kernel (boot protocol 2.08 and later): payload_length
	 * bytes at payload_offset past the setup code, setup_sects sectors
	 * of 512 bytes (0 meaning 4) after the boot sector. Wholly inside the
	 * file, else there is none to unpack.
	 */
	if (len < 0x250 || le16(head + 0x206) < 0x208) {
		snprintf(b->nopayload, sizeof(b->nopayload),
		    "boot protocol before 2.08: no payload fields");
		return 0;
	}
	setup = ((uint64_t)(head[0x1f1] != 0 ? head[0x1f1] : 4) + 1) * 512;
	b->payload_off = setup + le32(head + 0x248);
	b->payload_len = le32(head + 0x24c);
	if (b->payload_len < 8 || b->payload_off > filesize ||
	    b->payload_len > filesize - b->payload_off) {
		snprintf(b->nopayload, sizeof(b->nopayload),
		    "the payload fields point past the file's end");
		b->payload_off = b->payload_len = 0;
	}
	return 0;
}

int
vm_kernel_file_open(struct vm_kernel *k, const char *path,
    const char *modules_dir, char *err, size_t errlen)
{
	unsigned char head[VM_KERNEL_HEAD];
	char dir[PATH_MAX], msg[256];
	struct stat st;
	ssize_t n;
	int fd;

	memset(k, 0, sizeof(*k));
	snprintf(k->path, sizeof(k->path), "%s", path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1 ||
	    (n = pread(fd, head, sizeof(head), 0)) < 0) {
		snprintf(err, errlen, "cannot open kernel '%s': %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	/* An ELF program is no bzImage: a UML kernel, or nothing we boot. */
	if (n >= 4 && memcmp(head, "\177ELF", 4) == 0)
		return vm_uml_open(k, path, err, errlen);
	if (vm_kernel_parse(head, (size_t)n, (uint64_t)st.st_size, &k->image,
	        msg, sizeof(msg)) == -1) {
		snprintf(err, errlen, "'%s' %s", path, msg);
		return -1;
	}
	snprintf(k->version, sizeof(k->version), "%s", k->image.version);
	snprintf(k->release, sizeof(k->release), "%s", k->image.release);
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

/* 4-byte alignment of an ELF note's name and descriptor, in 64 bits. */
static uint64_t
round4(uint32_t n)
{
	return ((uint64_t)n + 3) & ~(uint64_t)3;
}

/*
 * The PVH entry note: Xen's ELF note 18 (XEN_ELFNOTE_PHYS32_ENTRY). Every
 * offset and size comes from the image: each is checked against what is
 * left before it is added, so that nothing wraps.
 */
int
vm_kernel_haspvh(const unsigned char *elf, size_t len)
{
	uint64_t phoff;
	uint16_t phentsize, phnum;

	if (len < 64 || memcmp(elf, "\177ELF\2\1", 6) != 0)
		return 0;
	memcpy(&phoff, elf + 32, 8);
	memcpy(&phentsize, elf + 54, 2);
	memcpy(&phnum, elf + 56, 2);
	if (phentsize < 56 || phoff > len ||
	    (uint64_t)phnum * phentsize > len - phoff)
		return 0;
	for (uint16_t i = 0; i < phnum; i++) {
		const unsigned char *ph = elf + phoff + (uint64_t)i * phentsize;
		uint64_t off, size, end;
		uint32_t type;

		memcpy(&type, ph, 4);
		memcpy(&off, ph + 8, 8);
		memcpy(&size, ph + 32, 8);
		if (type != 4 || off > len || size > len - off)
			continue;
		end = off + size;
		for (uint64_t p = off; end - p >= 12;) {
			uint32_t namesz, descsz, ntype;
			uint64_t step;

			memcpy(&namesz, elf + p, 4);
			memcpy(&descsz, elf + p + 4, 4);
			memcpy(&ntype, elf + p + 8, 4);
			if (namesz == 4 && ntype == 18 && end - p >= 16 &&
			    memcmp(elf + p + 12, "Xen", 4) == 0)
				return 1;
			step = 12 + round4(namesz) + round4(descsz);
			if (step > end - p)
				break;
			p += step;
		}
	}
	return 0;
}

int
vm_kernel_unpack(
    const struct vm_kernel *k, const char *out, char *err, size_t errlen)
{
	unsigned char *payload = NULL, *elf = NULL;
	size_t len = (size_t)k->image.payload_len, have = 0, cap = 0;
	struct archive *a = NULL;
	struct archive_entry *e;
	int fd, r = -1;
	FILE *f;

	if (len == 0) {
		snprintf(err, errlen, "'%s': %s", k->path, k->image.nopayload);
		return -1;
	}
	/* The payload ends with its uncompressed size, 4 bytes. */
	if ((fd = open(k->path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (payload = malloc(len)) == NULL ||
	    pread(fd, payload, len, (off_t)k->image.payload_off) !=
	        (ssize_t)len) {
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
			unsigned char *p = NULL;

			if (cap >= VM_KERNEL_VMLINUX_MAX) {
				snprintf(err, errlen,
				    "'%s': the payload unpacks to more than "
				    "%d MiB",
				    k->path, VM_KERNEL_VMLINUX_MAX >> 20);
				goto out;
			}
			if ((p = realloc(elf, cap + (16 << 20))) == NULL) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
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
	if (!vm_kernel_haspvh(elf, have)) {
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
