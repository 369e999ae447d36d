/*
 * layout_linux.c - what the blocks of a mounted Linux filesystem hold
 * (model/layout.h), read through the filesystem's own answers:
 *
 * - FS_IOC_GETFSMAP names the owner of every physical extent: on ext2/3/4
 *   the superblocks, group descriptors, bitmaps and inode tables, and for
 *   everything else in use only "unknown"; on xfs with the reverse-mapping
 *   btree every block's owner (static metadata, the log, free-space and
 *   inode btrees, inode chunks, and the inode whose data, attribute fork or
 *   extent map it is), and without it free space alone.
 * - FIEMAP of every file and directory under the mount (one device, not
 *   crossing into other mounts) gives their data's places; on xfs with
 *   reverse mapping the walk only tells directories from files.
 * - ext3/4's journal, and the other inodes the filesystem keeps for
 *   itself (resize, quota, orphan file), are hidden inodes that neither
 *   answer covers: their maps are read from the superblock and the inode
 *   table through the device node (ext_hidden below), read only.
 *
 * - A long symbolic link's target (60 bytes or more) sits in a block of
 *   its own on ext2/3/4, which FIEMAP cannot reach (a link cannot be
 *   opened): the walk notes such links, and their maps are read from the
 *   inode table like the hidden inodes', as data.
 *
 * So on ext2/3/4 a block in use that no file or directory maps holds an
 * extent-tree or indirect block or an extended-attribute block: the map
 * class, as long as the walk saw every file. Directories are opened with
 * O_NOATIME, so that reading them dirties nothing the next phase would
 * write.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/fsmap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "../model/layout.h"
#include "traces.h"
#include "../model/le.h"

#define EXT_MAGIC   0xEF53
#define XFS_MAGIC   0x58465342
#define BTRFS_MAGIC 0x9123683E

/* Owners as ext4 and xfs name them (their fsmap.h and xfs_fs.h). */
#define OWN_X(n) FMR_OWNER('X', n)
#define OWN_F(n) FMR_OWNER('f', n)

/* The most files and directories one walk visits. */
#define WALK_MAX 4000000

/* Ranks: what the filesystem names outranks what a file maps. */
enum { RANK_USED, RANK_FILE, RANK_OWNED, RANK_META };

/* On ext, a link target's length that no longer fits in the inode. */
#define EXT_LINK_INLINE 60

struct owned {
	uint64_t ino, off, len;
};

/* Inode numbers the walk notes, when on. */
struct inos {
	int on;
	uint64_t *v;
	size_t n, cap;
};

struct walk {
	struct layout *l;
	int fiemap; /* map each file's data through FIEMAP */
	dev_t dev;
	uint64_t files; /* visited */
	uint64_t delalloc, unmapped;
	int capped, noatime_denied;
	struct inos dirs;  /* xfs with reverse mapping: the directories */
	struct inos links; /* ext: the long symbolic links */
};

static int
by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
note(struct inos *s, uint64_t ino)
{
	if (!s->on)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *d = realloc(s->v, cap * sizeof(*d));

		if (d == NULL)
			return -1;
		s->v = d;
		s->cap = cap;
	}
	s->v[s->n++] = ino;
	return 0;
}

/* The places of fd's data, as class c. */
static int
fiemap(struct walk *w, int fd, enum layout_class c)
{
	enum { N = 128 };
	char buf[sizeof(struct fiemap) + N * sizeof(struct fiemap_extent)];
	struct fiemap *fm = (struct fiemap *)buf;
	uint64_t start = 0;

	for (;;) {
		int last = 0;

		memset(buf, 0, sizeof(buf));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_extent_count = N;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) == -1) {
			w->unmapped++;
			return 0; /* a file whose places cannot be had */
		}
		if (fm->fm_mapped_extents == 0)
			return 0;
		for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
			const struct fiemap_extent *e = &fm->fm_extents[i];

			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				last = 1;
			start = e->fe_logical + e->fe_length;
			if (e->fe_flags &
			    (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN)) {
				w->delalloc++;
				continue;
			}
			if (e->fe_flags &
			    (FIEMAP_EXTENT_DATA_INLINE |
			        FIEMAP_EXTENT_NOT_ALIGNED))
				continue; /* inside an inode or a tail */
			if (layout_add(w->l, e->fe_physical, e->fe_length, c,
			        RANK_FILE) == -1)
				return -1;
		}
		if (last || fm->fm_mapped_extents < N)
			return 0;
	}
}

