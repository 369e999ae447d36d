#!/bin/sh
# vm-kbuild.sh - builds a kernel source tree for `ubcreplay vm -k`: gives it
# the config a guest needs (contrib/guest.config, everything built in),
# builds bzImage (and modules, when the config has them; with -a um the
# program linux) incrementally, with ccache when it is installed, and
# prints the build directory, which -k takes. Never part of a cell's life:
# build first, then boot.
#
#   vm-kbuild.sh [-n] [-a x86|um] [-O DIR] [-s SEED] [-j N] [-c tinyconfig|defconfig] TREE
#
#   -a ARCH  x86 (the default: bzImage for QEMU) or um: User Mode Linux
#            (make ARCH=um, the program DIR/linux), with
#            contrib/guest-um.config over the tree's UML defconfig, after
#            the project's patches to the tree's UML code
#            (contrib/uml-patches/NNNN-*.patch, by number) are applied
#            to TREE itself. Each number may have variants, one for each
#            kernel line (6.1, 6.12): the one already applied is
#            recognised and left, else the first that applies is applied;
#            when none fits, the error names the number and the variants
#            and the tree is left as it was. The one used for each number
#            is listed in DIR/kbuild.patches (name and sha256).
#   -O DIR   the build directory (make O=DIR). By default the tree itself
#            when it has a .config of its own (an in-tree build), else
#            $UBC_KBUILD_CACHE/NAME-HASH; with -a um NAME-um-HASH, or
#            NAME-umtiny-HASH with -c tinyconfig
#            (/var/cache/ubcreplay/kbuild when writable, else
#            ~/.cache/ubcreplay/kbuild), kept between runs so that the
#            next build of the tree is incremental
#   -s SEED  a build directory that does not exist yet starts as a copy
#            of SEED, another build of the same tree (modification times
#            kept): a patched tree then builds incrementally beside its
#            base instead of from nothing
#   -n       configure only: no build
#   -j N     make's jobs (default: the processors online)
#   -c BASE  what a build directory without a .config starts from:
#            tinyconfig (the default: the smallest and fastest to build;
#            contrib/guest-tinyconfig.config undoes its size-only choices)
#            or defconfig; with -a um, defconfig is the default
#            (guest-um.config names all a guest needs, so tinyconfig
#            builds a working UML kernel too, cold in less time: the one
#            the tests boot, contrib/uml.sh)
#
# A .config already there is kept: only the must-haves it lacks are added,
# and named on stderr. A must-have that olddefconfig drops (its
# dependencies unmet) is an error naming it. UBC_KBUILD_CONFIG names
# another fragment of must-haves. CCACHE_DIR defaults to ccache/ beside the
# kbuild cache (/var/cache/ubcreplay/ccache).
#
# Output: the build directory alone on stdout; progress on stderr (one
# updating line on a tty); make's output in DIR/kbuild.log; the build's
# seconds in DIR/kbuild.time, which `ubcreplay vm` records, and in a git
# tree the commit built ("COMMIT clean|dirty") in DIR/kbuild.commit, which
# names the kernel even after the tree moved on. Exit 0 when
# built, 2 when TREE is no kernel tree, the config cannot be met or the
# build failed (with the log's last lines).
set -u

me=vm-kbuild.sh
here=$(cd "$(dirname "$0")" && pwd)
frag=
arch=x86
obj=
seed=
only_config=
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
start_config=

die()
{
	echo "$me: $*" >&2
	exit 2
}

usage="usage: $me [-n] [-a x86|um] [-O DIR] [-s SEED] [-j N] [-c tinyconfig|defconfig] TREE"
while getopts na:O:s:j:c: opt; do
	case $opt in
	n) only_config=1 ;;
	a) arch=$OPTARG ;;
	O) obj=$OPTARG ;;
	s) seed=$OPTARG ;;
	j) jobs=$OPTARG ;;
	c) start_config=$OPTARG ;;
	*) die "$usage" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || die "$usage"
case $arch in
x86)
	frag=${UBC_KBUILD_CONFIG:-$here/guest.config}
	: "${start_config:=tinyconfig}"
	;;
