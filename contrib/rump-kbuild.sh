#!/bin/sh
# rump-kbuild.sh - builds a NetBSD source tree's FFS as rump kernel libraries
# (librumpuser, librump, librumpvfs, librumpdev, librumpdev_disk,
# librumpfs_ffs) with buildrump.sh, incrementally, and prints the directory
# that holds their lib/ and include/. `make rump` runs it on the bundled
# tree (contrib/rump.sh); run it yourself on a tree you changed.
#
#   rump-kbuild.sh [-O OBJDIR] [-s BASE] [-j N] SRCDIR
#
#   SRCDIR   a NetBSD tree in the bundle's layout (src-netbsd/: build.sh,
#            share/mk, tools/, sys/), maybe a git work tree with changes
#            to sys/ufs/ffs, sys/miscfs/genfs, sys/kern/vfs_*.c ...
#   -O DIR   the build directory, kept between runs so that the next build
#            is incremental (after one edited FFS file: seconds). Default
#            $UBC_RUMP_CACHE/NAME-HASH: NAME the tree's directory name,
#            HASH from its absolute path; UBC_RUMP_CACHE defaults to
#            /var/cache/ubcreplay/rump when writable, else
#            ~/.cache/ubcreplay/rump
#   -s BASE  an empty or absent build directory starts as a copy of BASE,
#            the build directory of another tree (the same NetBSD
#            revision), its recorded paths rewritten to this tree: a
#            patched copy of a tree then rebuilds only what differs. Only
#            files whose modification times are older than BASE's objects
#            count as unchanged: copy trees with cp -a (a fresh git
#            checkout dates every file now, and everything is rebuilt)
#   -j N     make's jobs (default: the processors online)
#
# The tree is built where it is, and ubcreplay's patches to it,
# contrib/rump-patches/*.patch (in name order), are applied to it in place
# when not there yet, each named on stderr: the tree is then changed, and
# a git tree shows them as modifications (revert: patch -R -p1 < PATCH). A
# patch already applied is left as it is. When one does not apply (the
# tree changed those lines), nothing is built, the patches this run applied
# are reverted, and the error names the patch and the files.
#
# The build directory holds obj/ (buildrump.sh's objects; its tools, nbmake
# and the rest, in obj/tooldir, built on the first run only), rump/ (the
# installed libraries and headers: printed on success) and build.log.
# buildrump.sh itself comes from the NetBSD bundle ($UBC_NETBSD_BUNDLE,
# default ../../shared/netbsd from this script's directory: the tarball and
# buildrump-minimal-ffs.patch), unpacked once into UBC_RUMP_CACHE. The
# compilers are ccache's when ccache is installed (CCACHE_DIR defaults to
# ccache/ beside the cache, shared with vm-kbuild.sh): that makes a build
# in an emptied build directory about 2.5 times faster; an incremental
# build gains nothing.
#
# Output: the install directory alone on stdout. It gets a file
# ubcreplay-build: src=SRCDIR, commit= (git rev-parse --short HEAD, empty
# outside git), dirty=0|1 (tracked files under SRCDIR differ from HEAD, our
# patches included, as built), sources= (outside git, or dirty: the first
# 12 hex digits of a SHA-256 over the names and contents of the files under
# sys/ and lib/librumpuser/, as built, so that two trees without a commit
# are told apart; empty for a clean commit), patches= (ours applied, by
# name). Errors on
# stderr, "rump-kbuild.sh: ...", with the log's last 20 lines when the build
# failed; exit 1.
set -u

me=rump-kbuild.sh
here=$(cd "$(dirname "$0")" && pwd)
obj=
seed=
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

die()
{
	echo "$me: $*" >&2
	exit 1
}

usage="usage: $me [-O OBJDIR] [-s BASE] [-j N] SRCDIR"
while getopts O:s:j: opt; do
	case $opt in
	O) obj=$OPTARG ;;
	s) seed=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) die "$usage" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || die "$usage"
case $jobs in
'' | *[!0-9]* | 0) die "-j '$jobs': a number of jobs" ;;
esac

src=$(cd "$1" 2>/dev/null && pwd -P) || die "'$1': no such directory"
[ -f "$src/build.sh" ] && [ -d "$src/share/mk" ] && [ -d "$src/tools" ] &&
    [ -f "$src/sys/rump/librump/rumpvfs/rumpblk.c" ] ||
    die "'$1' is not a NetBSD source tree (no build.sh, share/mk, tools and sys/rump)"

