#!/bin/sh
# vm-bisect.sh - one step of `git bisect run` on a kernel source tree: build
# the kernel at the commit checked out, run the job on the base kernel and on
# this one with `ubcreplay vm`, and tell git bisect what the gate said.
#
#   cd linux
#   git bisect start BAD GOOD
#   git bisect run /path/to/contrib/vm-bisect.sh -b base/bzImage \
#       -F write.mean_bytes:-20% -a archive.tar.gz [-- VM-OPTIONS...]
#
#   -b KERNEL   the base kernel, the first -k (or UBC_BISECT_BASE)
#   -F GATE     a --fail-if gate, repeatable (or UBC_BISECT_GATE, gates
#               separated by spaces); at least one
#   -a ARCHIVE  the job's archive (or UBC_BISECT_ARCHIVE)
#   -o DIR      keep each step's results in DIR/COMMIT/ and what `ubcreplay
#               vm` printed in DIR/COMMIT.log (or UBC_BISECT_OUT; by
#               default they go to a temporary directory, then away)
#   -R DIR      measure the base once, into DIR, and reuse it (or
#               UBC_BISECT_BASE_RESULTS): a step then boots only its own
#               kernel and judges with `ubcreplay compare`. DIR remembers
#               the base's image, the archive and the options it was
#               measured with, and measures again when one changed. One
#               filesystem (-t) only.
#   -- ...      further options for `ubcreplay vm` (-t, -m, -O, -n, --accel)
#
# The build: UBC_BISECT_BUILD, a shell command run at the top of the tree
# that builds the kernel and prints the path of its image or built tree as
# its last line of output; by default contrib/vm-kbuild.sh, which builds
# the tree with the guest's config incrementally in one build directory
# outside it and prints that directory. UBCREPLAY names the binary
# (default: ubcreplay in PATH). The base (-b) is a kernel image or a built
# tree, as `ubcreplay vm -k` takes them. Each step's line on stderr says
# how long it built and how long it measured.
#
# Exit status, as git bisect run reads it: 0 good (every gate passed), 1
# bad (a gate failed: `ubcreplay vm` exited 1), 125 skip (the gate is
# undecided, exit 3: the runs can call the kernel neither good nor bad, and
# the step's line says so; or the kernel did not build, did not boot, or
# the gate could not be judged: any other exit of `ubcreplay vm`, 2
# included). A mistake in the recipe itself (no base
# kernel, no gate, no `ubcreplay vm`), or an interrupt, exits 255, which
# stops the bisection instead of skipping every commit.
set -u

me=vm-bisect.sh
ubc=${UBCREPLAY:-ubcreplay}
base=${UBC_BISECT_BASE:-}
gates=${UBC_BISECT_GATE:-}
archive=${UBC_BISECT_ARCHIVE:-}
keep=${UBC_BISECT_OUT:-}
baseres=${UBC_BISECT_BASE_RESULTS:-}
here=$(cd "$(dirname "$0")" && pwd)
build=${UBC_BISECT_BUILD:-"'$here/vm-kbuild.sh' ."}
tmp=

abort()
{
	echo "$me: $*" >&2
	exit 255
}

cleanup()
{
	[ -n "$tmp" ] && rm -rf "$tmp"
	tmp=
}
trap cleanup EXIT
trap 'cleanup; exit 255' INT TERM HUP

# verdict STATUS: what git bisect is told when `ubcreplay vm` exits STATUS.
verdict()
{
	case $1 in
	0) echo 0 ;;
	1) echo 1 ;;
	*) echo 125 ;;
	esac
}

while getopts b:F:a:o:R: opt; do
	case $opt in
	b) base=$OPTARG ;;
	F) gates="$gates $OPTARG" ;;
	a) archive=$OPTARG ;;
	o) keep=$OPTARG ;;
	R) baseres=$OPTARG ;;
	*) abort "usage: $me -b KERNEL -F GATE... -a ARCHIVE [-o DIR] [-R DIR] [-- VM-OPTIONS...]" ;;
	esac
done
shift $((OPTIND - 1))

