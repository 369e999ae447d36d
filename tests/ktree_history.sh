#!/bin/sh
# ktree_history.sh - makes Debian's 6.1 kernel source into the small git
# history the from-source tests bisect (tests/ktree_test.sh):
#
#   base       the tarball as Debian ships it
#   unrelated  a message at boot reworded (init/main.c)
#   regress    ext4's writeback bios capped at 8 pages and kept from merging
#              (fs/ext4/page-io.c): the disk receives smaller writes
#   unrelated2 a message at mount reworded (fs/ext4/super.c)
#
# It leaves the base checked out.
# Usage: ktree_history.sh TARBALL DIR. The commits' authors and dates are
# fixed, so the same tarball gives the same commit ids on every machine; a
# DIR that already holds the four tags is left as it is.
#
#   ktree_history.sh -e COMMIT DIR
#
# makes COMMIT's edit alone (unrelated, regress or unrelated2) to the tree
# in DIR (or the part of one holding the file it edits), in place, with no
# git: the same change built beside a tree that is not this history
# (tests/ktree_test.sh, virtio_verdicts; bench/verdict_time.sh).
set -eu

# check FILE PATTERN: the edit before it must have changed FILE.
check()
{
	grep -q "$2" "$dir/$1" || {
		echo "ktree_history.sh: $1: the edit did not apply" >&2
		exit 1
	}
}

# edit COMMIT: COMMIT's change to the files in $dir.
edit()
{
	case $1 in
	unrelated)
		sed -i 's/"Kernel command line: %s\\n"/"Kernel command line (as given): %s\\n"/' \
		    "$dir/init/main.c"
		check init/main.c 'Kernel command line (as given)'
		;;
	regress)
		# The cap alone would be undone: the block layer merges
		# adjacent bios of one plug into one request. REQ_NOMERGE
		# keeps each bio a request of its own, so a file's data
		# reaches the disk in pieces of at most 32 KiB, and the data
		# of small files written back together no longer goes out as
		# one large request.
		sed -i 's/bio = bio_alloc(bh->b_bdev, BIO_MAX_VECS, REQ_OP_WRITE, GFP_NOIO);/bio = bio_alloc(bh->b_bdev, EXT4_IO_MAX_VECS,\n\t\t\tREQ_OP_WRITE | REQ_NOMERGE, GFP_NOIO);/' \
		    "$dir/fs/ext4/page-io.c"
		sed -i 's/^static void io_submit_init_bio(struct ext4_io_submit \*io,$/\/* Short bios, each its own request: less for one writer to wait behind. *\/\n#define EXT4_IO_MAX_VECS 8\n\n&/' \
		    "$dir/fs/ext4/page-io.c"
		check fs/ext4/page-io.c 'EXT4_IO_MAX_VECS,'
		check fs/ext4/page-io.c '^#define EXT4_IO_MAX_VECS 8'
		;;
	unrelated2)
		sed -i 's/"mounted filesystem with%s. "/"mounted filesystem, with%s. "/' \
		    "$dir/fs/ext4/super.c"
		check fs/ext4/super.c '"mounted filesystem, with%s. "'
		;;
	*)
		echo "ktree_history.sh: no commit '$1' in the history (unrelated, regress, unrelated2)" >&2
		exit 2
		;;
	esac
}

if [ "${1:-}" = -e ]; then
	[ $# -eq 3 ] && [ -d "$3" ] || {
		echo "usage: ktree_history.sh -e COMMIT DIR (DIR a kernel tree, or the part of one COMMIT edits)" >&2
		exit 2
	}
	dir=$3
	edit "$2"
	exit 0
fi
tarball=$1
dir=$2

if [ -d "$dir/.git" ] && git -C "$dir" rev-parse -q --verify unrelated2 \
    >/dev/null; then
	exit 0
fi
# A tree already extracted there (and perhaps being built with O=) is
# taken as the base as it is; anything else there is replaced.
if [ -d "$dir/.git" ] || [ ! -f "$dir/Makefile" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1
fi

export GIT_AUTHOR_NAME=ubcreplay GIT_AUTHOR_EMAIL=ubcreplay@localhost
export GIT_COMMITTER_NAME=ubcreplay GIT_COMMITTER_EMAIL=ubcreplay@localhost
n=0
commit()
{
	n=$((n + 1))
	export GIT_AUTHOR_DATE="2026-01-01T00:0$n:00Z"
	export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	git -C "$dir" commit -q -a -m "$2"
	git -C "$dir" tag "$1"
}

git -C "$dir" init -q
git -C "$dir" config core.autocrlf false
# Debian's top-level .gitignore ignores everything but debian/: the files
# are added by force, once, and later commits take what changed.
git -C "$dir" add -f .
commit base "Debian's linux-source-6.1 as shipped"

edit unrelated
commit unrelated "init: say that the command line is printed as given"

edit regress
commit regress "ext4: write back in bios of at most 8 pages, unmerged"

edit unrelated2
commit unrelated2 "ext4: a comma in the mount message"
git -C "$dir" checkout -q base
