/*
 * wtrace_order.c - which earlier operations each operation of a trace
 * waits for; see wtrace_order.h.
 *
 * Each object (a file or a directory, known by the names the trace gives
 * it) keeps the last operation that changed it and the operations of
 * other threads that used it since, one per thread: a change waits for
 * both, a use for the last change, as a reader-writer lock would order
 * them. An operation on a file changes it; a path uses each directory it
 * goes through, and a create, removal, rename or link changes the
 * directory whose entry it is. Names map to objects: a rename moves the
 * object to its new name and leaves a new one at the old name, a link
 * gives the new name the same object, and a handle keeps the object it
 * was opened on. A use when MAX_USERS have used the object since its last
 * change counts as a change: more order, never less, and the work per
 * operation stays bounded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wtrace_order.h"

#define MAX_USERS 32

struct obj {
	uint64_t changed; /* the last operation that changed it, + 1 */
	uint64_t used[MAX_USERS];
	unsigned nused;
	int dir, symlink;
};

struct name {
	struct name *next;
	uint64_t obj;
	char path[];
};

struct builder {
	struct wtrace_order *o;
	uint32_t *thread; /* by operation */
	struct obj *obj;
	size_t nobj, capobj;
	struct name **names;
	size_t nnames;
	uint64_t *hobj; /* by handle: the object it was opened on */
	size_t caph;
	struct thr {
		uint64_t lastop; /* its last operation + 1 */
		uint64_t saw;    /* the last barrier it waited for + 1 */
		uint64_t listed; /* barrier + 1 when it was put in active */
	} * thr;                 /* by thread */
	uint32_t *active; /* threads that did something since the barrier */
	size_t nactive;
	uint64_t barrier; /* the last barrier + 1 */
	size_t capops, capthreads, capdep;
	size_t ndep; /* in o->dep */
	uint64_t i;  /* the operation being ordered, */
	uint32_t th; /* and its thread */
};

/* Makes room for need elements of size in *p (capacity *cap). */
static int
grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap > 0 ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if ((np = realloc(*(void **)p, n * size)) == NULL)
		return -1;
	memset((char *)np + *cap * size, 0, (n - *cap) * size);
	*(void **)p = np;
	*cap = n;
	return 0;
}

/* Operation i of another thread is one more to wait for. */
static int
after(struct builder *b, uint64_t i)
{
	struct wtrace_order *o = b->o;

	if (b->thread[i] == b->th)
		return 0;
	if (grow(&o->dep, &b->capdep, b->ndep + 1, sizeof(*o->dep)) == -1)
		return -1;
	o->dep[b->ndep++] = i;
	return 0;
}

static int
change(struct builder *b, uint64_t k)
{
	struct obj *x = &b->obj[k];

	if (x->changed != 0 && after(b, x->changed - 1) == -1)
		return -1;
	for (unsigned u = 0; u < x->nused; u++)
		if (after(b, x->used[u]) == -1)
			return -1;
	x->nused = 0;
	x->changed = b->i + 1;
	return 0;
}

static int
use(struct builder *b, uint64_t k)
{
	struct obj *x = &b->obj[k];
	unsigned u;

	for (u = 0; u < x->nused; u++)
		if (b->thread[x->used[u]] == b->th)
			break;
	if (u == MAX_USERS)
		return change(b, k);
	if (x->changed != 0 && after(b, x->changed - 1) == -1)
		return -1;
	x->used[u] = b->i;
	if (u == x->nused)
		x->nused++;
	return 0;
}

static int64_t
new_obj(struct builder *b)
{
	if (grow(&b->obj, &b->capobj, b->nobj + 1, sizeof(*b->obj)) == -1)
		return -1;
	return (int64_t)b->nobj++;
}

/* The name's entry, made (with a new object) when missing. */
static struct name *
name_of(struct builder *b, const char *path, size_t len)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */
	struct name *e, **head;
	int64_t k;

	for (size_t n = 0; n < len; n++)
		h = (h ^ (unsigned char)path[n]) * 1099511628211ULL;
	head = &b->names[h % b->nnames];
	for (e = *head; e != NULL; e = e->next)
		if (strncmp(e->path, path, len) == 0 && e->path[len] == '\0')
			return e;
	if ((k = new_obj(b)) == -1 ||
	    (e = malloc(sizeof(*e) + len + 1)) == NULL)
		return NULL;
	memcpy(e->path, path, len);
	e->path[len] = '\0';
	e->obj = (uint64_t)k;
	e->next = *head;
	*head = e;
	return e;
}

/*
 * The object at path, after using each directory the path goes through
 * (or changing the last, when the operation changes its entries; the run
 * directory itself is used by every path, and only changed).
 */
