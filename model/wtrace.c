/*
 * wtrace.c - the workload trace's writer and its strict reader; see
 * wtrace.h and docs/workload-trace.md.
 *
 * A record is its operation (one byte), then unsigned LEB128 varints:
 * thread, time since the previous record, h, h2, flags, off, off2, asked,
 * done (zigzag: a failure is a negative errno), then the two paths, each a
 * varint length and that many bytes. Zeros cost one byte each, and gzip
 * takes care of the repetition, which keeps the trace a few bytes per
 * operation without a layout per operation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "outfile.h"
#include "wtrace.h"

static const char *const op_names[WT_NOPS] = {"end", "open", "close", "read",
    "write", "fsync", "fdatasync", "sync_file_range", "fallocate", "ftruncate",
    "truncate", "rename", "link", "symlink", "unlink", "mkdir", "rmdir", "mmap",
    "copy_file_range", "sync", "syncfs", "setattr"};

const char *
wtrace_op_name(unsigned op)
{
	return op < WT_NOPS ? op_names[op] : "unknown";
}

int
wtrace_path_ok(const char *p)
{
	const char *c = p;

	if (*p == '\0' || *p == '/')
		return 0;
	/* Each component: not empty, not "." or "..". */
	for (;;) {
		const char *e = strchr(c, '/');
		size_t n = e != NULL ? (size_t)(e - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (e == NULL)
			return 1;
		c = e + 1;
	}
}

/* Writing. */

static void
put_varint(FILE *fp, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v != 0)
			b[n] |= 0x80;
		n++;
	} while (v != 0);
	fwrite(b, 1, n, fp);
}

static void
put_str(FILE *fp, const char *s)
{
	size_t n = strlen(s);

	put_varint(fp, n);
	fwrite(s, 1, n, fp);
}

int
wtrace_create(
    struct wtrace_writer *w, const char *path, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	if (outfile_open(&w->of, path, "trace", err, errlen) == -1)
		return -1;
	fwrite(WTRACE_MAGIC, 1, WTRACE_MAGIC_LEN, w->of.fp);
	put_varint(w->of.fp, WTRACE_VERSION);
	return 0;
}

int
wtrace_put(struct wtrace_writer *w, struct wtrace_rec *r)
{
	FILE *fp = w->of.fp;
	int64_t dt = r->t_ns - w->last_ns;

	if (r->op == WT_OPEN)
		r->h = r->done >= 0 ? ++w->nopen : 0;
	if (dt < 0)
		dt = 0;
	w->last_ns += dt;
	fputc(r->op, fp);
	put_varint(fp, r->thread);
	put_varint(fp, (uint64_t)dt);
	put_varint(fp, r->h);
	put_varint(fp, r->h2);
	put_varint(fp, r->flags);
	put_varint(fp, r->off);
	put_varint(fp, r->off2);
	put_varint(fp, r->asked);
	put_varint(fp,
	    r->done >= 0 ? (uint64_t)r->done << 1
	                 : (((uint64_t) - (r->done + 1)) << 1) | 1);
	put_str(fp, r->path);
	put_str(fp, r->path2);
	w->nrec++;
	return ferror(fp) ? -1 : 0;
}

int
wtrace_commit(struct wtrace_writer *w, char *err, size_t errlen)
{
	struct wtrace_rec end;

	memset(&end, 0, sizeof(end));
	end.op = WT_END;
	end.t_ns = w->last_ns;
	end.asked = w->nrec;
	wtrace_put(w, &end);
	return outfile_commit(&w->of, err, errlen);
}

void
wtrace_abort(struct wtrace_writer *w)
{
	outfile_abort(&w->of);
}

/* Reading. */

int
wtrace_is(const char *path)
{
	struct infile in;
	char err[256], magic[WTRACE_MAGIC_LEN];
	FILE *fp = infile_open(path, "trace", &in, err, sizeof(err));
	int is;

	if (fp == NULL)
		return 0;
	is = fread(magic, 1, sizeof(magic), fp) == sizeof(magic) &&
	    memcmp(magic, WTRACE_MAGIC, WTRACE_MAGIC_LEN) == 0;
	fclose(fp);
	return is;
}

/*
 * The reader's cursor: every read checks the bytes are there first and
 * sets a sticky error when they are not, as traces/cursor.h does; a
 * record is read whole, then tested once.
 */
struct rd {
	const uint8_t *p;
	size_t left;
	const char *bad; /* sticky: what was wrong */
};

static uint64_t
rd_varint(struct rd *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; c->bad == NULL; shift += 7) {
		uint8_t b;

		if (c->left == 0) {
			c->bad = "the trace is truncated in a record";
			break;
		}
		b = *c->p++;
		c->left--;
		if (shift == 63 && (b & 0x7e) != 0) {
			c->bad = "a number is longer than 64 bits";
			break;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0)
			return v;
		if (shift == 63) {
			c->bad = "a number is longer than 64 bits";
			break;
		}
	}
	return 0;
}