static int walk_dir(struct walk *w, int dfd, unsigned depth);

/* One entry of a directory: mapped, and walked when a directory. */
static int
walk_entry(struct walk *w, int dfd, const char *name, unsigned depth)
{
	struct stat st;
	int fd, isdir, r = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    st.st_dev != w->dev)
		return 0; /* gone, or another mount */
	isdir = S_ISDIR(st.st_mode);
	if (S_ISLNK(st.st_mode) && st.st_size >= EXT_LINK_INLINE)
		return note(&w->links, st.st_ino);
	if (!isdir && !S_ISREG(st.st_mode))
		return 0; /* short links and devices: no blocks of their own */
	if (++w->files > WALK_MAX) {
		w->capped = 1;
		return 0;
	}
	if (isdir && note(&w->dirs, st.st_ino) == -1)
		return -1;
	if (!isdir && !w->fiemap)
		return 0;
	fd = openat(dfd, name,
	    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME |
	        (isdir ? O_DIRECTORY : 0));
	if (fd == -1 && errno == EPERM) {
		w->noatime_denied = 1;
		fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
		        (isdir ? O_DIRECTORY : 0));
	}
	if (fd == -1) {
		w->unmapped++;
		return 0;
	}
	if (w->fiemap && fiemap(w, fd, isdir ? LAYOUT_DIR : LAYOUT_DATA) == -1)
		r = -1;
	if (r == 0 && isdir)
		r = walk_dir(w, fd, depth + 1);
	close(fd);
	return r;
}

