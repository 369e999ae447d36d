/*
 * tracefs.c - parsers of what the Linux tracing file system publishes: event
 * formats, the header of a ring-buffer page, the binary pages of
 * per_cpu/cpuN/trace_pipe_raw and the per-CPU statistics. Nothing here reads
 * a file: the probe (tracefs_linux.c) reads, these decode, and the tests feed
 * them recorded bytes (fixtures/tracefs_test/).
 *
 * The ring buffer's layout is the kernel's (kernel/trace/ring_buffer.c, and
 * what events/header_page and events/header_event print):
 *
 *	page:	u64 time stamp | commit word | events ...
 *	event:	u32 header: type_len (5 bits) and time_delta (27 bits)
 *		type_len 1..28	payload of type_len * 4 bytes follows
 *		type_len 0	a u32 length follows (counting itself), then
 *				the payload
 *		29 padding	time_delta 0: the rest of the page is empty;
 *				else a u32 length follows: skip it
 *		30 time extend	a u32 follows: delta = u32 << 27 | time_delta
 *		31 time stamp	the same, an absolute time (the top 5 bits
 *				carried over from the last time stamp)
 *
 * The commit word's low 30 bits are the bytes of events on the page; bit 31
 * says events were lost before the page, and bit 30 that their number is
 * stored right after the events, in a word of the commit's size.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces.h"

#define TYPE_DATA_MAX    28
#define TYPE_PADDING     29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP  31
#define TS_SHIFT         27
#define COMMIT_MISSED    (1ULL << 31)
#define COMMIT_STORED    (1ULL << 30)
#define COMMIT_LEN_MASK  ((1ULL << 30) - 1)
#define TS_MSB           (0x1fULL << 59)

/* An unsigned integer of size bytes at p, in the ring buffer's byte order. */
static uint64_t
get_uint(const unsigned char *p, unsigned size, int big_endian)
{
	uint64_t v = 0;

	/*
	 * Two loops, not one that asks the order at every byte: this runs for
	 * every field of every event.
	 */
	if (big_endian)
		for (unsigned i = 0; i < size; i++)
			v = v << 8 | p[i];
	else
		for (unsigned i = size; i-- > 0;)
			v = v << 8 | p[i];
	return v;
}