static void
rd_str(struct rd *c, char *out, size_t outlen)
{
	uint64_t n = rd_varint(c);

	out[0] = '\0';
	if (c->bad != NULL)
		return;
	if (n >= outlen) {
		c->bad = "a path is longer than the trace allows";
		return;
	}
	if (n > c->left) {
		c->bad = "the trace is truncated in a path";
		return;
	}
	if (memchr(c->p, '\0', (size_t)n) != NULL) {
		c->bad = "a path holds a NUL byte";
		return;
	}
	memcpy(out, c->p, (size_t)n);
	out[n] = '\0';
	c->p += n;
	c->left -= (size_t)n;
}

int
wtrace_load_mem(const void *p, size_t len, const char *name, struct wtrace *t,
    char *err, size_t errlen)
{
	struct rd c;
	uint64_t version;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	if (len < WTRACE_MAGIC_LEN ||
	    memcmp(p, WTRACE_MAGIC, WTRACE_MAGIC_LEN) != 0) {
		snprintf(err, errlen, "'%s' is not a ubcreplay workload trace",
		    name);
		return -1;
	}
	c = (struct rd){.p = (const uint8_t *)p + WTRACE_MAGIC_LEN,
	    .left = len - WTRACE_MAGIC_LEN};
	version = rd_varint(&c);
	if (c.bad != NULL || version != WTRACE_VERSION) {
		snprintf(err, errlen,
		    "workload trace '%s' is of version %llu; this ubcreplay "
		    "reads version %d",
		    name, (unsigned long long)version, WTRACE_VERSION);
		return -1;
	}
	if ((t->buf = malloc(len > 0 ? len : 1)) == NULL) {
		snprintf(
		    err, errlen, "workload trace '%s': out of memory", name);
		return -1;
	}
	memcpy(t->buf, p, len);
	t->len = len;
	t->pos = len - c.left;
	wtrace_rewind(t);
	return 0;
}

int
wtrace_load(const char *path, struct wtrace *t, char *err, size_t errlen)
{
	struct infile in;
	FILE *fp = infile_open(path, "workload trace", &in, err, errlen);
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rv;

	if (fp == NULL)
		return -1;
	for (;;) {
		size_t n;

		if (len == cap) {
			uint8_t *nb;

			if (cap >= WTRACE_MAX_BYTES) {
				snprintf(err, errlen,
				    "workload trace '%s' is larger than %llu "
				    "bytes",
				    path, (unsigned long long)WTRACE_MAX_BYTES);
				goto fail;
			}
			cap = cap == 0 ? 65536 : cap * 2;
			if ((nb = realloc(buf, cap)) == NULL) {
				snprintf(err, errlen,
				    "workload trace '%s': out of memory", path);
				goto fail;
			}
			buf = nb;
		}
		if ((n = fread(buf + len, 1, cap - len, fp)) == 0)
			break;
		len += n;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "cannot read workload trace '%s': %s",
		    path, in.why[0] != '\0' ? in.why : strerror(errno));
		goto fail;
	}
	fclose(fp);
	rv = wtrace_load_mem(buf, len, path, t, err, errlen);
	free(buf);
	return rv;
fail:
	fclose(fp);
	free(buf);
	return -1;
}

void
wtrace_rewind(struct wtrace *t)
{
	struct rd c = {
	    .p = t->buf + WTRACE_MAGIC_LEN, .left = t->len - WTRACE_MAGIC_LEN};

	(void)rd_varint(&c);
	t->pos = t->len - c.left;
	t->nrec = t->nopen = t->nthread = 0;
	t->last_ns = 0;
	t->ended = 0;
}

