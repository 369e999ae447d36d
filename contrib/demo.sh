#!/bin/sh
# demo.sh - the main job on the bundled emacs-sized archive (`make demo`).
#
# As root on Linux it makes a fresh ext4 on a loop device, so that no other
# I/O shares the device, runs three extractions on it, and removes it after.
# Otherwise it runs in a scratch directory, which shows times and whatever
# the device behind it did (other work included).
set -eu
top=$1
archive=$top/build/fixtures/emacs-like.tar.gz
ubc=$top/ubcreplay
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ubcreplay-demo.XXXXXX")
dev=

cleanup()
{
	if [ -n "$dev" ]; then
		umount "$scratch/mnt" 2>/dev/null || umount -l "$scratch/mnt" 2>/dev/null || :
		losetup -d "$dev" 2>/dev/null || :
	fi
	rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

target=$scratch
if [ "$(uname -s)" = Linux ] && [ "$(id -u)" -eq 0 ] &&
    command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null; then
	truncate -s 1G "$scratch/ext4.img"
	# No lazy init: the kernel must not write in the background meanwhile.
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$scratch/ext4.img"
	dev=$(losetup -f --show "$scratch/ext4.img")
	mkdir "$scratch/mnt"
	mount "$dev" "$scratch/mnt"
	target=$scratch/mnt
	echo "demo: a fresh ext4 on $dev, mounted on $target"
else
	echo "demo: not root on Linux: extracting into $target, on a device" \
	    "other work may share"
fi
echo "demo: ubcreplay -n 3 $(basename "$archive") $target"
echo
"$ubc" -n 3 -o "$top/build/demo.json" "$archive" "$target"
echo
echo "demo: the result is in build/demo.json (ubcreplay report build/demo.json)"
