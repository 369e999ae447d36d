#!/bin/sh
# uml.sh - `make uml`: the User Mode Linux kernel tests/uml_test.sh boots,
# built once from Debian's linux-source-6.1 (unpacked outside the clone
# into $UBC_UML_SRC, default /var/cache/ubcreplay/src/um) with
# `contrib/vm-kbuild.sh -a um -c tinyconfig`, into the kbuild cache
# (NAME-umtiny-HASH; with ccache): cold in minutes, a few seconds when
# built. Prints the kernel program (DIR/linux).
#
#   sh contrib/uml.sh [-n]
#
#   -n  never build: the program when it is built, else exit 3 with the
#       reason (umtiny.why's, when a build failed): how the tests and
#       benches that need it find it
#
# Exit 0 with the program on stdout; 3 when there is no source
# (/usr/src/linux-source-6.1.tar.xz: apt-get install linux-source-6.1),
# 1 when the build failed. Either way the reason is on stderr and, for
# the tests to name when they skip, in $UBC_KBUILD_CACHE/umtiny.why
# (removed when the build succeeds).
set -u

me=uml.sh
here=$(cd "$(dirname "$0")" && pwd)
query=
case ${1:-} in
'') ;;
-n) query=1 ;;
*) echo "usage: sh contrib/uml.sh [-n]" >&2 && exit 2 ;;
esac

cache=${UBC_KBUILD_CACHE:-}
if [ -z "$cache" ]; then
	cache=/var/cache/ubcreplay/kbuild
	mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
	    cache=${XDG_CACHE_HOME:-$HOME/.cache}/ubcreplay/kbuild
fi
mkdir -p "$cache" || exit 1
why=$cache/umtiny.why

# fail CODE WHY: the reason on stderr and in umtiny.why.
fail()
{
	echo "$me: $2" >&2
	echo "$2" >"$why"
	exit "$1"
}

tar=/usr/src/linux-source-6.1.tar.xz
srcdir=${UBC_UML_SRC:-$(dirname "$cache")/src/um}
tree=$srcdir/linux-source-6.1
if [ -n "$query" ]; then
	# vm-kbuild.sh's own name for the tree's tinyconfig build.
	hash=$(printf '%s' "$tree" | sha256sum | cut -c1-8)
	linux=$cache/linux-source-6.1-umtiny-$hash/linux
	[ -x "$linux" ] && [ -f "$tree/Makefile" ] && echo "$linux" && exit 0
	msg="the tests' UML kernel is not built ($linux)"
	[ ! -x "$linux" ] ||
	    msg="the tests' UML kernel ($linux) is built, but the tree it was built from is gone ($tree)"
	[ -x "$linux" ] || [ ! -f "$why" ] || msg=$(cat "$why")
	echo "$me: $msg: make uml builds it" >&2
	exit 3
fi
if [ ! -f "$tree/Makefile" ]; then
	[ -f "$tar" ] ||
	    fail 3 "no kernel source: no $tree, no $tar (apt-get install linux-source-6.1)"
	# Unpacked beside, then moved: a run stopped half-way leaves no tree.
	mkdir -p "$srcdir" && rm -rf "$tree.unpacking" &&
	    mkdir "$tree.unpacking" &&
	    tar xf "$tar" -C "$tree.unpacking" &&
	    mv "$tree.unpacking/linux-source-6.1" "$tree" &&
	    rmdir "$tree.unpacking" ||
	    fail 1 "cannot unpack $tar into $srcdir"
fi
if ! dir=$(UBC_KBUILD_CACHE=$cache sh "$here/vm-kbuild.sh" -a um \
    -c tinyconfig "$tree" 2>"$cache/umtiny.err"); then
	cat "$cache/umtiny.err" >&2
	fail 1 "the UML kernel's build failed: $(grep 'vm-kbuild.sh: ' "$cache/umtiny.err" | tail -n 1)"
fi
rm -f "$why" "$cache/umtiny.err"
echo "$dir/linux"
