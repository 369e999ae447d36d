/*
 * tracefs_test.c - the tracefs parsers on recorded bytes
 * (fixtures/tracefs_test/) and on pages built by hand: event formats, ring
 * buffer pages with every kind of event header, lost-event marks, per-CPU
 * statistics, and the block events decoded from them, compared with the
 * kernel's own text of the same events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "../traces/traces.h"
#include "testlib.h"

/* The file rel under fixtures/tracefs_test, whole; *len its size. */
static unsigned char *
fixture(const atf_tc_t *tc, const char *rel, size_t *len)
{
	char path[4096];
	unsigned char *buf;
	FILE *fp;
	long n;

	snprintf(path, sizeof(path), "fixtures/tracefs_test/%s", rel);
	snprintf(path, sizeof(path), "%s", tl_path(tc, path));
	if ((fp = fopen(path, "rb")) == NULL) {
		atf_tc_fail("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	ATF_REQUIRE((buf = malloc((size_t)n + 1)) != NULL);
	ATF_REQUIRE(fread(buf, 1, (size_t)n, fp) == (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

static void
block_init(const atf_tc_t *tc, const char *dir, struct tracefs_block *b)
{
	char *fmt[TRACEFS_NBLOCK], rel[256], err[256];

	for (int i = 0; i < TRACEFS_NBLOCK; i++) {
		snprintf(rel, sizeof(rel), "%s/%s.format", dir,
		    tracefs_block_events[i]);
		fmt[i] = (char *)fixture(tc, rel, NULL);
	}
	if (tracefs_block_init(
	        b, (const char *const *)fmt, 0, err, sizeof(err)) == -1)
		atf_tc_fail("tracefs_block_init: %s", err);
	for (int i = 0; i < TRACEFS_NBLOCK; i++)
		free(fmt[i]);
}

static void
page_layout(const atf_tc_t *tc, const char *dir, struct tracefs_page_layout *l)
{
	char rel[256], err[256], *text;

	snprintf(rel, sizeof(rel), "%s/header_page", dir);
	text = (char *)fixture(tc, rel, NULL);
	if (tracefs_header_page_parse(text, l, err, sizeof(err)) == -1)
		atf_tc_fail("header_page: %s", err);
	free(text);
	/* The fixtures were recorded on a little-endian machine. */
	l->big_endian = 0;
}

ATF_TC(format_fields);
ATF_TC_HEAD(format_fields, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "an event format file gives every "
	    "field's offset, size, sign and kind");
}
ATF_TC_BODY(format_fields, tc)
{
	struct tracefs_format f;
	const struct tracefs_field *fd;
	char err[256],
	    *text = (char *)fixture(tc, "basic/block_rq_issue.format", NULL);

	if (tracefs_format_parse(text, &f, err, sizeof(err)) == -1)
		atf_tc_fail("parse: %s", err);
	ATF_CHECK_STREQ(f.name, "block_rq_issue");
	ATF_CHECK_EQ(f.id, 2104);
	ATF_CHECK_EQ(f.nfield, 12);
	ATF_REQUIRE((fd = tracefs_field_find(&f, "common_pid")) != NULL);
	ATF_CHECK(fd->offset == 4 && fd->size == 4 && fd->is_signed);
	ATF_REQUIRE((fd = tracefs_field_find(&f, "dev")) != NULL);
	ATF_CHECK(fd->offset == 8 && fd->size == 4 && !fd->is_signed);
	ATF_REQUIRE((fd = tracefs_field_find(&f, "sector")) != NULL);
	ATF_CHECK(fd->offset == 16 && fd->size == 8);
	ATF_REQUIRE((fd = tracefs_field_find(&f, "rwbs")) != NULL);
	ATF_CHECK(fd->offset == 34 && fd->size == 10 && fd->is_string &&
	    !fd->data_loc);
	ATF_REQUIRE((fd = tracefs_field_find(&f, "cmd")) != NULL);
	ATF_CHECK(
	    fd->offset == 60 && fd->size == 4 && fd->data_loc && fd->is_string);
	ATF_CHECK(tracefs_field_find(&f, "nosuch") == NULL);
	free(text);
}

ATF_TC(format_bad);
ATF_TC_HEAD(format_bad, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "formats without a name, an id, an "
	    "offset or a common_type are refused with a reason");
}
ATF_TC_BODY(format_bad, tc)
{
	static const char *const bad[] = {
	    "ID: 1\nformat:\n\tfield:unsigned short common_type;\t"
	    "offset:0;\tsize:2;\tsigned:0;\n",
	    "name: x\nformat:\n\tfield:unsigned short common_type;\t"
	    "offset:0;\tsize:2;\tsigned:0;\n",
	    "name: x\nID: 3\nformat:\n\tfield:unsigned short common_type;"
	    "\tsize:2;\tsigned:0;\n",
	    "name: x\nID: 3\nformat:\n\tfield:int a;\toffset:0;\tsize:4;"
	    "\tsigned:1;\n",
	    "name: x\nID: 3\nformat:\n\tfield:unsigned short common_type;"
	    "\toffset:0;\tsize:2;\tsigned:0;\n\tfield:__data_loc char[] s;"
	    "\toffset:4;\tsize:8;\tsigned:0;\n",
	};
	struct tracefs_format f;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ATF_CHECK_EQ_MSG(
		    tracefs_format_parse(bad[i], &f, err, sizeof(err)), -1,
		    "case %zu", i);
		ATF_CHECK_MSG(err[0] != '\0', "case %zu: no reason", i);
	}
}

static void
put(unsigned char *p, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

ATF_TC(format_reordered);
ATF_TC_HEAD(format_reordered, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a hand-edited format with the fields "
	    "in another order still decodes: fields are found by name");
}
ATF_TC_BODY(format_reordered, tc)
{
	struct tracefs_block b;
	struct blkev ev;
	unsigned char rec[72];
	char *fmt[TRACEFS_NBLOCK], err[256];

	fmt[0] = (char *)fixture(tc, "basic/block_bio_queue.format", NULL);
	fmt[1] = (char *)fixture(tc, "reordered/block_rq_issue.format", NULL);
	fmt[2] = (char *)fixture(tc, "basic/block_rq_complete.format", NULL);
	fmt[3] = (char *)fixture(tc, "basic/block_split.format", NULL);
	if (tracefs_block_init(
	        &b, (const char *const *)fmt, 0, err, sizeof(err)) == -1)
		atf_tc_fail("init: %s", err);
	memset(rec, 0, sizeof(rec));
	put(rec + 0, 2104, 2);         /* common_type */
	put(rec + 8, 60 | 3 << 16, 4); /* cmd: 3 bytes at 60 */
	memcpy(rec + 12, "FWFS", 5);   /* rwbs */
	put(rec + 24, 123456789, 8);   /* sector */
	memcpy(rec + 32, "jbd2/sda1-8", 12);
	put(rec + 48, 8192, 4); /* bytes */
	put(rec + 52, 16, 4);   /* nr_sector */
	put(rec + 56, BLKEV_DEV(8, 1), 4);
	memcpy(rec + 60, "ab", 3);
	ATF_REQUIRE_EQ_MSG(
	    tracefs_block_decode(&b, 1000, rec, 64, &ev, err, sizeof(err)), 1,
	    "%s", err);
	ATF_CHECK_EQ(ev.kind, BLKEV_ISSUE);
	ATF_CHECK_EQ(ev.dev, BLKEV_DEV(8, 1));
	ATF_CHECK_EQ(ev.sector, 123456789);
	ATF_CHECK_EQ(ev.nr_sector, 16);
	ATF_CHECK_EQ(ev.bytes, 8192);
	ATF_CHECK_EQ(
	    ev.flags, BLKEV_PREFLUSH | BLKEV_OP_WRITE | BLKEV_FUA | BLKEV_SYNC);
	ATF_CHECK_EQ(ev.ts_ns, 1000);
	/* Cut before dev (at 56): malformed, not a guess. */
	ATF_CHECK_EQ(
	    tracefs_block_decode(&b, 1000, rec, 58, &ev, err, sizeof(err)), -1);
	/* Another event's record is not ours. */
	put(rec + 0, 7, 2);
	ATF_CHECK_EQ(
	    tracefs_block_decode(&b, 1000, rec, 64, &ev, err, sizeof(err)), 0);
	for (int i = 0; i < TRACEFS_NBLOCK; i++)
		free(fmt[i]);
}

ATF_TC(split);
ATF_TC_HEAD(split, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a block_split record, in the kernel's layout of basic/, is a split "
	    "whose length runs up to new_sector");
}
ATF_TC_BODY(split, tc)
{
	struct tracefs_block b;
	struct blkev ev;
	unsigned char rec[64];
	char err[256];

	block_init(tc, "basic", &b);
	memset(rec, 0, sizeof(rec));
	put(rec + 0, 2092, 2); /* common_type, as the format says */
	put(rec + 8, BLKEV_DEV(7, 3), 4);
	put(rec + 16, 4096, 8); /* sector */
	put(rec + 24, 5120, 8); /* new_sector: 512 KiB further */
	memcpy(rec + 32, "W", 2);
	ATF_REQUIRE_EQ_MSG(
	    tracefs_block_decode(&b, 7, rec, 58, &ev, err, sizeof(err)), 1,
	    "%s", err);
	ATF_CHECK_EQ(ev.kind, BLKEV_SPLIT);
	ATF_CHECK_EQ(ev.dev, BLKEV_DEV(7, 3));
	ATF_CHECK_EQ(ev.sector, 4096);
	ATF_CHECK_EQ(ev.nr_sector, 1024);
	ATF_CHECK_EQ(ev.flags, BLKEV_OP_WRITE);
	/* Cut inside new_sector: malformed. */
	ATF_CHECK_EQ(
	    tracefs_block_decode(&b, 7, rec, 28, &ev, err, sizeof(err)), -1);
}

ATF_TC(header_page);
ATF_TC_HEAD(header_page, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "events/header_page gives the page "
	    "layout");
}
ATF_TC_BODY(header_page, tc)
{
	struct tracefs_page_layout l;
	char err[256];

	page_layout(tc, "basic", &l);
	ATF_CHECK_EQ(l.ts_offset, 0);
	ATF_CHECK_EQ(l.ts_size, 8);
	ATF_CHECK_EQ(l.commit_offset, 8);
	ATF_CHECK_EQ(l.commit_size, 8);
	ATF_CHECK_EQ(l.data_offset, 16);
	ATF_CHECK_EQ(l.page_bytes, 4096);
	ATF_CHECK_EQ(
	    tracefs_header_page_parse("nothing here\n", &l, err, sizeof(err)),
	    -1);
}

