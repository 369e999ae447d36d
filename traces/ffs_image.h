/*
 * ffs_image.h - what an FFS image's blocks held, read from the image
 * itself: its superblock, its cylinder groups' headers and free maps, every
 * inode in use and the blocks it points at, and NetBSD's WAPBL log. For
 * attribution (model/layout.h) on an ffs:IMAGE target, whose copy is read
 * after the run's sync, the rump kernel may still have it mounted.
 *
 * UFS1 and UFS2 in either byte order (the superblock's magic tells), as
 * NetBSD's makefs and kernel write them. The image is not trusted: every
 * field is checked before it is used, every read is bounded by the image's
 * size, and so is the memory and the time spent (an indirect block is read
 * once at most). A bad image gives -1 and a message naming the field:
 * "fs_ncg 2147483647 does not fit an image of 536870912 bytes".
 *
 *	struct layout l;
 *	layout_init(&l, "ffs");
 *	if (ffs_image_layout(fd, &l, err, sizeof(err)) == -1)
 *		warnx("%s: %s", path, err);	l left empty
 *	layout_split(&l, off, len, by);		l finished, source and note set
 *	layout_free(&l);
 *
 * Ranks: superblocks, cylinder groups, the summary area, inode blocks and
 * the log's place in the superblock are sure (3); what inodes claim, data,
 * directories and indirect blocks, is below them (2); the free maps are
 * below that (1). A fragment in use that no inode claims (the boot area,
 * an inode written after its blocks) stays unknown.
 */
#ifndef UBC_FFS_IMAGE_H
#define UBC_FFS_IMAGE_H

#include <stddef.h>

#include "../model/layout.h"

/*
 * The layout of the FFS filesystem in the image open on fd, into l
 * (layout_init'd by the caller), finished. -1 with the reason in err when
 * the image is not one; l is then emptied.
 */
int ffs_image_layout(int fd, struct layout *l, char *err, size_t errlen);

/* The same from the image's path: l is layout_init'd here. */
int ffs_image_layout_path(
    const char *path, struct layout *l, char *err, size_t errlen);

/*
 * The superblock of the image at path found, and its geometry checked: the
 * block and fragment sizes, and every field derived from them (shifts,
 * masks, fs_nindir, fs_inopb, fs_fsbtodb), which the kernel trusts. 0, or
 * -1 with the field named in err. What a mount before a run needs that the
 * kernel does not check itself; the rest of the image is its to judge, and
 * so is an image with no superblock at all (0: the mount says it is not
 * FFS).
 */
int ffs_image_check_path(const char *path, char *err, size_t errlen);

#endif
