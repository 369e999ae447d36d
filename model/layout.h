/*
 * layout.h - what a filesystem's blocks held: a map from byte ranges of the
 * filesystem's device to what they belong to (file data, directories,
 * inodes, allocation metadata, mapping blocks, the journal, free space),
 * and the exact view's transfers split by it (attribution).
 *
 * A reader fills the map from the filesystem after a run's sync
 * (traces/layout_linux.c: GETFSMAP and FIEMAP on ext2/3/4 and xfs;
 * traces/ffs_image.c: an FFS image's superblock, cylinder groups and
 * inodes). Extents may overlap: each is added with a rank, and where two
 * overlap the higher rank holds the bytes (a reader adds what it is sure of
 * at a higher rank than what it only knows is in use). Bytes no extent
 * covers are unknown.
 *
 *	struct layout l;
 *	layout_init(&l, "ext4: GETFSMAP, FIEMAP");
 *	layout_add(&l, off, len, LAYOUT_INODE, 2);	any order, any overlap
 *	layout_finish(&l);				sorted, disjoint
 *	layout_split(&l, off, len, by);		bytes of a transfer per class
 *	layout_free(&l);
 */
#ifndef UBC_LAYOUT_H
#define UBC_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

enum layout_class {
	LAYOUT_DATA,    /* regular files' data (and a symbolic link's) */
	LAYOUT_DIR,     /* directories' data */
	LAYOUT_INODE,   /* inode tables, inode blocks */
	LAYOUT_ALLOC,   /* bitmaps, group descriptors, cylinder group
	                   headers, superblocks and their copies, free-space
	                   and inode btrees */
	LAYOUT_MAP,     /* extent-tree, indirect and bmbt blocks: where a
	                   file's data is, not the data */
	LAYOUT_JOURNAL, /* the journal or log */
	LAYOUT_FREE,    /* free when the layout was read */
	LAYOUT_UNKNOWN, /* none of these could be told */
	LAYOUT_NCLASS
};

/* "data", "dir", "inode", "alloc", "map", "journal", "free", "unknown". */
const char *layout_class_name(enum layout_class c);
/* The class named name, or -1. */
int layout_class_find(const char *name);

struct layout_ext {
	uint64_t off, len; /* bytes on the filesystem's device */
	uint32_t seq;      /* the order it was added: ties of rank */
	uint8_t cls;
	uint8_t rank;
};

struct layout {
	struct layout_ext *ext;
	size_t n, cap;
	int finished;    /* ext sorted by off, disjoint, coalesced */
	char source[96]; /* what read it: "ext4: GETFSMAP, FIEMAP" */
	/*
	 * What the reader could not tell and why, or "": bytes it left
	 * unknown, classes it cannot see on this filesystem.
	 */
	char note[256];
};

void layout_init(struct layout *l, const char *source);
void layout_free(struct layout *l);

/*
 * Adds [off, off + len) as class c at rank. -1 (errno ENOMEM) when out of
 * memory; a zero len adds nothing. Only before layout_finish.
 */
int layout_add(struct layout *l, uint64_t off, uint64_t len,
    enum layout_class c, unsigned rank);

/*
 * Makes the map disjoint and sorted: where extents overlap, the one of
 * higher rank holds the bytes (of equal rank, the one added last).
 * Neighbours of one class are joined. -1 when out of memory.
 */
int layout_finish(struct layout *l);

/* The bytes of [off, off + len) in each class, into by[] (added to). */
void layout_split(const struct layout *l, uint64_t off, uint64_t len,
    uint64_t by[LAYOUT_NCLASS]);

/*
 * One direction's transfers by class. A transfer's bytes go to the classes
 * its blocks held; the transfer itself (its count and its size in the
 * histogram) to the class that held most of its bytes (of equal shares, the
 * first in enum order), and it is counted as mixed when it spanned more
 * than one class. So the classes' ops add up to the transfers, and their
 * bytes to the transfers' bytes.
 */
struct layout_xfer {
	uint64_t ops, bytes;
	struct hist size; /* whole transfers' sizes */
};

struct layout_attrib {
	struct layout_xfer cls[LAYOUT_NCLASS];
	uint64_t mixed; /* transfers that spanned classes */
};

/* Counts one transfer of len bytes at off into a. */
void layout_attribute(const struct layout *l, uint64_t off, uint64_t len,
    struct layout_attrib *a);

#endif