static int64_t
walk(struct builder *b, const char *path, int entry, int *barrier)
{
	const char *last = strrchr(path, '/');
	struct name *e;

	if (last == NULL && entry) {
		if ((e = name_of(b, "", 0)) == NULL || change(b, e->obj) == -1)
			return -1;
	}
	for (const char *p = strchr(path, '/'); p != NULL;
	     p = strchr(p + 1, '/')) {
		if ((e = name_of(b, path, (size_t)(p - path))) == NULL)
			return -1;
		b->obj[e->obj].dir = 1;
		if (b->obj[e->obj].symlink)
			*barrier = 1;
		if ((p == last && entry ? change(b, e->obj) : use(b, e->obj)) ==
		    -1)
			return -1;
	}
	if ((e = name_of(b, path, strlen(path))) == NULL)
		return -1;
	return (int64_t)e->obj;
}

/* A path the operation follows to what it names. */
static int64_t
follow(struct builder *b, const char *path, int entry, int *barrier)
{
	int64_t k = walk(b, path, entry, barrier);

	if (k != -1 && b->obj[k].symlink)
		*barrier = 1;
	return k;
}

/* Renames and links: the names' objects after the operation. */
static int
rename_names(struct builder *b, const struct wtrace_rec *r, uint64_t k)
{
	struct name *e = name_of(b, r->path2, strlen(r->path2));
	int64_t nk;

	if (e == NULL)
		return -1;
	e->obj = k;
	if (r->op == WT_LINK)
		return 0;
	if ((e = name_of(b, r->path, strlen(r->path))) == NULL ||
	    (nk = new_obj(b)) == -1)
		return -1;
	e->obj = (uint64_t)nk;
	b->obj[nk].changed = b->i + 1;
	return 0;
}

/* A barrier waits for the last operation of every thread since the last. */
static int
barrier(struct builder *b)
{
	for (size_t a = 0; a < b->nactive; a++)
		if (b->active[a] != b->th &&
		    after(b, b->thr[b->active[a]].lastop - 1) == -1)
			return -1;
	b->nactive = 0;
	b->barrier = b->i + 1;
	b->thr[b->th].saw = b->barrier;
	return 0;
}

/* The operations r (operation b->i) waits for, in b->o->dep. */
static int
order(struct builder *b, const struct wtrace_rec *r)
{
	int bar = r->op == WT_SYNC || r->op == WT_SYNCFS;
	int entry = r->op == WT_UNLINK || r->op == WT_RMDIR ||
	    r->op == WT_MKDIR || r->op == WT_SYMLINK;
	int64_t k, k2;

	if (b->barrier > b->thr[b->th].saw) {
		if (after(b, b->barrier - 1) == -1)
			return -1;
		b->thr[b->th].saw = b->barrier;
	}
	switch (r->op) {
	case WT_SYNC:
	case WT_SYNCFS:
		break;
	case WT_OPEN:
		if ((k = follow(b, r->path, (r->flags & WT_O_CREAT) != 0,
		         &bar)) == -1 ||
		    change(b, (uint64_t)k) == -1)
			return -1;
		b->obj[k].dir |= (r->flags & WT_O_DIRECTORY) != 0;
		if (r->h != 0) {
			if (grow(
			        &b->hobj, &b->caph, r->h + 1, sizeof(*b->hobj)))
				return -1;
			b->hobj[r->h] = (uint64_t)k;
		}
		break;
	case WT_UNLINK:
	case WT_RMDIR:
	case WT_MKDIR:
	case WT_SYMLINK:
	case WT_TRUNCATE:
		if ((k = walk(b, r->path, entry, &bar)) == -1 ||
		    change(b, (uint64_t)k) == -1)
			return -1;
		b->obj[k].dir |= r->op == WT_MKDIR || r->op == WT_RMDIR;
		b->obj[k].symlink |= r->op == WT_SYMLINK;
		bar |= r->op == WT_TRUNCATE && b->obj[k].symlink;
		break;
	case WT_RENAME:
	case WT_LINK:
		if ((k = walk(b, r->path, 1, &bar)) == -1 ||
		    (k2 = walk(b, r->path2, 1, &bar)) == -1 ||
		    change(b, (uint64_t)k) == -1 ||
		    change(b, (uint64_t)k2) == -1)
			return -1;
		/* Below a renamed directory, names change without a record. */
		bar |= r->op == WT_RENAME && b->obj[k].dir;
		if (rename_names(b, r, (uint64_t)k) == -1)
			return -1;
		break;
	default:
		if (r->op == WT_SETATTR && r->h == 0) {
			if ((k = follow(b, r->path, 0, &bar)) == -1 ||
			    change(b, (uint64_t)k) == -1)
				return -1;
			break;
		}
		/* The reader has checked that each handle was opened. */
		if (change(b, b->hobj[r->h]) == -1 ||
		    (r->op == WT_COPY_RANGE && change(b, b->hobj[r->h2]) == -1))
			return -1;
		break;
	}
	if (bar && barrier(b) == -1)
		return -1;
	if (b->thr[b->th].listed != b->barrier + 1) {
		b->thr[b->th].listed = b->barrier + 1;
		b->active[b->nactive++] = b->th;
	}
	b->thr[b->th].lastop = b->i + 1;
	return 0;
}