/* Reads "key:NUMBER" after the first occurrence of key in [s, end). */
static int
keyed_number(const char *s, const char *end, const char *key, unsigned *out)
{
	size_t klen = strlen(key);
	const char *p;
	char *e;
	unsigned long v;

	for (p = s; p + klen <= end; p++)
		if (memcmp(p, key, klen) == 0)
			break;
	if (p + klen > end)
		return -1;
	p += klen;
	errno = 0;
	v = strtoul(p, &e, 10);
	if (e == p || errno != 0 || e > end || v > 0xffffffffUL)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/*
 * One "field:DECLARATION;\toffset:N;\tsize:N;\tsigned:N;" line, [s, end).
 * The name is the declaration's last word, less any [N]; "__data_loc"
 * marks a dynamic field.
 */
static int
parse_field(const char *s, const char *end, struct tracefs_field *fd, char *err,
    size_t errlen)
{
	const char *decl = s + strlen("field:"), *semi, *name, *nend;
	unsigned sgn = 0;

	memset(fd, 0, sizeof(*fd));
	for (semi = decl; semi < end && *semi != ';'; semi++)
		continue;
	if (semi == end) {
		snprintf(err, errlen, "field line without ';'");
		return -1;
	}
	nend = semi;
	while (nend > decl && nend[-1] == ' ')
		nend--;
	if (nend > decl && nend[-1] == ']') {
		while (nend > decl && *nend != '[')
			nend--;
		if (*nend != '[') {
			snprintf(err, errlen, "unbalanced '[' in a field");
			return -1;
		}
		fd->is_string = 1;
	}
	for (name = nend; name > decl && name[-1] != ' ' && name[-1] != '\t' &&
	     name[-1] != '*';
	     name--)
		continue;
	if (name == nend || (size_t)(nend - name) >= sizeof(fd->name)) {
		snprintf(err, errlen, "field without a usable name");
		return -1;
	}
	memcpy(fd->name, name, (size_t)(nend - name));
	fd->data_loc = strncmp(decl, "__data_loc", 10) == 0 ||
	    strncmp(decl, " __data_loc", 11) == 0;
	/* A char array is text; other arrays and data_loc strings are not. */
	if (fd->is_string) {
		const char *c = strstr(decl, "char");

		fd->is_string = c != NULL && c < name && !fd->data_loc;
	}
	if (fd->data_loc)
		fd->is_string = 1;
	if (keyed_number(semi, end, "offset:", &fd->offset) == -1 ||
	    keyed_number(semi, end, "size:", &fd->size) == -1) {
		snprintf(
		    err, errlen, "field '%s' without offset or size", fd->name);
		return -1;
	}
	if (keyed_number(semi, end, "signed:", &sgn) == 0)
		fd->is_signed = sgn != 0;
	if (fd->size == 0 || fd->offset > 65535 || fd->size > 65535) {
		snprintf(err, errlen, "field '%s' has offset %u, size %u",
		    fd->name, fd->offset, fd->size);
		return -1;
	}
	if (fd->data_loc && fd->size != 4) {
		snprintf(err, errlen, "__data_loc field '%s' of size %u, not 4",
		    fd->name, fd->size);
		return -1;
	}
	return 0;
}

/* Calls fn on each field line of text; stops at "print fmt:". */
static int
each_field(const char *text,
    int (*fn)(void *, const struct tracefs_field *, char *, size_t), void *ctx,
    char *err, size_t errlen)
{
	const char *s = text;

	while (*s != '\0') {
		const char *end = strchr(s, '\n'), *p = s;

		if (end == NULL)
			end = s + strlen(s);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (strncmp(p, "print fmt:", 10) == 0)
			break;
		if (strncmp(p, "field:", 6) == 0) {
			struct tracefs_field fd;

			if (parse_field(p, end, &fd, err, errlen) == -1 ||
			    fn(ctx, &fd, err, errlen) == -1)
				return -1;
		}
		s = *end == '\n' ? end + 1 : end;
	}
	return 0;
}

static int
add_field(void *ctx, const struct tracefs_field *fd, char *err, size_t errlen)
{
	struct tracefs_format *f = ctx;

	if (tracefs_field_find(f, fd->name) != NULL) {
		snprintf(err, errlen, "field '%s' appears twice", fd->name);
		return -1;
	}
	if (f->nfield == TRACEFS_MAXFIELD) {
		snprintf(err, errlen, "more than %d fields", TRACEFS_MAXFIELD);
		return -1;
	}
	f->field[f->nfield++] = *fd;
	return 0;
}

int
tracefs_format_parse(
    const char *text, struct tracefs_format *f, char *err, size_t errlen)
{
	const char *p;
	int have_id = 0;

	memset(f, 0, sizeof(*f));
	if ((p = strstr(text, "name:")) != NULL) {
		size_t n;

		p += 5;
		while (*p == ' ')
			p++;
		n = strcspn(p, " \t\n");
		if (n >= sizeof(f->name))
			n = sizeof(f->name) - 1;
		memcpy(f->name, p, n);
	}
	if ((p = strstr(text, "\nID:")) != NULL ||
	    strncmp(text, "ID:", 3) == 0) {
		const char *q = p != NULL ? p + 4 : text + 3;

		have_id = keyed_number(
		              q - 3, q + strcspn(q, "\n"), "ID:", &f->id) == 0;
	}
	if (f->name[0] == '\0' || !have_id) {
		snprintf(err, errlen, "no %s line",
		    f->name[0] == '\0' ? "name:" : "ID:");
		return -1;
	}
	if (each_field(text, add_field, f, err, errlen) == -1)
		return -1;
	if (tracefs_field_find(f, "common_type") == NULL) {
		snprintf(
		    err, errlen, "event %s has no common_type field", f->name);
		return -1;
	}
	return 0;
}

const struct tracefs_field *
tracefs_field_find(const struct tracefs_format *f, const char *name)
{
	for (size_t i = 0; i < f->nfield; i++)
		if (strcmp(f->field[i].name, name) == 0)
			return &f->field[i];
	return NULL;
}

int
tracefs_field_u64(const struct tracefs_field *fd, const unsigned char *rec,
    size_t len, int big_endian, uint64_t *out)
{
	uint64_t v;

	if (fd->is_string || fd->data_loc ||
	    (fd->size != 1 && fd->size != 2 && fd->size != 4 &&
	        fd->size != 8) ||
	    (size_t)fd->offset + fd->size > len)
		return -1;
	v = get_uint(rec + fd->offset, fd->size, big_endian);
	if (fd->is_signed && fd->size < 8 && (v >> (fd->size * 8 - 1)) != 0)
		v |= ~0ULL << (fd->size * 8);
	*out = v;
	return 0;
}

int
tracefs_field_str(const struct tracefs_field *fd, const unsigned char *rec,
    size_t len, int big_endian, char *out, size_t outlen)
{
	size_t off = fd->offset, n = fd->size, i;

	if (outlen == 0 || !fd->is_string || off + fd->size > len)
		return -1;
	if (fd->data_loc) {
		uint64_t loc = get_uint(rec + off, 4, big_endian);

		off = loc & 0xffff;
		n = loc >> 16;
		if (off + n > len)
			return -1;
	}
	for (i = 0; i < n && i + 1 < outlen && rec[off + i] != '\0'; i++)
		out[i] = (char)rec[off + i];
	out[i] = '\0';
	return 0;
}

static int
page_field(void *ctx, const struct tracefs_field *fd, char *err, size_t errlen)
{
	struct tracefs_page_layout *l = ctx;

	(void)err;
	(void)errlen;
	if (strcmp(fd->name, "timestamp") == 0) {
		l->ts_offset = fd->offset;
		l->ts_size = fd->size;
	} else if (strcmp(fd->name, "commit") == 0) {
		l->commit_offset = fd->offset;
		l->commit_size = fd->size;
	} else if (strcmp(fd->name, "data") == 0) {
		l->data_offset = fd->offset;
		l->page_bytes = (size_t)fd->offset + fd->size;
	}
	return 0;
}

int
tracefs_header_page_parse(
    const char *text, struct tracefs_page_layout *l, char *err, size_t errlen)
{
	const uint16_t one = 1;

	memset(l, 0, sizeof(*l));
	/* The ring buffer is written in the byte order of the running host. */
	l->big_endian = *(const unsigned char *)&one == 0;
	if (each_field(text, page_field, l, err, errlen) == -1)
		return -1;
	if (l->ts_size != 8 || (l->commit_size != 4 && l->commit_size != 8) ||
	    l->page_bytes == 0 || l->data_offset < l->ts_offset + 8 ||
	    l->data_offset < l->commit_offset + l->commit_size) {
		snprintf(err, errlen,
		    "header_page lacks a usable timestamp, "
		    "commit or data field");
		return -1;
	}
	return 0;
}

int
tracefs_page_parse(const struct tracefs_page_layout *l,
    const unsigned char *page, size_t len, tracefs_event_fn fn, void *ctx,
    struct tracefs_page_info *info, char *err, size_t errlen)
{
	const unsigned char *d, *end;
	uint64_t commit, ts;
	int be = l->big_endian;

	memset(info, 0, sizeof(*info));
	if (len < l->data_offset) {
		snprintf(err, errlen,
		    "page of %zu bytes is shorter than its "
		    "%u-byte header",
		    len, l->data_offset);
		return -1;
	}
	ts = get_uint(page + l->ts_offset, 8, be);
	commit = get_uint(page + l->commit_offset, l->commit_size, be);
	info->ts = ts;
	info->data_bytes = (size_t)(commit & COMMIT_LEN_MASK);
	info->missed = (commit & COMMIT_MISSED) != 0;
	if (info->data_bytes > len - l->data_offset) {
		snprintf(err, errlen,
		    "page claims %zu bytes of events, holds "
		    "%zu",
		    info->data_bytes, len - l->data_offset);
		return -1;
	}
	d = page + l->data_offset;
	end = d + info->data_bytes;
	if (info->missed && (commit & COMMIT_STORED) != 0 &&
	    (size_t)(len - l->data_offset - info->data_bytes) >= l->commit_size)
		info->missed_events = get_uint(end, l->commit_size, be);

	while (d < end) {
		uint64_t hdr, arg;
		unsigned type, delta;
		size_t evlen, paylen;
		const unsigned char *pay;

		if (end - d < 4) {
			snprintf(err, errlen,
			    "event header cut at page offset "
			    "%td",
			    d - page);
			return -1;
		}
		hdr = get_uint(d, 4, be);
		/* The header is a bitfield: type_len in the low bits. */
		type = be ? (unsigned)(hdr >> 27) : (unsigned)(hdr & 0x1f);
		delta = be ? (unsigned)(hdr & 0x7ffffff) : (unsigned)(hdr >> 5);
		if (type == TYPE_PADDING && delta == 0)
			break; /* nothing more on this page */
		if (type == 0 || type > TYPE_DATA_MAX) {
			if (end - d < 8) {
				snprintf(err, errlen,
				    "event at page offset "
				    "%td cut before its length",
				    d - page);
				return -1;
			}
			arg = get_uint(d + 4, 4, be);
		} else
			arg = 0;
		switch (type) {
		case TYPE_PADDING:
			/* A discarded event; the kernel's reader keeps its
			 * time. */
			evlen = 4 + (size_t)arg;
			info->padding++;
			pay = NULL;
			paylen = 0;
			break;
		case TYPE_TIME_EXTEND:
			ts += arg << TS_SHIFT | delta;
			evlen = 8;
			info->time_extends++;
			pay = NULL;
			paylen = 0;
			break;
		case TYPE_TIME_STAMP: {
			uint64_t abs = arg << TS_SHIFT | delta;

			/* Only 59 bits are stored; the rest continue from ts.
			 */
			if ((ts & TS_MSB) != 0) {
				abs |= ts & TS_MSB;
				if (abs < ts)
					abs += 1ULL << 59;
			}
			ts = abs;
			evlen = 8;
			info->time_stamps++;
			pay = NULL;
			paylen = 0;
			break;
		}
		case 0:
			if (arg < 4) {
				snprintf(err, errlen,
				    "event at page offset %td "
				    "has length %" PRIu64,
				    d - page, arg);
				return -1;
			}
			ts += delta;
			evlen = 4 + (size_t)arg;
			pay = d + 8;
			paylen = (size_t)arg - 4;
			break;
		default:
			ts += delta;
			evlen = 4 + (size_t)type * 4;
			pay = d + 4;
			paylen = (size_t)type * 4;
			break;
		}
		if (evlen > (size_t)(end - d)) {
			snprintf(err, errlen,
			    "event at page offset %td runs "
			    "%zu bytes past the commit",
			    d - page, evlen - (size_t)(end - d));
			return -1;
		}
		if (pay != NULL) {
			info->events++;
			if (fn != NULL &&
			    fn(ctx, ts, pay, paylen, err, errlen) == -1)
				return -1;
		}
		d += evlen;
	}
	return 0;
}

int
tracefs_stats_parse(
    const char *text, struct tracefs_cpu_stats *s, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
	    {"entries:", offsetof(struct tracefs_cpu_stats, entries)},
	    {"overrun:", offsetof(struct tracefs_cpu_stats, overrun)},
	    {"commit overrun:",
	        offsetof(struct tracefs_cpu_stats, commit_overrun)},
	    {"bytes:", offsetof(struct tracefs_cpu_stats, bytes)},
	    {"dropped events:", offsetof(struct tracefs_cpu_stats, dropped)},
	    {"read events:", offsetof(struct tracefs_cpu_stats, read)},
	};
	unsigned seen = 0;
	const char *line = text;

	memset(s, 0, sizeof(*s));
	while (*line != '\0') {
		size_t n = strcspn(line, "\n");

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k].key);
			char *e;
			uint64_t v;

			if (n < kl || strncmp(line, keys[k].key, kl) != 0)
				continue;
			errno = 0;
			v = strtoull(line + kl, &e, 10);
			if (e == line + kl || errno != 0 ||
			    (*e != '\n' && *e != '\0' && *e != ' ')) {
				snprintf(err, errlen,
				    "'%s' is not followed "
				    "by a number",
				    keys[k].key);
				return -1;
			}
			*(uint64_t *)(void *)((char *)s + keys[k].off) = v;
			seen |= 1U << k;
		}
		line += n;
		if (*line == '\n')
			line++;
	}
	/* Loss is told by overrun and, on kernels that have it, dropped. */
	if ((seen & 3) != 3) {
		snprintf(err, errlen, "no entries: or overrun: line");
		return -1;
	}
	return 0;
}

