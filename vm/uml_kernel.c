/*
 * uml_kernel.c - recognising a User Mode Linux kernel: the kernel built
 * with ARCH=um, an x86-64 ELF program. It is known by what it is, not by
 * its name: an ELF executable with the section UML's linker script gives
 * its command-line setup functions (.uml.setup.init). What it can do is
 * read from the strings those functions match: "time-travel-start=" (the
 * tree was configured with UML_TIME_TRAVEL_SUPPORT), "ubd_model=" and
 * "uml_seed=" (the project's patches 0002 and 0003, contrib/uml-patches):
 * without them the machine is not deterministic, and vm refuses it;
 * "uml_cpu=" (0004), which a model that charges the guest's CPU needs, and
 * "uml_bio_yield" (0005), which one that yields before a bio needs. Its
 * release is the first word after "Linux version " in its banner.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm.h"
#include "../model/le.h"

/* A UML kernel is tens of MiB; more is no kernel of ours. */
#define UML_MAX_BYTES ((size_t)1 << 30)

/*
 * The ELF64 section headers: e_shoff (40), e_shentsize (58), e_shnum (60),
 * e_shstrndx (62); each header's sh_name (0), sh_offset (24) and sh_size
 * (32). Every offset is checked against what is left before it is used.
 */
int
vm_uml_is(const unsigned char *elf, size_t len)
{
	static const char want[] = ".uml.setup.init";
	uint64_t shoff, stroff, strsize;
	uint16_t shentsize, shnum, shstrndx, type;
	const unsigned char *sh;

	if (len < 64 || memcmp(elf, "\177ELF\2\1", 6) != 0)
		return 0;
	type = le16(elf + 16);
	/* ET_EXEC or ET_DYN, for x86-64 (62). */
	if ((type != 2 && type != 3) || le16(elf + 18) != 62)
		return 0;
	shoff = le64(elf + 40);
	shentsize = le16(elf + 58);
	shnum = le16(elf + 60);
	shstrndx = le16(elf + 62);
	if (shentsize < 64 || shoff > len ||
	    (uint64_t)shnum * shentsize > len - shoff || shstrndx >= shnum)
		return 0;
	sh = elf + shoff + (uint64_t)shstrndx * shentsize;
	stroff = le64(sh + 24);
	strsize = le64(sh + 32);
	if (stroff > len || strsize > len - stroff)
		return 0;
	for (uint16_t i = 0; i < shnum; i++) {
		uint32_t name = le32(elf + shoff + (uint64_t)i * shentsize);

		if (name < strsize && strsize - name >= sizeof(want) &&
		    memcmp(elf + stroff + name, want, sizeof(want)) == 0)
			return 1;
	}
	return 0;
}

static int
has(const unsigned char *data, size_t len, const char *s)
{
	return memmem(data, len, s, strlen(s) + 1) != NULL;
}

/* The release from the banner, "Linux version 6.1.192 (...)". */
static int
banner_release(const unsigned char *data, size_t len, char *rel, size_t rlen)
{
	static const char key[] = "Linux version ";
	const unsigned char *p = memmem(data, len, key, sizeof(key) - 1);
	size_t n = 0;

	if (p == NULL)
		return -1;
	p += sizeof(key) - 1;
	while ((size_t)(p - data) + n < len && n + 1 < rlen && p[n] > ' ' &&
	    p[n] < 127)
		n++;
	memcpy(rel, p, n);
	rel[n] = '\0';
	return n > 0 ? 0 : -1;
}

/* kbuild.patches beside the kernel: "NAME SHA256" lines, as they are. */
static void
patches(struct vm_kernel *k, const char *path)
{
	char dir[PATH_MAX], p[PATH_MAX + 32], line[256];
	size_t n = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(p, sizeof(p), "%s/kbuild.patches", dirname(dir));
	k->patches[0] = '\0';
	if ((f = fopen(p, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0' ||
		    n + strlen(line) + 2 > sizeof(k->patches))
			continue;
		n += (size_t)snprintf(
		    k->patches + n, sizeof(k->patches) - n, "%s\n", line);
	}
	fclose(f);
}

int
vm_uml_open(struct vm_kernel *k, const char *path, char *err, size_t errlen)
{
	unsigned char *data = NULL;
	struct stat st;
	size_t have = 0;
	ssize_t n = 0;
	int fd, r = -1;

	memset(k, 0, sizeof(*k));
	k->machine = VM_MACHINE_UML;
	k->build_s = -1;
	k->dirty = -1;
	snprintf(k->path, sizeof(k->path), "%s", path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		snprintf(err, errlen, "cannot open kernel '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < 64 ||
	    (uint64_t)st.st_size > UML_MAX_BYTES ||
	    (data = malloc((size_t)st.st_size)) == NULL) {
		snprintf(err, errlen, "'%s' is no UML kernel (%s)", path,
		    !S_ISREG(st.st_mode) ? "not a file" : "its size");
		goto out;
	}
	while (have < (size_t)st.st_size &&
	    (n = pread(
	         fd, data + have, (size_t)st.st_size - have, (off_t)have)) > 0)
		have += (size_t)n;
	if (n < 0) {
		snprintf(err, errlen, "cannot read kernel '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	if (!vm_uml_is(data, have)) {
		snprintf(err, errlen,
		    "'%s' is not a kernel image (no x86 boot header, nor a "
		    "User Mode Linux program)",
		    path);
		goto out;
	}
	if (access(path, X_OK) == -1) {
		snprintf(
		    err, errlen, "UML kernel '%s' is not executable", path);
		goto out;
	}
	if (!has(data, have, "time-travel-start=")) {
		snprintf(err, errlen,
		    "UML kernel '%s' has no time-travel support: build it "
		    "with contrib/vm-kbuild.sh -a um "
		    "(CONFIG_UML_TIME_TRAVEL_SUPPORT)",
		    path);
		goto out;
	}
	if (!has(data, have, "ubd_model=") || !has(data, have, "uml_seed=")) {
		snprintf(err, errlen,
		    "UML kernel '%s' lacks the project's patches (%s): build "
		    "it with contrib/vm-kbuild.sh -a um, which applies "
		    "contrib/uml-patches",
		    path,
		    !has(data, have, "ubd_model=")
		        ? "0002, ubd's disk model in simulated time"
		        : "0003, the guest's random bytes from uml_seed=");
		goto out;
	}
	if (banner_release(data, have, k->release, sizeof(k->release)) == -1) {
		snprintf(
		    err, errlen, "UML kernel '%s' has no version banner", path);
		goto out;
	}
	snprintf(k->version, sizeof(k->version), "%s", k->release);
	k->uml_cpu = has(data, have, "uml_cpu=");
	k->uml_bio_yield = has(data, have, "uml_bio_yield");
	patches(k, path);
	r = vm_sha256_file(path, k->sha256, err, errlen);
out:
	if (fd != -1)
		close(fd);
	free(data);
	return r;
}
