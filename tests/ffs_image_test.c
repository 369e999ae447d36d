/*
 * ffs_image_test.c - traces/ffs_image.c on real FFS images: made by
 * makefs (Debian's, NetBSD's makefs) from the small fixture's tree, UFS1
 * and UFS2, four block sizes, both byte orders; and written by NetBSD's
 * kernel itself, in a rump kernel, with a WAPBL log. Each is decoded a
 * second time by tests/ffs_blocks.py, written apart in Python, and the two
 * must agree on every fragment sampled (1,000 at random, seeded; the seed
 * is printed, FFS_IMAGE_SEED repeats it) and on every fragment of the
 * image. The data bytes must be what the tree's file sizes take. Damaged
 * images are refused with the field named. Skips where makefs, python3 or
 * the rump kernel are missing, saying which.
 */
#include <sys/stat.h>

#include <atf-c.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../traces/ffs_image.h"
#include "testlib.h"

#define SAMPLES 1000

/* The map tests/ffs_blocks.py prints. */
struct pymap {
	struct layout_ext *e;
	size_t n;
	uint64_t fsize, bsize, image;
};

/* Skips, saying how to get prog, when it is not on PATH. */
static void
need(const char *prog, const char *deps)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	if (system(cmd) != 0)
		atf_tc_skip(
		    "needs %s (contrib/deps.sh %s installs it)", prog, deps);
}

/* A shell command, which must succeed. */
static void
run(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	ATF_REQUIRE(n != -1);
	if (system(cmd) != 0)
		atf_tc_fail("failed: %s", cmd);
	free(cmd);
}

/* The small fixture's tree in ./src. */
static void
tree(const atf_tc_t *tc)
{
	const char *tgz = tl_path(tc, "build/fixtures/small.tar.gz");

	if (access(tgz, R_OK) != 0)
		atf_tc_skip("no %s (make build/fixtures/small.tar.gz)", tgz);
	run("rm -rf src && mkdir src && tar xzf '%s' -C src", tgz);
}

static void
decode(const char *img, struct layout *l)
{
	char err[256];
	int fd = open(img, O_RDONLY);

	ATF_REQUIRE_MSG(fd != -1, "cannot open %s", img);
	layout_init(l, "ffs");
	if (ffs_image_layout(fd, l, err, sizeof(err)) == -1)
		atf_tc_fail("%s: %s", img, err);
	close(fd);
	printf("%s: %s; %s\n", img, l->source, l->note);
}

/* tests/ffs_blocks.py's output on img, with how it was run in cmd. */
static FILE *
blocks_py(const atf_tc_t *tc, const char *opt, const char *img, char *cmd,
    size_t cmdlen)
{
	FILE *p;

	snprintf(cmd, cmdlen, "python3 '%s' %s '%s'",
	    tl_path(tc, "tests/ffs_blocks.py"), opt, img);
	ATF_REQUIRE_MSG((p = popen(cmd, "r")) != NULL, "cannot run %s", cmd);
	return p;
}

static void
oracle(const atf_tc_t *tc, const char *img, struct pymap *m)
{
	char cmd[1024], line[256], cls[32];
	uint64_t off, len;
	FILE *p = blocks_py(tc, "", img, cmd, sizeof(cmd));

	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), p) != NULL) {
		if (sscanf(line, "fsize %" SCNu64, &m->fsize) == 1 ||
		    sscanf(line, "bsize %" SCNu64, &m->bsize) == 1 ||
		    sscanf(line, "image %" SCNu64, &m->image) == 1)
			continue;
		ATF_REQUIRE_MSG(sscanf(line, "%" SCNu64 " %" SCNu64 " %31s",
		                    &off, &len, cls) == 3,
		    "ffs_blocks.py: %s", line);
		ATF_REQUIRE(
		    (m->e = realloc(m->e, (m->n + 1) * sizeof(*m->e))) != NULL);
		m->e[m->n++] = (struct layout_ext){.off = off,
		    .len = len,
		    .cls = (uint8_t)layout_class_find(cls)};
	}
	ATF_REQUIRE_MSG(
	    pclose(p) == 0 && m->fsize > 0 && m->image > 0, "%s failed", cmd);
}