bundle=${UBC_NETBSD_BUNDLE:-$here/../../shared/netbsd}
brtar=$bundle/buildrump.sh-6cccd46.tar.xz
brpatch=$bundle/buildrump-minimal-ffs.patch
[ -f "$brtar" ] && [ -f "$brpatch" ] ||
    die "no buildrump.sh in the NetBSD bundle '$bundle' (buildrump.sh-6cccd46.tar.xz, buildrump-minimal-ffs.patch); set UBC_NETBSD_BUNDLE"

cache=${UBC_RUMP_CACHE:-}
if [ -z "$cache" ]; then
	cache=/var/cache/ubcreplay/rump
	mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
	    cache=${XDG_CACHE_HOME:-$HOME/.cache}/ubcreplay/rump
fi
mkdir -p "$cache" 2>/dev/null || die "cannot make the cache '$cache'"
if [ -z "$obj" ]; then
	hash=$(printf '%s' "$src" | sha256sum | cut -c1-8)
	obj=$cache/$(basename "$src")-$hash
fi

# buildrump.sh, patched, once per (tarball, patch) pair.
brkey=$(cat "$brtar" "$brpatch" | sha256sum | cut -c1-12)
brdir=$cache/buildrump.sh-$brkey/buildrump.sh
if [ ! -x "$brdir/buildrump.sh" ]; then
	(
		cd "$bundle" && grep -E ' (buildrump\.sh-6cccd46\.tar\.xz|buildrump-minimal-ffs\.patch)$' SHA256SUMS |
		    sha256sum -c --quiet - >&2
	) || die "$bundle: buildrump.sh-6cccd46.tar.xz or buildrump-minimal-ffs.patch does not match SHA256SUMS"
	t=$cache/buildrump.sh-$brkey.tmp$$
	rm -rf "$t" && mkdir -p "$t" &&
	    tar -xJf "$brtar" -C "$t" &&
	    (cd "$t/buildrump.sh" && patch -s -p1 <"$brpatch") &&
	    mkdir -p "$(dirname "$brdir")" && mv -T "$t/buildrump.sh" "$brdir" ||
	    {
		    rm -rf "$t"
		    [ -x "$brdir/buildrump.sh" ] ||
			die "cannot unpack buildrump.sh into '$(dirname "$brdir")'"
	    }
	rm -rf "$t"
fi

# The compilers: ccache's when there is one (gcc for the rump libraries,
# cc for the host tools). CC names one executable: buildrump.sh compiles
# its path into its compiler wrapper.
cc=cc
hostcc=cc
if [ -x /usr/lib/ccache/gcc ] && command -v ccache >/dev/null 2>&1; then
	cc=/usr/lib/ccache/gcc
	hostcc=/usr/lib/ccache/cc
	: "${CCACHE_DIR:=$(dirname "$cache")/ccache}"
	export CCACHE_DIR
fi

# Seeding: a copy of BASE with BASE's paths (its build directory, its
# source tree) rewritten to ours in every text file buildrump.sh and make
# keep there (tool wrappers, mk.conf, .d dependency files), modification
# times kept. Else make would check the BASE tree's headers, and the tool
# wrappers would build into BASE.
#
# reseat FROM_OBJ TO_OBJ FROM_SRC TO_SRC: in the files named on stdin, each
# path FROM_* (ending where no path character follows) becomes TO_*,
# modification times kept. Perl when it has Time::HiRes (one process), else
# sed, stat and touch for each file (618 files: about 5 s).
reseat()
{
	if perl -MTime::HiRes -e 1 2>/dev/null; then
		perl -MTime::HiRes=stat,utime -e '
			my ($fo, $to, $fs, $ts) = @ARGV;
			my $end = qr/(?![A-Za-z0-9._+-])/;
			while (my $f = <STDIN>) {
				chomp $f;
				my @st = stat($f) or die "$f: $!\n";
				open(my $in, "<", $f) or die "$f: $!\n";
				my $s = do { local $/; <$in> };
				close($in);
				$s =~ s/\Q$fo\E$end/\x01O\x01/g;
				$s =~ s/\Q$fs\E$end/\x01S\x01/g if $fs ne $ts;
				$s =~ s/\x01O\x01/$to/g;
				$s =~ s/\x01S\x01/$ts/g;
				open(my $out, ">", $f) or die "$f: $!\n";
				print $out $s or die "$f: $!\n";
				close($out) or die "$f: $!\n";
				utime($st[8], $st[9], $f) or die "$f: $!\n";
			}' "$@"
		return
	fi
	esc() { printf '%s' "$1" | sed 's/[][\.*^$#]/\\&/g'; }
	resc() { printf '%s' "$1" | sed 's/[\&#]/\\&/g'; }
	end='\([^A-Za-z0-9._+-]\|$\)'
	script="s#$(esc "$1")$end#\\x01O\\x01\\1#g"
	[ "$3" = "$4" ] || script="$script;s#$(esc "$3")$end#\\x01S\\x01\\1#g"
	script="$script;s#\\x01O\\x01#$(resc "$2")#g;s#\\x01S\\x01#$(resc "$4")#g"
	while IFS= read -r f; do
		t=$(stat -c %y "$f") && sed -i "$script" "$f" && touch -d "$t" "$f" ||
		    return 1
	done
}

