/*
 * wtrace_order_test.c - what a threaded replay keeps in order
 * (replay/wtrace_order.h), on traces encoded here from
 * docs/workload-trace.md, not by model/wtrace.c's writer: an operation
 * comes after another when it waits for it, directly or through what it
 * waits for, or follows it in its own thread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../model/wtrace.h"
#include "../replay/wtrace_order.h"
#include "testlib.h"

struct enc {
	uint8_t b[4096];
	size_t n;
	uint64_t nrec;
};

static void
varint(struct enc *e, uint64_t v)
{
	do {
		e->b[e->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
}

static void
str(struct enc *e, const char *s)
{
	varint(e, strlen(s));
	memcpy(e->b + e->n, s, strlen(s));
	e->n += strlen(s);
}

static void
put(struct enc *e, unsigned op, unsigned th, uint64_t h, uint64_t flags,
    uint64_t asked, const char *p, const char *p2)
{
	uint64_t done = op == WT_WRITE ? asked : 0;

	if (e->n == 0) {
		memcpy(e->b, WTRACE_MAGIC, WTRACE_MAGIC_LEN);
		e->n = WTRACE_MAGIC_LEN;
		varint(e, WTRACE_VERSION);
	}
	e->b[e->n++] = (uint8_t)op;
	varint(e, th);
	varint(e, 1); /* dt */
	varint(e, h);
	varint(e, 0); /* h2 */
	varint(e, flags);
	varint(e, 0); /* off */
	varint(e, 0); /* off2 */
	varint(e, asked);
	varint(e, done << 1);
	str(e, p);
	str(e, p2);
}

/* One record; a write writes 10 bytes. */
static void
rec(struct enc *e, unsigned op, unsigned th, uint64_t h, uint64_t flags,
    const char *p, const char *p2)
{
	put(e, op, th, h, flags, op == WT_WRITE ? 10 : 0, p, p2);
	e->nrec++;
}

/* The end record, then the trace loaded and ordered. */
static void
order(struct enc *e, struct wtrace *t, struct wtrace_order *o)
{
	char err[512];

	put(e, WT_END, 0, 0, 0, e->nrec, "", "");
	ATF_REQUIRE_MSG(
	    wtrace_load_mem(e->b, e->n, "t", t, err, sizeof(err)) == 0, "%s",
	    err);
	ATF_REQUIRE_MSG(
	    wtrace_order_make(t, o, err, sizeof(err)) == 0, "%s", err);
}

/* The thread of operation i. */
static uint64_t
thread_of(const struct wtrace_order *o, uint64_t i)
{
	for (uint64_t k = 0; k < o->nthreads; k++)
		for (uint64_t x = o->first[k]; x < o->first[k + 1]; x++)
			if (o->list[x] == i)
				return k;
	return UINT64_MAX;
}

/* Whether operation i cannot start before j is done. */
static int
after(const struct wtrace_order *o, uint64_t i, uint64_t j)
{
	if (i == j)
		return 1;
	if (i < j)
		return 0;
	for (uint64_t d = o->dep_at[i]; d < o->dep_at[i + 1]; d++)
		if (after(o, o->dep[d], j))
			return 1;
	/* The operation before i in its own thread. */
	for (uint64_t p = i; p-- > 0;)
		if (thread_of(o, p) == thread_of(o, i))
			return after(o, p, j);
	return 0;
}

#define CREATE (WT_O_WRITE | WT_O_CREAT)

ATF_TC_WITHOUT_HEAD(rename_after_write);
ATF_TC_BODY(rename_after_write, tc)
{
	struct enc e = {.n = 0};
	struct wtrace_order o;
	struct wtrace t;

	(void)tc;
	rec(&e, WT_OPEN, 0, 1, CREATE, "f", "");     /* 0 */
	rec(&e, WT_WRITE, 0, 1, 0, "", "");          /* 1 */
	rec(&e, WT_OPEN, 1, 2, CREATE, "x", "");     /* 2 */
	rec(&e, WT_WRITE, 1, 2, 0, "", "");          /* 3 */
	rec(&e, WT_RENAME, 2, 0, 0, "f", "g");       /* 4 */
	rec(&e, WT_OPEN, 3, 3, WT_O_WRITE, "g", ""); /* 5 */
	rec(&e, WT_WRITE, 3, 3, 0, "", "");          /* 6 */
	rec(&e, WT_WRITE, 0, 1, 0, "", "");          /* 7 */
	order(&e, &t, &o);
	ATF_CHECK_EQ(o.nops, 8);
	ATF_CHECK_EQ(o.nthreads, 4);
	ATF_CHECK(after(&o, 4, 1));  /* the rename after f's write */
	ATF_CHECK(after(&o, 5, 4));  /* g opened after the rename */
	ATF_CHECK(after(&o, 7, 4));  /* f's handle: the renamed file */
	ATF_CHECK(!after(&o, 3, 1)); /* x and f: two files */
	ATF_CHECK(!after(&o, 4, 3));
	ATF_CHECK(!after(&o, 6, 3));
	wtrace_order_free(&o);
	wtrace_free(&t);
}