static int
walk_dir(struct walk *w, int dfd, unsigned depth)
{
	int fd;
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > 4096 || w->capped)
		return 0;
	if ((fd = dup(dfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		w->unmapped++;
		return 0;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		r = walk_entry(w, dfd, e->d_name, depth);
	}
	closedir(d);
	return r;
}

/* A special owner's class, or -1 for one this code does not know. */
static int
special_class(uint64_t owner)
{
	switch (owner) {
	case FMR_OWN_FREE:
		return LAYOUT_FREE;
	case OWN_X(2):
		return LAYOUT_JOURNAL;
	case OWN_X(5):
		return LAYOUT_INODE;
	case OWN_X(7): /* copy-on-write staging: data on its way */
		return LAYOUT_DATA;
	case OWN_X(1):
	case OWN_X(3):
	case OWN_X(4):
	case OWN_X(6):
	case OWN_F(1):
	case OWN_F(2):
	case OWN_F(3):
	case OWN_F(4):
	case FMR_OWN_METADATA:
		return LAYOUT_ALLOC;
	default:
		return -1;
	}
}

/*
 * Every extent GETFSMAP returns on fd's filesystem: special owners into l,
 * blocks of inodes (xfs with reverse mapping) into *own.
 */
static int
getfsmap(int fd, struct layout *l, enum layout_class used, struct owned **own,
    size_t *nown, int *rmap, char *err, size_t errlen)
{
	enum { N = 512 };
	struct fsmap_head *h = calloc(1, fsmap_sizeof(N));
	size_t cap = 0;
	int done = 0;

	if (h == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	h->fmh_count = N;
	h->fmh_keys[1].fmr_device = UINT32_MAX;
	h->fmh_keys[1].fmr_flags = UINT32_MAX;
	h->fmh_keys[1].fmr_physical = UINT64_MAX;
	h->fmh_keys[1].fmr_owner = UINT64_MAX;
	h->fmh_keys[1].fmr_offset = UINT64_MAX;
	while (!done) {
		if (ioctl(fd, FS_IOC_GETFSMAP, h) == -1) {
			snprintf(err, errlen, "GETFSMAP: %s", strerror(errno));
			free(h);
			return -1;
		}
		if (h->fmh_entries == 0)
			break;
		for (unsigned i = 0; i < h->fmh_entries; i++) {
			const struct fsmap *r = &h->fmh_recs[i];
			int c = LAYOUT_UNKNOWN, rank = RANK_META;

			if (r->fmr_flags & FMR_OF_LAST)
				done = 1;
			if (!(r->fmr_flags & FMR_OF_SPECIAL_OWNER)) {
				*rmap = 1;
				if (r->fmr_flags &
				    (FMR_OF_EXTENT_MAP | FMR_OF_ATTR_FORK)) {
					c = LAYOUT_MAP;
				} else {
					if (*nown == cap) {
						size_t nc =
						    cap ? cap * 2 : 1024;
						struct owned *o = realloc(
						    *own, nc * sizeof(*o));

						if (o == NULL)
							goto oom;
						*own = o;
						cap = nc;
					}
					(*own)[(*nown)++] =
					    (struct owned){.ino = r->fmr_owner,
					        .off = r->fmr_physical,
					        .len = r->fmr_length};
					continue;
				}
				rank = RANK_OWNED;
			} else if (r->fmr_owner == FMR_OWN_UNKNOWN) {
				c = used;
				rank = RANK_USED;
			} else if ((c = special_class(r->fmr_owner)) == -1) {
				c = LAYOUT_UNKNOWN;
			} else if (c == LAYOUT_FREE) {
				rank = RANK_USED;
			}
			if (layout_add(l, r->fmr_physical, r->fmr_length,
			        (enum layout_class)c, (unsigned)rank) == -1)
				goto oom;
		}
		fsmap_advance(h);
	}
	free(h);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	free(h);
	return -1;
}

struct ext {
	int fd;
	uint64_t bs, size;
	unsigned blocks;     /* read, to bound a damaged tree */
	enum layout_class c; /* the class of the inode being mapped */
	unsigned rank;       /* and its rank */
};

static int
ext_read(struct ext *x, uint64_t blk, unsigned char *buf)
{
	if (blk == 0 || blk >= x->size / x->bs || ++x->blocks > 65536)
		return -1;
	return pread(x->fd, buf, x->bs, (off_t)(blk * x->bs)) == (ssize_t)x->bs
	    ? 0
	    : -1;
}

/* An extent tree's leaves and its own blocks into l, as x->c. */
static int
ext_extents(struct ext *x, const unsigned char *node, size_t room,
    unsigned depth, struct layout *l)
{
	unsigned n = le16(node + 2);

	if (le16(node) != 0xF30A || depth > 5 || 12 + (size_t)n * 12 > room ||
	    le16(node + 6) != depth)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		const unsigned char *e = node + 12 + 12 * i;

		if (depth == 0) {
			uint64_t len = le16(e + 4), start;

			if (len > 32768)
				len -= 32768; /* unwritten */
			start = (uint64_t)le16(e + 6) << 32 | le32(e + 8);
			if (layout_add(l, start * x->bs, len * x->bs, x->c,
			        x->rank) == -1)
				return -1;
		} else {
			uint64_t leaf =
			    (uint64_t)le16(e + 8) << 32 | le32(e + 4);
			unsigned char *b = malloc(x->bs);
			int r;

			if (b == NULL)
				return -1;
			r = ext_read(x, leaf, b) == -1 ||
			        layout_add(
			            l, leaf * x->bs, x->bs, x->c, x->rank) == -1
			    ? -1
			    : ext_extents(x, b, x->bs, depth - 1, l);
			free(b);
			if (r == -1)
				return -1;
		}
	}
	return 0;
}

/* An indirect block of the given level and its blocks into l, as x->c. */
static int
ext_indirect(struct ext *x, uint64_t blk, unsigned level, struct layout *l)
{
	unsigned char *b;
	int r = 0;

	if (blk == 0)
		return 0;
	if (layout_add(l, blk * x->bs, x->bs, x->c, x->rank) == -1 ||
	    (b = malloc(x->bs)) == NULL)
		return -1;
	if (ext_read(x, blk, b) == -1) {
		free(b);
		return -1;
	}
	for (uint64_t i = 0; r == 0 && i < x->bs / 4; i++) {
		uint64_t p = le32(b + 4 * i);

		if (p == 0)
			continue;
		r = level > 1 ? ext_indirect(x, p, level - 1, l)
		              : layout_add(l, p * x->bs, x->bs, x->c, x->rank);
	}
	free(b);
	return r;
}

/* One inode's blocks, and its map's, into l as x->c. */
static int
ext_inode(
    struct ext *x, const unsigned char *sb, uint32_t inum, struct layout *l)
{
	unsigned char gd[64], ino[256];
	uint32_t ipg = le32(sb + 0x28);
	uint32_t isize = le32(sb + 0x4C) == 0 ? 128 : le16(sb + 0x58);
	uint32_t dsize = (le32(sb + 0x60) & 0x80) ? le16(sb + 0xFE) : 32;
	uint64_t table, gdoff;
	int r = 0;

	if (ipg == 0 || isize < 128 || isize > x->bs || dsize < 32 ||
	    dsize > sizeof(gd))
		return -1;
	gdoff = (le32(sb + 0x14) + 1) * x->bs +
	    (uint64_t)((inum - 1) / ipg) * dsize;
	if (pread(x->fd, gd, dsize, (off_t)gdoff) != (ssize_t)dsize)
		return -1;
	table =
	    le32(gd + 8) | (dsize >= 64 ? (uint64_t)le32(gd + 0x28) << 32 : 0);
	if (pread(x->fd, ino, 128,
	        (off_t)(table * x->bs +
	            (uint64_t)((inum - 1) % ipg) * isize)) != 128)
		return -1;
	if (le16(ino) == 0 && le32(ino + 0x1C) == 0)
		return 0; /* never used */
	if (le32(ino + 0x20) & 0x10000000)
		return 0; /* its data inline: no blocks of its own */
	if (le32(ino + 0x20) & 0x80000)
		return ext_extents(x, ino + 0x28, 60, le16(ino + 0x28 + 6), l);
	for (unsigned i = 0; r == 0 && i < 12; i++)
		if (le32(ino + 0x28 + 4 * i) != 0)
			r = layout_add(l, le32(ino + 0x28 + 4 * i) * x->bs,
			    x->bs, x->c, x->rank);
	for (unsigned i = 0; r == 0 && i < 3; i++)
		r = ext_indirect(x, le32(ino + 0x28 + 4 * (12 + i)), i + 1, l);
	return r;
}

/*
 * ext2/3/4's hidden inodes, from the device: the journal's blocks as the
 * journal, and those of the others the filesystem keeps for itself (the
 * resize inode, quota files, the orphan file) as allocation metadata. No
 * file names them, so neither FIEMAP nor GETFSMAP tells their places. The
 * long links' targets too, as data. -1 when they cannot be read (the
 * reason in why).
 */
static int
ext_hidden(const char *node, const struct inos *links, struct layout *l,
    char *why, size_t whylen)
{
	unsigned char sb[1024];
	struct ext x = {.fd = -1, .rank = RANK_META};
	uint32_t first, journal, extra[4];
	int r = -1;

	if ((x.fd = open(node, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(
		    why, whylen, "cannot open %s: %s", node, strerror(errno));
		return -1;
	}
	/*
	 * Only the blocks asked for, each read before pread returns: the
	 * device's readahead would leave a request in flight after the last
	 * one, counted by the guest's diskstats in the phase where it
	 * completes (on UML's simulated time, the next phase that lets the
	 * guest idle), though the exact probe saw it issued between phases.
	 */
	(void)posix_fadvise(x.fd, 0, 0, POSIX_FADV_RANDOM);
	x.size = (uint64_t)lseek(x.fd, 0, SEEK_END);
	if (pread(x.fd, sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb) ||
	    le16(sb + 0x38) != EXT_MAGIC || le32(sb + 0x18) > 6) {
		snprintf(why, whylen, "%s has no ext superblock", node);
		goto out;
	}
	x.bs = 1024ULL << le32(sb + 0x18);
	first = le32(sb + 0x4C) == 0 ? 11 : le32(sb + 0x54);
	/* A journal on another device has no inode here. */
	journal = (le32(sb + 0x5C) & 0x4) && le32(sb + 0xE4) == 0
	    ? le32(sb + 0xE0)
	    : 0;
	/* The quota files and the orphan file, where they have inodes. */
	extra[0] = le32(sb + 0x240);
	extra[1] = le32(sb + 0x244);
	extra[2] = le32(sb + 0x26C);
	extra[3] = le32(sb + 0x280);
	r = 0;
	for (uint32_t i = 1; r == 0 && i < first && i < 64; i++) {
		if (i == 2)
			continue; /* the root directory: walked */
		x.c = i == journal ? LAYOUT_JOURNAL : LAYOUT_ALLOC;
		r = ext_inode(&x, sb, i, l);
	}
	for (unsigned k = 0; r == 0 && k < 4; k++) {
		if (extra[k] < first || extra[k] > le32(sb + 0x0))
			continue;
		x.c = extra[k] == journal ? LAYOUT_JOURNAL : LAYOUT_ALLOC;
		r = ext_inode(&x, sb, extra[k], l);
	}
	x.c = LAYOUT_DATA;
	x.rank = RANK_FILE;
	for (size_t i = 0; r == 0 && i < links->n; i++)
		r = links->v[i] < first || links->v[i] > le32(sb + 0x0)
		    ? -1
		    : ext_inode(&x, sb, (uint32_t)links->v[i], l);
	if (r == -1)
		snprintf(why, whylen,
		    "%s: a hidden inode's or a long link's map could not be "
		    "read",
		    node);
out:
	close(x.fd);
	return r;
}

/* The owned extents of xfs's reverse map: a directory's or a file's. */
static int
add_owned(struct walk *w, const struct owned *own, size_t nown)
{
	if (nown == 0)
		return 0; /* no reverse map: FIEMAP told the files */
	qsort(w->dirs.v, w->dirs.n, sizeof(*w->dirs.v), by_u64);
	for (size_t i = 0; i < nown; i++) {
		int dir = w->dirs.n > 0 &&
		    bsearch(&own[i].ino, w->dirs.v, w->dirs.n,
		        sizeof(*w->dirs.v), by_u64) != NULL;

		if (layout_add(w->l, own[i].off, own[i].len,
		        dir ? LAYOUT_DIR : LAYOUT_DATA, RANK_OWNED) == -1)
			return -1;
	}
	return 0;
}

int
layout_read_dir(
    const struct target *t, struct layout *l, char *err, size_t errlen)
{
	struct statfs sf;
	struct stat st;
	struct walk w = {.l = l};
	struct owned *own = NULL;
	size_t nown = 0;
	int fd, rmap = 0, ext, r = -1, hidden_lost = 0;
	char why[256] = "", node[64];
	const char *fs = t->fstype;

	if ((fd = open(t->mountpoint, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	        -1 ||
	    fstatfs(fd, &sf) == -1 || fstat(fd, &st) == -1) {
		snprintf(err, errlen, "cannot open '%s': %s", t->mountpoint,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	ext = sf.f_type == EXT_MAGIC;
	if (!ext && sf.f_type != XFS_MAGIC) {
		snprintf(err, errlen, "%s: %s", fs,
		    sf.f_type == BTRFS_MAGIC
		        ? "btrfs answers no GETFSMAP, and its extents are "
		          "logical (chunks mapped onto devices), not places on "
		          "the device"
		        : strncmp(fs, "nfs", 3) == 0
		        ? "an NFS mount's blocks are its server's: a watched "
		          "disk's filesystem is not read"
		        : "attribution reads ext2/3/4 and xfs only");
		close(fd);
		return -1;
	}
	{
		char src[96];

		snprintf(src, sizeof(src), "%s: GETFSMAP, FIEMAP%s", fs,
		    ext ? ", hidden inodes" : "");
		layout_init(l, src);
	}
	if (getfsmap(fd, l, ext ? LAYOUT_MAP : LAYOUT_UNKNOWN, &own, &nown,
	        &rmap, err, errlen) == -1)
		goto out;
	w.dev = st.st_dev;
	w.fiemap = !rmap;
	w.dirs.on = rmap;
	w.links.on = ext;
	/* The root directory is one too. */
	if (note(&w.dirs, st.st_ino) == -1 ||
	    (!rmap && fiemap(&w, fd, LAYOUT_DIR) == -1) ||
	    walk_dir(&w, fd, 0) == -1 || add_owned(&w, own, nown) == -1) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; ext && i < t->ndev; i++) {
		if (strcmp(t->dev[i].role, "fs") != 0)
			continue;
		snprintf(node, sizeof(node), "/dev/%s", t->dev[i].name);
		if (ext_hidden(node, &w.links, l, why, sizeof(why)) == -1) {
			hidden_lost = 1;
			break;
		}
	}
	/*
	 * "In use, not a file's data" means the map class only when the walk
	 * saw every file and the hidden inodes were read.
	 */
	for (size_t i = 0; (w.capped || w.unmapped || hidden_lost) && i < l->n;
	     i++)
		if (l->ext[i].rank == RANK_USED && l->ext[i].cls == LAYOUT_MAP)
			l->ext[i].cls = LAYOUT_UNKNOWN;
	if (layout_finish(l) == -1) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	snprintf(l->note, sizeof(l->note), "%s%s%s%s%s",
	    !ext && !rmap ? "xfs without rmapbt: only file data and free "
	                    "space are told apart (mkfs.xfs -m rmapbt=1); "
	                  : "",
	    w.capped || w.unmapped ? "not every file's places could be read, "
	                             "so blocks in use that none maps are "
	                             "unknown; "
	                           : "",
	    w.delalloc ? "some extents were not yet allocated (delayed); " : "",
	    w.noatime_denied ? "directories read without O_NOATIME; " : "",
	    why);
	r = 0;
out:
	free(own);
	free(w.dirs.v);
	free(w.links.v);
	close(fd);
	if (r == -1)
		layout_free(l);
	return r;
}