/* The bytes of [off, off + len) by class in the Python map. */
static void
py_split(const struct pymap *m, uint64_t off, uint64_t len,
    uint64_t by[LAYOUT_NCLASS])
{
	uint64_t end = off + len, held = 0;
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->e[mid].off + m->e[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->n && m->e[i].off < end; i++) {
		uint64_t s = m->e[i].off > off ? m->e[i].off : off;
		uint64_t t = m->e[i].off + m->e[i].len < end
		    ? m->e[i].off + m->e[i].len
		    : end;

		by[m->e[i].cls] += t - s;
		held += t - s;
	}
	by[LAYOUT_UNKNOWN] += len - held;
}

/* Whether the two decoders split the fragment at off alike. */
static int
same(const struct layout *l, const struct pymap *m, uint64_t off)
{
	uint64_t a[LAYOUT_NCLASS] = {0}, b[LAYOUT_NCLASS] = {0};

	layout_split(l, off, m->fsize, a);
	py_split(m, off, m->fsize, b);
	return memcmp(a, b, sizeof(a)) == 0;
}

/* One seed a test program's run: FFS_IMAGE_SEED, or the time's. */
static uint64_t
seed(void)
{
	static uint64_t s;
	const char *env = getenv("FFS_IMAGE_SEED");

	if (s == 0 && env != NULL && *env != '\0')
		s = strtoull(env, NULL, 10);
	if (s == 0)
		s = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	return s;
}

/* xorshift64*: never 0 from a seed that is not. */
static uint64_t
next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

/*
 * The C decoder's layout of img and the Python one's agree on SAMPLES
 * fragments drawn at random, then on all of them.
 */
static void
agree(const atf_tc_t *tc, const char *img, const struct layout *l)
{
	struct pymap m;
	uint64_t s = seed(), x = s | 1, nfrags, bad = 0, first = 0;

	oracle(tc, img, &m);
	nfrags = m.image / m.fsize;
	for (int i = 0; i < SAMPLES; i++) {
		uint64_t frag = next(&x) % nfrags;

		if (!same(l, &m, frag * m.fsize))
			atf_tc_fail("%s: seed %" PRIu64 ": the decoders differ "
			            "on fragment %" PRIu64 " (byte %" PRIu64
			            ")",
			    img, s, frag, frag * m.fsize);
	}
	for (uint64_t f = 0; f < nfrags; f++)
		if (!same(l, &m, f * m.fsize) && bad++ == 0)
			first = f;
	printf("%s: seed %" PRIu64 " (FFS_IMAGE_SEED=%" PRIu64
	       " repeats it): %d of %" PRIu64 " fragments of %" PRIu64
	       " bytes sampled, all agree; %" PRIu64 " of all differ\n",
	    img, s, s, SAMPLES, nfrags, m.fsize, bad);
	if (bad > 0)
		atf_tc_fail("%s: the decoders differ on %" PRIu64
		            " fragments, the first %" PRIu64,
		    img, bad, first);
	free(m.e);
}

/* What the tree's files take on a filesystem of these sizes. */
static uint64_t want_bytes, want_bsize, want_fsize, want_symlen;

static int
file_bytes(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	uint64_t size = (uint64_t)st->st_size, b = want_bsize, f = want_fsize;
	uint64_t nblocks = (size + b - 1) / b;

	(void)path;
	(void)ftw;
	if (flag != FTW_F && flag != FTW_SL)
		return 0;
	if (S_ISLNK(st->st_mode) && size < want_symlen)
		return 0; /* held in the inode */
	if (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode))
		return 0;
	/* Past the direct blocks every block is whole (ffs_blksize). */
	if (nblocks > 12)
		want_bytes += nblocks * b;
	else
		want_bytes += size / b * b + (size % b + f - 1) / f * f;
	return 0;
}

static uint64_t
bytes_of(const struct layout *l, enum layout_class c)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->ext[i].cls == c)
			sum += l->ext[i].len;
	return sum;
}