ATF_TC_WITHOUT_HEAD(directory_uses);
ATF_TC_BODY(directory_uses, tc)
{
	struct enc e = {.n = 0};
	struct wtrace_order o;
	struct wtrace t;

	(void)tc;
	rec(&e, WT_MKDIR, 0, 0, 0, "a", "");          /* 0 */
	rec(&e, WT_OPEN, 1, 1, CREATE, "a/x", "");    /* 1 */
	rec(&e, WT_OPEN, 2, 2, WT_O_READ, "a", "");   /* 2 */
	rec(&e, WT_OPEN, 3, 3, WT_O_READ, "a/x", ""); /* 3 */
	rec(&e, WT_OPEN, 4, 4, WT_O_READ, "b/y", ""); /* 4 */
	rec(&e, WT_OPEN, 5, 5, WT_O_READ, "b/z", ""); /* 5 */
	rec(&e, WT_UNLINK, 6, 0, 0, "b/y", "");       /* 6 */
	order(&e, &t, &o);
	ATF_CHECK(after(&o, 1, 0));  /* made in the directory made first */
	ATF_CHECK(after(&o, 3, 1));  /* opened after it was made */
	ATF_CHECK(!after(&o, 5, 4)); /* two uses of b: free */
	ATF_CHECK(after(&o, 6, 4));  /* a change of b: after its uses */
	ATF_CHECK(after(&o, 6, 5));
	ATF_CHECK(!after(&o, 4, 3)); /* a and b: free */
	wtrace_order_free(&o);
	wtrace_free(&t);
}

ATF_TC_WITHOUT_HEAD(barriers);
ATF_TC_BODY(barriers, tc)
{
	struct enc e = {.n = 0};
	struct wtrace_order o;
	struct wtrace t;

	(void)tc;
	rec(&e, WT_OPEN, 0, 1, CREATE, "f", "");    /* 0 */
	rec(&e, WT_WRITE, 0, 1, 0, "", "");         /* 1 */
	rec(&e, WT_MKDIR, 1, 0, 0, "d", "");        /* 2 */
	rec(&e, WT_RENAME, 1, 0, 0, "d", "e");      /* 3: a directory */
	rec(&e, WT_WRITE, 0, 1, 0, "", "");         /* 4 */
	rec(&e, WT_SYMLINK, 2, 0, 0, "s", "f");     /* 5 */
	rec(&e, WT_OPEN, 3, 2, WT_O_READ, "s", ""); /* 6: through it */
	rec(&e, WT_SYNC, 2, 0, 0, "", "");          /* 7 */
	rec(&e, WT_OPEN, 4, 3, CREATE, "h", "");    /* 8 */
	order(&e, &t, &o);
	ATF_CHECK(after(&o, 3, 1)); /* a directory's rename waits for all */
	ATF_CHECK(after(&o, 4, 3)); /* and all that follows for it */
	ATF_CHECK(after(&o, 6, 4)); /* a path through a symbolic link */
	ATF_CHECK(after(&o, 7, 6)); /* sync */
	ATF_CHECK(after(&o, 8, 7));
	wtrace_order_free(&o);
	wtrace_free(&t);
}

ATF_TC_WITHOUT_HEAD(one_thread);
ATF_TC_BODY(one_thread, tc)
{
	struct enc e = {.n = 0};
	struct wtrace_order o;
	struct wtrace t;

	(void)tc;
	rec(&e, WT_MKDIR, 0, 0, 0, "a", "");
	rec(&e, WT_OPEN, 0, 1, CREATE, "a/x", "");
	rec(&e, WT_WRITE, 0, 1, 0, "", "");
	rec(&e, WT_SYNC, 0, 0, 0, "", "");
	rec(&e, WT_RENAME, 0, 0, 0, "a", "b");
	order(&e, &t, &o);
	/* Nothing to wait for but its own thread, in the recorded order. */
	ATF_CHECK_EQ(o.nthreads, 1);
	ATF_CHECK_EQ(o.dep_at[o.nops], 0);
	for (uint64_t i = 0; i < o.nops; i++)
		ATF_CHECK_EQ(o.list[i], i);
	wtrace_order_free(&o);
	wtrace_free(&t);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, rename_after_write);
	ATF_TP_ADD_TC(tp, directory_uses);
	ATF_TP_ADD_TC(tp, barriers);
	ATF_TP_ADD_TC(tp, one_thread);
	return atf_no_error();
}
