/*
 * layout.c - the map of what a filesystem's blocks held, made disjoint by
 * rank, and transfers split by it; see layout.h.
 *
 * layout_finish sweeps the extents' boundaries in order with a heap of the
 * extents that cover the point, highest rank (then latest added) on top:
 * between two boundaries the top extent holds the bytes. So overlaps cost
 * O(n log n) whatever their shape, and a hostile image that claims one
 * block a thousand times makes a thousand heap entries, not a thousand
 * passes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

static const char *const names[LAYOUT_NCLASS] = {
    "data", "dir", "inode", "alloc", "map", "journal", "free", "unknown"};

const char *
layout_class_name(enum layout_class c)
{
	return (unsigned)c < LAYOUT_NCLASS ? names[c] : "unknown";
}

int
layout_class_find(const char *name)
{
	for (int c = 0; c < LAYOUT_NCLASS; c++)
		if (strcmp(names[c], name) == 0)
			return c;
	return -1;
}

void
layout_init(struct layout *l, const char *source)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->source, sizeof(l->source), "%s", source);
}

void
layout_free(struct layout *l)
{
	free(l->ext);
	l->ext = NULL;
	l->n = l->cap = 0;
}

int
layout_add(struct layout *l, uint64_t off, uint64_t len, enum layout_class c,
    unsigned rank)
{
	if (len == 0)
		return 0;
	if (off + len < off) /* wraps: keep what fits */
		len = UINT64_MAX - off;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct layout_ext *e = realloc(l->ext, cap * sizeof(*e));

		if (e == NULL) {
			errno = ENOMEM;
			return -1;
		}
		l->ext = e;
		l->cap = cap;
	}
	l->ext[l->n] = (struct layout_ext){.off = off,
	    .len = len,
	    .seq = (uint32_t)l->n,
	    .cls = (uint8_t)c,
	    .rank = (uint8_t)(rank > 255 ? 255 : rank)};
	l->n++;
	l->finished = 0;
	return 0;
}

static int
by_off(const void *a, const void *b)
{
	const struct layout_ext *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether extent a is above extent b in the heap. */
static int
above(const struct layout_ext *a, const struct layout_ext *b)
{
	if (a->rank != b->rank)
		return a->rank > b->rank;
	return a->seq > b->seq;
}

struct heap {
	const struct layout_ext **e;
	size_t n;
};

static void
heap_push(struct heap *h, const struct layout_ext *x)
{
	size_t i = h->n++;

	while (i > 0 && above(x, h->e[(i - 1) / 2])) {
		h->e[i] = h->e[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->e[i] = x;
}

static void
heap_pop(struct heap *h)
{
	const struct layout_ext *x = h->e[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && above(h->e[c + 1], h->e[c]))
			c++;
		if (!above(h->e[c], x))
			break;
		h->e[i] = h->e[c];
		i = c;
	}
	if (h->n > 0)
		h->e[i] = x;
}

/* Appends [off, end) of class c to out, joined to its neighbour. */
static void
emit(struct layout_ext *out, size_t *n, uint64_t off, uint64_t end, uint8_t c)
{
	struct layout_ext *last = *n > 0 ? &out[*n - 1] : NULL;

	if (last != NULL && last->cls == c && last->off + last->len == off) {
		last->len = end - last->off;
		return;
	}
	/* Indexed apart: the index and the initializer are unsequenced. */
	out[*n] = (struct layout_ext){
	    .off = off, .len = end - off, .seq = (uint32_t)*n, .cls = c};
	(*n)++;
}

int
layout_finish(struct layout *l)
{
	uint64_t *pt;
	struct heap h;
	struct layout_ext *out;
	size_t npt = 0, np = 0, j = 0, nout = 0;

	if (l->finished || l->n == 0) {
		l->finished = 1;
		return 0;
	}
	qsort(l->ext, l->n, sizeof(*l->ext), by_off);
	pt = malloc(2 * l->n * sizeof(*pt));
	h.e = malloc(l->n * sizeof(*h.e));
	/* Each boundary point makes at most one piece. */
	out = malloc(2 * l->n * sizeof(*out));
	if (pt == NULL || h.e == NULL || out == NULL) {
		free(pt);
		free(h.e);
		free(out);
		errno = ENOMEM;
		return -1;
	}
	h.n = 0;
	for (size_t i = 0; i < l->n; i++) {
		pt[npt++] = l->ext[i].off;
		pt[npt++] = l->ext[i].off + l->ext[i].len;
	}
	qsort(pt, npt, sizeof(*pt), by_value);
	for (size_t i = 0; i < npt; i++)
		if (np == 0 || pt[np - 1] != pt[i])
			pt[np++] = pt[i];
	for (size_t i = 0; i + 1 < np; i++) {
		while (j < l->n && l->ext[j].off <= pt[i])
			heap_push(&h, &l->ext[j++]);
		while (h.n > 0 && h.e[0]->off + h.e[0]->len <= pt[i])
			heap_pop(&h);
		if (h.n > 0)
			emit(out, &nout, pt[i], pt[i + 1], h.e[0]->cls);
	}
	free(pt);
	free(h.e);
	free(l->ext);
	l->ext = out;
	l->n = nout;
	l->cap = 2 * l->n;
	l->finished = 1;
	return 0;
}

/* The first extent that ends after off. */
static size_t
first_after(const struct layout *l, uint64_t off)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->ext[mid].off + l->ext[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
layout_split(const struct layout *l, uint64_t off, uint64_t len,
    uint64_t by[LAYOUT_NCLASS])
{
	uint64_t end = off + len < off ? UINT64_MAX : off + len;
	uint64_t at = off;

	for (size_t i = first_after(l, off); i < l->n && at < end; i++) {
		const struct layout_ext *e = &l->ext[i];
		uint64_t s = e->off > at ? e->off : at;
		uint64_t t = e->off + e->len < end ? e->off + e->len : end;

		if (s >= end)
			break;
		by[LAYOUT_UNKNOWN] += s - at; /* a gap no extent covers */
		by[e->cls] += t - s;
		at = t;
	}
	by[LAYOUT_UNKNOWN] += end - at;
}

void
layout_attribute(
    const struct layout *l, uint64_t off, uint64_t len, struct layout_attrib *a)
{
	uint64_t by[LAYOUT_NCLASS] = {0};
	int top = 0, held = 0;

	layout_split(l, off, len, by);
	for (int c = 0; c < LAYOUT_NCLASS; c++) {
		if (by[c] == 0)
			continue;
		held++;
		a->cls[c].bytes += by[c];
		if (by[c] > by[top])
			top = c;
	}
	a->cls[top].ops++;
	hist_add(&a->cls[top].size, len, 1);
	if (held > 1)
		a->mixed++;
}