/* One event as the kernel's text prints it (trace.txt). */
struct textev {
	int cpu;
	uint64_t ts_us;
	char kind;
	unsigned major, minor;
	char rwbs[12];
	uint64_t sector;
	unsigned nr_sector;
	unsigned bytes;
};

static size_t
read_text(const atf_tc_t *tc, const char *dir, struct textev *out, size_t max)
{
	char rel[256], *text, *line, *save;
	size_t n = 0;

	snprintf(rel, sizeof(rel), "%s/trace.txt", dir);
	text = (char *)fixture(tc, rel, NULL);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		struct textev t;
		char *p, name[32];
		unsigned long sec, usec;
		int k;

		if (line[0] == '#' || (p = strstr(line, "] ")) == NULL)
			continue;
		memset(&t, 0, sizeof(t));
		ATF_REQUIRE(sscanf(strchr(line, '[') + 1, "%d", &t.cpu) == 1);
		ATF_REQUIRE_MSG(sscanf(p + 2, "%*s %lu.%lu: %31[^:]: %n", &sec,
		                    &usec, name, &k) == 3,
		    "%s", line);
		t.ts_us = (uint64_t)sec * 1000000 + usec;
		p += 2;
		p = strstr(p, name) + strlen(name) + 2;
		if (strcmp(name, "block_bio_queue") == 0) {
			t.kind = BLKEV_QUEUE;
			ATF_REQUIRE(sscanf(p, "%u,%u %11s %" SCNu64 " + %u",
			                &t.major, &t.minor, t.rwbs, &t.sector,
			                &t.nr_sector) == 5);
		} else if (strcmp(name, "block_rq_issue") == 0) {
			t.kind = BLKEV_ISSUE;
			ATF_REQUIRE(sscanf(p, "%u,%u %11s %u", &t.major,
			                &t.minor, t.rwbs, &t.bytes) == 4);
			/* The command in parentheses may be empty. */
			ATF_REQUIRE((p = strchr(p, ')')) != NULL);
			ATF_REQUIRE(sscanf(p + 1, "%" SCNu64 " + %u", &t.sector,
			                &t.nr_sector) == 2);
		} else if (strcmp(name, "block_rq_complete") == 0) {
			t.kind = BLKEV_COMPLETE;
			ATF_REQUIRE(sscanf(p, "%u,%u %11s", &t.major, &t.minor,
			                t.rwbs) == 3);
			ATF_REQUIRE((p = strchr(p, ')')) != NULL);
			ATF_REQUIRE(sscanf(p + 1, "%" SCNu64 " + %u", &t.sector,
			                &t.nr_sector) == 2);
		} else
			atf_tc_fail("unknown event in trace.txt: %s", name);
		ATF_REQUIRE(n < max);
		out[n++] = t;
	}
	free(text);
	return n;
}

