/*
 * ffs_image.c - the layout of an FFS image, read from the image; see
 * ffs_image.h.
 *
 * The structures are NetBSD 7.99's (sys/ufs/ffs/fs.h: struct fs, struct cg;
 * sys/ufs/ufs/dinode.h: struct ufs1_dinode, struct ufs2_dinode;
 * sys/ufs/ufs/ufs_wapbl.h: the log's place), read field by field at their
 * offsets from whole structures read first, in the byte order the
 * superblock's magic tells. Addresses are in fragments (fs_fsize bytes),
 * as the block pointers and the free maps count them.
 *
 * The superblock is looked for where NetBSD's kernel looks (ffs_vfsops.c,
 * SBLOCKSEARCH): 64 KiB, 8 KiB, 0, 256 KiB, skipping an alternate (one
 * whose fs_sblockloc names another place). NetBSD's makefs puts UFS1's and
 * UFS2's at 8 KiB, newfs UFS2's at 64 KiB. Then every field used is checked
 * as ffs_superblock_validate does, and against the image's size, before
 * anything is sized by it.
 *
 * Work and memory are bounded by the image: two bitmaps of one bit a
 * fragment (claimed, read as an indirect block), one block buffer a level
 * of indirection, the extents of the layout. An indirect block is read at
 * most once: a second claim of it is counted and not followed, and one
 * that is its own ancestor is a loop, an error.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ffs_image.h"

/* fs.h */
#define SBLOCKSIZE       8192
#define FS_UFS1_MAGIC    0x011954
#define FS_UFS2_MAGIC    0x19540119
#define FS_FLAGS_UPDATED 0x80
#define CG_MAGIC         0x090255
#define MINBSIZE         4096
#define MAXBSIZE         65536
#define MAXFRAG          8
#define SB_BYTES         1376 /* sizeof(struct fs) */
#define CG_BYTES         168  /* sizeof(struct cg) up to cg_space */
#define FS_44INODEFMT    2
/* dinode.h */
#define UFS_NDADDR  12
#define UFS_NIADDR  3
#define IFMT        0170000
#define IFDIR       0040000
#define IFREG       0100000
#define IFLNK       0120000
#define SF_SNAPSHOT 0x00200000
#define SF_LOG      0x00400000
/* ufs_wapbl.h */
#define UFS_WAPBL_VERSION   1
#define JOURNALLOC_END_PART 1
#define JOURNALLOC_IN_FS    2
#define RANK_FREE           1
#define RANK_CLAIM          2
#define RANK_SURE           3

struct ffs {
	int fd;
	uint64_t image_bytes;
	int swap; /* the image's byte order is not the host's */
	int ufs2;
	/* The superblock's fields, checked. Addresses in fragments. */
	uint64_t sblockloc; /* bytes */
	uint32_t bsize, fsize, frag, cgsize, ipg, fpg, ncg, inopb, nindir;
	uint32_t isize, psize; /* a dinode's, a block pointer's bytes */
	uint32_t sblkno, cblkno, iblkno, dblkno, cgoffset, cgmask;
	uint64_t size, csaddr, cssize;
	int32_t maxsymlinklen;
	uint8_t jversion, jloc;
	uint64_t jlocs[4];
	/* Per fragment: claimed (or metadata), read as an indirect block. */
	uint8_t *claimed, *indir;
	uint8_t *cg;                /* a cylinder group's header and maps */
	uint8_t *iblk;              /* a block of inodes */
	uint64_t iblk_at;           /* which (byte offset), or UINT64_MAX */
	uint8_t *level[UFS_NIADDR]; /* an indirect block a level */
	struct layout *l;
	struct layout_ext pend; /* coalesced before layout_add */
	/* What is told in the note. */
	uint64_t twice, snapshots, extattr, notlog;
	char *err;
	size_t errlen;
};

/* The walk of one inode. */
struct inode {
	uint64_t ino;
	uint64_t nblocks; /* logical blocks by di_size */
	uint64_t size;
	uint8_t cls;
	int64_t anc[UFS_NIADDR]; /* the indirect blocks above, by depth */
};

