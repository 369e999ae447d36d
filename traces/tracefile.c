/*
 * tracefile.c - the trace file of --trace-out: the records an exact probe
 * made its statistics from, as text, one record a line, so that `ubcreplay
 * report FILE` computes the same statistics again offline. The format is
 * docs/trace-format.md:
 *
 *	ubcreplay-trace 1
 *	device MAJ:MIN NAME ROLE
 *	Q TS MAJ:MIN RWBS SECTOR NR_SECTOR		a bio queued
 *	S TS MAJ:MIN RWBS SECTOR NR_SECTOR		a bio split
 *	I TS MAJ:MIN RWBS SECTOR NR_SECTOR BYTES	a request issued
 *	C TS MAJ:MIN RWBS SECTOR NR_SECTOR ERROR	a request completed
 *	L TS EVENTS					events lost
 *	K TS MAJ:MIN R|W OPS BYTES MERGES		diskstats over the phase
 *	K TS MAJ:MIN F FLUSHES
 *	M TS REPORTED LABEL				a phase ends
 *	result BYTES					then the result JSON
 *
 * A FILE named *.gz is written gzip-compressed (outfile.h); a trace is read
 * plain or compressed, as its first bytes say (infile.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/infile.h"
#include "../model/outfile.h"
#include "traces.h"

static int
put_record(
    FILE *fp, const struct blkev *r, const char (*label)[64], size_t nlabel)
{
	char rwbs[16];
	unsigned ma = BLKEV_MAJOR(r->dev), mi = BLKEV_MINOR(r->dev);

	switch (r->kind) {
	case BLKEV_QUEUE:
	case BLKEV_SPLIT:
		return fprintf(fp,
		    "%c %" PRId64 " %u:%u %s %" PRIu64 " %" PRIu32 "\n",
		    r->kind, r->ts_ns, ma, mi,
		    blkev_rwbs_string(r->flags, rwbs, sizeof(rwbs)), r->sector,
		    r->nr_sector);
	case BLKEV_ISSUE:
		return fprintf(fp,
		    "I %" PRId64 " %u:%u %s %" PRIu64 " %" PRIu32 " %" PRIu64
		    "\n",
		    r->ts_ns, ma, mi,
		    blkev_rwbs_string(r->flags, rwbs, sizeof(rwbs)), r->sector,
		    r->nr_sector, r->bytes);
	case BLKEV_COMPLETE:
		return fprintf(fp,
		    "C %" PRId64 " %u:%u %s %" PRIu64 " %" PRIu32 " %" PRId32
		    "\n",
		    r->ts_ns, ma, mi,
		    blkev_rwbs_string(r->flags, rwbs, sizeof(rwbs)), r->sector,
		    r->nr_sector, r->error);
	case BLKEV_LOST:
		return fprintf(
		    fp, "L %" PRId64 " %" PRIu64 "\n", r->ts_ns, r->sector);
	case BLKEV_KERN:
		if ((r->flags & BLKEV_OP_MASK) == BLKEV_OP_FLUSH)
			return fprintf(fp,
			    "K %" PRId64 " %u:%u F %" PRIu64 "\n", r->ts_ns, ma,
			    mi, r->sector);
		return fprintf(fp,
		    "K %" PRId64 " %u:%u %c %" PRIu64 " %" PRIu64 " %" PRIu32
		    "\n",
		    r->ts_ns, ma, mi,
		    (r->flags & BLKEV_OP_MASK) == BLKEV_OP_READ ? 'R' : 'W',
		    r->sector, r->bytes, r->nr_sector);
	case BLKEV_MARK:
		return fprintf(fp, "M %" PRId64 " %" PRIu64 " %s\n", r->ts_ns,
		    r->sector,
		    r->nr_sector < nlabel && label[r->nr_sector][0] != '\0'
		        ? label[r->nr_sector]
		        : "-");
	default:
		return 0;
	}
}

int
tracefile_write(const char *path, const struct target *t,
    const struct blkev *rec, size_t nrec, const char (*label)[64],
    size_t nlabel, const char *result, char *err, size_t errlen)
{
	struct outfile of;
	FILE *fp;

	if (outfile_open(&of, path, "trace", err, errlen) == -1)
		return -1;
	fp = of.fp;
	fprintf(fp,
	    "%s\n# the block events of one ubcreplay run: "
	    "docs/trace-format.md\n",
	    TRACEFILE_MAGIC);
	for (size_t i = 0; i < t->ndev; i++)
		fprintf(fp, "device %u:%u %s %s\n", t->dev[i].major,
		    t->dev[i].minor, t->dev[i].name, t->dev[i].role);
	for (size_t i = 0; i < nrec; i++)
		if (put_record(fp, &rec[i], label, nlabel) < 0)
			break;
	if (result != NULL)
		fprintf(fp, "result %zu\n%s\n", strlen(result), result);
	return outfile_commit(&of, err, errlen);
}

int
tracefile_is(const char *path, char *err, size_t errlen)
{
	char buf[sizeof(TRACEFILE_MAGIC)];
	struct infile in;
	FILE *fp = infile_open(path, "file", &in, err, errlen);
	int is;

	if (fp == NULL)
		return -1;
	is = fread(buf, 1, sizeof(buf), fp) == sizeof(buf) &&
	    memcmp(buf, TRACEFILE_MAGIC "\n", sizeof(buf)) == 0;
	if (ferror(fp)) {
		snprintf(err, errlen, "cannot read file '%s': %s", path,
		    in.why[0] != '\0' ? in.why : strerror(errno));
		is = -1;
	}
	fclose(fp);
	return is;
}

void
tracefile_free(struct tracefile *tf)
{
	free(tf->rec);
	free(tf->label);
	free(tf->result);
	memset(tf, 0, sizeof(*tf));
}

static int
grow(void **arr, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 1024;
	if ((p = realloc(*arr, c * size)) == NULL)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

/* "MAJ:MIN" into a blkev dev; -1 when it is not one. */
static int
parse_dev(const char *s, uint32_t *dev)
{
	unsigned ma, mi;
	char tail;

	if (sscanf(s, "%u:%u%c", &ma, &mi, &tail) != 2 || ma > 0xfff ||
	    mi > 0xfffff)
		return -1;
	*dev = BLKEV_DEV(ma, mi);
	return 0;
}

