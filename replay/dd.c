/*
 * dd.c - the dd workload: dd's operands, the copy block by block, and dd's
 * own closing lines.
 *
 * The copy is what `dd if= of= bs= count= skip= seek= iflag= oflag=` does on
 * GNU and BSD systems, without conversions: one read() of bs bytes per
 * record in, one write() of what was read per record out (a short write is
 * finished by another, counted as a partial record, as dd counts it). Each
 * write() size lands in the report's application histogram.
 *
 * The record counts and the copy's own time do not fit the report, which is
 * the same for every workload, so the child leaves them in a page shared
 * with the parent (replay_dd_counts_new).
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dd_impl.h"

/*
 * A system without O_DIRECT refuses iflag=direct and oflag=direct in
 * replay_dd_check; the flag is then never used.
 */
#ifndef O_DIRECT
#define O_DIRECT     0
#define NO_DIRECT_IO 1
#endif

/* Alignment of the buffer, enough for O_DIRECT on every device we know. */
#define DD_ALIGN 4096

int
replay_dd_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;

	if (*p < '0' || *p > '9') {
		snprintf(err, errlen, "'%s' is not a number", s);
		return -1;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			snprintf(err, errlen, "'%s' is too large", s);
			return -1;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	/* dd's suffixes: powers of 1024, and b for 512-byte blocks. */
	switch (*p) {
	case '\0':
		break;
	case 'b':
		mult = 512;
		break;
	case 'k':
	case 'K':
		mult = (uint64_t)1 << 10;
		break;
	case 'm':
	case 'M':
		mult = (uint64_t)1 << 20;
		break;
	case 'g':
	case 'G':
		mult = (uint64_t)1 << 30;
		break;
	default:
		snprintf(err, errlen,
		    "'%s' has an unknown suffix '%s' "
		    "(b, k, m or g)",
		    s, p);
		return -1;
	}
	if (*p != '\0' && p[1] != '\0') {
		snprintf(err, errlen,
		    "'%s' has an unknown suffix '%s' "
		    "(b, k, m or g)",
		    s, p);
		return -1;
	}
	if (v > UINT64_MAX / mult) {
		snprintf(err, errlen, "'%s' is too large", s);
		return -1;
	}
	*out = v * mult;
	return 0;
}

void
replay_dd_init(struct replay_dd *dd)
{
	memset(dd, 0, sizeof(*dd));
	dd->bs_bytes = 512; /* dd's default */
}

static int
parse_flag(
    const char *op, const char *val, int *direct, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", val);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "direct") != 0) {
			snprintf(err, errlen,
			    "unsupported flag '%s=%s' (only "
			    "direct)",
			    op, tok);
			return -1;
		}
		*direct = 1;
	}
	return 0;
}

int
replay_dd_operand(
    struct replay_dd *dd, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char op[16], serr[128];
	const char *val;
	uint64_t *num = NULL;
	size_t oplen;

	if (eq == NULL || eq == arg ||
	    (oplen = (size_t)(eq - arg)) >= sizeof(op)) {
		snprintf(err, errlen, "unknown operand '%s'", arg);
		return -1;
	}
	memcpy(op, arg, oplen);
	op[oplen] = '\0';
	val = eq + 1;
	if (strcmp(op, "if") == 0 || strcmp(op, "of") == 0) {
		if (*val == '\0') {
			snprintf(
			    err, errlen, "operand '%s' names no file", arg);
			return -1;
		}
		if (strcmp(op, "if") == 0)
			dd->in = val;
		else
			dd->out = val;
		return 0;
	}
	if (strcmp(op, "iflag") == 0)
		return parse_flag(op, val, &dd->idirect, err, errlen);
	if (strcmp(op, "oflag") == 0)
		return parse_flag(op, val, &dd->odirect, err, errlen);
	if (strcmp(op, "bs") == 0)
		num = &dd->bs_bytes;
	else if (strcmp(op, "count") == 0) {
		num = &dd->count;
		dd->have_count = 1;
	} else if (strcmp(op, "skip") == 0)
		num = &dd->skip;
	else if (strcmp(op, "seek") == 0)
		num = &dd->seek;
	else {
		snprintf(err, errlen, "unknown operand '%s'", arg);
		return -1;
	}
	if (replay_dd_parse_size(val, num, serr, sizeof(serr)) == -1) {
		snprintf(err, errlen, "invalid operand '%s': %s", arg, serr);
		return -1;
	}
	if (num == &dd->bs_bytes && dd->bs_bytes == 0) {
		snprintf(err, errlen,
		    "invalid block size '%s': must be at "
		    "least 1 byte",
		    arg);
		return -1;
	}
	return 0;
}

