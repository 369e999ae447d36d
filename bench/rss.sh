#!/bin/sh
# rss.sh - peak memory against the number of runs: the main job's peak RSS
# (GNU time's "Maximum resident set size": the largest of the process and
# its children) with -n 5 and with -n 1000 on the small archive, on a
# freshly made loop ext4, each writing its result; and bsdtar -xf of the
# same archive as the peer. A result grows with its runs (every run is in
# the JSON), but what the tool holds while it measures should not: the
# goal (issue 17) is -n 1000 within 2 MiB of -n 5.
#
#   sh bench/rss.sh TOP		RUNS=N for the long job (default 1000)
#				UBC=path to measure another build
set -eu
top=$1
runs=${RUNS:-1000}
ubc=${UBC:-$top/ubcreplay}
archive=$top/build/fixtures/small.tar.gz
. "$top/bench/lib.sh"
bench_needs rss "$archive"
bench_work rss
bench_loopfs 256M

# peak CMD...: the peak RSS of CMD in KiB, by /usr/bin/time -v.
peak()
{
	/usr/bin/time -v -o "$work/t" "$@" >/dev/null 2>"$work/err" ||
	    { cat "$work/err" >&2; exit 1; }
	awk -F: '/Maximum resident set size/ { print $2 + 0 }' "$work/t"
}

echo "archive $(basename "$archive"), $(ls -l "$archive" | awk '{print $5}') bytes, loop ext4 of 256 MiB"
few=$(peak "$ubc" -q -n 5 -o "$work/r5.json" "$archive" "$work/mnt")
echo "  ubcreplay -n 5:     peak RSS $few KiB"
many=$(peak "$ubc" -q -n "$runs" -o "$work/rN.json" "$archive" "$work/mnt")
echo "  ubcreplay -n $runs:  peak RSS $many KiB ($(ls -l "$work/rN.json" | awk '{print $5}') bytes of JSON)"
mkdir "$work/mnt/ref"
tar=$(peak bsdtar -xf "$archive" -C "$work/mnt/ref")
echo "  bsdtar -xf:         peak RSS $tar KiB"
awk -v a="$few" -v b="$many" -v n="$runs" 'BEGIN {
	printf "  -n %d less -n 5: %.1f MiB (goal <= 2 MiB), %.1f KiB a run\n", n, (b - a) / 1024, (b - a) / (n - 5)
}'