/* The data bytes are what the files in dir take, no more, no less. */
static void
sizes(const struct layout *l, const char *dir, uint64_t bsize, uint64_t fsize,
    int ufs2)
{
	want_bytes = 0;
	want_bsize = bsize;
	want_fsize = fsize;
	want_symlen = ufs2 ? 120 : 60;
	ATF_REQUIRE(nftw(dir, file_bytes, 16, FTW_PHYS) == 0);
	ATF_CHECK_EQ_MSG(bytes_of(l, LAYOUT_DATA), want_bytes,
	    "data %" PRIu64 " bytes, the files take %" PRIu64,
	    bytes_of(l, LAYOUT_DATA), want_bytes);
	ATF_CHECK_MSG(bytes_of(l, LAYOUT_DIR) > 0, "no directory blocks");
	ATF_CHECK_MSG(bytes_of(l, LAYOUT_INODE) > 0, "no inode blocks");
	ATF_CHECK_MSG(bytes_of(l, LAYOUT_ALLOC) > 0, "no allocation blocks");
	ATF_CHECK_MSG(bytes_of(l, LAYOUT_FREE) > 0, "no free blocks");
}

/* A makefs image of src, decoded by both, checked against the tree. */
static void
makefs_case(const atf_tc_t *tc, int version, unsigned bsize, unsigned fsize,
    const char *order)
{
	char img[64];
	struct layout l;

	snprintf(img, sizeof(img), "ufs%d-%u-%u%s.img", version, bsize, fsize,
	    order);
	run("makefs -t ffs %s -o version=%d,bsize=%u,fsize=%u,maxbpcg=%u "
	    "-s 40m %s src >/dev/null",
	    *order ? "-B be" : "", version, bsize, fsize, bsize / 8, img);
	decode(img, &l);
	agree(tc, img, &l);
	sizes(&l, "src", bsize, fsize, version == 2);
	layout_free(&l);
}

/* The makefs images: every block size NetBSD's newfs offers from 8 KiB. */
static const struct {
	int version;
	unsigned bsize, fsize;
	const char *order; /* "-be": big-endian */
} images[] = {
    {1, 8192, 1024, ""},
    {1, 16384, 2048, ""},
    {1, 32768, 4096, ""},
    {1, 16384, 2048, "-be"},
    {2, 8192, 1024, ""},
    {2, 16384, 2048, ""},
    {2, 32768, 4096, ""},
    {2, 65536, 8192, ""},
    {2, 8192, 1024, "-be"},
};

static void
makefs_ready(const atf_tc_t *tc)
{
	need("makefs", "rump");
	need("python3", "test");
	tree(tc);
}

/* Each image of the table of this version. */
static void
makefs_version(const atf_tc_t *tc, int version)
{
	makefs_ready(tc);
	for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++)
		if (images[i].version == version)
			makefs_case(tc, version, images[i].bsize,
			    images[i].fsize, images[i].order);
}

ATF_TC(makefs_ufs1);
ATF_TC_HEAD(makefs_ufs1, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "UFS1 images by makefs: both decoders agree, data is the files'");
}
ATF_TC_BODY(makefs_ufs1, tc)
{
	makefs_version(tc, 1);
}

ATF_TC(makefs_ufs2);
ATF_TC_HEAD(makefs_ufs2, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "UFS2 images by makefs: both decoders agree, data is the files'");
}
ATF_TC_BODY(makefs_ufs2, tc)
{
	makefs_version(tc, 2);
}

ATF_TC(double_indirect);
ATF_TC_HEAD(double_indirect, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "a 3 MB file on 4 KiB blocks: through a double indirect block");
}
ATF_TC_BODY(double_indirect, tc)
{
	struct layout l;

	need("makefs", "rump");
	need("python3", "test");
	run("mkdir -p big && head -c 3000000 /dev/urandom >big/f && "
	    "makefs -t ffs -o version=2,bsize=4096,fsize=512 -s 8m big.img "
	    "big >/dev/null");
	decode("big.img", &l);
	agree(tc, "big.img", &l);
	sizes(&l, "big", 4096, 512, 1);
	/* di_ib[0], di_ib[1] and one block under it. */
	ATF_CHECK_EQ_MSG(bytes_of(&l, LAYOUT_MAP), 3 * 4096,
	    "%" PRIu64 " bytes of indirect blocks", bytes_of(&l, LAYOUT_MAP));
	layout_free(&l);
}

