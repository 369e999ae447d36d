/*
 * initramfs.c - the guest's initramfs: a cpio newc archive, gzip'd, as the
 * kernel unpacks it. It holds our init (vm/init.c, built static and linked
 * into this program as bytes: the makefile's build/vm/init_blob.o), the
 * modules the cell needs, decompressed here because not every kernel can
 * load a compressed one, and /vm.conf, which says what to load and run.
 *
 * A UML guest has no initramfs (its kernels are built without one): the
 * same init and /vm.conf are files of the cell's directory there, which
 * the guest reaches over hostfs (vm_init_write).
 *
 * UBCREPLAY_VM_INIT, when set, names a file packed as /init instead of
 * ours; the tests use it to boot a guest whose init cannot run.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "vm_impl.h"

/* The bytes of build/vm/init and their count (build/vm/init_blob.o). */
extern const unsigned char vm_init_blob[];
extern const uint64_t vm_init_blob_size;

/* A whole file through libarchive's raw format: xz, zstd, gzip or none. */
static int
readall(const char *path, unsigned char **data, size_t *len, char *err,
    size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t cap = 0;
	la_ssize_t n;

	*data = NULL;
	*len = 0;
	if (a == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK)
		goto fail;
	for (;;) {
		if (cap - *len < 65536) {
			unsigned char *p = realloc(*data, cap + 262144);

			if (p == NULL) {
				archive_read_free(a);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			*data = p;
			cap += 262144;
		}
		n = archive_read_data(a, *data + *len, cap - *len);
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	archive_read_free(a);
	return 0;
fail:
	snprintf(err, errlen, "cannot read '%s': %s", path,
	    archive_error_string(a) != NULL ? archive_error_string(a)
	                                    : "unreadable");
	archive_read_free(a);
	free(*data);
	*data = NULL;
	return -1;
}

static int
put(struct archive *a, const char *name, mode_t mode, dev_t rdev,
    const void *data, size_t len, char *err, size_t errlen)
{
	struct archive_entry *e = archive_entry_new();
	int r;

	if (e == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	archive_entry_set_pathname(e, name);
	archive_entry_set_mode(e, mode);
	archive_entry_set_rdev(e, rdev);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_nlink(e, S_ISDIR(mode) ? 2 : 1);
	r = archive_write_header(a, e);
	archive_entry_free(e);
	if (r == ARCHIVE_OK && len > 0 &&
	    archive_write_data(a, data, len) != (la_ssize_t)len)
		r = ARCHIVE_FATAL;
	if (r != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot write the initramfs (%s): %s",
		    name, archive_error_string(a));
		return -1;
	}
	return 0;
}

static int
putinit(struct archive *a, char *err, size_t errlen)
{
	const char *other = getenv("UBCREPLAY_VM_INIT");
	unsigned char *data;
	size_t len;
	int r;

	if (other == NULL)
		return put(a, "init", S_IFREG | 0755, 0, vm_init_blob,
		    (size_t)vm_init_blob_size, err, errlen);
	if (readall(other, &data, &len, err, errlen) == -1)
		return -1;
	r = put(a, "init", S_IFREG | 0755, 0, data, len, err, errlen);
	free(data);
	return r;
}

char *
vm_initramfs_modname(const struct vm_modset *mods, size_t i)
{
	const char *base = strrchr(mods->path[i], '/');
	char name[128];

	base = base != NULL ? base + 1 : mods->path[i];
	snprintf(name, sizeof(name), "/modules/%02zu-%.*s.ko", i,
	    (int)strcspn(base, "."), base);
	return strdup(name);
}

static int
putmodules(
    struct archive *a, const struct vm_modset *mods, char *err, size_t errlen)
{
	for (size_t i = 0; i < mods->n; i++) {
		char *name = vm_initramfs_modname(mods, i);
		unsigned char *data;
		size_t len;
		int r;

		if (name == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (readall(mods->path[i], &data, &len, err, errlen) == -1) {
			free(name);
			return -1;
		}
		r = put(a, name + 1, S_IFREG | 0644, 0, data, len, err, errlen);
		free(data);
		free(name);
		if (r == -1)
			return -1;
	}
	return 0;
}

int
vm_initramfs_write(const char *path, const struct vm_modset *mods,
    const char *conf, char *err, size_t errlen)
{
	static const char *const dirs[] = {
	    "dev", "proc", "sys", "root", "modules"};
	struct archive *a = archive_write_new();
	int r = -1;

	if (a == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, path) != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot write the initramfs '%s': %s",
		    path, archive_error_string(a));
		archive_write_free(a);
		return -1;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (put(a, dirs[i], S_IFDIR | 0755, 0, NULL, 0, err, errlen) ==
		    -1)
			goto out;
	/* The kernel opens it for init's standard streams. */
	if (put(a, "dev/console", S_IFCHR | 0600, makedev(5, 1), NULL, 0, err,
	        errlen) == -1 ||
	    putinit(a, err, errlen) == -1 ||
	    putmodules(a, mods, err, errlen) == -1 ||
	    put(a, "vm.conf", S_IFREG | 0644, 0, conf, strlen(conf), err,
	        errlen) == -1)
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot write the initramfs '%s': %s",
		    path, archive_error_string(a));
		goto out;
	}
	r = 0;
out:
	archive_write_free(a);
	return r;
}

/* A file of its own, written whole or not at all. */
static int
writefile(const char *path, mode_t mode, const void *data, size_t len,
    char *err, size_t errlen)
{
	FILE *f = fopen(path, "we");
	int r;

	if (f == NULL) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	r = fwrite(data, 1, len, f) == len ? 0 : -1;
	if (fclose(f) == EOF || r == -1 || chmod(path, mode) == -1) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
		    strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

int
vm_init_write(const char *dir, const char *conf, char *err, size_t errlen)
{
	const char *other = getenv("UBCREPLAY_VM_INIT");
	char p[PATH_MAX];
	unsigned char *data;
	size_t len;
	int r;

	snprintf(p, sizeof(p), "%s/vm.conf", dir);
	if (writefile(p, 0644, conf, strlen(conf), err, errlen) == -1)
		return -1;
	snprintf(p, sizeof(p), "%s/init", dir);
	if (other == NULL)
		return writefile(p, 0755, vm_init_blob,
		    (size_t)vm_init_blob_size, err, errlen);
	if (readall(other, &data, &len, err, errlen) == -1)
		return -1;
	r = writefile(p, 0755, data, len, err, errlen);
	free(data);
	return r;
}