if [ -n "$seed" ]; then
	if [ -d "$obj" ] && [ -n "$(ls -A "$obj" 2>/dev/null)" ]; then
		echo "$me: '$obj' is not empty: -s '$seed' ignored" >&2
	else
		base=$(cd "$seed" 2>/dev/null && pwd -P) &&
		    [ -f "$base/.rump-kbuild.conf" ] && [ -d "$base/obj" ] ||
		    die "-s '$seed' is not a build directory of $me (no .rump-kbuild.conf and obj/)"
		basesrc=$(sed -n 's/^src=//p' "$base/.rump-kbuild.conf")
		mkdir -p "$obj" && rmdir "$obj" 2>/dev/null
		to=$(cd "$(dirname "$obj")" && pwd -P)/$(basename "$obj")
		rm -rf "$obj.seeding"
		echo "$me: seeding $to from $base" >&2
		mkdir -p "$obj.seeding" && cp -a "$base/." "$obj.seeding/" || {
			rm -rf "$obj.seeding"
			die "cannot copy '$base' to '$obj'"
		}
		rm -f "$obj.seeding/.lock" "$obj.seeding/rump/ubcreplay-build"
		(cd "$obj.seeding" &&
		    grep -rlIF -e "$base" ${basesrc:+-e "$basesrc"} obj .rump-kbuild.conf 2>/dev/null |
		    reseat "$base" "$to" "${basesrc:-$src}" "$src"
		) && mv "$obj.seeding" "$obj" || {
			rm -rf "$obj.seeding"
			die "cannot rewrite the paths in the copy of '$base'"
		}
	fi
fi
mkdir -p "$obj" 2>/dev/null || die "cannot make the build directory '$obj'"
obj=$(cd "$obj" && pwd -P)
[ "$obj" != "$src" ] || die "the build directory is the source tree"
inst=$obj/rump
log=$obj/build.log

# One build at a time in a build directory.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$obj/.lock" || die "cannot write '$obj/.lock'"
	flock -n 9 || {
		echo "$me: waiting for another build in $obj" >&2
		flock 9
	}
fi

# Our patches. Each: already applied (it reverses cleanly), or applied now
# (it applies cleanly), or an error, which reverts the ones applied now.
applied=
names=
undo()
{
	for a in $applied; do
		patch -s -f -R -p1 -d "$src" --no-backup-if-mismatch \
		    <"$here/rump-patches/$a" >/dev/null 2>&1 ||
		    echo "$me: could not revert $a in $src" >&2
	done
}
for p in "$here"/rump-patches/*.patch; do
	[ -f "$p" ] || continue
	n=$(basename "$p")
	if patch -s -f -R --dry-run -p1 -d "$src" <"$p" >/dev/null 2>&1; then
		:
	elif out=$(patch -f --dry-run -p1 -d "$src" <"$p" 2>&1); then
		patch -s -f -p1 -d "$src" --no-backup-if-mismatch <"$p" >/dev/null 2>&1 || {
			undo
			die "$n: applying it to $src failed after a clean dry run"
		}
		applied="$n $applied"
		echo "$me: applied $n to $src (patch -R -p1 < $p reverts it)" >&2
	else
		bad=$(printf '%s\n' "$out" | awk '
			/^checking file / { f = substr($0, 15) }
			/FAILED|No file to patch|can.t find file|No such file/ {
				if (f != "" && !seen[f]++) printf "%s ", f }')
		[ -n "$bad" ] || bad=$(sed -n 's#^+++ [^/]*/\([^	 ]*\).*#\1#p' "$p" | tr '\n' ' ')
		undo
		echo "$me: $n does not apply to $src: ${bad% } (nothing built;${applied:+ the patches applied above are reverted,} the tree is as it was):" >&2
		printf '%s\n' "$out" | sed 's/^/  /' >&2
		exit 1
	fi
	names="$names${names:+ }$n"