um)
	frag=${UBC_KBUILD_CONFIG:-$here/guest-um.config}
	: "${start_config:=defconfig}"
	;;
*) die "-a '$arch': x86 or um" ;;
esac
case $start_config in
tinyconfig | defconfig) ;;
*) die "-c '$start_config': tinyconfig or defconfig" ;;
esac
case $jobs in
'' | *[!0-9]* | 0) die "-j '$jobs': a number of jobs" ;;
esac
[ -f "$frag" ] || die "no must-haves: '$frag' does not exist"

tree=$(cd "$1" 2>/dev/null && pwd) || die "'$1': no such directory"
[ -f "$tree/Makefile" ] && [ -f "$tree/Kconfig" ] &&
    [ -x "$tree/scripts/kconfig/merge_config.sh" ] ||
    die "'$1' is not a kernel source tree (no Makefile, Kconfig and scripts/kconfig/merge_config.sh)"

cache=${UBC_KBUILD_CACHE:-}
if [ -z "$cache" ]; then
	cache=/var/cache/ubcreplay/kbuild
	mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
	    cache=${XDG_CACHE_HOME:-$HOME/.cache}/ubcreplay/kbuild
fi
if [ -z "$obj" ]; then
	if [ -f "$tree/.config" ]; then
		obj=$tree
	else
		hash=$(printf '%s' "$tree" | sha256sum | cut -c1-8)
		obj=$cache/$(basename "$tree")-$hash
		# UML's names say their base: -um- defconfig, -umtiny- tinyconfig.
		case $arch-$start_config in
		x86-*) ;;
		um-tinyconfig) obj=$cache/$(basename "$tree")-umtiny-$hash ;;
		*) obj=$cache/$(basename "$tree")-$arch-$hash ;;
		esac
	fi
fi
# reseat FROM COPY TO: the build tools' records in COPY (a copy of the
# build directory FROM, to be moved to TO) made to name TO. Kbuild's own
# records name objects relative to the build directory, but tools/ (objtool,
# which every object depends on) records absolute paths: left naming FROM,
# objtool is rebuilt in the copy and then everything after it.
reseat()
{
	[ -d "$2/tools" ] || return 0
	from=$(printf '%s/' "$1" | sed 's/[][\.*^$#]/\\&/g')
	to=$(printf '%s/' "$3" | sed 's/[\&#]/\\&/g')
	find "$2/tools" -type f \( -name '.*.cmd' -o -name '*.d' \) \
	    -exec grep -lF -e "$1/" {} + 2>/dev/null |
	    while IFS= read -r f; do
		t=$(stat -c %y "$f") &&
		    sed -i "s#$from#$to#g" "$f" && touch -d "$t" "$f" || exit 1
	    done
}

if [ -n "$seed" ] && [ ! -e "$obj" ]; then
	[ -f "$seed/.config" ] && [ -f "$seed/Makefile" ] ||
	    die "-s '$seed' is not a build directory (no .config and Makefile)"
	rm -rf "$obj.seeding"
	mkdir -p "$obj.seeding" && cp -a "$seed/." "$obj.seeding/" &&
	    reseat "$(cd "$seed" && pwd -P)" "$(cd "$obj.seeding" && pwd -P)" \
	    "$(dirname "$(cd "$obj.seeding" && pwd -P)")/$(basename "$obj")" &&
	    mv "$obj.seeding" "$obj" || {
		rm -rf "$obj.seeding"
		die "cannot copy '$seed' to '$obj'"
	}
fi
mkdir -p "$obj" 2>/dev/null || die "cannot make the build directory '$obj'"
obj=$(cd "$obj" && pwd)
log=$obj/kbuild.log
: >"$log" || die "cannot write '$log'"

# The same CC for every make, or kbuild reconfigures and rebuilds.
cc=gcc
if command -v ccache >/dev/null 2>&1; then
	cc="ccache gcc"
	: "${CCACHE_DIR:=$(dirname "$cache")/ccache}"
	export CCACHE_DIR
