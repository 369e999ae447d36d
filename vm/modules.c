/*
 * modules.c - the modules a cell needs, from the kernel's modules.dep, in
 * the order they must be loaded: a module after everything it depends on.
 *
 * modules.dep has a line per module, "kernel/fs/9p/9p.ko.xz: dep dep ...",
 * paths relative to the modules directory; modules.builtin lists what is
 * built in, which needs no loading. Names compare as modprobe compares
 * them: the file's base name without ".ko" and its compression suffix,
 * with '-' and '_' alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

struct dep {
	char name[64];
	char *path; /* relative, inside the file's text */
	char *deps; /* the rest of the line */
	int state;  /* 0 new, 1 being visited, 2 loaded */
};

struct deptab {
	char *text;
	size_t n;
	struct dep *d;
	char *builtin;
};

/* The module name of a path: "kernel/crypto/crc32c-intel.ko.xz" ->
 * crc32c_intel. */
static void
modname(const char *path, size_t len, char *name, size_t namelen)
{
	const char *base = path, *dot;
	size_t n;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	len -= (size_t)(base - path);
	dot = memchr(base, '.', len);
	n = dot != NULL ? (size_t)(dot - base) : len;
	if (n >= namelen)
		n = namelen - 1;
	for (size_t i = 0; i < n; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[n] = '\0';
}

static char *
slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (cap - len < 65536) {
			char *p = realloc(text, cap + 65536 + 1);

			if (p == NULL) {
				free(text);
				fclose(f);
				snprintf(err, errlen, "out of memory");
				return NULL;
			}
			text = p;
			cap += 65536;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	text[len] = '\0';
	fclose(f);
	return text;
}

static int
load(struct deptab *t, const struct vm_kernel *k, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	size_t cap = 0;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/modules.builtin", k->moddir);
	if ((t->builtin = slurp(path, err, errlen)) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/modules.dep", k->moddir);
	if ((t->text = slurp(path, err, errlen)) == NULL) {
		/* The root depmod -b takes holds lib/modules/RELEASE. */
		size_t n = strlen(k->moddir),
		       tail = strlen("/lib/modules/") + strlen(k->release);

		snprintf(path, sizeof(path), "/lib/modules/%s", k->release);
		if (n < tail || strcmp(k->moddir + n - tail, path) != 0)
			tail = n;
		snprintf(err, errlen,
		    "kernel %s: no modules.dep in '%s' (make it with `depmod "
		    "-b '%.*s' %s`, kmod's or busybox's; contrib/kernels.sh "
		    "fetches Debian's kernels with it made)",
		    k->release, k->moddir, (int)(n - tail), k->moddir,
		    k->release);
		return -1;
	}
	for (char *line = t->text, *next; *line != '\0'; line = next) {
		char *colon;

		next = line + strcspn(line, "\n");
		if (*next == '\n')
			*next++ = '\0';
		if ((colon = strchr(line, ':')) == NULL)
			continue;
		*colon = '\0';
		if (t->n == cap) {
			struct dep *d =
			    realloc(t->d, (cap = cap * 2 + 1024) * sizeof(*d));

			if (d == NULL) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			t->d = d;
		}
		memset(&t->d[t->n], 0, sizeof(t->d[0]));
		modname(
		    line, strlen(line), t->d[t->n].name, sizeof(t->d[0].name));
		t->d[t->n].path = line;
		t->d[t->n].deps = colon + 1;
		t->n++;
	}
	return 0;
}

static void
unload(struct deptab *t)
{
	free(t->text);
	free(t->builtin);
	free(t->d);
}

static struct dep *
find(const struct deptab *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->d[i].name, name) == 0)
			return &t->d[i];
	return NULL;
}

static int
isbuiltin(const struct deptab *t, const char *name)
{
	char n[64];

	for (const char *line = t->builtin; *line != '\0';) {
		size_t len = strcspn(line, "\n");

		modname(line, len, n, sizeof(n));
		if (strcmp(n, name) == 0)
			return 1;
		line += len + (line[len] == '\n');
	}
	return 0;
}

static int
add(struct vm_modset *set, const struct vm_kernel *k, const char *rel,
    char *err, size_t errlen)
{
	char **p = realloc(set->path, (set->n + 1) * sizeof(*p));
	size_t len = strlen(k->moddir) + strlen(rel) + 2;

	if (p == NULL || (p[set->n] = malloc(len)) == NULL) {
		if (p != NULL)
			set->path = p;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	set->path = p;
	snprintf(p[set->n++], len, "%s/%s", k->moddir, rel);
	return 0;
}

/* Depth first: every dependency before the module itself. */
static int
visit(struct deptab *t, struct dep *d, struct vm_modset *set,
    const struct vm_kernel *k, char *err, size_t errlen)
{
	char *save = NULL, deps[4096];

	if (d->state == 2)
		return 0;
	if (d->state == 1) {
		snprintf(err, errlen, "kernel %s: module %s depends on itself",
		    k->release, d->name);
		return -1;
	}
	d->state = 1;
	snprintf(deps, sizeof(deps), "%s", d->deps);
	for (char *p = strtok_r(deps, " \t", &save); p != NULL;
	     p = strtok_r(NULL, " \t", &save)) {
		char name[64];
		struct dep *dd;

		modname(p, strlen(p), name, sizeof(name));
		if ((dd = find(t, name)) == NULL) {
			snprintf(err, errlen,
			    "kernel %s: module %s needs %s, which modules.dep "
			    "does not list",
			    k->release, d->name, p);
			return -1;
		}
		if (visit(t, dd, set, k, err, errlen) == -1)
			return -1;
	}
	d->state = 2;
	return add(set, k, d->path, err, errlen);
}

int
vm_modules_resolve(const struct vm_kernel *k, const char *const *names,
    size_t nnames, struct vm_modset *set, char *err, size_t errlen)
{
	struct deptab t;

	memset(set, 0, sizeof(*set));
	/* A kernel with no modules directory has everything built in. */
	if (k->moddir[0] == '\0')
		return 0;
	if (load(&t, k, err, errlen) == -1) {
		unload(&t);
		return -1;
	}
	for (size_t i = 0; i < nnames; i++) {
		char name[64];
		struct dep *d;

		modname(names[i], strlen(names[i]), name, sizeof(name));
		if ((d = find(&t, name)) == NULL) {
			if (isbuiltin(&t, name))
				continue;
			snprintf(err, errlen,
			    "kernel %s has no module %s (neither in '%s/"
			    "modules.dep' nor built in)",
			    k->release, names[i], k->moddir);
			goto fail;
		}
		if (visit(&t, d, set, k, err, errlen) == -1)
			goto fail;
	}
	unload(&t);
	return 0;
fail:
	unload(&t);
	vm_modules_free(set);
	return -1;
}

void
vm_modules_free(struct vm_modset *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->path[i]);
	free(set->path);
	set->path = NULL;
	set->n = 0;
}

size_t
vm_modules_needed(const char *fstype, const char **names, size_t max)
{
	static const char *const base[] = {
	    "virtio_pci", "virtio_blk", "9pnet_virtio", "9p"};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]) && n < max; i++)
		names[n++] = base[i];
	if (strcmp(fstype, "none") == 0)
		return n;
	/*
	 * ext4 and btrfs ask for crc32c by name at mount time, and xfs's
	 * libcrc32c at its own load, when no modprobe can answer: it goes
	 * first, for any filesystem (it is small).
	 */
	if (n < max)
		names[n++] = "crc32c_generic";
	if (n < max)
		names[n++] = fstype;
	return n;
}
