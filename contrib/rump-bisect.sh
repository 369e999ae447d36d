#!/bin/sh
# rump-bisect.sh - one step of `git bisect run` on a NetBSD source tree:
# build its FFS as rump kernel libraries at the commit checked out, run the
# main job on a copy of an FFS image with them, and tell git bisect what
# the gate said against a result of the base.
#
#   cd src-netbsd
#   ubcreplay -n 5 -O log -o base.json archive.tar.gz ffs:copy-of-img
#   git bisect start BAD GOOD
#   git bisect run /path/to/contrib/rump-bisect.sh -b base.json \
#       -F write.mean_bytes:-10% -a archive.tar.gz -i ffs.img [-- -n 5 -O log]
#
#   -b RESULT   the base's result (or UBC_BISECT_BASE_RESULT)
#   -F GATE     a --fail-if gate, repeatable; at least one
#   -a ARCHIVE  the job's archive
#   -i IMAGE    the FFS image; each step runs on a fresh copy of it, so
#               that every step starts from the same filesystem
#   -O DIR      the build directory, one for every step, so that each
#               rebuilds only what changed (default: rump-kbuild.sh's own)
#   -s BASE     seed an empty build directory from BASE (rump-kbuild.sh -s)
#   -- ...      further options for ubcreplay (-n, -O log, -p)
#
# UBCREPLAY names the binary (default: ubcreplay in PATH). Exit status, as
# git bisect run reads it: 0 good (every gate passed), 1 bad (a gate
# failed), 125 skip (the gate is undecided: the runs call the commit
# neither good nor bad, and the step's line says so; or the tree did not
# build, the job failed, or the gate could not be judged). A mistake in the recipe (no base result, no gate, no image),
# or an interrupt, exits 255, which stops the bisection.
set -u

me=rump-bisect.sh
ubc=${UBCREPLAY:-ubcreplay}
here=$(cd "$(dirname "$0")" && pwd)
base=${UBC_BISECT_BASE_RESULT:-}
gates= archive= image= obj= seed=

fatal()
{
	echo "$me: $*" >&2
	exit 255
}

while getopts b:F:a:i:O:s: opt; do
	case $opt in
	b) base=$OPTARG ;;
	F) gates="$gates --fail-if $OPTARG" ;;
	a) archive=$OPTARG ;;
	i) image=$OPTARG ;;
	O) obj=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) fatal "usage: $me -b RESULT -F GATE -a ARCHIVE -i IMAGE [-O DIR] [-s BASE] [-- UBCREPLAY-OPTIONS]" ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ -n "$base" ] && [ -f "$base" ] || fatal "no base result (-b): '$base'"
[ -n "$gates" ] || fatal "no gate (-F)"
[ -n "$archive" ] && [ -f "$archive" ] || fatal "no archive (-a): '$archive'"
[ -n "$image" ] && [ -f "$image" ] || fatal "no image (-i): '$image'"
command -v "$ubc" >/dev/null 2>&1 || fatal "no ubcreplay: '$ubc'"

commit=$(git rev-parse --short HEAD 2>/dev/null) || fatal "not in a git tree"
work=$(mktemp -d "${TMPDIR:-/tmp}/rump-bisect.XXXXXX") || fatal "no temporary directory"
trap 'rm -rf "$work"' EXIT
trap 'exit 255' INT TERM HUP

t0=$(date +%s)
if ! rump=$(sh "$here/rump-kbuild.sh" ${obj:+-O "$obj"} ${seed:+-s "$seed"} \
    "$(pwd)" 2>"$work/build.err"); then
	tail -n 5 "$work/build.err" >&2
	echo "$me: $commit: does not build: skip" >&2
	exit 125
fi
t1=$(date +%s)
cp "$image" "$work/img" || fatal "cannot copy '$image'"
"$ubc" -q --rump "$rump" "$@" -o "$work/step.json" "$archive" \
    "ffs:$work/img" >/dev/null 2>"$work/run.err"
rc=$?
t2=$(date +%s)
if [ "$rc" -ne 0 ]; then
	tail -n 3 "$work/run.err" >&2
	echo "$me: $commit: the job failed (exit $rc): skip" >&2
	exit 125
fi
# shellcheck disable=SC2086
"$ubc" compare $gates "$base" "$work/step.json" >"$work/compare.out" 2>&1
rc=$?
grep -E '^ *(FAIL|PASS|UNDECIDED) ' "$work/compare.out" >&2
echo "$me: $commit: built in $((t1 - t0)) s, measured in $((t2 - t1)) s, gate exit $rc" >&2
case $rc in
0) exit 0 ;;
1) exit 1 ;;
3)
	echo "$me: $commit: undecided: more runs (-- -n N) may decide it: skip" >&2
	exit 125
	;;
*) exit 125 ;;
esac