/* Room for operation i of thread th, and for th. */
static int
room(struct builder *b, uint64_t i, uint32_t th)
{
	struct wtrace_order *o = b->o;
	size_t c = b->capops;

	/* One need for the three, so that they keep one capacity. */
	if (grow(&o->place, &c, i + 2, sizeof(*o->place)) == -1)
		return -1;
	c = b->capops;
	if (grow(&o->dep_at, &c, i + 2, sizeof(*o->dep_at)) == -1)
		return -1;
	c = b->capops;
	if (grow(&b->thread, &c, i + 2, sizeof(*b->thread)) == -1)
		return -1;
	b->capops = c;
	if (th < b->capthreads)
		return 0;
	c = b->capthreads;
	if (grow(&b->thr, &c, (size_t)th + 1, sizeof(*b->thr)) == -1)
		return -1;
	c = b->capthreads;
	if (grow(&b->active, &c, (size_t)th + 1, sizeof(*b->active)) == -1)
		return -1;
	b->capthreads = c;
	return 0;
}

/* Each thread's operations, in order: counted, then placed. */
static int
lists(struct builder *b)
{
	struct wtrace_order *o = b->o;
	uint64_t *at;

	o->first = calloc(o->nthreads + 1, sizeof(*o->first));
	o->list = malloc((o->nops > 0 ? o->nops : 1) * sizeof(*o->list));
	at = calloc(o->nthreads + 1, sizeof(*at));
	if (o->first == NULL || o->list == NULL || at == NULL) {
		free(at);
		return -1;
	}
	for (uint64_t i = 0; i < o->nops; i++)
		o->first[b->thread[i] + 1]++;
	for (uint64_t k = 0; k < o->nthreads; k++)
		at[k + 1] = o->first[k + 1] += o->first[k];
	for (uint64_t i = 0; i < o->nops; i++)
		o->list[at[b->thread[i]]++] = i;
	free(at);
	return 0;
}

int
wtrace_order_make(
    struct wtrace *t, struct wtrace_order *o, char *err, size_t errlen)
{
	struct builder b = {.o = o, .nnames = 4096 + t->len / 64};
	struct wtrace_rec r;
	struct wtrace_place p;
	int rv = -1, n;

	memset(o, 0, sizeof(*o));
	if ((b.names = calloc(b.nnames, sizeof(*b.names))) == NULL)
		goto oom;
	wtrace_rewind(t);
	for (;;) {
		wtrace_tell(t, &p);
		if ((n = wtrace_next(t, &r, err, errlen)) == -1)
			goto out;
		if (n == 0)
			break;
		if (room(&b, o->nops, r.thread) == -1)
			goto oom;
		b.i = o->nops;
		b.th = r.thread;
		b.thread[b.i] = r.thread;
		o->place[b.i] = p;
		o->dep_at[b.i] = b.ndep;
		if (order(&b, &r) == -1)
			goto oom;
		o->nops++;
	}
	if (room(&b, o->nops, 0) == -1)
		goto oom;
	o->dep_at[o->nops] = b.ndep;
	o->nthreads = t->nthread;
	o->nhandles = t->nopen;
	if (lists(&b) == -1)
		goto oom;
	rv = 0;
	goto out;
oom:
	snprintf(err, errlen, "workload trace '%s': out of memory", t->name);
out:
	for (size_t i = 0; b.names != NULL && i < b.nnames; i++)
		while (b.names[i] != NULL) {
			struct name *e = b.names[i];

			b.names[i] = e->next;
			free(e);
		}
	free(b.names);
	free(b.obj);
	free(b.hobj);
	free(b.thread);
	free(b.thr);
	free(b.active);
	if (rv == -1)
		wtrace_order_free(o);
	return rv;
}

void
wtrace_order_free(struct wtrace_order *o)
{
	free(o->place);
	free(o->dep_at);
	free(o->dep);
	free(o->first);
	free(o->list);
	memset(o, 0, sizeof(*o));
}
