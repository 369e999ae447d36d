#!/bin/sh
# demo.sh - the main job on the bundled emacs-sized archive (`make demo`).
#
# As root on Linux it makes a fresh ext4 on a loop device, so that no other
# I/O shares the device, runs three extractions on it, and removes it after.
# Otherwise it runs in a scratch directory, which shows times and whatever
# the device behind it did (other work included). Then, where the NetBSD
# bundle is (../shared/netbsd), the same archive into NetBSD's FFS in rump
# kernels, plain and with its journal (`make rump` builds them first, once:
# about two minutes), and their comparison.
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

rc=0
rump=$(sh "$top/contrib/rump.sh") || rc=$?
if [ "$rc" -eq 3 ]; then
	echo "demo: no NetBSD bundle: no NetBSD FFS (see README)"
	exit 0
fi
[ "$rc" -eq 0 ] || { echo "demo: make rump failed" >&2; exit 1; }
command -v makefs >/dev/null || { echo "demo: no makefs" >&2; exit 1; }
mkdir "$scratch/empty"
for m in plain log; do
	makefs -t ffs -o version=2,bsize=16384,fsize=2048 -f 40000 -s 512m \
	    "$scratch/$m.img" "$scratch/empty" >/dev/null
	o=
	[ $m = plain ] || o="-O $m"
	echo
	echo "demo: ubcreplay $o -n 3 $(basename "$archive") ffs:$m.img (NetBSD's FFS, $rump)"
	echo
	# shellcheck disable=SC2086
	"$ubc" --rump "$rump" $o -n 3 -o "$top/build/demo-ffs-$m.json" "$archive" \
	    "ffs:$scratch/$m.img"
done
echo
"$ubc" compare "$top/build/demo-ffs-plain.json" "$top/build/demo-ffs-log.json" |
    sed -n '1,/^write.mean_bytes /p'
echo "demo: NetBSD's results are in build/demo-ffs-plain.json and build/demo-ffs-log.json"