static void
put(const char *img, uint64_t off, const void *v, size_t len)
{
	int fd = open(img, O_WRONLY);

	ATF_REQUIRE(fd != -1);
	ATF_REQUIRE(pwrite(fd, v, len, (off_t)off) == (ssize_t)len);
	close(fd);
}

ATF_TC(kernel_log);
ATF_TC_HEAD(kernel_log, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "an image NetBSD's kernel wrote, with a WAPBL log: the log is "
	    "journal, both decoders agree, also once marked dirty");
	atf_tc_set_md_var(tc, "timeout", "300");
}
ATF_TC_BODY(kernel_log, tc)
{
	const char *rump = getenv("UBCREPLAY_RUMP");
	char lib[1024], ubc[1024], tgz[1024];
	uint64_t journal;
	struct layout l;
	glob_t g;
	uint32_t flags;
	uint8_t clean = 0;

	need("makefs", "rump");
	need("python3", "test");
	if (rump == NULL || *rump == '\0')
		rump = "/var/cache/ubcreplay/rump/bundle/rump";
	snprintf(lib, sizeof(lib), "%s/lib/librumpfs_ffs.so", rump);
	if (access(lib, R_OK) != 0)
		atf_tc_skip(
		    "no NetBSD rump kernel at %s (make rump builds it)", rump);
	snprintf(ubc, sizeof(ubc), "%s", tl_path(tc, "ubcreplay"));
	if (access(ubc, X_OK) != 0)
		atf_tc_skip("no %s (make ubcreplay)", ubc);
	snprintf(
	    tgz, sizeof(tgz), "%s", tl_path(tc, "build/fixtures/small.tar.gz"));
	tree(tc);
	/* The kernel makes its log in the filesystem: no room after it. */
	run("mkdir -p empty tmp && makefs -t ffs -o version=2,bsize=16384,"
	    "fsize=2048 -f 4000 -s 64m base.img empty >/dev/null");
	run("TMPDIR=$PWD/tmp '%s' --rump '%s' -q -O log --keep -n 1 -o r.json "
	    "'%s' ffs:base.img >job.out 2>&1 || { cat job.out; exit 1; }",
	    ubc, rump, tgz);
	ATF_REQUIRE_MSG(glob("tmp/ubcreplay-ffs.*.img", 0, NULL, &g) == 0,
	    "--keep kept no copy in tmp/");
	decode(g.gl_pathv[g.gl_pathc - 1], &l);
	journal = bytes_of(&l, LAYOUT_JOURNAL);
	ATF_CHECK_MSG(journal >= 1024 * 1024,
	    "%" PRIu64 " bytes of journal: the log is 1 MiB at least", journal);
	agree(tc, g.gl_pathv[g.gl_pathc - 1], &l);
	/* The tar workload extracted the tree into the run's directory. */
	sizes(&l, "src", 16384, 2048, 1);
	layout_free(&l);

	/*
	 * As a mounted filesystem's after a sync: fs_clean 0, FS_DOWAPBL in
	 * fs_flags (the superblock at 8 KiB, makefs's place for UFS2).
	 */
	run("cp '%s' dirty.img", g.gl_pathv[g.gl_pathc - 1]);
	put("dirty.img", 8192 + 209, &clean, 1);
	flags = 0x100;
	put("dirty.img", 8192 + 1312, &flags, 4);
	decode("dirty.img", &l);
	ATF_CHECK_EQ(bytes_of(&l, LAYOUT_JOURNAL), journal);
	agree(tc, "dirty.img", &l);
	layout_free(&l);
	globfree(&g);
}

/* Where ffs_blocks.py --find says the hostile cases write. */
struct places {
	uint64_t sb, size, fsize, cg0;
	uint64_t direct_at, indirect_at, ib0_byte;
};

