/*
 * ktree.c - a built kernel tree as the kernel under test: a source tree
 * built in place, or the build directory it was built into with O=.
 * A tree configured for User Mode Linux (CONFIG_UML=y in its .config) is
 * its program `linux` (uml_kernel.c) instead of a bzImage.
 *
 * What boots is the tree's arch/x86/boot/bzImage; its release is
 * include/config/kernel.release (checked against the image's own version
 * string, so that an image older than the tree's configuration is not taken
 * for it); its modules are the ones modules.order names, resolved through a
 * modules.dep made here from each module's depends= (its .mod.c), which the
 * build writes but does not install. A tree without modules needs none. The
 * source tree's git HEAD, and whether tracked files changed since, tell two
 * builds of one release apart: "6.1.192 base@1a2b3c4". contrib/vm-kbuild.sh
 * leaves the build's seconds in kbuild.time and the commit it built, and
 * whether it was dirty, in kbuild.commit.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm_impl.h"

static int
isfile(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The first line of DIR/NAME into buf; -1 when there is none. */
static int
firstline(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX + 64];
	FILE *f;
	int r = -1;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((f = fopen(p, "re")) == NULL)
		return -1;
	if (fgets(buf, (int)len, f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		r = buf[0] != '\0' ? 0 : -1;
	}
	fclose(f);
	return r;
}

/*
 * `git -C src ARGS...`'s output into out (NUL-terminated, cut at len); -1
 * when git is missing, fails, or src is no git work tree.
 */
static int
git(const char *src, const char *a1, const char *a2, const char *a3, char *out,
    size_t len)
{
	char *argv[] = {
	    "git", "-C", (char *)src, (char *)a1, (char *)a2, (char *)a3, NULL};

	return vm_spawn_output(argv, out, len);
}

/*
 * The commit the tree's image (bzImage, or UML's linux) was built from: what
 * contrib/vm-kbuild.sh recorded in kbuild.commit when it built it ("COMMIT
 * clean" or "COMMIT dirty"), unless the bzImage is newer (built since by other
 * means); else the source tree's HEAD now, when it is a git work tree. The
 * source may have moved on since the build (another commit checked out for the
 * next one): the record, where there is one, names what was built.
 */
static void
gitstate(
    struct vm_kernel *k, const char *dir, const char *src, const char *image)
{
	char out[4096], p[PATH_MAX + 64];
	struct stat rec, img;
	size_t n;

	k->dirty = -1;
	snprintf(p, sizeof(p), "%s/kbuild.commit", dir);
	if (stat(p, &rec) == 0) {
		snprintf(p, sizeof(p), "%s/%s", dir, image);
		if (stat(p, &img) == 0 &&
		    (rec.st_mtim.tv_sec > img.st_mtim.tv_sec ||
		        (rec.st_mtim.tv_sec == img.st_mtim.tv_sec &&
		            rec.st_mtim.tv_nsec >= img.st_mtim.tv_nsec)) &&
		    firstline(dir, "kbuild.commit", out, sizeof(out)) == 0 &&
		    (n = strspn(out, "0123456789abcdef")) == 40 &&
		    (strcmp(out + n, " clean") == 0 ||
		        strcmp(out + n, " dirty") == 0)) {
			snprintf(k->commit, sizeof(k->commit), "%.40s", out);
			k->dirty = strcmp(out + n, " dirty") == 0;
			return;
		}
	}
	if (git(src, "rev-parse", "--verify", "HEAD", out, sizeof(out)) == -1 ||
	    strlen(out) < 41)
		return;
	snprintf(k->commit, sizeof(k->commit), "%.40s", out);
	if (git(src, "status", "--porcelain", "--untracked-files=no", out,
	        sizeof(out)) == 0)
		k->dirty = out[0] != '\0';
}

/* A module's name as modules.c takes it: "fs/9p/9p.ko" -> 9p. */
static void
modname(const char *path, char *name, size_t len)
{
	const char *base =
	    strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	size_t n = strcspn(base, ".");

	snprintf(name, len, "%.*s", (int)n, base);
	for (char *p = name; *p != '\0'; p++)
		if (*p == '-')
			*p = '_';
}

/* The depends= of the module at path (relative to dir), from its .mod.c. */
static int
depends(const char *dir, const char *path, char *out, size_t len)
{
	char p[PATH_MAX + 512], line[4096];
	const char *key = "MODULE_INFO(depends, \"";
	FILE *f;

	snprintf(p, sizeof(p), "%s/%.*s.mod.c", dir,
	    (int)(strlen(path) - strlen(".ko")), path);
	if ((f = fopen(p, "re")) == NULL)
		return -1;
	out[0] = '\0';
	while (fgets(line, sizeof(line), f) != NULL) {
		char *s = strstr(line, key);

		if (s != NULL) {
			s += strlen(key);
			snprintf(out, len, "%.*s", (int)strcspn(s, "\""), s);
			break;
		}
	}
	fclose(f);
	return 0;
}

