#!/bin/sh
# deb-module.sh - a Debian kernel package, as contrib/kernels.sh unpacks
# it (boot/vmlinuz-REL, lib/modules/REL), copied with modules of its own
# in place of the package's, for `ubcreplay vm -k`: a patch to code that
# Debian builds as a module judged on Debian's kernel, built in seconds.
# The module's sources are SRC/DIR, laid out as in the kernel tree (a
# Makefile or Kbuild naming the objects), built against the package's
# headers (/usr/src/linux-headers-REL), with ccache when it is installed
# (CCACHE_DIR: by default beside the kbuild cache, as vm-kbuild.sh's);
# each DIR/NAME.ko built takes the place of the package's
# kernel/DIR/NAME.ko (or .ko.xz, compressed again). The copy is made of
# hard links where it can be, and the replaced files are new ones: the
# package itself is never written.
#
#   sh contrib/deb-module.sh PKG SRC DIR OUT
#
# OUT must not exist yet. Prints OUT/boot/vmlinuz-REL. Exit 0 when built;
# 2 when an argument is wrong (the package has no such module among
# them); 3 when the package's headers are not installed (apt-get install
# linux-headers-REL); 1 when the build or the copy failed. The reason
# is on stderr; make's output in SRC/DIR/deb-module.log.
set -u

me=deb-module.sh

die()
{
	echo "$me: $2" >&2
	exit "$1"
}

[ $# -eq 4 ] || die 2 "usage: sh contrib/deb-module.sh PKG SRC DIR OUT"
pkg=$1 src=$2 dir=$3 out=$4
rel=$(ls "$pkg/lib/modules" 2>/dev/null)
[ -n "$rel" ] && [ "$(echo "$rel" | wc -l)" -eq 1 ] &&
    [ -f "$pkg/boot/vmlinuz-$rel" ] ||
    die 2 "PKG '$pkg' is not one unpacked kernel package (boot/vmlinuz-REL and lib/modules/REL)"
[ -f "$src/$dir/Makefile" ] || [ -f "$src/$dir/Kbuild" ] ||
    die 2 "'$src/$dir' has no Makefile or Kbuild to build"
[ ! -e "$out" ] || die 2 "OUT '$out' exists already"
hdr=/usr/src/linux-headers-$rel
[ -f "$hdr/Module.symvers" ] ||
    die 3 "no headers for $rel in $hdr: apt-get install linux-headers-$rel"

m=$(cd "$src/$dir" && pwd)
ccache=
if command -v ccache >/dev/null 2>&1; then
	ccache=DEBIAN_KERNEL_USE_CCACHE=1
	: "${CCACHE_DIR:=$(dirname "${UBC_KBUILD_CACHE:-/var/cache/ubcreplay/kbuild}")/ccache}"
	export CCACHE_DIR
fi
make -s -j"$(nproc)" -C "$hdr" M="$m" $ccache modules >"$m/deb-module.log" 2>&1 ||
    die 1 "building $dir against $hdr: $(tail -n 3 "$m/deb-module.log" | tr '\n' ' ')"
kos=$(cd "$m" && ls -- *.ko 2>/dev/null)
[ -n "$kos" ] || die 1 "building $dir made no module"
kdir=lib/modules/$rel/kernel/$dir
for ko in $kos; do
	[ -f "$pkg/$kdir/$ko" ] || [ -f "$pkg/$kdir/$ko.xz" ] ||
	    die 2 "$rel has no module $kdir/$ko to replace"
done

# A copy that fails half-linked (another file system) starts again whole.
cp -al "$pkg" "$out" 2>/dev/null || { rm -rf "$out" && cp -a "$pkg" "$out"; } ||
    { rm -rf "$out"; die 1 "cannot copy '$pkg' to '$out'"; }
for ko in $kos; do
	t=$out/$kdir/$ko
	if [ -f "$t" ]; then
		rm "$t" && cp "$m/$ko" "$t"
	else
		rm "$t.xz" && xz -c --check=crc32 "$m/$ko" >"$t.xz"
	fi || { rm -rf "$out"; die 1 "cannot put $ko in '$out'"; }
done
echo "$out/boot/vmlinuz-$rel"