/* What is wrong with a record, in itself and against those before it. */
static const char *
check(const struct wtrace_place *at, const struct wtrace_rec *r)
{
	int handle = r->op == WT_CLOSE || r->op == WT_READ ||
	    r->op == WT_WRITE || r->op == WT_FSYNC || r->op == WT_FDATASYNC ||
	    r->op == WT_SYNC_FILE_RANGE || r->op == WT_FALLOCATE ||
	    r->op == WT_FTRUNCATE || r->op == WT_MMAP ||
	    r->op == WT_COPY_RANGE || r->op == WT_SYNCFS;
	int one = r->op == WT_OPEN || r->op == WT_TRUNCATE ||
	    r->op == WT_UNLINK || r->op == WT_MKDIR || r->op == WT_RMDIR;
	int two = r->op == WT_RENAME || r->op == WT_LINK;

	/* A setattr names its file by a handle or by a path. */
	if (r->op == WT_SETATTR) {
		handle = r->h != 0;
		one = r->h == 0;
		if (r->flags == 0 || (r->flags & ~(uint64_t)7) != 0)
			return "unknown attributes";
	}

	if (r->op >= WT_NOPS)
		return "an unknown operation";
	if (r->thread >= WTRACE_MAX_THREADS)
		return "a thread number too large";
	if (r->thread > at->nthread)
		return "a thread numbered out of order";
	if (handle && (r->h == 0 || r->h > at->nopen))
		return "a handle that was never opened";
	if (r->op == WT_COPY_RANGE && (r->h2 == 0 || r->h2 > at->nopen))
		return "a handle that was never opened";
	if (r->op == WT_OPEN && (r->flags & ~(uint64_t)WT_O_ALL) != 0)
		return "unknown open flags";
	if (r->op == WT_OPEN && r->h != (r->done >= 0 ? at->nopen + 1 : 0))
		return "an open whose handle is not the next one";
	if ((one || two || r->op == WT_SYMLINK) && !wtrace_path_ok(r->path))
		return "a path that is empty, absolute or has '..'";
	if (two && !wtrace_path_ok(r->path2))
		return "a path that is empty, absolute or has '..'";
	if (r->op == WT_SYMLINK && r->path2[0] == '\0')
		return "a symbolic link to nothing";
	if (r->asked > WTRACE_MAX_IO)
		return "a size larger than 1 GiB";
	if (r->off > WTRACE_MAX_OFFSET || r->off2 > WTRACE_MAX_OFFSET)
		return "an offset larger than 16 TiB";
	if (r->done > (int64_t)WTRACE_MAX_IO || r->done < -4095)
		return "a result out of range";
	return NULL;
}

/*
 * The record at a place, checked against the reader's state there; *end
 * is where the next one starts.
 */
static int
decode(const struct wtrace *t, const struct wtrace_place *at,
    struct wtrace_rec *r, size_t *end, char *err, size_t errlen)
{
	struct rd c = {.p = t->buf + at->pos, .left = t->len - at->pos};
	uint64_t nrec = at->nrec;
	int64_t last_ns = at->last_ns;
	const char *bad;
	uint64_t dt, z;

	memset(r, 0, sizeof(*r));
	if (c.left == 0) {
		snprintf(err, errlen,
		    "workload trace '%s' is truncated after %llu records (no "
		    "end record)",
		    t->name, (unsigned long long)nrec);
		return -1;
	}
	r->op = *c.p++;
	c.left--;
	/* Clamped, not cut: 2^32 must not read as thread 0. */
	dt = rd_varint(&c);
	r->thread = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
	dt = rd_varint(&c);
	r->h = rd_varint(&c);
	r->h2 = rd_varint(&c);
	r->flags = rd_varint(&c);
	r->off = rd_varint(&c);
	r->off2 = rd_varint(&c);
	r->asked = rd_varint(&c);
	z = rd_varint(&c);
	r->done = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	rd_str(&c, r->path, sizeof(r->path));
	rd_str(&c, r->path2, sizeof(r->path2));
	if ((bad = c.bad) == NULL) {
		if (dt > (uint64_t)INT64_MAX - (uint64_t)last_ns)
			bad = "a time beyond the clock's range";
		else
			bad = check(at, r);
	}
	if (bad == NULL && r->op == WT_END && r->asked != nrec)
		bad = "an end record that counts another number of records";
	if (bad == NULL && r->op == WT_END && c.left != 0)
		bad = "bytes after the end record";
	if (bad != NULL) {
		snprintf(err, errlen,
		    "workload trace '%s': record %llu (%s): %s", t->name,
		    (unsigned long long)nrec + 1, wtrace_op_name(r->op), bad);
		return -1;
	}
	r->t_ns = last_ns + (int64_t)dt;
	*end = t->len - c.left;
	return 0;
}

int
wtrace_next(struct wtrace *t, struct wtrace_rec *r, char *err, size_t errlen)
{
	struct wtrace_place at;
	size_t end;

	if (t->ended)
		return 0;
	wtrace_tell(t, &at);
	if (decode(t, &at, r, &end, err, errlen) == -1)
		return -1;
	t->last_ns = r->t_ns;
	t->pos = end;
	if (r->thread == t->nthread)
		t->nthread++;
	if (r->op == WT_OPEN && r->h != 0)
		t->nopen++;
	if (r->op == WT_END) {
		t->ended = 1;
		return 0;
	}
	t->nrec++;
	return 1;
}

void
wtrace_tell(const struct wtrace *t, struct wtrace_place *p)
{
	p->pos = t->pos;
	p->nrec = t->nrec;
	p->nopen = t->nopen;
	p->nthread = t->nthread;
	p->last_ns = t->last_ns;
}

int
wtrace_read_at(const struct wtrace *t, const struct wtrace_place *p,
    struct wtrace_rec *r, char *err, size_t errlen)
{
	size_t end;

	if (p->pos > t->len) {
		snprintf(err, errlen, "workload trace '%s': no record at %zu",
		    t->name, p->pos);
		return -1;
	}
	return decode(t, p, r, &end, err, errlen);
}

void
wtrace_free(struct wtrace *t)
{
	free(t->buf);
	t->buf = NULL;
}
