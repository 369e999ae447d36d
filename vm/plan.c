/*
 * plan.c - a vm invocation's cells as data. Each cell is described by what
 * decides what it measures: the kernel, this program and the archive by
 * digest, the disk, the machine and the job; its id is the digest of that
 * description without any path, so the same cell has the same id on any
 * node that holds the same files, and the plan's id is the digest of its
 * cells' ids. A scheduler runs the cells anywhere (`vm --cell ID`); each
 * result carries its plan, so that a directory of results can be checked
 * whole (one plan, every cell once) before a series is drawn from it.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis.h"
#include "vm_impl.h"

/* The cell's name in a series and in messages: the kernel, the disk. */
static void
cell_label(const struct vm_cell_conf *c, char *buf, size_t len)
{
	if (c->nfs_server != NULL)
		snprintf(buf, len, "%s nfs %s %s", vm_kernel_name(c->kernel),
		    c->nfs_opts, c->nfs_server);
	else
		snprintf(buf, len, "%s %s", vm_kernel_name(c->kernel),
		    strcmp(c->fstype, "none") == 0 ? "raw" : c->fstype);
}

/* The job's arguments, with the archive's path given as its digest. */
static json_t *
jobargs(const struct vm_cell_conf *c, const struct vm_plan_inputs *in,
    int by_digest)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < c->njob; i++) {
		const char *v = c->job[i];

		if (by_digest && in->archive != NULL &&
		    strcmp(v, in->archive) == 0)
			v = in->archive_sha256;
		json_array_append_new(a, json_string(v));
	}
	return a;
}

/*
 * What the cell is; by_digest leaves every path out (the id's text) or
 * keeps them beside their digests (what --plan prints).
 */
static json_t *
describe(const struct vm_cell_conf *c, const struct vm_plan_inputs *in,
    int by_digest)
{
	json_t *d, *nfs = json_null();

	if (c->nfs_server != NULL)
		nfs = json_pack("{s:s, s:s, s:s}", "server", c->nfs_server,
		    "mount_options", c->nfs_opts, "path",
		    c->nfs_path != NULL ? c->nfs_path : "");
	d = json_pack("{s:{s:s, s:s}, s:s, s:s, s:s, s:I, s:s, s:i, s:i, "
	              "s:o, s:o, s:{s:s}}",
	    "kernel", "release", c->kernel->release, "sha256",
	    c->kernel->sha256, "fstype", c->fstype, "mkfs_options",
	    c->mkfs_opts, "mount_options", c->mount_opts, "size_bytes",
	    (json_int_t)c->size_bytes, "accel", c->accel, "cpus", c->cpus,
	    "mem_mib", c->mem_mib, "nfs", nfs, "job", jobargs(c, in, by_digest),
	    "exe", "sha256", in->exe_sha256);
	if (d == NULL)
		return NULL;
	/* The rest of the machine: cells that differ only there differ. */
	json_object_set_new(d, "queues", json_integer(c->queues));
	json_object_set_new(d, "icount_shift", json_integer(c->icount_shift));
	/* UML's cells: the machine, and the seed that perturbs it. */
	if (c->kernel->machine == VM_MACHINE_UML) {
		json_object_set_new(d, "machine", json_string("uml"));
		json_object_set_new(d, "seed", json_integer(vm_uml_seed(c)));
	}
	/* ubd's cells keep the ids they had; the virtio disk's model counts. */
	if (c->vdisk != NULL)
		json_object_set_new(d, "disk", vm_uml_vdisk_json(c));
	if (in->archive != NULL)
		json_object_set_new(d, "archive",
		    json_pack("{s:s}", "sha256", in->archive_sha256));
	if (!by_digest) {
		json_object_set_new(json_object_get(d, "kernel"), "path",
		    json_string(c->kernel->path));
		json_object_set_new(
		    json_object_get(d, "exe"), "path", json_string(in->exe));
		if (in->archive != NULL)
			json_object_set_new(json_object_get(d, "archive"),
			    "path", json_string(in->archive));
	}
	return d;
}

/* The first 12 hex digits of the digest of a description's text. */
static int
digest_of(json_t *d, char id[VM_PLAN_ID])
{
	char hex[65], *text = json_dumps(d, JSON_SORT_KEYS | JSON_COMPACT);

	if (text == NULL)
		return -1;
	vm_sha256(text, strlen(text), hex);
	free(text);
	snprintf(id, VM_PLAN_ID, "%.*s", VM_PLAN_ID - 1, hex);
	return 0;
}