/* One record line into r; the label of a mark into label. */
static int
parse_record(
    char *line, struct blkev *r, char *label, size_t labellen, const char **why)
{
	char kind, dev[32], rwbs[16], *rest;
	int n = 0;
	uint64_t a, b;
	int64_t ts;

	memset(r, 0, sizeof(*r));
	*why = "malformed";
	if (sscanf(line, "%c %" SCNd64 "%n", &kind, &ts, &n) != 2)
		return -1;
	rest = line + n;
	r->kind = kind;
	r->ts_ns = ts;
	switch (kind) {
	case BLKEV_QUEUE:
	case BLKEV_SPLIT:
	case BLKEV_ISSUE:
	case BLKEV_COMPLETE: {
		int64_t extra = 0;
		int want = kind == BLKEV_QUEUE || kind == BLKEV_SPLIT ? 4 : 5,
		    got;
		char tail;

		got = sscanf(rest,
		    " %31s %15s %" SCNu64 " %" SCNu64 " %" SCNd64 " %c", dev,
		    rwbs, &a, &b, &extra, &tail);
		if (got != want)
			return -1;
		if (parse_dev(dev, &r->dev) == -1) {
			*why = "bad device";
			return -1;
		}
		if ((r->flags = blkev_rwbs_parse(rwbs)) == 0) {
			*why = "bad rwbs";
			return -1;
		}
		if (b > UINT32_MAX)
			return -1;
		r->sector = a;
		r->nr_sector = (uint32_t)b;
		r->bytes = (uint64_t)r->nr_sector * 512;
		if (kind == BLKEV_ISSUE) {
			if (extra < 0)
				return -1;
			r->bytes = (uint64_t)extra;
		} else if (kind == BLKEV_COMPLETE)
			r->error = (int32_t)extra;
		return 0;
	}
	case BLKEV_LOST: {
		char tail;

		if (sscanf(rest, " %" SCNu64 " %c", &r->sector, &tail) != 1)
			return -1;
		return 0;
	}
	case BLKEV_KERN: {
		char op, tail;
		uint64_t m = 0;
		int got = sscanf(rest,
		    " %31s %c %" SCNu64 " %" SCNu64 " %" SCNu64 " %c", dev, &op,
		    &a, &b, &m, &tail);

		if (parse_dev(dev, &r->dev) == -1)
			return -1;
		if (op == 'F' && got == 3) {
			r->flags = BLKEV_OP_FLUSH;
			r->sector = a;
			return 0;
		}
		if ((op != 'R' && op != 'W') || got != 5 || m > UINT32_MAX)
			return -1;
		r->flags = op == 'R' ? BLKEV_OP_READ : BLKEV_OP_WRITE;
		r->sector = a;
		r->bytes = b;
		r->nr_sector = (uint32_t)m;
		return 0;
	}
	case BLKEV_MARK:
		n = 0;
		if (sscanf(rest, " %" SCNu64 " %n", &a, &n) != 1 || n == 0 ||
		    a > 1)
			return -1;
		r->sector = a;
		snprintf(label, labellen, "%s", rest + n);
		if (label[0] == '\0')
			return -1;
		return 0;
	default:
		*why = "unknown record";
		return -1;
	}
}