static int
open_in(const struct replay_dd *dd, char *err, size_t errlen)
{
	int fd =
	    open(dd->in, O_RDONLY | O_CLOEXEC | (dd->idirect ? O_DIRECT : 0));

	if (fd == -1)
		snprintf(err, errlen, "cannot open '%s'%s: %s", dd->in,
		    dd->idirect ? " with iflag=direct" : "", strerror(errno));
	return fd;
}

static int
open_out(const struct replay_dd *dd, int create, char *err, size_t errlen)
{
	int fd = open(dd->out,
	    O_WRONLY | O_CLOEXEC | (create ? O_CREAT : 0) |
	        (dd->odirect ? O_DIRECT : 0),
	    0666);

	if (fd == -1)
		snprintf(err, errlen, "cannot open '%s'%s: %s", dd->out,
		    dd->odirect ? " with oflag=direct" : "", strerror(errno));
	return fd;
}

int
replay_dd_check(const struct replay_dd *dd, char *err, size_t errlen)
{
	long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
	struct stat st, ist;
	int fd;

	if (dd->in == NULL || dd->out == NULL) {
		snprintf(err, errlen, "missing operand %s",
		    dd->in == NULL ? "if=FILE" : "of=FILE");
		return -1;
	}
	/* One buffer of bs bytes must fit in memory, with room to spare. */
	if (pages > 0 && pagesize > 0 &&
	    dd->bs_bytes > (uint64_t)pages * (uint64_t)pagesize / 2) {
		snprintf(err, errlen,
		    "block size bs=%" PRIu64 " is too large "
		    "for memory (%" PRIu64 " bytes, of which at most half may "
		    "be one block)",
		    dd->bs_bytes, (uint64_t)pages * (uint64_t)pagesize);
		return -1;
	}
	if (dd->bs_bytes > SSIZE_MAX) {
		snprintf(err, errlen,
		    "block size bs=%" PRIu64 " is too large "
		    "for one read",
		    dd->bs_bytes);
		return -1;
	}
#ifdef NO_DIRECT_IO
	if (dd->idirect || dd->odirect) {
		snprintf(err, errlen,
		    "%s=direct: this system has no direct "
		    "I/O (O_DIRECT)",
		    dd->idirect ? "iflag" : "oflag");
		return -1;
	}
#endif
	if ((dd->idirect || dd->odirect) && dd->bs_bytes % 512 != 0) {
		snprintf(err, errlen,
		    "block size bs=%" PRIu64 " is not a "
		    "multiple of 512, which direct I/O needs",
		    dd->bs_bytes);
		return -1;
	}
	if (stat(dd->in, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot copy from '%s': is a directory",
		    dd->in);
		return -1;
	}
	if ((fd = open_in(dd, err, errlen)) == -1)
		return -1;
	close(fd);

	/*
	 * The destination is tried without creating or changing it; one in
	 * a kernel's filesystem is made in its run directory, and is not here.
	 */
	if (dd->out_kernel)
		return 0;
	if (stat(dd->out, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, errlen,
			    "cannot copy to '%s': is a "
			    "directory",
			    dd->out);
			return -1;
		}
		/* Copying a file onto itself would truncate it first. */
		if (S_ISREG(st.st_mode) && stat(dd->in, &ist) == 0 &&
		    ist.st_dev == st.st_dev && ist.st_ino == st.st_ino) {
			snprintf(err, errlen,
			    "'%s' and '%s' are the same "
			    "file",
			    dd->in, dd->out);
			return -1;
		}
		if ((fd = open_out(dd, 0, err, errlen)) == -1)
			return -1;
		close(fd);
	} else if (errno == ENOENT) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s", dd->out);
		if (access(dirname(dir), W_OK | X_OK) == -1) {
			snprintf(err, errlen, "cannot create '%s': %s", dd->out,
			    strerror(errno));
			return -1;
		}
	} else {
		snprintf(err, errlen, "cannot stat '%s': %s", dd->out,
		    strerror(errno));
		return -1;
	}
	return 0;
}