int
vm_plan_make(struct vm_plan *p, const struct vm_cell_conf *conf, size_t n,
    const struct vm_plan_inputs *in, char *err, size_t errlen)
{
	json_t *ids = json_array(), *keys = json_array();

	memset(p, 0, sizeof(*p));
	p->cells = json_array();
	if (ids == NULL || keys == NULL || p->cells == NULL)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		json_t *key = describe(&conf[i], in, 1);
		json_t *d = describe(&conf[i], in, 0);
		char id[VM_PLAN_ID], label[512];
		json_int_t again = 0;

		/*
		 * The same cell asked for again (-k K -k K, to see the noise)
		 * is another cell: its key says which time it is.
		 */
		for (size_t j = 0; key != NULL && j < i; j++)
			again += json_equal(key, json_array_get(keys, j));
		if (key == NULL || json_array_append_new(keys, key) == -1)
			key = NULL;
		else if (again == 0)
			json_incref(key);
		else if ((key = json_deep_copy(key)) != NULL)
			json_object_set_new(key, "again", json_integer(again));
		if (key == NULL || d == NULL || digest_of(key, id) == -1) {
			json_decref(key);
			json_decref(d);
			goto oom;
		}
		json_decref(key);
		cell_label(&conf[i], label, sizeof(label));
		json_object_set_new(d, "id", json_string(id));
		json_object_set_new(d, "label", json_string(label));
		json_object_set_new(d, "index", json_integer((json_int_t)i));
		json_array_append_new(p->cells, d);
		json_array_append_new(ids, json_string(id));
	}
	p->n = n;
	if (digest_of(ids, p->id) == -1)
		goto oom;
	json_decref(ids);
	json_decref(keys);
	return 0;
oom:
	json_decref(ids);
	json_decref(keys);
	vm_plan_free(p);
	snprintf(err, errlen, "out of memory");
	return -1;
}

void
vm_plan_free(struct vm_plan *p)
{
	json_decref(p->cells);
	p->cells = NULL;
	p->n = 0;
}

const char *
vm_plan_cell_id(const struct vm_plan *p, size_t i)
{
	return json_string_value(
	    json_object_get(json_array_get(p->cells, i), "id"));
}

long
vm_plan_find(const struct vm_plan *p, const char *id)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(vm_plan_cell_id(p, i), id) == 0)
			return (long)i;
	return -1;
}

json_t *
vm_plan_stamp(const struct vm_plan *p, size_t i)
{
	json_t *all = json_array();

	for (size_t k = 0; all != NULL && k < p->n; k++) {
		json_t *c = json_array_get(p->cells, k);

		json_array_append_new(all,
		    json_pack("{s:O, s:O}", "id", json_object_get(c, "id"),
		        "label", json_object_get(c, "label")));
	}
	return json_pack("{s:s, s:s, s:I, s:o}", "id", p->id, "cell",
	    vm_plan_cell_id(p, i), "index", (json_int_t)i, "cells", all);
}

/* The plan object of a result, or NULL when it has none. */
static json_t *
planof(json_t *doc)
{
	json_t *plan = json_object_get(json_object_get(doc, "vm"), "plan");

	if (!json_is_string(json_object_get(plan, "id")) ||
	    !json_is_string(json_object_get(plan, "cell")) ||
	    !json_is_array(json_object_get(plan, "cells")))
		return NULL;
	return plan;
}

static int
is_result_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
	    (n > 8 && strcmp(name + n - 8, ".json.gz") == 0);
}

