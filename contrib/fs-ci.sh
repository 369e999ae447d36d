#!/bin/sh
# fs-ci.sh - a CI step for a filesystem patch: make a loop filesystem with
# the mkfs and mount options given, run the ubcreplay workload on it, and
# compare the result with a stored baseline, failing the job when the
# runs show a regression beyond a gate's limit. See docs/ci.md.
#
#   sh contrib/fs-ci.sh [-n runs] [-s size_mb] [-m "mkfs options"]
#       [-O "mount options"] [-l label] [-b baseline.json] [-u]
#       [-F metric:change]... -t fstype -o result.json archive
#
#   -t  filesystem type: ext2, ext4, xfs, btrfs (mkfs.TYPE must exist)
#   -m  extra mkfs options, -O mount options (as mount -o takes them)
#   -n  runs (default 5: fewer cannot show a change at p < 0.05)
#   -s  image size in MiB (default 512)
#   -b  the baseline result; -u writes the new result there when it is
#       missing (the first run of a new job), instead of failing
#   -F  a --fail-if gate, repeatable (default: elapsed:+10% and
#       write.mean_bytes:-20%)
#   -o  where the result goes; the comparison is printed, an SVG of it
#       written next to the result as RESULT.svg
#
# Exit status: that of `ubcreplay compare` (0 every gate passed, 1 one
# failed, 3 one is undecided: more runs would decide it, 2 bad input), or 2 when the filesystem cannot be made. Needs root (mkfs,
# losetup, mount). UBCREPLAY names the binary (default: ubcreplay in PATH,
# else ./ubcreplay).
set -eu

prog=fs-ci.sh
runs=5 size=512 mkfsopts= mountopts= label= baseline= update=0
fstype= out= gates=
ubc=${UBCREPLAY:-$(command -v ubcreplay || echo ./ubcreplay)}

usage()
{
	sed -n '7,9p' "$0" | sed 's/^#   sh /usage: sh /; s/^#//' >&2
	exit 2
}

while getopts n:s:m:O:l:b:uF:t:o: c; do
	case $c in
	n) runs=$OPTARG ;;
	s) size=$OPTARG ;;
	m) mkfsopts=$OPTARG ;;
	O) mountopts=$OPTARG ;;
	l) label=$OPTARG ;;
	b) baseline=$OPTARG ;;
	u) update=1 ;;
	F) gates="$gates --fail-if $OPTARG" ;;
	t) fstype=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] && [ -n "$fstype" ] && [ -n "$out" ] || usage
archive=$1
[ -r "$archive" ] || { echo "$prog: cannot read archive '$archive'" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "$prog: needs root (mkfs, losetup, mount)" >&2; exit 2; }
command -v "mkfs.$fstype" >/dev/null 2>&1 ||
    { echo "$prog: no mkfs.$fstype" >&2; exit 2; }
[ -x "$ubc" ] || { echo "$prog: no ubcreplay at '$ubc' (set UBCREPLAY)" >&2; exit 2; }
: "${gates:=--fail-if elapsed:+10% --fail-if write.mean_bytes:-20%}"
: "${label:=$fstype${mountopts:+ -o $mountopts}${mkfsopts:+ (mkfs $mkfsopts)}}"

work=$(mktemp -d "${TMPDIR:-/tmp}/fs-ci.XXXXXX")
dev=
cleanup()
{
	umount "$work/mnt" 2>/dev/null || true
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

truncate -s "${size}M" "$work/fs.img"
case $fstype in
# No lazy initialisation: the kernel must not write behind the workload.
ext2|ext3|ext4) lazy="-E lazy_itable_init=0,lazy_journal_init=0" ;;
*) lazy= ;;
esac
force=-f
case $fstype in ext*) force=-F ;; esac
# shellcheck disable=SC2086
if ! "mkfs.$fstype" -q $force $lazy $mkfsopts "$work/fs.img" >"$work/mkfs.log" 2>&1; then
	echo "$prog: mkfs.$fstype $mkfsopts failed:" >&2
	cat "$work/mkfs.log" >&2
	exit 2
fi
dev=$(losetup -f --show "$work/fs.img") ||
    { echo "$prog: cannot attach a loop device" >&2; exit 2; }
mkdir "$work/mnt"
mount ${mountopts:+-o "$mountopts"} "$dev" "$work/mnt" ||
    { echo "$prog: cannot mount with '$mountopts'" >&2; exit 2; }

"$ubc" -q -n "$runs" -l "$label" -o "$out" "$archive" "$work/mnt" || {
	echo "$prog: the workload failed" >&2
	exit 2
}

if [ -z "$baseline" ]; then
	"$ubc" report "$out"
	exit 0
fi
if [ ! -f "$baseline" ] && [ "$update" -eq 1 ]; then
	cp "$out" "$baseline"
	echo "$prog: no baseline yet: '$baseline' written from this run"
	exit 0
fi
status=0
# shellcheck disable=SC2086
"$ubc" compare $gates --svg "$out.svg" --baseline "$baseline" "$out" ||
    status=$?
exit "$status"