static int
fail(struct ffs *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err, f->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint16_t
get16(const struct ffs *f, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return f->swap ? (uint16_t)(v << 8 | v >> 8) : v;
}

static uint32_t
get32(const struct ffs *f, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return f->swap ? __builtin_bswap32(v) : v;
}

static uint64_t
get64(const struct ffs *f, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return f->swap ? __builtin_bswap64(v) : v;
}

/* len bytes at off, all of them inside the image. */
static int
readat(struct ffs *f, void *buf, size_t len, uint64_t off, const char *what)
{
	size_t got = 0;

	if (off > f->image_bytes || len > f->image_bytes - off)
		return fail(f,
		    "%s: %zu bytes at %" PRIu64
		    " are past the image's end (%" PRIu64 " bytes)",
		    what, len, off, f->image_bytes);
	while (got < len) {
		ssize_t n = pread(
		    f->fd, (uint8_t *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(f,
			    "%s: cannot read %zu bytes at %" PRIu64 ": %s",
			    what, len, off, strerror(errno));
		if (n == 0)
			return fail(f,
			    "%s: the image ends at %" PRIu64
			    " bytes, before its size said",
			    what, off + got);
		got += (size_t)n;
	}
	return 0;
}

static int
flush(struct ffs *f)
{
	if (f->pend.len == 0)
		return 0;
	if (layout_add(f->l, f->pend.off, f->pend.len, f->pend.cls,
	        f->pend.rank) == -1)
		return fail(f, "out of memory for the layout's extents");
	f->pend.len = 0;
	return 0;
}

/* [off, off + len) bytes as c at rank, joined to the last one added. */
static int
add(struct ffs *f, uint64_t off, uint64_t len, enum layout_class c,
    unsigned rank)
{
	struct layout_ext *p = &f->pend;

	if (len == 0)
		return 0;
	if (p->len > 0 && p->cls == c && p->rank == rank &&
	    p->off + p->len == off) {
		p->len += len;
		return 0;
	}
	if (flush(f) == -1)
		return -1;
	*p = (struct layout_ext){
	    .off = off, .len = len, .cls = (uint8_t)c, .rank = (uint8_t)rank};
	return 0;
}

static int
addfrags(struct ffs *f, uint64_t frag, uint64_t n, enum layout_class c,
    unsigned rank)
{
	return add(f, frag * f->fsize, n * f->fsize, c, rank);
}

static int
isset(const uint8_t *map, uint64_t i)
{
	return map[i / 8] >> (i % 8) & 1;
}

static void
setbit(uint8_t *map, uint64_t i)
{
	map[i / 8] |= (uint8_t)(1u << (i % 8));
}

static int
ispow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static uint32_t
log2of(uint64_t v)
{
	uint32_t s = 0;

	while (v > 1) {
		v >>= 1;
		s++;
	}
	return s;
}

/* A shift field: log2 of the size it goes with. */
static int
shift(
    struct ffs *f, const char *field, uint32_t v, const char *of, uint32_t size)
{
	if (v != log2of(size))
		return fail(f, "%s %" PRIu32 " is not log2(%s)", field, v, of);
	return 0;
}

/* A per-block count: how many things of unit bytes a block holds. */
static int
per_block(struct ffs *f, const char *field, int32_t v, uint32_t unit)
{
	if (v < 0 || (uint32_t)v != f->bsize / unit)
		return fail(f,
		    "%s %" PRId32 " is not fs_bsize / %" PRIu32 " (%" PRIu32
		    ")",
		    field, v, unit, f->bsize / unit);
	return 0;
}

/* Where cylinder group c starts, in fragments (fs.h cgstart). */
static uint64_t
cgstart(const struct ffs *f, uint32_t c)
{
	uint64_t base = (uint64_t)f->fpg * c;

	if (f->ufs2)
		return base;
	return base + (uint64_t)f->cgoffset * (c & ~f->cgmask);
}

/*
 * The superblock: the first magic at the places NetBSD's kernel looks that
 * is not an alternate. Its whole structure is read into sb.
 */
static int
find_sb(struct ffs *f, uint8_t sb[SB_BYTES])
{
	static const uint64_t places[] = {65536, 8192, 0, 262144};

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		uint64_t at = places[i], loc;
		uint32_t magic, raw;

		if (at > f->image_bytes || f->image_bytes - at < SB_BYTES)
			continue;
		if (readat(f, sb, SB_BYTES, at, "superblock") == -1)
			return -1;
		memcpy(&raw, sb + 1372, sizeof(raw));
		if (raw == FS_UFS1_MAGIC || raw == FS_UFS2_MAGIC)
			f->swap = 0;
		else if (__builtin_bswap32(raw) == FS_UFS1_MAGIC ||
		    __builtin_bswap32(raw) == FS_UFS2_MAGIC)
			f->swap = 1;
		else
			continue;
		magic = get32(f, sb + 1372);
		f->ufs2 = magic == FS_UFS2_MAGIC;
		if (!f->ufs2 && !(sb[211] & FS_FLAGS_UPDATED)) {
			if (at == 65536)
				continue; /* a 64 KiB-block UFS1's alternate */
			loc = at;
		} else
			loc = get64(f, sb + 1000);
		if (loc != at)
			continue;
		f->sblockloc = at;
		return 0;
	}
	return fail(f,
	    "no FFS superblock (UFS1 or UFS2 magic) at 64 KiB, "
	    "8 KiB, 0 or 256 KiB of an image of %" PRIu64 " bytes",
	    f->image_bytes);
}

/* A mask field: what the kernel and-s addresses with, from size. */
static int
mask(
    struct ffs *f, const char *field, uint64_t v, uint64_t want, const char *of)
{
	if (v != want)
		return fail(f, "%s %#" PRIx64 " is not %s (%#" PRIx64 ")",
		    field, v, of, want);
	return 0;
}

/*
 * The geometry: the block and fragment sizes, and every field the kernel
 * takes as derived from them without computing it again. NetBSD's
 * ffs_superblock_validate checks some (the shifts, fs_bmask, fs_fmask,
 * fs_inopb, fs_frag); it uses the others as they are: fs_nindir 0 is a
 * shift of -1 in ufs_bmaparray's arithmetic (undefined: an image that
 * passes a trial, then EINVAL, or a heap overrun of the kernel's process,
 * depending on the block size), fs_fsbtodb turns every fragment address
 * into a disk address (rumpblk's are in 512-byte units), fs_qbmask and
 * fs_qfmask round file sizes (kept for UFS1 of the old inode format, whose
 * are computed at the mount).
 */
static int
read_geometry(struct ffs *f, const uint8_t *sb)
{
	int32_t sbsize, bsize, fsize, frag, inopb, nindir;
	int newfmt;

	f->isize = f->ufs2 ? 256 : 128;
	f->psize = f->ufs2 ? 8 : 4;
	sbsize = (int32_t)get32(f, sb + 104);
	if (sbsize < SB_BYTES || sbsize > SBLOCKSIZE)
		return fail(f, "fs_sbsize %" PRId32 " is not from %d to %d",
		    sbsize, SB_BYTES, SBLOCKSIZE);
	bsize = (int32_t)get32(f, sb + 48);
	if (bsize < MINBSIZE || bsize > MAXBSIZE || !ispow2((uint32_t)bsize))
		return fail(f,
		    "fs_bsize %" PRId32 " is not a power of two from %d to %d",
		    bsize, MINBSIZE, MAXBSIZE);
	fsize = (int32_t)get32(f, sb + 52);
	if (fsize < 512 || !ispow2((uint32_t)fsize))
		return fail(f,
		    "fs_fsize %" PRId32 " is not a power of two of 512 or more",
		    fsize);
	if (fsize > bsize)
		return fail(f,
		    "fs_fsize %" PRId32 " is larger than fs_bsize %" PRId32,
		    fsize, bsize);
	if (bsize / fsize > MAXFRAG)
		return fail(f,
		    "fs_fsize %" PRId32 " makes more than %d "
		    "fragments of a block of %" PRId32,
		    fsize, MAXFRAG, bsize);
	frag = (int32_t)get32(f, sb + 56);
	if (frag != bsize / fsize)
		return fail(f,
		    "fs_frag %" PRId32 " is not fs_bsize / fs_fsize "
		    "(%" PRId32 ")",
		    frag, bsize / fsize);
	if (shift(f, "fs_bshift", get32(f, sb + 80), "fs_bsize",
	        (uint32_t)bsize) == -1 ||
	    shift(f, "fs_fshift", get32(f, sb + 84), "fs_fsize",
	        (uint32_t)fsize) == -1 ||
	    shift(f, "fs_fragshift", get32(f, sb + 96), "fs_frag",
	        (uint32_t)frag) == -1)
		return -1;
	f->bsize = (uint32_t)bsize;
	f->fsize = (uint32_t)fsize;
	f->frag = (uint32_t)frag;
	inopb = (int32_t)get32(f, sb + 120);
	nindir = (int32_t)get32(f, sb + 116);
	if (per_block(f, "fs_inopb", inopb, f->isize) == -1 ||
	    per_block(f, "fs_nindir", nindir, f->psize) == -1)
		return -1;
	f->inopb = (uint32_t)inopb;
	f->nindir = (uint32_t)nindir;
	newfmt = f->ufs2 || (int32_t)get32(f, sb + 1324) >= FS_44INODEFMT;
	if (shift(f, "fs_fsbtodb", get32(f, sb + 100), "fs_fsize / 512",
	        (uint32_t)fsize / 512) == -1 ||
	    mask(f, "fs_bmask", get32(f, sb + 72), (uint32_t) ~(bsize - 1),
	        "~(fs_bsize - 1)") == -1 ||
	    mask(f, "fs_fmask", get32(f, sb + 76), (uint32_t) ~(fsize - 1),
	        "~(fs_fsize - 1)") == -1 ||
	    (newfmt &&
	        (mask(f, "fs_qbmask", get64(f, sb + 1336), (uint64_t)bsize - 1,
	             "fs_bsize - 1") == -1 ||
	            mask(f, "fs_qfmask", get64(f, sb + 1344),
	                (uint64_t)fsize - 1, "fs_fsize - 1") == -1)))
		return -1;
	return 0;
}

/* The superblock's fields, each checked before anything is sized by it. */
static int
read_sb(struct ffs *f)
{
	uint8_t sb[SB_BYTES];
	int32_t bsize, fsize, frag, ncg, ipg, fpg, cgsize, inopb, cssize;
	int32_t sblkno, cblkno, iblkno, dblkno;
	uint64_t size, csaddr, nfrags, cgmin;
	int updated;

	if (find_sb(f, sb) == -1 || read_geometry(f, sb) == -1)
		return -1;
	updated = f->ufs2 || (sb[211] & FS_FLAGS_UPDATED);
	bsize = (int32_t)f->bsize;
	fsize = (int32_t)f->fsize;
	frag = (int32_t)f->frag;
	inopb = (int32_t)f->inopb;

	size = updated ? get64(f, sb + 1080) : get32(f, sb + 36);
	nfrags = f->image_bytes / f->fsize;
	if (size == 0 || size > nfrags)
		return fail(f,
		    "fs_size %" PRIu64 " fragments of %" PRIu32
		    " bytes do not fit an image of %" PRIu64 " bytes",
		    size, f->fsize, f->image_bytes);
	f->size = size;

	sblkno = (int32_t)get32(f, sb + 8);
	cblkno = (int32_t)get32(f, sb + 12);
	iblkno = (int32_t)get32(f, sb + 16);
	dblkno = (int32_t)get32(f, sb + 20);
	if (sblkno < 0 || cblkno <= sblkno || iblkno <= cblkno ||
	    dblkno <= iblkno)
		return fail(f,
		    "fs_sblkno %" PRId32 ", fs_cblkno %" PRId32
		    ", fs_iblkno %" PRId32 ", fs_dblkno %" PRId32
		    " are not in increasing order",
		    sblkno, cblkno, iblkno, dblkno);
	fpg = (int32_t)get32(f, sb + 188);
	if (fpg <= 0 || fpg % frag != 0 || fpg < dblkno)
		return fail(f,
		    "fs_fpg %" PRId32 " is not a positive multiple "
		    "of fs_frag holding fs_dblkno %" PRId32,
		    fpg, dblkno);
	f->sblkno = (uint32_t)sblkno;
	f->cblkno = (uint32_t)cblkno;
	f->iblkno = (uint32_t)iblkno;
	f->dblkno = (uint32_t)dblkno;
	f->fpg = (uint32_t)fpg;
	ncg = (int32_t)get32(f, sb + 44);
	/* Each group holds its metadata, fs_dblkno fragments, at least. */
	if (ncg <= 0 || (uint64_t)ncg > nfrags / f->dblkno)
		return fail(f,
		    "fs_ncg %" PRId32 " does not fit an image of %" PRIu64
		    " bytes",
		    ncg, f->image_bytes);
	if ((uint64_t)ncg != (size + f->fpg - 1) / f->fpg)
		return fail(f,
		    "fs_ncg %" PRId32 " is not fs_size %" PRIu64
		    " over fs_fpg %" PRId32 " (%" PRIu64 " groups)",
		    ncg, size, fpg, (size + f->fpg - 1) / f->fpg);
	f->ncg = (uint32_t)ncg;
	if (!f->ufs2) {
		f->cgoffset = get32(f, sb + 24);
		f->cgmask = get32(f, sb + 28);
	}
	/* The last group's metadata, the furthest, inside the filesystem. */
	cgmin = cgstart(f, f->ncg - 1) + f->dblkno;
	if (f->cgoffset > f->fpg || cgmin > size)
		return fail(f,
		    "fs_old_cgoffset %" PRIu32 " puts cylinder group "
		    "%" PRIu32 "'s metadata past fs_size %" PRIu64,
		    f->cgoffset, f->ncg - 1, size);
	for (uint32_t c = 0; c < f->ncg; c++)
		if (cgstart(f, c) + f->dblkno > size)
			return fail(f,
			    "fs_old_cgoffset %" PRIu32 " puts "
			    "cylinder group %" PRIu32 "'s metadata past "
			    "fs_size %" PRIu64,
			    f->cgoffset, c, size);

	ipg = (int32_t)get32(f, sb + 184);
	if (ipg <= 0 || ipg % inopb != 0 ||
	    (uint64_t)ipg * f->isize >
	        (uint64_t)(dblkno - iblkno) * (uint64_t)fsize)
		return fail(f,
		    "fs_ipg %" PRId32 " inodes do not fit fs_iblkno "
		    "%" PRId32 " to fs_dblkno %" PRId32,
		    ipg, iblkno, dblkno);
	f->ipg = (uint32_t)ipg;
	cgsize = (int32_t)get32(f, sb + 160);
	if (cgsize < CG_BYTES || cgsize > bsize ||
	    (uint64_t)cgsize > (uint64_t)(iblkno - cblkno) * (uint64_t)fsize)
		return fail(f,
		    "fs_cgsize %" PRId32 " is not from %d to fs_bsize "
		    "within fs_cblkno to fs_iblkno",
		    cgsize, CG_BYTES);
	f->cgsize = (uint32_t)cgsize;
	if ((uint64_t)ipg > (uint64_t)(cgsize - CG_BYTES) * 8 ||
	    (uint64_t)fpg > (uint64_t)(cgsize - CG_BYTES) * 8)
		return fail(f,
		    "fs_cgsize %" PRId32 " cannot hold the maps of "
		    "fs_ipg %" PRId32 " and fs_fpg %" PRId32,
		    cgsize, ipg, fpg);

	csaddr = updated ? get64(f, sb + 1096) : get32(f, sb + 152);
	cssize = (int32_t)get32(f, sb + 156);
	if (cssize <= 0 || csaddr >= size ||
	    (uint64_t)(cssize + fsize - 1) / (uint64_t)fsize > size - csaddr)
		return fail(f,
		    "fs_csaddr %" PRIu64 " and fs_cssize %" PRId32
		    " are not inside fs_size %" PRIu64,
		    csaddr, cssize, size);
	f->csaddr = csaddr;
	f->cssize = (uint64_t)cssize;
	f->maxsymlinklen = (int32_t)get32(f, sb + 1320);
	if (f->maxsymlinklen < 0 ||
	    f->maxsymlinklen > (int32_t)((UFS_NDADDR + UFS_NIADDR) * f->psize))
		return fail(f,
		    "fs_maxsymlinklen %" PRId32 " is not from 0 to %" PRIu32,
		    f->maxsymlinklen, (UFS_NDADDR + UFS_NIADDR) * f->psize);
	f->jversion = sb[864];
	f->jloc = sb[865];
	for (int i = 0; i < 4; i++)
		f->jlocs[i] = get64(f, sb + 872 + 8 * i);
	return 0;
}

/*
 * The places FFS keeps its own metadata, sure, and taken from what inodes
 * may claim: each group's superblock copy, header and maps, inodes; the
 * superblock; the summary area.
 */
static int
metadata(struct ffs *f)
{
	uint64_t sbend = f->sblockloc + SBLOCKSIZE < f->image_bytes
	    ? f->sblockloc + SBLOCKSIZE
	    : f->image_bytes;

	for (uint32_t c = 0; c < f->ncg; c++) {
		uint64_t s = cgstart(f, c);

		if (addfrags(f, s + f->sblkno, f->iblkno - f->sblkno,
		        LAYOUT_ALLOC, RANK_SURE) == -1 ||
		    addfrags(f, s + f->iblkno, f->dblkno - f->iblkno,
		        LAYOUT_INODE, RANK_SURE) == -1)
			return -1;
		for (uint64_t i = s + f->sblkno; i < s + f->dblkno; i++)
			setbit(f->claimed, i);
	}
	/* The superblock's place, SBLOCKSIZE bytes, as far as the image goes.
	 */
	if (add(f, f->sblockloc, sbend - f->sblockloc, LAYOUT_ALLOC,
	        RANK_SURE) == -1 ||
	    addfrags(f, f->csaddr, (f->cssize + f->fsize - 1) / f->fsize,
	        LAYOUT_ALLOC, RANK_SURE) == -1)
		return -1;
	for (uint64_t i = f->sblockloc / f->fsize;
	     i < (sbend + f->fsize - 1) / f->fsize && i < f->size; i++)
		setbit(f->claimed, i);
	for (uint64_t i = 0; i < (f->cssize + f->fsize - 1) / f->fsize; i++)
		setbit(f->claimed, f->csaddr + i);
	return 0;
}

/*
 * WAPBL's log where the superblock says (ffs_wapbl.c wapbl_log_position):
 * in the filesystem (its blocks held by an inode flagged SF_LOG) or after
 * it, at the partition's end; in units of fs_journallocs[2] bytes.
 */
static int
journal(struct ffs *f, char *note, size_t notelen)
{
	uint64_t addr = f->jlocs[0], count = f->jlocs[1], blksz = f->jlocs[2];
	uint64_t off, len;

	if (f->jloc == 0 && f->jversion == 0)
		return 0;
	if (f->jversion != UFS_WAPBL_VERSION ||
	    (f->jloc != JOURNALLOC_END_PART && f->jloc != JOURNALLOC_IN_FS)) {
		snprintf(note, notelen,
		    "fs_journal_version %u, "
		    "fs_journal_location %u unknown: no log; ",
		    f->jversion, f->jloc);
		return 0;
	}
	if (blksz < 512 || blksz > MAXBSIZE || !ispow2(blksz))
		return fail(f,
		    "fs_journallocs[2] %" PRIu64
		    " is not a power of two from 512 to %d",
		    blksz, MAXBSIZE);
	if (count == 0 || addr > f->image_bytes / blksz ||
	    count > f->image_bytes / blksz - addr)
		return fail(f,
		    "fs_journallocs[0] %" PRIu64 " and [1] %" PRIu64
		    " (units of %" PRIu64
		    " bytes) are not inside an image of %" PRIu64 " bytes",
		    addr, count, blksz, f->image_bytes);
	off = addr * blksz;
	len = count * blksz;
	if (f->jloc == JOURNALLOC_IN_FS &&
	    off + len > f->size * (uint64_t)f->fsize)
		return fail(f,
		    "fs_journallocs[0] %" PRIu64 " and [1] %" PRIu64
		    ": an in-filesystem log past fs_size %" PRIu64,
		    addr, count, f->size);
	return add(f, off, len, LAYOUT_JOURNAL, RANK_SURE);
}

/*
 * Fragments [addr, addr + n) claimed by an inode as c: inside the
 * filesystem, a whole block at a block's start or fragments inside one.
 * A fragment claimed before (or metadata) is counted, and left to the
 * first claim or the metadata's higher rank.
 */
static int
claim(struct ffs *f, const struct inode *ip, int64_t addr, uint64_t n,
    enum layout_class c, const char *field)
{
	uint64_t a = (uint64_t)addr;

	if (addr < 0 || a >= f->size || n > f->size - a)
		return fail(f,
		    "inode %" PRIu64 ": %s %" PRId64
		    " is beyond the filesystem's %" PRIu64 " fragments",
		    ip->ino, field, addr, f->size);
	if (a % f->frag + n > f->frag)
		return fail(f,
		    "inode %" PRIu64 ": %s %" PRId64 " (%" PRIu64
		    " fragments) crosses a block's end",
		    ip->ino, field, addr, n);
	/*
	 * Only what no one claimed before is added: a fragment makes one
	 * extent at most, however often a hostile image claims it.
	 */
	for (uint64_t i = a; i < a + n; i++) {
		if (isset(f->claimed, i)) {
			f->twice++;
			continue;
		}
		setbit(f->claimed, i);
		if (addfrags(f, i, 1, c, RANK_CLAIM) == -1)
			return -1;
	}
	return 0;
}

static int64_t
pointer(const struct ffs *f, const uint8_t *p)
{
	if (f->ufs2)
		return (int64_t)get64(f, p);
	return (int32_t)get32(f, p);
}

/*
 * The indirect block at addr, of level 1 (it points at data) to 3, the
 * first of the logical blocks it maps lbn, the depth (0 for the di_ib's).
 */
static int
indirect(struct ffs *f, struct inode *ip, int level, int64_t addr, uint64_t lbn,
    int depth, const char *field)
{
	uint8_t *b = f->level[depth];
	uint64_t span = 1;
	char what[96];

	for (int i = 1; i < level; i++)
		span *= f->nindir;
	if (addr >= 0 && (uint64_t)addr < f->size &&
	    isset(f->indir, (uint64_t)addr)) {
		f->twice += f->frag; /* read once: not followed again */
		return 0;
	}
	if (claim(f, ip, addr, f->frag, LAYOUT_MAP, field) == -1)
		return -1;
	setbit(f->indir, (uint64_t)addr);
	ip->anc[depth] = addr;
	if (readat(f, b, f->bsize, (uint64_t)addr * f->fsize,
	        "an indirect block") == -1)
		return -1;
	for (uint32_t k = 0; k < f->nindir; k++, lbn += span) {
		int64_t p = pointer(f, b + (size_t)k * f->psize);

		if (lbn >= ip->nblocks)
			break;
		if (p == 0)
			continue;
		snprintf(what, sizeof(what),
		    "entry %" PRIu32 " of indirect block %" PRId64, k, addr);
		for (int i = 0; i <= depth; i++)
			if (ip->anc[i] == p)
				return fail(f,
				    "inode %" PRIu64 ": %s points at "
				    "%s (a loop)",
				    ip->ino, what,
				    p == addr ? "itself"
				              : "an indirect block "
				                "above it");
		if (level == 1) {
			if (claim(f, ip, p, f->frag, ip->cls, what) == -1)
				return -1;
		} else if (indirect(
		               f, ip, level - 1, p, lbn, depth + 1, what) == -1)
			return -1;
	}
	return 0;
}

/* di_blocks: UFS2's is 64 bits wide. */
static uint64_t
blocks(const struct ffs *f, const uint8_t *d)
{
	return f->ufs2 ? get64(f, d + 24) : get32(f, d + 104);
}

/* The blocks of the inode whose dinode is at d. */
static int
walk(struct ffs *f, uint64_t ino, const uint8_t *d)
{
	uint16_t mode = get16(f, d);
	uint32_t flags = get32(f, d + (f->ufs2 ? 88 : 100));
	const uint8_t *db = d + (f->ufs2 ? 112 : 40);
	const uint8_t *ib = d + (f->ufs2 ? 208 : 88);
	struct inode ip = {
	    .ino = ino, .size = get64(f, d + (f->ufs2 ? 16 : 8))};
	uint64_t lbn = UFS_NDADDR, span = 1;
	char what[32];

	switch (mode & IFMT) {
	case 0:
		return 0; /* in use in the map, not yet written */
	case IFREG:
		ip.cls = LAYOUT_DATA;
		break;
	case IFDIR:
		ip.cls = LAYOUT_DIR;
		break;
	case IFLNK:
		ip.cls = LAYOUT_DATA;
		if (f->maxsymlinklen > 0 ? ip.size < (uint64_t)f->maxsymlinklen
		                         : blocks(f, d) == 0)
			return 0; /* the link is in the inode */
		break;
	default:
		return 0; /* devices, fifos, sockets hold no blocks */
	}
	if (flags & SF_SNAPSHOT) {
		f->snapshots++;
		return 0;
	}
	if (f->ufs2 && get32(f, d + 92) != 0)
		f->extattr++;
	if (flags & SF_LOG) {
		if (ip.cls != LAYOUT_DATA)
			f->notlog++;
		else
			ip.cls = LAYOUT_JOURNAL;
	}
	ip.nblocks = ip.size / f->bsize + (ip.size % f->bsize != 0);
	for (uint64_t i = 0; i < UFS_NDADDR && i < ip.nblocks; i++) {
		int64_t p = pointer(f, db + i * f->psize);
		uint64_t bytes = f->bsize;

		if (p == 0)
			continue;
		/* ffs_sblksize: the last direct block may be fragments. */
		if (ip.size / f->bsize == i)
			bytes = (ip.size % f->bsize + f->fsize - 1) / f->fsize *
			    f->fsize;
		snprintf(what, sizeof(what), "di_db[%" PRIu64 "]", i);
		if (claim(f, &ip, p, bytes / f->fsize, ip.cls, what) == -1)
			return -1;
	}
	for (int level = 1; level <= UFS_NIADDR; level++) {
		int64_t p = pointer(f, ib + (size_t)(level - 1) * f->psize);

		span *= f->nindir;
		if (lbn >= ip.nblocks)
			break;
		snprintf(what, sizeof(what), "di_ib[%d]", level - 1);
		if (p != 0 && indirect(f, &ip, level, p, lbn, 0, what) == -1)
			return -1;
		lbn += span;
	}
	return 0;
}

/*
 * Cylinder group c: its header checked, its free fragments, then the
 * inodes its map says are in use.
 */
static int
group(struct ffs *f, uint32_t c)
{
	uint8_t *g = f->cg;
	uint64_t base = (uint64_t)f->fpg * c, ibase;
	uint32_t ndblk, iusedoff, freeoff, magic, cgx;

	if (readat(f, g, f->cgsize,
	        (cgstart(f, c) + f->cblkno) * (uint64_t)f->fsize,
	        "a cylinder group") == -1)
		return -1;
	magic = get32(f, g + 4);
	cgx = get32(f, g + 12);
	if (magic != CG_MAGIC)
		return fail(f,
		    "cylinder group %" PRIu32 ": cg_magic %#" PRIx32
		    " is not %#x",
		    c, magic, CG_MAGIC);
	if (cgx != c)
		return fail(f, "cylinder group %" PRIu32 ": cg_cgx is %" PRIu32,
		    c, cgx);
	ndblk = get32(f, g + 20);
	if (ndblk > f->fpg || ndblk > f->size - base)
		return fail(f,
		    "cylinder group %" PRIu32 ": cg_ndblk %" PRIu32
		    " is more than fs_fpg or past fs_size",
		    c, ndblk);
	iusedoff = get32(f, g + 92);
	freeoff = get32(f, g + 96);
	if (iusedoff > f->cgsize || (f->ipg + 7) / 8 > f->cgsize - iusedoff)
		return fail(f,
		    "cylinder group %" PRIu32 ": cg_iusedoff %" PRIu32
		    " puts the inode map past fs_cgsize",
		    c, iusedoff);
	if (freeoff > f->cgsize || (ndblk + 7) / 8 > f->cgsize - freeoff)
		return fail(f,
		    "cylinder group %" PRIu32 ": cg_freeoff %" PRIu32
		    " puts the free map past fs_cgsize",
		    c, freeoff);
	for (uint32_t j = 0; j < ndblk; j++)
		if (isset(g + freeoff, j) &&
		    addfrags(f, base + j, 1, LAYOUT_FREE, RANK_FREE) == -1)
			return -1;
	ibase = (cgstart(f, c) + f->iblkno) * (uint64_t)f->fsize;
	for (uint32_t i = 0; i < f->ipg; i++) {
		uint64_t at = ibase + (uint64_t)(i / f->inopb) * f->bsize;

		if (!isset(g + iusedoff, i))
			continue;
		if (f->iblk_at != at) {
			if (readat(f, f->iblk, f->bsize, at,
			        "a block of inodes") == -1)
				return -1;
			f->iblk_at = at;
		}
		if (walk(f, (uint64_t)c * f->ipg + i,
		        f->iblk + (size_t)(i % f->inopb) * f->isize) == -1)
			return -1;
	}
	return 0;
}

static void
describe(struct ffs *f, const char *jnote)
{
	struct layout *l = f->l;
	size_t n;

	snprintf(l->source, sizeof(l->source),
	    "FFSv%d image%s: superblock, "
	    "cylinder groups, inodes",
	    f->ufs2 ? 2 : 1, f->swap ? " (other byte order)" : "");
	n = (size_t)snprintf(l->note, sizeof(l->note),
	    "%sthe boot area, "
	    "and fragments in use that no inode claims, are unknown",
	    jnote);
	if (f->twice > 0 && n < sizeof(l->note))
		n += (size_t)snprintf(l->note + n, sizeof(l->note) - n,
		    "; %" PRIu64 " fragments claimed twice or inside metadata "
		    "(the first claim or the metadata holds them)",
		    f->twice);
	if (f->snapshots > 0 && n < sizeof(l->note))
		n += (size_t)snprintf(l->note + n, sizeof(l->note) - n,
		    "; %" PRIu64 " snapshots not walked", f->snapshots);
	if (f->extattr > 0 && n < sizeof(l->note))
		n += (size_t)snprintf(l->note + n, sizeof(l->note) - n,
		    "; %" PRIu64 " inodes' extended attribute blocks unknown",
		    f->extattr);
	if (f->notlog > 0 && n < sizeof(l->note))
		snprintf(l->note + n, sizeof(l->note) - n,
		    "; %" PRIu64 " inodes flagged SF_LOG are not files",
		    f->notlog);
}

static uint64_t
image_size(int fd)
{
	struct stat st;
	off_t end;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	end = lseek(fd, 0, SEEK_END);
	return end < 0 ? 0 : (uint64_t)end;
}

int
ffs_image_layout(int fd, struct layout *l, char *err, size_t errlen)
{
	struct ffs f = {.fd = fd, .l = l, .err = err, .errlen = errlen};
	char jnote[96] = "";
	int r = -1;

	f.image_bytes = image_size(fd);
	f.iblk_at = UINT64_MAX;
	if (read_sb(&f) == -1)
		goto out;
	/* Sized by fs_size, which fits the image: bounded by its size. */
	f.claimed = calloc(f.size / 8 + 1, 1);
	f.indir = calloc(f.size / 8 + 1, 1);
	f.cg = malloc(f.cgsize);
	f.iblk = malloc(f.bsize);
	for (int i = 0; i < UFS_NIADDR; i++)
		f.level[i] = malloc(f.bsize);
	if (f.claimed == NULL || f.indir == NULL || f.cg == NULL ||
	    f.iblk == NULL || f.level[0] == NULL || f.level[1] == NULL ||
	    f.level[2] == NULL) {
		fail(&f, "out of memory for the maps of %" PRIu64 " fragments",
		    f.size);
		goto out;
	}
	if (metadata(&f) == -1 || journal(&f, jnote, sizeof(jnote)) == -1)
		goto out;
	for (uint32_t c = 0; c < f.ncg; c++)
		if (group(&f, c) == -1)
			goto out;
	if (flush(&f) == -1)
		goto out;
	if (layout_finish(l) == -1) {
		fail(&f, "out of memory for the layout's extents");
		goto out;
	}
	describe(&f, jnote);
	r = 0;
out:
	if (r == -1) {
		layout_free(l);
		l->finished = 0;
	}
	free(f.claimed);
	free(f.indir);
	free(f.cg);
	free(f.iblk);
	for (int i = 0; i < UFS_NIADDR; i++)
		free(f.level[i]);
	return r;
}

int
ffs_image_check_path(const char *path, char *err, size_t errlen)
{
	struct ffs f = {.err = err, .errlen = errlen};
	uint8_t sb[SB_BYTES];
	int r;

	if ((f.fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cannot open image '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	f.image_bytes = image_size(f.fd);
	/* No superblock: not FFS, which the mount says in NetBSD's words. */
	r = find_sb(&f, sb) == 0 && read_geometry(&f, sb) == -1 ? -1 : 0;
	close(f.fd);
	return r;
}

int
ffs_image_layout_path(
    const char *path, struct layout *l, char *err, size_t errlen)
{
	int fd, r;

	layout_init(l, "FFS image");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cannot open image '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	r = ffs_image_layout(fd, l, err, errlen);
	close(fd);
	return r;
}
