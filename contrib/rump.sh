#!/bin/sh
# rump.sh - `make rump`: NetBSD's FFS (NetBSD 7.99.34) as rump kernel
# libraries for Linux, built once from the NetBSD bundle into
# $UBC_RUMP_CACHE (/var/cache/ubcreplay/rump when writable, else
# ~/.cache/ubcreplay/rump); prints the directory that holds their lib/ and
# include/. A second run with everything built takes a few seconds.
#
#   sh contrib/rump.sh [-j N]
#
# The bundle ($UBC_NETBSD_BUNDLE, default ../../shared/netbsd from this
# script's directory; its README.md tells what it holds) is checked against
# its SHA256SUMS; its source tarball is unpacked once, outside the clone,
# into UBC_RUMP_CACHE/bundle-src/HASH/src-netbsd (HASH: the first 12 hex
# digits of the tarball's sha256), and contrib/rump-kbuild.sh builds it, with
# our patches (contrib/rump-patches; when they change, the old ones are
# reverted first), in UBC_RUMP_CACHE/bundle. The Debian
# packages it needs are installed when missing (contrib/deps.sh rump).
#
# To build a changed tree, copy the unpacked one (cp -a keeps the times
# that make the copy's build incremental), edit, and:
#   sh contrib/rump-kbuild.sh -s UBC_RUMP_CACHE/bundle COPY
#
# Exit 0 with the directory on stdout; 3 when there is no bundle (the
# caller can tell "absent" from "failed"); 1 when something failed.
set -u

me=rump.sh
here=$(cd "$(dirname "$0")" && pwd)
jobs=
while getopts j: opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	*) echo "usage: $me [-j N]" >&2; exit 1 ;;
	esac
done

die()
{
	echo "$me: $*" >&2
	exit 1
}

bundle=${UBC_NETBSD_BUNDLE:-$here/../../shared/netbsd}
if [ ! -d "$bundle" ]; then
	echo "$me: no NetBSD bundle at $bundle: no such directory (set UBC_NETBSD_BUNDLE)" >&2
	exit 3
fi
bundle=$(cd "$bundle" && pwd -P)
if [ ! -f "$bundle/SHA256SUMS" ]; then
	echo "$me: no NetBSD bundle at $bundle: no SHA256SUMS there (set UBC_NETBSD_BUNDLE)" >&2
	exit 3
fi
srctar=$(sed -n 's/^[0-9a-f]\{64\}  *\(src-netbsd-[^/]*\.tar\.xz\)$/\1/p' "$bundle/SHA256SUMS" | head -n 1)
[ -n "$srctar" ] || die "$bundle/SHA256SUMS names no src-netbsd-*.tar.xz"

sh "$here/deps.sh" rump || die "missing Debian packages (above)"

(cd "$bundle" && sha256sum -c --quiet SHA256SUMS >&2) ||
    die "$bundle: files do not match SHA256SUMS (above)"
sum=$(sed -n "s/^\([0-9a-f]\{12\}\)[0-9a-f]*  *$(printf '%s' "$srctar" | sed 's/[.]/[.]/g')\$/\1/p" \
    "$bundle/SHA256SUMS")

cache=${UBC_RUMP_CACHE:-}
if [ -z "$cache" ]; then
	cache=/var/cache/ubcreplay/rump
	mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
	    cache=${XDG_CACHE_HOME:-$HOME/.cache}/ubcreplay/rump
fi
export UBC_RUMP_CACHE="$cache" UBC_NETBSD_BUNDLE="$bundle"
src=$cache/bundle-src/$sum/src-netbsd
if [ ! -f "$src/build.sh" ]; then
	t=$cache/bundle-src/$sum.tmp$$
	echo "$me: unpacking $srctar into $(dirname "$src")" >&2
	rm -rf "$t" && mkdir -p "$t" && tar -xJf "$bundle/$srctar" -C "$t" &&
	    [ -f "$t/src-netbsd/build.sh" ] &&
	    mkdir -p "$(dirname "$src")" && mv -T "$t/src-netbsd" "$src" || {
		rm -rf "$t"
		[ -f "$src/build.sh" ] || die "cannot unpack $srctar into $(dirname "$src")"
	}
	rm -rf "$t"
fi

# Our patches change now and then: the tree keeps copies of the ones it was
# given (rump-kbuild.sh applies them); when they differ from ours, those
# are reverted first (what they touched gets rebuilt), and ours recorded.
given=$(dirname "$src")/patches
if ! diff -r "$given" "$here/rump-patches" >/dev/null 2>&1; then
	for p in $(ls -r "$given"/*.patch 2>/dev/null); do
		if patch -s -f -R --dry-run -p1 -d "$src" <"$p" >/dev/null 2>&1; then
			patch -s -f -R -p1 -d "$src" --no-backup-if-mismatch <"$p" >/dev/null ||
			    die "cannot revert $p in $src: remove $(dirname "$src")"
			echo "$me: reverted the old $(basename "$p") in $src" >&2
		fi
	done
	rm -rf "$given" && mkdir -p "$given" &&
	    { [ -z "$(ls "$here"/rump-patches/*.patch 2>/dev/null)" ] ||
		cp -p "$here"/rump-patches/*.patch "$given"/; } ||
	    die "cannot record the patches in $given"
fi

exec sh "$here/rump-kbuild.sh" ${jobs:+-j "$jobs"} -O "$cache/bundle" "$src"