struct replay_dd_counts *
replay_dd_counts_new(char *err, size_t errlen)
{
	void *p = mmap(NULL, sizeof(struct replay_dd_counts),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		snprintf(err, errlen, "cannot map a page for the counts: %s",
		    strerror(errno));
		return NULL;
	}
	memset(p, 0, sizeof(struct replay_dd_counts));
	return p;
}

void
replay_dd_counts_free(struct replay_dd_counts *c)
{
	if (c != NULL)
		munmap(c, sizeof(*c));
}

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
fail(struct replay_report *rep, const char *what, const char *path)
{
	rep->failed = 1;
	snprintf(rep->error, sizeof(rep->error), "%s '%s': %s", what, path,
	    strerror(errno));
	return -1;
}

/* Skips n blocks of input: seeks when it can, reads when it cannot. */
static int
skip_input(
    int fd, const struct replay_dd *dd, char *buf, struct replay_report *rep)
{
	uint64_t n = dd->skip;

	if (n == 0)
		return 0;
	if (n <= (uint64_t)INT64_MAX / dd->bs_bytes &&
	    lseek(fd, (off_t)(n * dd->bs_bytes), SEEK_CUR) != -1)
		return 0;
	while (n > 0) {
		ssize_t r = read(fd, buf, dd->bs_bytes);

		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return fail(rep, "cannot read", dd->in);
		if (r == 0)
			return 0; /* dd too stops at the end */
		n--;
	}
	return 0;
}

/* Writes len bytes as dd does: a short write is finished by another. */
static int
write_record(int fd, const struct dd_sink *k, const struct replay_dd *dd,
    const char *buf, size_t len, int64_t *off, struct replay_dd_counts *c,
    struct replay_report *rep)
{
	while (len > 0) {
		ssize_t w = k->write(fd, buf, len, *off);

		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			return fail(rep, "cannot write", dd->out);
		if (w == 0) {
			errno = ENOSPC;
			return fail(rep, "cannot write", dd->out);
		}
		rep->app_ops++;
		rep->app_bytes += (uint64_t)w;
		hist_add(&rep->app_size, (uint64_t)w, 1);
		rep->bytes += (uint64_t)w;
		if ((uint64_t)w == dd->bs_bytes)
			c->full_out++;
		else
			c->partial_out++;
		c->bytes_out += (uint64_t)w;
		buf += w;
		*off += w;
		len -= (size_t)w;
	}
	return 0;
}

void
replay_dd_into(const struct replay_dd_job *job, const struct dd_sink *k,
    struct replay_report *rep)
{
	const struct replay_dd *dd = job->dd;
	struct replay_dd_counts *c = job->counts;
	int in = -1, out = -1;
	void *buf = NULL;
	int64_t t0, off;

	memset(c, 0, sizeof(*c));
	if ((errno = posix_memalign(&buf, DD_ALIGN, dd->bs_bytes)) != 0) {
		rep->failed = 1;
		snprintf(rep->error, sizeof(rep->error),
		    "cannot allocate a "
		    "block of %" PRIu64 " bytes: %s",
		    dd->bs_bytes, strerror(errno));
		return;
	}
	t0 = mono_ns();
	if (dd->seek > 0 && dd->seek > (uint64_t)INT64_MAX / dd->bs_bytes) {
		errno = EOVERFLOW;
		fail(rep, "cannot seek in", dd->out);
		goto done;
	}
	off = (int64_t)(dd->seek * dd->bs_bytes);
	if ((in = open_in(dd, rep->error, sizeof(rep->error))) == -1 ||
	    (out = k->open(dd, rep->error, sizeof(rep->error))) == -1) {
		rep->failed = 1;
		goto done;
	}
	if (skip_input(in, dd, buf, rep) == -1)
		goto done;
	while (!dd->have_count || c->full_in + c->partial_in < dd->count) {
		ssize_t r = read(in, buf, dd->bs_bytes);

		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			fail(rep, "cannot read", dd->in);
			break;
		}
		if (r == 0)
			break;
		if ((uint64_t)r == dd->bs_bytes)
			c->full_in++;
		else
			c->partial_in++;
		if (write_record(out, k, dd, buf, (size_t)r, &off, c, rep) ==
		    -1)
			break;
	}
	rep->entries = 1;