int
tracefile_read(const char *path, struct tracefile *tf, char *err, size_t errlen)
{
	struct infile in;
	FILE *fp;
	char *line = NULL;
	size_t cap = 0, caprec = 0, caplabel = 0, lineno = 0;
	ssize_t len;

	memset(tf, 0, sizeof(*tf));
	if ((fp = infile_open(path, "trace", &in, err, errlen)) == NULL)
		return -1;
	while ((len = getline(&line, &cap, fp)) != -1) {
		const char *why = "malformed";
		struct blkev r;
		char label[64];

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (lineno == 1) {
			if (strcmp(line, TRACEFILE_MAGIC) != 0) {
				if (ferror(fp))
					goto unreadable;
				snprintf(err, errlen,
				    "'%s' is not a ubcreplay trace (%sfirst "
				    "line is not '%s')",
				    path, in.gzip ? "inflated, its " : "",
				    TRACEFILE_MAGIC);
				goto fail;
			}
			continue;
		}
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (strncmp(line, "device ", 7) == 0) {
			struct target_dev *d = &tf->dev[tf->ndev];
			char dev[32], name[DEVNAME_MAX], role[16];
			uint32_t v;

			if (tf->ndev == TARGET_MAXDEV ||
			    sscanf(line + 7, "%31s %31s %15s", dev, name,
			        role) != 3 ||
			    parse_dev(dev, &v) == -1) {
				why = "bad device line";
				goto bad;
			}
			snprintf(
			    tf->devname[tf->ndev], DEVNAME_MAX, "%s", name);
			snprintf(tf->devrole[tf->ndev], 16, "%s", role);
			snprintf(d->name, sizeof(d->name), "%s", name);
			d->major = BLKEV_MAJOR(v);
			d->minor = BLKEV_MINOR(v);
			d->role = tf->devrole[tf->ndev];
			tf->ndev++;
			continue;
		}
		if (strncmp(line, "result ", 7) == 0) {
			unsigned long long n;
			char *end;

			errno = 0;
			n = strtoull(line + 7, &end, 10);
			if (errno != 0 || *end != '\0' || n > (1ULL << 30) ||
			    (tf->result = malloc((size_t)n + 1)) == NULL ||
			    fread(tf->result, 1, (size_t)n, fp) != (size_t)n) {
				why = "result cut short";
				goto bad;
			}
			tf->result[n] = '\0';
			break;
		}
		if (parse_record(line, &r, label, sizeof(label), &why) == -1)
			goto bad;
		if (r.kind == BLKEV_MARK) {
			if (grow((void **)&tf->label, &caplabel, tf->nlabel,
			        sizeof(*tf->label)) == -1) {
				why = "out of memory";
				goto bad;
			}
			snprintf(tf->label[tf->nlabel], sizeof(*tf->label),
			    "%s", label);
			r.nr_sector = (uint32_t)tf->nlabel++;
		}
		if (grow((void **)&tf->rec, &caprec, tf->nrec,
		        sizeof(*tf->rec)) == -1) {
			why = "out of memory";
			goto bad;
		}
		tf->rec[tf->nrec++] = r;
		continue;
	bad:
		/* A line cut short by a cut .gz is not a bad record. */
		if (ferror(fp))
			goto unreadable;
		snprintf(
		    err, errlen, "trace '%s' line %zu: %s", path, lineno, why);
		goto fail;
	}
	/*
	 * Compressed data is whole only when its trailer has been read and
	 * checked: read to the end past the result.
	 */
	while (in.gzip && !ferror(fp) && getc(fp) != EOF)
		;
	if (ferror(fp))
		goto unreadable;
	if (lineno == 0) {
		snprintf(err, errlen, "trace '%s' is empty", path);
		goto fail;
	}
	if (tf->ndev == 0) {
		snprintf(err, errlen, "trace '%s' names no device", path);
		goto fail;
	}
	free(line);
	fclose(fp);
	return 0;
unreadable:
	snprintf(err, errlen, "cannot read trace '%s': %s", path,
	    in.why[0] != '\0' ? in.why : strerror(errno));
fail:
	free(line);
	fclose(fp);
	tracefile_free(tf);
	return -1;
}