const char *const tracefs_block_events[TRACEFS_NBLOCK] = {
    "block_bio_queue",
    "block_rq_issue",
    "block_rq_complete",
    "block_split",
};

/* The blkev kind of each of tracefs_block_events. */
static const char block_kinds[TRACEFS_NBLOCK] = {
    BLKEV_QUEUE, BLKEV_ISSUE, BLKEV_COMPLETE, BLKEV_SPLIT};

int
tracefs_block_init(struct tracefs_block *b,
    const char *const formats[TRACEFS_NBLOCK], int big_endian, char *err,
    size_t errlen)
{
	memset(b, 0, sizeof(*b));
	b->big_endian = big_endian;
	for (int i = 0; i < TRACEFS_NBLOCK; i++) {
		struct tracefs_format *f = &b->fmt[i];
		char ferr[192];

		if (tracefs_format_parse(formats[i], f, ferr, sizeof(ferr)) ==
		    -1) {
			snprintf(err, errlen, "format of %s: %s",
			    tracefs_block_events[i], ferr);
			return -1;
		}
		if (strcmp(f->name, tracefs_block_events[i]) != 0) {
			snprintf(err, errlen, "format of %s names event '%s'",
			    tracefs_block_events[i], f->name);
			return -1;
		}
		b->f[i].type = tracefs_field_find(f, "common_type");
		b->f[i].dev = tracefs_field_find(f, "dev");
		b->f[i].sector = tracefs_field_find(f, "sector");
		b->f[i].rwbs = tracefs_field_find(f, "rwbs");
		b->f[i].bytes = tracefs_field_find(f, "bytes");
		b->f[i].error = tracefs_field_find(f, "error");
		/* A split's length is up to new_sector; the others have it. */
		if (block_kinds[i] == BLKEV_SPLIT)
			b->f[i].new_sector =
			    tracefs_field_find(f, "new_sector");
		else
			b->f[i].nr_sector = tracefs_field_find(f, "nr_sector");
		if (b->f[i].dev == NULL || b->f[i].sector == NULL ||
		    (b->f[i].nr_sector == NULL && b->f[i].new_sector == NULL) ||
		    b->f[i].rwbs == NULL || !b->f[i].rwbs->is_string ||
		    b->f[i].rwbs->data_loc ||
		    (block_kinds[i] == BLKEV_ISSUE && b->f[i].bytes == NULL)) {
			snprintf(err, errlen,
			    "event %s lacks one of the fields "
			    "dev, sector, %s, rwbs%s",
			    tracefs_block_events[i],
			    block_kinds[i] == BLKEV_SPLIT ? "new_sector"
			                                  : "nr_sector",
			    block_kinds[i] == BLKEV_ISSUE ? ", bytes" : "");
			return -1;
		}
	}
	return 0;
}