done:
	c->copy_ns = mono_ns() - t0;
	if (in != -1)
		close(in);
	if (out != -1 && k->close(out) == -1 && !rep->failed)
		fail(rep, "cannot close", dd->out);
	free(buf);
}

/* The host's sink: dd truncates a regular output file where it begins. */
static int
host_open(const struct replay_dd *dd, char *err, size_t errlen)
{
	off_t at = (off_t)(dd->seek * dd->bs_bytes);
	const char *what = NULL;
	struct stat st;
	int fd = open_out(dd, 1, err, errlen);

	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    ftruncate(fd, at) == -1)
		what = "truncate";
	else if (at > 0 && lseek(fd, at, SEEK_SET) == -1)
		what = "seek in";
	if (what != NULL) {
		snprintf(err, errlen, "cannot %s '%s': %s", what, dd->out,
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * write() at the descriptor's place (off is where that is). The last,
 * partial record cannot be written directly; dd writes it through the
 * cache.
 */
static ssize_t
host_write(int fd, const void *buf, size_t n, int64_t off)
{
	ssize_t w;
	int fl;

	(void)off;
	while ((w = write(fd, buf, n)) == -1 && errno == EINVAL &&
	    n % 512 != 0 && (fl = fcntl(fd, F_GETFL)) != -1 &&
	    (fl & O_DIRECT) != 0 && fcntl(fd, F_SETFL, fl & ~O_DIRECT) != -1)
		;
	return w;
}

static const struct dd_sink host_sink = {
    .open = host_open,
    .write = host_write,
    .close = close,
};

void
replay_dd_copy(void *arg, struct replay_report *rep)
{
	replay_dd_into(arg, &host_sink, rep);
}

/*
 * A size in dd's style: autoscaled to a power of base, one decimal below
 * ten, rounded to nearest ("1.0 MB", "105 MB", "100 MiB"). Returns 0 when
 * the size is below base and has no prefix.
 */
static int
human(double v, int base, int min_scale, int decimals_below, char *buf,
    size_t len)
{
	static const char *si[] = {"", "k", "M", "G", "T", "P", "E"};
	static const char *iec[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	int scale = 0;

	while (scale < 6 && (scale < min_scale || v >= base)) {
		v /= base;
		scale++;
	}
	if (scale == 0) {
		snprintf(buf, len, "%.0f B", v);
		return 0;
	}
	if (v < decimals_below)
		snprintf(buf, len, "%.1f %sB", v,
		    base == 1000 ? si[scale] : iec[scale]);
	else
		snprintf(buf, len, "%.0f %sB", v,
		    base == 1000 ? si[scale] : iec[scale]);
	return 1;
}

const char *
replay_dd_closing(const struct replay_dd_counts *c, char *buf, size_t len)
{
	double s = c->copy_ns / 1e9;
	uint64_t b = c->bytes_out;
	char sz[32], isz[32], rate[32];
	int n;

	n = snprintf(buf, len,
	    "%" PRIu64 "+%" PRIu64 " records in\n"
	    "%" PRIu64 "+%" PRIu64 " records out\n",
	    c->full_in, c->partial_in, c->full_out, c->partial_out);
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (c->copy_ns > 0)
		human(b / s, 1000, 1, 100, rate, sizeof(rate));
	else
		snprintf(rate, sizeof(rate), "Infinity B");
	if (!human((double)b, 1000, 0, 10, sz, sizeof(sz)))
		snprintf(buf + n, len - (size_t)n,
		    "%" PRIu64 " byte%s copied, "
		    "%g s, %s/s\n",
		    b, b == 1 ? "" : "s", s, rate);
	else if (!human((double)b, 1024, 0, 10, isz, sizeof(isz)))
		snprintf(buf + n, len - (size_t)n,
		    "%" PRIu64 " bytes (%s) "
		    "copied, %g s, %s/s\n",
		    b, sz, s, rate);
	else
		snprintf(buf + n, len - (size_t)n,
		    "%" PRIu64 " bytes (%s, %s) "
		    "copied, %g s, %s/s\n",
		    b, sz, isz, s, rate);
	return buf;
}