struct collect {
	const struct tracefs_block *b;
	struct blkev *ev;
	size_t n, max;
};

static int
collect_event(void *ctx, uint64_t ts, const unsigned char *rec, size_t len,
    char *err, size_t errlen)
{
	struct collect *c = ctx;
	struct blkev ev;
	int rv = tracefs_block_decode(c->b, ts, rec, len, &ev, err, errlen);

	if (rv == 1) {
		if (c->n == c->max) {
			snprintf(err, errlen, "too many events");
			return -1;
		}
		c->ev[c->n++] = ev;
	}
	return rv == -1 ? -1 : 0;
}

/*
 * Decodes every page of rawN.bin of dir and compares the events of that CPU,
 * in order, with the kernel's text. Returns the sum of the pages' infos.
 */
static void
compare_cpu(const atf_tc_t *tc, const char *dir, int cpu,
    const struct textev *text, size_t ntext, struct tracefs_page_info *sum,
    size_t *nevents)
{
	struct tracefs_page_layout l;
	struct tracefs_block b;
	struct blkev ev[4096];
	struct collect c = {&b, ev, 0, 4096};
	unsigned char *raw;
	size_t len, k = 0;
	char rel[256], err[256];

	page_layout(tc, dir, &l);
	block_init(tc, dir, &b);
	snprintf(rel, sizeof(rel), "%s/raw%d.bin", dir, cpu);
	raw = fixture(tc, rel, &len);
	memset(sum, 0, sizeof(*sum));
	for (size_t off = 0; off < len; off += l.page_bytes) {
		struct tracefs_page_info info;
		size_t plen =
		    len - off < l.page_bytes ? len - off : l.page_bytes;

		if (tracefs_page_parse(&l, raw + off, plen, collect_event, &c,
		        &info, err, sizeof(err)) == -1)
			atf_tc_fail("%s page at %zu: %s", rel, off, err);
		sum->events += info.events;
		sum->time_extends += info.time_extends;
		sum->padding += info.padding;
		sum->missed |= info.missed;
		sum->missed_events += info.missed_events;
	}
	for (size_t i = 0; i < ntext; i++) {
		const struct textev *t = &text[i];
		char rwbs[12];

		if (t->cpu != cpu)
			continue;
		ATF_REQUIRE_MSG(k < c.n,
		    "cpu %d: text has more events than "
		    "the pages (%zu)",
		    cpu, c.n);
		ATF_CHECK_EQ_MSG(
		    ev[k].kind, t->kind, "cpu %d event %zu", cpu, k);
		/* The text rounds to the nearest microsecond. */
		ATF_CHECK_EQ_MSG(((uint64_t)ev[k].ts_ns + 500) / 1000, t->ts_us,
		    "cpu %d event %zu: %" PRIu64 " ns, text %" PRIu64 " us",
		    cpu, k, (uint64_t)ev[k].ts_ns, t->ts_us);
		ATF_CHECK_EQ(ev[k].dev, BLKEV_DEV(t->major, t->minor));
		ATF_CHECK_EQ_MSG(
		    ev[k].sector, t->sector, "cpu %d event %zu", cpu, k);
		ATF_CHECK_EQ(ev[k].nr_sector, t->nr_sector);
		blkev_rwbs_string(ev[k].flags, rwbs, sizeof(rwbs));
		ATF_CHECK_STREQ_MSG(rwbs, t->rwbs, "cpu %d event %zu", cpu, k);
		if (t->kind == BLKEV_ISSUE)
			ATF_CHECK_EQ(ev[k].bytes, t->bytes);
		k++;
	}
	ATF_CHECK_EQ_MSG(
	    k, c.n, "cpu %d: pages have %zu events, text %zu", cpu, c.n, k);
	*nevents = c.n;
	free(raw);
}