/*
 * DIR/modules.dep from DIR/modules.order, unless one is already there and
 * newer: "fs/9p/9p.ko: fs/netfs/netfs.ko net/9p/9pnet.ko". 0 and *none
 * set when the tree has no modules.
 */
static int
moddep(const char *dir, int *none, char *err, size_t errlen)
{
	char order[PATH_MAX + 32], dep[PATH_MAX + 32], tmp[PATH_MAX + 48];
	char line[PATH_MAX], deps[4096], name[256];
	char **path = NULL;
	struct stat so, sd;
	size_t n = 0, cap = 0;
	FILE *f, *o = NULL;
	int r = -1;

	*none = 1;
	snprintf(order, sizeof(order), "%s/modules.order", dir);
	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	if (stat(order, &so) == -1 || so.st_size == 0)
		return 0;
	*none = 0;
	if (stat(dep, &sd) == 0 && sd.st_mtime >= so.st_mtime)
		return 0;
	if ((f = fopen(order, "re")) == NULL) {
		snprintf(err, errlen, "cannot read '%s': %s", order,
		    strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t l = strcspn(line, "\n");
		char **p;

		/* 6.1 names the .ko; later kernels name the .o. */
		if (l > 2 && strncmp(line + l - 2, ".o", 2) == 0)
			l -= 2;
		else if (l > 3 && strncmp(line + l - 3, ".ko", 3) == 0)
			l -= 3;
		else
			continue;
		if (n == cap) {
			if ((p = realloc(path,
			         (cap = cap * 2 + 64) * sizeof(*p))) == NULL)
				goto nomem;
			path = p;
		}
		if ((path[n] = malloc(l + 4)) == NULL)
			goto nomem;
		snprintf(path[n++], l + 4, "%.*s.ko", (int)l, line);
	}
	snprintf(tmp, sizeof(tmp), "%s.ubcreplay.tmp", dep);
	if ((o = fopen(tmp, "we")) == NULL) {
		snprintf(
		    err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (depends(dir, path[i], deps, sizeof(deps)) == -1) {
			snprintf(err, errlen,
			    "'%s': module %s is in modules.order but has no "
			    ".mod.c: the build is incomplete",
			    dir, path[i]);
			goto out;
		}
		fprintf(o, "%s:", path[i]);
		for (char *s = deps, *save = NULL, *d;
		     (d = strtok_r(s, ",", &save)) != NULL; s = NULL) {
			char want[256];

			modname(d, want, sizeof(want));
			for (size_t j = 0; j < n; j++) {
				modname(path[j], name, sizeof(name));
				if (strcmp(name, want) == 0) {
					fprintf(o, " %s", path[j]);
					break;
				}
			}
		}
		fputc('\n', o);
	}
	if (fclose(o) == EOF || rename(tmp, dep) == -1) {
		o = NULL;
		snprintf(
		    err, errlen, "cannot write '%s': %s", dep, strerror(errno));
		unlink(tmp);
		goto out;
	}
	o = NULL;
	r = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	if (o != NULL) {
		fclose(o);
		unlink(tmp);
	}
	fclose(f);
	for (size_t i = 0; i < n; i++)
		free(path[i]);
	free(path);
	return r;
}

/*
 * The source tree of dir: dir itself when it has the kernel's Kconfig, or
 * where an O= build directory's 'source' link points.
 */
static int
srctree(const char *dir, char *src, size_t len)
{
	char link[PATH_MAX + 16];
	ssize_t n;

	if (!isfile(dir, "Makefile"))
		return -1;
	if (isfile(dir, "Kconfig")) {
		snprintf(src, len, "%s", dir);
		return 0;
	}
	snprintf(link, sizeof(link), "%s/source", dir);
	if ((n = readlink(link, src, len - 1)) <= 0)
		return -1;
	src[n] = '\0';
	return isfile(src, "Kconfig") ? 0 : -1;
}

/* Whether dir/.config builds User Mode Linux (CONFIG_UML=y). */
static int
isuml(const char *dir)
{
	char p[PATH_MAX + 16], line[256];
	FILE *f;
	int uml = 0;

	snprintf(p, sizeof(p), "%s/.config", dir);
	if ((f = fopen(p, "re")) == NULL)
		return 0;
	while (!uml && fgets(line, sizeof(line), f) != NULL)
		uml = strcmp(line, "CONFIG_UML=y\n") == 0;
	fclose(f);
	return uml;
}

/*
 * A UML tree: its program `linux` (no modules: the root is the host's,
 * whose modules are not this kernel's).
 */
static int
umltree(struct vm_kernel *k, const char *dir, const char *abs, const char *rel,
    char *err, size_t errlen)
{
	char image[PATH_MAX + 32];

	if (!isfile(abs, "linux")) {
		snprintf(err, errlen,
		    "UML kernel tree '%s' is not built (no linux): build it "
		    "with contrib/vm-kbuild.sh -a um",
		    dir);
		return -1;
	}
	snprintf(image, sizeof(image), "%s/linux", abs);
	if (vm_uml_open(k, image, err, errlen) == -1)
		return -1;
	if (strcmp(k->release, rel) != 0) {
		snprintf(err, errlen,
		    "kernel tree '%s': its linux is %s but the tree is "
		    "configured for %s: rebuild it",
		    dir, k->release, rel);
		return -1;
	}
	return 0;
}

int
vm_ktree_open(struct vm_kernel *k, const char *dir, char *err, size_t errlen)
{
	char abs[PATH_MAX], src[PATH_MAX], rel[128], image[PATH_MAX + 32];
	char secs[32];
	const char *base;
	int none, uml;

	if (realpath(dir, abs) == NULL) {
		snprintf(err, errlen, "cannot open kernel tree '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	if (srctree(abs, src, sizeof(src)) == -1) {
		snprintf(err, errlen,
		    "'%s' is not a kernel tree (no Kconfig, nor a build "
		    "directory's 'source' link to one)",
		    dir);
		return -1;
	}
	uml = isuml(abs);
	if (uml &&
	    firstline(abs, "include/config/kernel.release", rel, sizeof(rel)) ==
	        -1) {
		snprintf(err, errlen,
		    "UML kernel tree '%s' is not built (no "
		    "include/config/kernel.release): build it with "
		    "contrib/vm-kbuild.sh -a um",
		    dir);
		return -1;
	}
	if (uml) {
		if (umltree(k, dir, abs, rel, err, errlen) == -1)
			return -1;
		none = 1;
	} else if (firstline(abs, "include/config/kernel.release", rel,
	               sizeof(rel)) == -1 ||
	    !isfile(abs, "arch/x86/boot/bzImage")) {
		snprintf(err, errlen,
		    "kernel tree '%s' is not built (no %s): build it, e.g. "
		    "with contrib/vm-kbuild.sh, or give its O= build "
		    "directory",
		    dir,
		    isfile(abs, "arch/x86/boot/bzImage")
		        ? "include/config/kernel.release"
		        : "arch/x86/boot/bzImage");
		return -1;
	}
	if (!uml && moddep(abs, &none, err, errlen) == -1)
		return -1;
	snprintf(image, sizeof(image), "%s/arch/x86/boot/bzImage", abs);
	if (!uml &&
	    vm_kernel_file_open(k, image, none ? NULL : abs, err, errlen) == -1)
		return -1;
	if (!uml && strcmp(k->release, rel) != 0) {
		snprintf(err, errlen,
		    "kernel tree '%s': its bzImage is %s but the tree is "
		    "configured for %s: rebuild it",
		    dir, k->release, rel);
		return -1;
	}
	if (none)
		k->moddir[0] = '\0';
	snprintf(k->tree, sizeof(k->tree), "%s", abs);
	gitstate(k, abs, src, uml ? "linux" : "arch/x86/boot/bzImage");
	k->build_s = -1;
	if (firstline(abs, "kbuild.time", secs, sizeof(secs)) == 0)
		k->build_s = strtol(secs, NULL, 10);
	base = strrchr(abs, '/') != NULL && strrchr(abs, '/')[1] != '\0'
	    ? strrchr(abs, '/') + 1
	    : abs;
	if (k->commit[0] != '\0')
		snprintf(k->name, sizeof(k->name), "%s %s@%.7s%s", k->release,
		    base, k->commit, k->dirty == 1 ? "-dirty" : "");
	else
		snprintf(k->name, sizeof(k->name), "%s %s", k->release, base);
	return 0;
}

const char *
vm_kernel_name(const struct vm_kernel *k)
{
	return k->name[0] != '\0' ? k->name : k->release;
}

/* A directory is a kernel tree; anything else, the kernel's file. */
int
vm_kernel_open(struct vm_kernel *k, const char *path, const char *modules_dir,
    char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return vm_ktree_open(k, path, err, errlen);
	return vm_kernel_file_open(k, path, modules_dir, err, errlen);
}
