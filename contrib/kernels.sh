#!/bin/sh
# kernels.sh - fetch Debian kernel packages for `ubcreplay vm` and cache them
# unpacked, with the modules.dep the packages do not ship.
#
#   sh contrib/kernels.sh [PACKAGE]...
#
# Without arguments it takes the newest linux-image-6.1.0-N-amd64 and the
# newest linux-image-6.12.N+deb12-amd64 the apt lists offer (chosen now, not
# pinned, so that a version that left the archive is never asked for); the
# plain amd64 flavour, since "cloud" lacks 9p and several filesystems. With
# arguments, those packages (a series of point releases, say).
#
# Each package is cached as `dpkg-deb -x` lays it out, in
# build/kernels/PACKAGE/ (or $UBC_KERNEL_CACHE/PACKAGE/): boot/vmlinuz-R and
# lib/modules/R/ with a modules.dep made by `busybox depmod`. It is unpacked
# in a temporary directory beside and renamed into place only when complete,
# so a cached package is whole and is not fetched again, and a failure leaves
# nothing. With UBC_KERNEL_DEBS=DIR a PACKAGE_*.deb found in DIR is used
# instead of downloading one.
#
# It prints the kernels' paths, one a line, the oldest release first.
# Exit 0, or 1 with the reason (no apt, no network, no such package).
set -eu

me=kernels.sh
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${UBC_KERNEL_CACHE:-$top/build/kernels}
debs=${UBC_KERNEL_DEBS:-}
tmp=

die()
{
	echo "$me: $*" >&2
	exit 1
}

cleanup()
{
	[ -n "$tmp" ] && rm -rf "$tmp"
	tmp=
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

need()
{
	command -v "$1" >/dev/null 2>&1 ||
	    die "needs $1 ($2; contrib/deps.sh test installs it)"
}

# newest PATTERN: the newest package in the apt lists whose name matches the
# extended regular expression.
newest()
{
	pick=$(apt-cache pkgnames linux-image-6. 2>/dev/null |
	    grep -E "^$1\$" | sort -V | tail -n 1)
	[ -n "$pick" ] ||
	    die "no package matching $1 in the apt lists (run apt-get update as root, or name the packages)"
	echo "$pick"
}

# deb_of PACKAGE DIR: a .deb of PACKAGE in DIR, downloaded or from $debs.
deb_of()
{
	if [ -n "$debs" ]; then
		# shellcheck disable=SC2012
		f=$(ls -d "$debs/$1"_*.deb 2>/dev/null | sort -V | tail -n 1)
		if [ -n "$f" ]; then
			echo "$f"
			return 0
		fi
	fi
	need apt-get "apt"
	echo "$me: downloading $1" >&2
	(cd "$2" && apt-get download -q "$1" >/dev/null 2>"$2/err") ||
	    die "cannot download '$1': $(grep -v '^W:' "$2/err" | tail -n 1)"
	f=$(ls -d "$2/$1"_*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] || die "cannot download '$1': apt-get left no .deb"
	echo "$f"
}

# fetch PACKAGE: the package cached and complete.
fetch()
{
	[ -d "$cache/$1" ] && return 0
	tmp=$(mktemp -d "$cache/.$1.XXXXXX")
	deb=$(deb_of "$1" "$tmp")
	name=$(dpkg-deb -f "$deb" Package 2>/dev/null) ||
	    die "'$deb' is not a Debian package"
	[ "$name" = "$1" ] || die "'$deb' holds $name, not $1"
	echo "$me: unpacking $1" >&2
	dpkg-deb -x "$deb" "$tmp/root" || die "cannot unpack '$deb'"
	set -- "$1" "$(ls "$tmp/root/lib/modules" 2>/dev/null)"
	[ -n "$2" ] && [ -f "$tmp/root/boot/vmlinuz-$2" ] ||
	    die "$1 holds no kernel (no boot/vmlinuz-RELEASE and lib/modules/RELEASE)"
	busybox depmod -b "$tmp/root" "$2" ||
	    die "busybox depmod failed for $1 ($2)"
	[ -s "$tmp/root/lib/modules/$2/modules.dep" ] ||
	    die "busybox depmod made no modules.dep for $1 ($2)"
	# Another run may have put it in place meanwhile: then theirs stays.
	if ! mv -T "$tmp/root" "$cache/$1" 2>/dev/null; then
		[ -d "$cache/$1/boot" ] || die "cannot move $1 into '$cache'"
	fi
	cleanup
}

need dpkg-deb "dpkg"
need busybox "busybox-static"
mkdir -p "$cache" || die "cannot make '$cache'"
if [ $# -eq 0 ]; then
	need apt-cache "apt"
	# The lists are fetched once, when they hold no kernel and we may.
	if [ -z "$(apt-cache pkgnames linux-image-6. 2>/dev/null)" ] &&
	    [ "$(id -u)" -eq 0 ]; then
		echo "$me: apt-get update" >&2
		err=$(apt-get update -qq 2>&1 >/dev/null) ||
		    die "apt-get update failed (no network?): $err"
	fi
	old=$(newest 'linux-image-6\.1\.0-[0-9]+-amd64')
	new=$(newest 'linux-image-6\.12\.[0-9]+\+deb12-amd64')
	set -- "$old" "$new"
fi
for p in "$@"; do
	# The name becomes a directory: no paths, no options.
	echo "$p" | grep -Eq '^linux-image-[A-Za-z0-9][A-Za-z0-9.+~-]*$' ||
	    die "'$p' is not a kernel image package name (linux-image-...)"
done

out=
for p in "$@"; do
	fetch "$p"
	r=$(ls "$cache/$p/lib/modules")
	out="$out$r $cache/$p/boot/vmlinuz-$r
"
done
printf '%s' "$out" | sort -V -k1,1 -u | cut -d' ' -f2-