ATF_TC(pages_basic);
ATF_TC_HEAD(pages_basic, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "recorded trace_pipe_raw pages decode "
	    "to the same events, in the same order, as the kernel's text");
}
ATF_TC_BODY(pages_basic, tc)
{
	static struct textev text[8192];
	struct tracefs_page_info sum[2];
	size_t n = read_text(tc, "basic", text, 8192), ev[2];

	ATF_REQUIRE(n == 238);
	compare_cpu(tc, "basic", 0, text, n, &sum[0], &ev[0]);
	compare_cpu(tc, "basic", 1, text, n, &sum[1], &ev[1]);
	ATF_CHECK_EQ(ev[0] + ev[1], 238);
	ATF_CHECK(!sum[0].missed && !sum[1].missed);
	/* record.sh sleeps 0.3 s: longer than a 27-bit delta. */
	ATF_CHECK(sum[0].time_extends + sum[1].time_extends > 0);
}

ATF_TC(pages_overrun);
ATF_TC_HEAD(pages_overrun, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "pages read after the writer overran "
	    "the reader say how many events were lost, and those count "
	    "agrees with per_cpu/cpuN/stats");
}
ATF_TC_BODY(pages_overrun, tc)
{
	static struct textev text[8192];
	struct tracefs_page_info sum[2];
	struct tracefs_cpu_stats st[2];
	size_t n = read_text(tc, "overrun", text, 8192), ev[2];
	char err[256];

	compare_cpu(tc, "overrun", 0, text, n, &sum[0], &ev[0]);
	compare_cpu(tc, "overrun", 1, text, n, &sum[1], &ev[1]);
	for (int c = 0; c < 2; c++) {
		char rel[64], *s;

		snprintf(rel, sizeof(rel), "overrun/stats%d.txt", c);
		s = (char *)fixture(tc, rel, NULL);
		if (tracefs_stats_parse(s, &st[c], err, sizeof(err)) == -1)
			atf_tc_fail("%s: %s", rel, err);
		free(s);
		ATF_CHECK(sum[c].missed);
		/* The pages' count is the overrun the stats show. */
		ATF_CHECK_EQ_MSG(sum[c].missed_events, st[c].overrun,
		    "cpu %d: pages say %" PRIu64 " lost, stats %" PRIu64, c,
		    sum[c].missed_events, st[c].overrun);
		ATF_CHECK_EQ(ev[c], st[c].entries);
	}
}