int
tracefs_block_decode(const struct tracefs_block *b, uint64_t ts,
    const unsigned char *rec, size_t len, struct blkev *ev, char *err,
    size_t errlen)
{
	uint64_t type, v;
	char rwbs[16];
	int i;

	/* common_type is at the same place in every event: try the first. */
	if (tracefs_field_u64(b->f[0].type, rec, len, b->big_endian, &type) ==
	    -1) {
		snprintf(err, errlen, "record of %zu bytes has no type", len);
		return -1;
	}
	for (i = 0; i < TRACEFS_NBLOCK; i++)
		if (b->fmt[i].id == type)
			break;
	if (i == TRACEFS_NBLOCK)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = (int64_t)ts;
	ev->kind = block_kinds[i];
	if (tracefs_field_u64(b->f[i].dev, rec, len, b->big_endian, &v) == -1)
		goto short_rec;
	ev->dev = (uint32_t)v;
	if (tracefs_field_u64(
	        b->f[i].sector, rec, len, b->big_endian, &ev->sector) == -1 ||
	    tracefs_field_u64(b->f[i].nr_sector != NULL ? b->f[i].nr_sector
	                                                : b->f[i].new_sector,
	        rec, len, b->big_endian, &v) == -1)
		goto short_rec;
	/* new_sector: the front part's length is what lies before it. */
	if (b->f[i].new_sector != NULL)
		v = v > ev->sector ? v - ev->sector : 0;
	ev->nr_sector = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	ev->bytes = (uint64_t)ev->nr_sector * 512;
	if (b->f[i].bytes != NULL) {
		if (tracefs_field_u64(b->f[i].bytes, rec, len, b->big_endian,
		        &ev->bytes) == -1)
			goto short_rec;
	}
	if (b->f[i].error != NULL) {
		if (tracefs_field_u64(
		        b->f[i].error, rec, len, b->big_endian, &v) == -1)
			goto short_rec;
		ev->error = (int32_t)v;
	}
	if (tracefs_field_str(b->f[i].rwbs, rec, len, b->big_endian, rwbs,
	        sizeof(rwbs)) == -1)
		goto short_rec;
	if ((ev->flags = blkev_rwbs_parse(rwbs)) == 0) {
		snprintf(err, errlen, "%s: rwbs '%s' is not one",
		    tracefs_block_events[i], rwbs);
		return -1;
	}
	return 1;
short_rec:
	snprintf(err, errlen,
	    "%s record of %zu bytes is shorter than its "
	    "fields",
	    tracefs_block_events[i], len);
	return -1;
}