static int
byname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The result files in dir, sorted; *n of them. */
static char **
listdir(const char *dir, size_t *n, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t cap = 0;

	*n = 0;
	if (d == NULL) {
		snprintf(err, errlen, "cannot read the directory '%s': %s", dir,
		    strerror(errno));
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		if (!is_result_name(e->d_name))
			continue;
		if (*n == cap) {
			char **p = realloc(names, (cap + 16) * sizeof(*p));

			if (p == NULL)
				break;
			names = p;
			cap += 16;
		}
		if ((names[*n] = malloc(strlen(dir) + strlen(e->d_name) + 2)) ==
		    NULL)
			break;
		sprintf(names[(*n)++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (e != NULL) {
		vm_plan_names_free(names, *n);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (*n == 0) {
		free(names);
		snprintf(err, errlen, "'%s' holds no results (*.json)", dir);
		return NULL;
	}
	qsort(names, *n, sizeof(*names), byname);
	return names;
}

void
vm_plan_names_free(char **names, size_t n)
{
	for (size_t i = 0; names != NULL && i < n; i++)
		free(names[i]);
	free(names);
}

/* "a.json, b.json" of the files whose plan is id, into buf. */
static void
files_of(
    json_t **doc, char **names, size_t n, const char *id, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(names[i], '/');

		if (strcmp(json_string_value(
		               json_object_get(planof(doc[i]), "id")),
		        id) != 0)
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
		    buf[0] != '\0' ? ", " : "",
		    base != NULL ? base + 1 : names[i]);
	}
}

/*
 * Checks the loaded results against each other: every one has a plan, all
 * the same plan, each cell once, and no cell missing. -1 with the reason.
 */
static int
check_whole(const char *dir, json_t **doc, char **names, size_t n, char *err,
    size_t errlen)
{
	json_t *first, *cells;
	const char *id;
	char a[1024], b[1024];
	size_t want, missing = 0;

	for (size_t i = 0; i < n; i++)
		if (planof(doc[i]) == NULL) {
			snprintf(err, errlen,
			    "'%s' is not a result of a vm plan (no vm.plan): "
			    "it was not made by ubcreplay vm, or by one older "
			    "than plans",
			    names[i]);
			return -1;
		}
	first = planof(doc[0]);
	id = json_string_value(json_object_get(first, "id"));
	for (size_t i = 1; i < n; i++) {
		const char *other =
		    json_string_value(json_object_get(planof(doc[i]), "id"));

		if (strcmp(other, id) == 0)
			continue;
		files_of(doc, names, n, id, a, sizeof(a));
		files_of(doc, names, n, other, b, sizeof(b));
		snprintf(err, errlen,
		    "'%s' holds results of more than one plan: plan %s (%s) "
		    "and plan %s (%s)",
		    dir, id, a, other, b);
		return -1;
	}
	cells = json_object_get(first, "cells");
	want = json_array_size(cells);
	a[0] = '\0';
	for (size_t k = 0; k < want; k++) {
		json_t *c = json_array_get(cells, k);
		const char *cid = json_string_value(json_object_get(c, "id"));
		size_t seen = 0, at = 0;

		for (size_t i = 0; i < n; i++)
			if (strcmp(json_string_value(
			               json_object_get(planof(doc[i]), "cell")),
			        cid) == 0) {
				if (seen++ > 0) {
					snprintf(err, errlen,
					    "'%s' holds cell %s twice: %s "
					    "and %s",
					    dir, cid, names[at], names[i]);
					return -1;
				}
				at = i;
			}
		if (seen == 0 && missing++ < 8)
			snprintf(a + strlen(a), sizeof(a) - strlen(a),
			    "%s%s (%s)", a[0] != '\0' ? ", " : "", cid,
			    json_string_value(json_object_get(c, "label")));
	}
	if (missing > 0) {
		snprintf(err, errlen,
		    "'%s' misses %zu of the %zu cells of plan %s: %s%s", dir,
		    missing, want, id, a, missing > 8 ? ", ..." : "");
		return -1;
	}
	if (n != want) {
		snprintf(err, errlen,
		    "'%s' holds %zu results for the %zu cells of plan %s", dir,
		    n, want, id);
		return -1;
	}
	return 0;
}

int
vm_plan_load(const char *dir, const char *expect, json_t ***docs, char ***names,
    size_t *n, char *err, size_t errlen)
{
	char msg[1024];
	json_t **doc;
	size_t m;
	char **file = listdir(dir, &m, err, errlen);

	*docs = NULL;
	*names = NULL;
	*n = 0;
	if (file == NULL)
		return -1;
	if ((doc = calloc(m, sizeof(*doc))) == NULL) {
		vm_plan_names_free(file, m);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < m; i++)
		if ((doc[i] = result_load(file[i], msg, sizeof(msg))) == NULL) {
			snprintf(err, errlen, "%s", msg);
			goto fail;
		}
	if (check_whole(dir, doc, file, m, err, errlen) == -1)
		goto fail;
	if (expect != NULL &&
	    strcmp(json_string_value(json_object_get(planof(doc[0]), "id")),
	        expect) != 0) {
		snprintf(err, errlen,
		    "'%s' holds the results of plan %s, not of plan %s that "
		    "these arguments make",
		    dir,
		    json_string_value(json_object_get(planof(doc[0]), "id")),
		    expect);
		goto fail;
	}
	/* In the plan's order: check_whole found each of its cells once. */
	{
		json_t *cells = json_object_get(planof(doc[0]), "cells");

		for (size_t k = 0; k < m; k++) {
			const char *cid = json_string_value(
			    json_object_get(json_array_get(cells, k), "id"));

			for (size_t i = k; i < m; i++) {
				json_t *td = doc[k];
				char *tf = file[k];

				if (strcmp(json_string_value(json_object_get(
				               planof(doc[i]), "cell")),
				        cid) != 0)
					continue;
				doc[k] = doc[i];
				file[k] = file[i];
				doc[i] = td;
				file[i] = tf;
				break;
			}
		}
	}
	*docs = doc;
	*names = file;
	*n = m;
	return 0;
fail:
	for (size_t i = 0; i < m; i++)
		json_decref(doc[i]);
	free(doc);
	vm_plan_names_free(file, m);
	return -1;
}