/* A page built by hand, in little-endian. */
struct page {
	unsigned char b[4096];
	size_t off;
};

static void
page_begin(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	put(p->b, ts, 8);
	p->off = 16;
}

static void
page_hdr(struct page *p, unsigned type, unsigned delta)
{
	put(p->b + p->off, type | (uint64_t)delta << 5, 4);
	p->off += 4;
}

static void
page_u32(struct page *p, uint32_t v)
{
	put(p->b + p->off, v, 4);
	p->off += 4;
}

static void
page_end(struct page *p, uint64_t flags)
{
	put(p->b + 8, (p->off - 16) | flags, 8);
}

struct seen {
	uint64_t ts[16];
	size_t len[16];
	unsigned char first[16];
	size_t n;
};

static int
see(void *ctx, uint64_t ts, const unsigned char *rec, size_t len, char *err,
    size_t errlen)
{
	struct seen *s = ctx;

	(void)err;
	(void)errlen;
	if (s->n < 16) {
		s->ts[s->n] = ts;
		s->len[s->n] = len;
		s->first[s->n] = rec[0];
		s->n++;
	}
	return 0;
}

ATF_TC(pages_crafted);
ATF_TC_HEAD(pages_crafted, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "every event header kind: small and "
	    "long data, padding, time extend, absolute time stamp, end of "
	    "page; and malformed pages are refused");
}
ATF_TC_BODY(pages_crafted, tc)
{
	struct tracefs_page_layout l = {.ts_offset = 0,
	    .ts_size = 8,
	    .commit_offset = 8,
	    .commit_size = 8,
	    .data_offset = 16,
	    .page_bytes = 4096,
	    .big_endian = 0};
	struct tracefs_page_info info;
	struct seen s;
	struct page p;
	char err[256];

	page_begin(&p, 1000);
	page_hdr(&p, 2, 5); /* data, 8 bytes, +5 */
	page_u32(&p, 0xa1);
	page_u32(&p, 0);
	page_hdr(&p, 29, 7); /* padding: 16 bytes in all */
	page_u32(&p, 12);
	p.off += 8;
	page_hdr(&p, 30, 3); /* time extend: +(2 << 27 | 3) */
	page_u32(&p, 2);
	page_hdr(&p, 0, 1); /* long data: length word 4 + 120 */
	page_u32(&p, 124);
	p.b[p.off] = 0xa2;
	p.off += 120;
	page_hdr(&p, 31, 0x10); /* absolute: 5 << 27 | 0x10 */
	page_u32(&p, 5);
	page_hdr(&p, 1, 2); /* data, 4 bytes, +2 */
	page_u32(&p, 0xa3);
	page_end(&p, 0);
	memset(&s, 0, sizeof(s));
	if (tracefs_page_parse(
	        &l, p.b, sizeof(p.b), see, &s, &info, err, sizeof(err)) == -1)
		atf_tc_fail("parse: %s", err);
	ATF_REQUIRE_EQ(s.n, 3);
	ATF_CHECK_EQ(s.ts[0], 1005);
	ATF_CHECK_EQ(s.len[0], 8);
	ATF_CHECK_EQ(s.first[0], 0xa1);
	/* The padding's delta is not time; the extend's is. */
	ATF_CHECK_EQ(s.ts[1], 1005 + (2ULL << 27 | 3) + 1);
	ATF_CHECK_EQ(s.len[1], 120);
	ATF_CHECK_EQ(s.first[1], 0xa2);
	ATF_CHECK_EQ(s.ts[2], (5ULL << 27 | 0x10) + 2);
	ATF_CHECK_EQ(s.len[2], 4);
	ATF_CHECK_EQ(info.padding, 1);
	ATF_CHECK_EQ(info.time_extends, 1);
	ATF_CHECK_EQ(info.time_stamps, 1);
	ATF_CHECK_EQ(info.events, 3);
	ATF_CHECK(!info.missed);

	/* A null padding ends the page before its commit. */
	page_begin(&p, 50);
	page_hdr(&p, 1, 1);
	page_u32(&p, 0xb1);
	page_hdr(&p, 29, 0);
	p.off += 12;
	page_end(&p, 0);
	memset(&s, 0, sizeof(s));
	ATF_REQUIRE(tracefs_page_parse(&l, p.b, sizeof(p.b), see, &s, &info,
	                err, sizeof(err)) == 0);
	ATF_CHECK_EQ(s.n, 1);

	/* Lost events, their number stored after the commit. */
	page_begin(&p, 50);
	page_hdr(&p, 1, 1);
	page_u32(&p, 0xb1);
	put(p.b + p.off, 4242, 8);
	page_end(&p, 0xffffffffc0000000ULL);
	ATF_REQUIRE(tracefs_page_parse(&l, p.b, sizeof(p.b), NULL, NULL, &info,
	                err, sizeof(err)) == 0);
	ATF_CHECK(info.missed);
	ATF_CHECK_EQ(info.missed_events, 4242);
	ATF_CHECK_EQ(info.events, 1);
	/* Lost, number not stored. */
	page_end(&p, 1ULL << 31);
	ATF_REQUIRE(tracefs_page_parse(&l, p.b, sizeof(p.b), NULL, NULL, &info,
	                err, sizeof(err)) == 0);
	ATF_CHECK(info.missed);
	ATF_CHECK_EQ(info.missed_events, 0);

	/* An event longer than the commit: malformed. */
	page_begin(&p, 50);
	page_hdr(&p, 8, 1);
	page_u32(&p, 0xb1);
	page_end(&p, 0);
	ATF_CHECK_EQ(tracefs_page_parse(&l, p.b, sizeof(p.b), NULL, NULL, &info,
	                 err, sizeof(err)),
	    -1);
	ATF_CHECK(strstr(err, "past the commit") != NULL);
	/* A commit beyond what was read: malformed. */
	page_begin(&p, 50);
	page_hdr(&p, 1, 1);
	page_u32(&p, 0xb1);
	page_end(&p, 0);
	ATF_CHECK_EQ(tracefs_page_parse(
	                 &l, p.b, 20, NULL, NULL, &info, err, sizeof(err)),
	    -1);
	/* Shorter than its header. */
	ATF_CHECK_EQ(tracefs_page_parse(
	                 &l, p.b, 10, NULL, NULL, &info, err, sizeof(err)),
	    -1);
	/* A long event whose length word is missing. */
	page_begin(&p, 50);
	page_hdr(&p, 0, 1);
	page_end(&p, 0);
	ATF_CHECK_EQ(tracefs_page_parse(&l, p.b, sizeof(p.b), NULL, NULL, &info,
	                 err, sizeof(err)),
	    -1);
}

