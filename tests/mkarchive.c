/*
 * mkarchive.c - writes a deterministic archive shaped like a real source
 * tree (the emacs-20.7 tarball of the seed experiments): thousands of text
 * files in a few dozen directories with a median size near 9 KB, a 90th
 * percentile near 60 KB, about a third at 4 KB or less, and a few files
 * near 1 MB.
 *
 *	mkarchive [-n files] [-s seed] OUT.tar.gz
 *
 * The same arguments give the same bytes: a fixed pseudo-random sequence,
 * fixed times and owners, and no time stamp in the gzip header.
 */
#include <archive.h>
#include <archive_entry.h>
#include <err.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MTIME   958000000 /* May 2000, when emacs 20.7 was released */
#define MAXFILE (1024 * 1024)

static uint64_t rng = 88172645463325252ULL;

static uint64_t
next(void)
{
	/* xorshift64: small, fixed, the same everywhere. */
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double
uniform(void)
{
	return ((double)(next() >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static const char *const dirs[] = {
    "lisp",
    "lisp/emacs-lisp",
    "lisp/progmodes",
    "lisp/textmodes",
    "lisp/mail",
    "lisp/gnus",
    "lisp/calendar",
    "lisp/term",
    "lisp/play",
    "lisp/international",
    "src",
    "src/m",
    "src/s",
    "lib-src",
    "etc",
    "etc/e",
    "info",
    "man",
    "lwlib",
    "oldXMenu",
    "msdos",
    "nt",
    "vms",
    "leim",
    "leim/quail",
    "cpp",
    "mac",
    "admin",
};
static const char *const exts[] = {".el", ".c", ".h", ".texi", "", ".in"};
static const char *const words[] = {
    "defun",
    "let",
    "setq",
    "if",
    "progn",
    "buffer",
    "window",
    "point",
    "(interactive)",
    "nil",
    "t",
    "return",
    "int",
    "static",
    "struct",
    "Lisp_Object",
    "\n",
    "\n",
    "\n  ",
    ";;",
    "/*",
    "*/",
    "car",
    "cdr",
    "while",
    "register",
    "char",
    "unsigned",
    "frame",
    "mark",
    "region",
};

static size_t
filesize(void)
{
	double v;

	/*
	 * One file in ten is a small one (a Makefile.in, a ChangeLog stub);
	 * the rest are log-normal. Together: a median near 9 KB, a 90th
	 * percentile near 60 KB, and about a third at 4 KB or less.
	 */
	if (next() % 10 == 0)
		return 100 + (size_t)(next() % 3997);
	v = exp(9.3 + 1.45 * normal());
	return v < 1 ? 1 : v > MAXFILE ? MAXFILE : (size_t)v;
}

static void
fill(char *buf, size_t len)
{
	size_t n = 0;

	while (n < len) {
		const char *w =
		    words[next() % (sizeof(words) / sizeof(*words))];
		size_t wl = strlen(w);

		if (n + wl + 1 > len)
			wl = len - n - 1 < wl ? len - n - 1 : wl;
		memcpy(buf + n, w, wl);
		n += wl;
		if (n < len)
			buf[n++] = ' ';
	}
}

static void
add(struct archive *a, const char *path, int type, const char *data, size_t len)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, (unsigned)type);
	archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
	archive_entry_set_size(e, type == AE_IFDIR ? 0 : (la_int64_t)len);
	archive_entry_set_mtime(e, MTIME, 0);
	archive_entry_set_uname(e, "root");
	archive_entry_set_gname(e, "root");
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    (len > 0 && archive_write_data(a, data, len) != (la_ssize_t)len))
		errx(1, "cannot add '%s': %s", path, archive_error_string(a));
	archive_entry_free(e);
}

int
main(int argc, char **argv)
{
	size_t nfiles = 2500, ndirs = sizeof(dirs) / sizeof(*dirs);
	char *buf, path[256];
	struct archive *a;
	int c;

	while ((c = getopt(argc, argv, "n:s:")) != -1) {
		switch (c) {
		case 'n':
			nfiles = strtoul(optarg, NULL, 10);
			break;
		case 's':
			rng ^=
			    strtoull(optarg, NULL, 10) * 0x9E3779B97F4A7C15ULL;
			if (rng == 0)
				rng = 1;
			break;
		default:
			fprintf(stderr,
			    "usage: mkarchive [-n files] [-s seed] "
			    "out.tar.gz\n");
			return 2;
		}
	}
	if (argc - optind != 1 || nfiles == 0) {
		fprintf(stderr,
		    "usage: mkarchive [-n files] [-s seed] "
		    "out.tar.gz\n");
		return 2;
	}
	if ((buf = malloc(MAXFILE)) == NULL)
		err(1, "malloc");
	a = archive_write_new();
	archive_write_set_format_ustar(a);
	archive_write_add_filter_gzip(a);
	archive_write_set_options(a, "gzip:!timestamp");
	if (archive_write_open_filename(a, argv[optind]) != ARCHIVE_OK)
		errx(1, "cannot create '%s': %s", argv[optind],
		    archive_error_string(a));
	add(a, "emacs/", AE_IFDIR, NULL, 0);
	for (size_t d = 0; d < ndirs; d++) {
		snprintf(path, sizeof(path), "emacs/%s/", dirs[d]);
		add(a, path, AE_IFDIR, NULL, 0);
	}
	for (size_t i = 0; i < nfiles; i++) {
		/* One file in 800 is one of the big ones (TAGS, a core .elc).
		 */
		size_t len = next() % 800 == 0
		    ? MAXFILE - (size_t)(next() % 65536)
		    : filesize();

		snprintf(path, sizeof(path), "emacs/%s/f%04zu%s",
		    dirs[next() % ndirs], i,
		    exts[next() % (sizeof(exts) / sizeof(*exts))]);
		fill(buf, len);
		add(a, path, AE_IFREG, buf, len);
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		errx(1, "cannot finish '%s': %s", argv[optind],
		    archive_error_string(a));
	archive_write_free(a);
	free(buf);
	return 0;
}