done

# What is built, read before the build reads the files.
commit=
dirty=0
if git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	commit=$(git -C "$src" rev-parse --short HEAD)
	[ -z "$(git -C "$src" status --porcelain --untracked-files=no -- . 2>/dev/null)" ] ||
	    dirty=1
fi
sources=
if [ -z "$commit" ] || [ "$dirty" = 1 ]; then
	sources=$(cd "$src" && find sys lib/librumpuser -type f ! -name '*.orig' \
	    ! -name '*.rej' -print0 2>/dev/null | LC_ALL=C sort -z |
	    xargs -0 sha256sum | sha256sum | cut -c1-12)
fi

# buildrump.sh's tools step (the NetBSD host tools, compiler wrappers,
# mk.conf) runs when this configuration was not built here before.
conf="src=$src
obj=$obj
buildrump=$brkey
cc=$cc
hostcc=$hostcc
flags=-H -r -q -V NOGCCERROR=yes -F CFLAGS=-fcommon -F CWARNFLAGS=-Wno-error HOST_CFLAGS=-O -fcommon"
steps="build install"
[ -x "$obj/obj/tooldir/bin/brrumpmake" ] && [ -x "$obj/obj/tooldir/bin/nbmake" ] &&
    [ "$(cat "$obj/.rump-kbuild.conf" 2>/dev/null)" = "$conf" ] ||
    steps="tools build install"

rm -f "$inst/ubcreplay-build"
: >"$log" || die "cannot write '$log'"
start=$(date +%s)
if [ ! -x "$obj/obj/tooldir/bin/nbmake" ]; then
	echo "$me: building $src in $obj (the first build, with the tools: minutes)" >&2
elif [ "$steps" != "build install" ]; then
	echo "$me: building $src in $obj (the tools' configuration changed: refreshing it)" >&2
else
	echo "$me: building $src in $obj" >&2
fi
# buildrump.sh refuses CFLAGS, AFLAGS and LDFLAGS in the environment, and
# nbmake would read GNU make's MAKEFLAGS (from `make rump`). -H: a git
# tree is built even though it is not buildrump.sh's src-netbsd revision
# (buildrump.sh checks that only in git trees).
(
	unset CFLAGS AFLAGS LDFLAGS CPPFLAGS MAKEFLAGS MFLAGS GNUMAKEFLAGS \
	    MAKELEVEL MAKEOVERRIDES MAKEOBJDIR MAKEOBJDIRPREFIX MAKECONF \
	    MAKESYSPATH TOOLDIR DESTDIR
	cd "$obj" &&
	    CC=$cc HOST_CC=$hostcc HOST_CFLAGS="-O -fcommon" \
	    "$brdir/buildrump.sh" -s "$src" -o "$obj/obj" -d "$inst" \
	    -T "$obj/obj/tooldir" -j "$jobs" -H -q -r -V NOGCCERROR=yes \
	    -F CFLAGS=-fcommon -F CWARNFLAGS=-Wno-error $steps
) >>"$log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
if [ $rc -ne 0 ] || [ ! -f "$inst/lib/librumpfs_ffs.so" ] ||
    [ ! -f "$inst/include/rump/rump.h" ]; then
	echo "$me: buildrump.sh $steps failed in $src (exit $rc, after ${secs}s); the last lines of $log:" >&2
	tail -n 20 "$log" | sed 's/^/  /' >&2
	errs=$(grep -m 10 -E ': (fatal )?error: ' "$log")
	[ -z "$errs" ] || {
		echo "$me: the compiler's first errors:" >&2
		printf '%s\n' "$errs" | sed 's/^/  /' >&2
	}
	exit 1
fi
printf '%s\n' "$conf" >"$obj/.rump-kbuild.conf"
printf 'src=%s\ncommit=%s\ndirty=%s\nsources=%s\npatches=%s\n' "$src" "$commit" \
    "$dirty" "$sources" "$names" >"$inst/ubcreplay-build" ||
    die "cannot write '$inst/ubcreplay-build'"
echo "$me: built in ${secs}s" >&2
echo "$inst"