ATF_TC(stats);
ATF_TC_HEAD(stats, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "per_cpu/cpuN/stats parses; text "
	    "without its counters is refused");
}
ATF_TC_BODY(stats, tc)
{
	struct tracefs_cpu_stats st;
	char err[256], *s = (char *)fixture(tc, "overrun/stats1.txt", NULL);

	ATF_REQUIRE_EQ_MSG(
	    tracefs_stats_parse(s, &st, err, sizeof(err)), 0, "%s", err);
	ATF_CHECK_EQ(st.entries, 183);
	ATF_CHECK_EQ(st.overrun, 9766);
	ATF_CHECK_EQ(st.commit_overrun, 0);
	ATF_CHECK_EQ(st.bytes, 13968);
	ATF_CHECK_EQ(st.dropped, 0);
	ATF_CHECK_EQ(st.read, 0);
	free(s);
	ATF_CHECK_EQ(
	    tracefs_stats_parse("entries: 1\n", &st, err, sizeof(err)), -1);
	ATF_CHECK_EQ(tracefs_stats_parse(
	                 "entries: x\noverrun: 1\n", &st, err, sizeof(err)),
	    -1);
	ATF_CHECK_EQ(tracefs_stats_parse("entries: 3\noverrun: 1\n"
	                                 "dropped events: 7\n",
	                 &st, err, sizeof(err)),
	    0);
	ATF_CHECK_EQ(st.dropped, 7);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, format_fields);
	ATF_TP_ADD_TC(tp, format_bad);
	ATF_TP_ADD_TC(tp, format_reordered);
	ATF_TP_ADD_TC(tp, split);
	ATF_TP_ADD_TC(tp, header_page);
	ATF_TP_ADD_TC(tp, pages_basic);
	ATF_TP_ADD_TC(tp, pages_overrun);
	ATF_TP_ADD_TC(tp, pages_crafted);
	ATF_TP_ADD_TC(tp, stats);
	return atf_no_error();
}