fi
makearch=
[ "$arch" = x86 ] || makearch=ARCH=$arch
mk()
{
	if [ "$obj" = "$tree" ]; then
		make -C "$tree" $makearch CC="$cc" "$@"
	else
		make -C "$tree" $makearch O="$obj" CC="$cc" "$@"
	fi
}

# The project's patches to the tree's UML code, applied to the tree once,
# by number: NNNN-*.patch are one change's variants, one for each kernel
# line (0002-x.patch for 6.1, 0002-x-6.12.patch for 6.12). A variant whose
# reverse applies is there already; else the first that applies is
# applied. A later number may change what an earlier one made (0005 in
# 0004's file), so what is there already is found from the last number
# down, each reverse taken in a copy of the files the patches touch before
# the next is tried. When none fits, the error names the number and every
# variant tried, and the ones this run applied are reverted: the tree is
# as it was. When all fit, the one used for each number, with its sha256,
# is listed in $obj/kbuild.patches. A hunk may move (a tree of another
# point release, or with the patch under test) but not change: no fuzz,
# and no .orig files beside.
umlp=$here/uml-patches
uml_applied=
uml_fits()
{
	patch -d "$tree" -p1 "$2" -F0 -s -f --dry-run <"$umlp/$1" >/dev/null 2>&1
}
uml_undo()
{
	for a in $uml_applied; do
		patch -d "$tree" -p1 -R -F0 -s -f --no-backup-if-mismatch <"$umlp/$a" >>"$log" 2>&1 ||
		    echo "$me: could not revert $a in $tree" >&2
	done
}
# uml_in NUMBERS: the variants already in the tree, one a line; 1 when
# the patches' files could not be copied.
uml_in()
{
	scratch=$(mktemp -d) || return 1
	sed -n 's|^+++ b/\([^	 ]*\).*|\1|p' "$umlp"/*.patch | sort -u |
	    while IFS= read -r f; do
		[ ! -e "$tree/$f" ] || {
			mkdir -p "$scratch/$(dirname "$f")" &&
			    cp "$tree/$f" "$scratch/$f"
		} || exit 1
	    done || {
		rm -rf "$scratch"
		return 1
	}
	for n in $(echo "$1" | sort -rn); do
		for p in $(cd "$umlp" && echo "$n"-*.patch); do
			patch -d "$scratch" -p1 -R -F0 -s -f --dry-run \
			    <"$umlp/$p" >/dev/null 2>&1 || continue
			patch -d "$scratch" -p1 -R -F0 -s -f <"$umlp/$p" \
			    >/dev/null 2>&1 && echo "$p"
			break
		done
	done
	rm -rf "$scratch"
}
uml_patches()
{
	rec=
	nums=$(ls "$umlp" | sed -n 's/^\([0-9][0-9]*\)-.*\.patch$/\1/p' | sort -u)
	in=$(uml_in "$nums") ||
	    die "cannot copy the files contrib/uml-patches touch from '$tree' to see which are in"
	for n in $nums; do
		variants=$(cd "$umlp" && echo "$n"-*.patch)
		use=
		how=
		for p in $variants; do
			echo "$in" | grep -qx "$p" && use=$p how="already in" && break
		done
		[ -n "$use" ] || for p in $variants; do
			uml_fits "$p" -N && use=$p how="applied to" && break
		done
		[ -n "$use" ] || {
			uml_undo
			die "uml-patches $n: no variant fits '$tree' (not this tree's UML code, or changed by hand; the tree is as it was); tried: $variants"
		}
		if [ "$how" = "applied to" ]; then
			patch -d "$tree" -p1 -N -F0 -s -f --no-backup-if-mismatch <"$umlp/$use" >>"$log" 2>&1 || {
				uml_undo
				die "'$umlp/$use' failed to apply to '$tree' after a clean dry run (see $log)"
			}
			uml_applied="$use $uml_applied"
		fi
		echo "$me: $use: $how $tree" >&2
		rec="$rec$use $(sha256sum <"$umlp/$use" | cut -d' ' -f1)
"
	done
	printf '%s' "$rec" >"$obj/kbuild.patches" ||
	    die "cannot write '$obj/kbuild.patches'"
}
[ "$arch" != um ] || uml_patches

# The must-haves .config lacks, one a line: "# CONFIG_X is not set" in the
# fragment is a must-not-have.
lacking()
{
	grep -E '^CONFIG_[A-Za-z0-9_]*=|^# CONFIG_[A-Za-z0-9_]* is not set$' "$frag" |
	    while IFS= read -r want; do
		case $want in
		'# '*)
			opt=${want#\# }
			opt=${opt%% *}
			! grep -q "^$opt=" "$obj/.config" || echo "$want"
			;;
		*) grep -qx "$want" "$obj/.config" || echo "$want" ;;
		esac
	    done
}

# failed WHAT: the log's last lines, then exit 2.
failed()
{
	echo "$me: $1 failed in '$tree'; the last lines of $log:" >&2
	tail -n 15 "$log" | sed 's/^/  /' >&2
	exit 2
}

if [ ! -f "$obj/.config" ]; then
	echo "$me: configuring $obj from $start_config and $frag" >&2
	extra=
	[ -f "$here/guest-$start_config.config" ] &&
	    extra=$here/guest-$start_config.config
	mk "$start_config" >>"$log" 2>&1 || failed "make $start_config"
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
	    $extra "$frag" >>"$log" 2>&1 || failed "merge_config.sh"
else
	missing=$(lacking)
	if [ -n "$missing" ]; then
		echo "$me: adding to $obj/.config:" $(echo "$missing" |
		    sed 's/=.*//; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/no-\1/') >&2
		echo "$missing" >"$obj/kbuild-missing.config"
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		    "$obj/.config" "$obj/kbuild-missing.config" >>"$log" 2>&1
		rc=$?
		rm -f "$obj/kbuild-missing.config"
		[ $rc -eq 0 ] || failed "merge_config.sh"
	fi
fi
mk olddefconfig >>"$log" 2>&1 || failed "make olddefconfig"
dropped=$(lacking)
[ -z "$dropped" ] ||
    die "$obj/.config: olddefconfig dropped what a guest needs (its dependencies are not met):" $dropped

if [ -n "$only_config" ]; then
	echo "$obj"
	exit 0
fi
# What is built: the source's commit and whether tracked files differ from
# it, read before make reads the files (vm/ktree.c prefers this record to
# the source's HEAD later, which may have moved on).
built=
if head=$(git -C "$tree" rev-parse --verify -q HEAD 2>/dev/null); then
	state=clean
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
	    state=dirty
	built="$head $state"
fi
rm -f "$obj/kbuild.commit"
image=arch/x86/boot/bzImage
targets=bzImage
[ "$arch" != um ] || image=linux targets=linux
grep -qx 'CONFIG_MODULES=y' "$obj/.config" && targets="$targets modules"
start=$(date +%s)
rcfile=$obj/.kbuild.rc
rm -f "$rcfile"
[ -t 2 ] || echo "$me: make -j$jobs $targets in $obj" >&2
{
	mk -j"$jobs" $targets 2>&1
	echo $? >"$rcfile"
} | {
	n=0
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$log"
		n=$((n + 1))
		[ -t 2 ] && printf '\r\033[K%s: %ds, %d steps, %.50s' "$me" \
		    $(($(date +%s) - start)) $n "$line" >&2
	done
	[ -t 2 ] && printf '\r\033[K' >&2
}
rc=$(cat "$rcfile" 2>/dev/null || echo 1)
rm -f "$rcfile"
secs=$(($(date +%s) - start))
[ "$rc" -eq 0 ] || failed "make $targets (exit $rc, after ${secs}s)"
[ -f "$obj/$image" ] || failed "make $targets (no $image)"
echo "$secs" >"$obj/kbuild.time"
[ -z "$built" ] || echo "$built" >"$obj/kbuild.commit"
echo "$me: built $(cat "$obj/include/config/kernel.release") in ${secs}s" >&2
echo "$obj"