[ -n "$base" ] || abort "no base kernel (-b KERNEL or UBC_BISECT_BASE)"
[ -e "$base" ] || abort "base kernel '$base' does not exist"
[ -n "$(echo $gates)" ] || abort "no gate (-F METRIC:CHANGE or UBC_BISECT_GATE)"
[ -n "$archive" ] || abort "no archive (-a ARCHIVE or UBC_BISECT_ARCHIVE)"
[ -f "$archive" ] || abort "archive '$archive' does not exist"
# Before vm existed, `ubcreplay vm -h` printed the usage of the main job.
usage=$("$ubc" vm -h 2>&1) && echo "$usage" | grep -q 'ubcreplay vm ' ||
    abort "'$ubc vm' does not run: a ubcreplay with the vm command is needed (UBCREPLAY)"

commit=$(git rev-parse --short HEAD 2>/dev/null) ||
    abort "not in a git tree: run me from git bisect run"

# The build, its output kept apart from the path it prints.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vm-bisect.XXXXXX") || abort "cannot make a temporary directory"
t0=$(date +%s)
if ! sh -c "$build" >"$tmp/build.out"; then
	echo "$me: $commit: the build failed: skip" >&2
	exit 125
fi
kernel=$(sed '/^[[:space:]]*$/d' "$tmp/build.out" | tail -n 1)
case $kernel in
/*) ;;
?*) kernel=$PWD/$kernel ;;
esac
if [ -z "$kernel" ] || [ ! -e "$kernel" ]; then
	echo "$me: $commit: the build named no kernel that exists ('$kernel'): skip" >&2
	exit 125
fi

t1=$(date +%s)

if [ -n "$keep" ]; then
	out=$keep/$commit
	rm -rf "$out"
	mkdir -p "$out" || abort "cannot make '$out'"
else
	out=$tmp/out
fi
gateopts=
for g in $gates; do
	gateopts="$gateopts --fail-if $g"
done
if [ -n "$baseres" ]; then
	# The base once: its image, the archive and the options name it.
	img=$base
	[ -d "$img" ] && img=$base/arch/x86/boot/bzImage
	key=$({ sha256sum <"$img" && sha256sum <"$archive" && echo "$*"; } |
	    sha256sum | cut -c1-16) || abort "cannot read the base kernel '$img'"
	if [ "$(cat "$baseres/key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$baseres/results" "$baseres/key"
		mkdir -p "$baseres" || abort "cannot make '$baseres'"
		"$ubc" vm -k "$base" -o "$baseres/results" "$@" "$archive" \
		    >"$tmp/base.out" 2>"$tmp/base.err" || {
			tail -n 5 "$tmp/base.err" | sed "s/^/$me:   /" >&2
			rm -rf "$baseres/results"
			abort "the base kernel '$base' did not measure"
		}
		echo "$key" >"$baseres/key"
		echo "$me: the base measured once, into $baseres ($(($(date +%s) - t1)) s)" >&2
	fi
	baseone=$(ls "$baseres"/results/*.json 2>/dev/null)
	[ "$(echo "$baseone" | wc -l)" -eq 1 ] && [ -f "$baseone" ] ||
	    abort "'$baseres/results' holds no one result: -R takes one filesystem"
	"$ubc" vm -k "$kernel" -o "$out" "$@" "$archive" >"$tmp/vm.out" 2>"$tmp/vm.err"
	rc=$?
	if [ $rc -eq 0 ]; then
		# shellcheck disable=SC2086
		"$ubc" compare $gateopts "$baseone" "$out"/*.json >>"$tmp/vm.out" 2>>"$tmp/vm.err"
		rc=$?
	elif [ $rc -eq 1 ]; then
		rc=2
	fi
else
	# shellcheck disable=SC2086
	"$ubc" vm -k "$base" -k "$kernel" $gateopts -o "$out" "$@" "$archive" \
	    >"$tmp/vm.out" 2>"$tmp/vm.err"
	rc=$?
fi
v=$(verdict $rc)
case $rc in
0) what=good ;;
1) what=bad ;;
3) what="undecided (more runs, -n, may decide it): skip" ;;
*) what=skip ;;
esac
t2=$(date +%s)
echo "$me: $commit: $kernel: ubcreplay vm exited $rc: $what (built in $((t1 - t0)) s, measured in $((t2 - t1)) s)" >&2
[ -z "$keep" ] || cat "$tmp/vm.out" "$tmp/vm.err" >"$keep/$commit.log"
[ "$v" -eq 0 ] || tail -n 5 "$tmp/vm.err" | sed "s/^/$me:   /" >&2
exit "$v"