static void
places(const atf_tc_t *tc, const char *img, struct places *p)
{
	char cmd[1024], line[256];
	uint64_t ino;
	FILE *f = blocks_py(tc, "--find", img, cmd, sizeof(cmd));

	memset(p, 0, sizeof(*p));
	while (fgets(line, sizeof(line), f) != NULL) {
		(void)(sscanf(line, "sb %" SCNu64, &p->sb) == 1 ||
		    sscanf(line, "size %" SCNu64, &p->size) == 1 ||
		    sscanf(line, "fsize %" SCNu64, &p->fsize) == 1 ||
		    sscanf(line, "cg0 %" SCNu64, &p->cg0) == 1 ||
		    sscanf(line, "direct %" SCNu64 " %" SCNu64, &ino,
		        &p->direct_at) == 2 ||
		    sscanf(line, "indirect %" SCNu64 " %" SCNu64 " %" SCNu64,
		        &ino, &p->indirect_at, &p->ib0_byte) == 3);
	}
	ATF_REQUIRE_MSG(pclose(f) == 0 && p->direct_at && p->indirect_at,
	    "%s found no file with direct and indirect blocks", cmd);
}

/* bad.img, a copy of base.img with len bytes of v at off, is refused. */
static void
refused(const char *what, uint64_t off, const void *v, size_t len,
    const char *expect)
{
	struct layout l;
	char err[256];
	int fd;

	run("cp base.img bad.img");
	put("bad.img", off, v, len);
	ATF_REQUIRE((fd = open("bad.img", O_RDONLY)) != -1);
	layout_init(&l, "ffs");
	if (ffs_image_layout(fd, &l, err, sizeof(err)) != -1)
		atf_tc_fail("%s: the image was not refused", what);
	close(fd);
	printf("%s: %s\n", what, err);
	ATF_CHECK_MSG(strstr(err, expect) != NULL, "%s: no '%s' in '%s'", what,
	    expect, err);
	ATF_CHECK_EQ_MSG(l.n, 0, "%s: extents left", what);
	layout_free(&l);
}

ATF_TC(hostile);
ATF_TC_HEAD(hostile, tc)
{
	atf_tc_set_md_var(tc, "descr",
	    "damaged images are refused, the field at fault named");
}
ATF_TC_BODY(hostile, tc)
{
	struct places p;
	char want[128];
	int32_t v32;
	int64_t v64;

	makefs_ready(tc);
	run("makefs -t ffs -o version=2,bsize=16384,fsize=2048 -s 20m "
	    "base.img src >/dev/null");
	places(tc, "base.img", &p);
	v32 = INT32_MAX;
	refused("fs_ncg huge", p.sb + 44, &v32, 4,
	    "fs_ncg 2147483647 does not fit an image of 20971520 bytes");
	v32 = 0;
	refused("fs_bsize 0", p.sb + 48, &v32, 4, "fs_bsize 0 is not");
	v32 = 32768;
	refused("fs_fsize > fs_bsize", p.sb + 52, &v32, 4,
	    "fs_fsize 32768 is larger than fs_bsize 16384");
	v64 = (int64_t)p.size + 100;
	snprintf(want, sizeof(want),
	    "di_db[0] %" PRId64 " is beyond the filesystem's %" PRIu64
	    " fragments",
	    v64, p.size);
	refused("a block pointer past the end", p.direct_at, &v64, 8, want);
	v64 = -5;
	refused("a negative indirect pointer", p.indirect_at, &v64, 8,
	    "di_ib[0] -5 is beyond");
	v64 = (int64_t)(p.ib0_byte / p.fsize);
	refused("an indirect block pointing at itself", p.ib0_byte, &v64, 8,
	    "points at itself (a loop)");
	v32 = 0x12345;
	refused("a cylinder group's magic", p.cg0 + 4, &v32, 4,
	    "cylinder group 0: cg_magic 0x12345");
	run("cp base.img short.img && truncate -s 10m short.img");
	{
		struct layout l;
		char err[256];
		int fd = open("short.img", O_RDONLY);

		layout_init(&l, "ffs");
		ATF_REQUIRE(ffs_image_layout(fd, &l, err, sizeof(err)) == -1);
		close(fd);
		printf("a truncated image: %s\n", err);
		snprintf(want, sizeof(want), "fs_size %" PRIu64 " fragments",
		    p.size);
		ATF_CHECK_MSG(strstr(err, want) != NULL, "no '%s'", want);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, makefs_ufs1);
	ATF_TP_ADD_TC(tp, makefs_ufs2);
	ATF_TP_ADD_TC(tp, double_indirect);
	ATF_TP_ADD_TC(tp, kernel_log);
	ATF_TP_ADD_TC(tp, hostile);
	return 0;
}
