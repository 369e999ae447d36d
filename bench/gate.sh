#!/bin/sh
# gate.sh - the gate's figures (issues 32 and 42): false alarms, wrong
# FAILs and PASSes at the limit, and the runs a -10% change needs, of
# `-n auto`'s rule on real noise resampled by boot, under equal and unequal
# spreads, unequal runs and a load that changes halfway (bench/gate.py says
# how a trial goes; each look is judged by the gate's own functions,
# build/bench/gate_judge).
#
# The host's noise: POOL runs of the small test archive on a fresh loop
# ext4, the exact probe, as the host is ("asis"), then the same beside a
# CPU hog on every core (each run a boot of its own). The guests': every
# cell of the pools under POOLS (bench/gate_pools.py's directories,
# POOLS/COND/CELL), judged cell by cell with its conditions, quiet or
# else asis first.
#
#   sh bench/gate.sh TOP	POOL=N (default 30), TRIALS=N (default 50;
#				200 for the figures in docs/compare.md),
#				LIMIT=PCT (default 5), POOLS=DIR (default
#				none: the guests' pools are left out),
#				UBC=the binary (default TOP/ubcreplay)
set -eu
top=$1
pool=${POOL:-30}
trials=${TRIALS:-50}
limit=${LIMIT:-5}
ubc=${UBC:-$top/ubcreplay}
judge=$top/build/bench/gate_judge
small=$top/build/fixtures/small.tar.gz
. "$top/bench/lib.sh"
bench_needs gate "$small"
[ -x "$judge" ] || make -s -C "$top" build/bench/gate_judge
bench_work gate
hogs=
stop_hogs()
{
	for h in $hogs; do
		kill "$h" 2>/dev/null || true
	done
	hogs=
}
trap 'stop_hogs; bench_cleanup' EXIT
bench_loopfs 512M

"$ubc" -q -n "$pool" -l "host ext4, as is" -o "$work/asis.json" \
    "$small" "$work/mnt" >/dev/null
for i in $(seq "$(getconf _NPROCESSORS_ONLN)"); do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
"$ubc" -q -n "$pool" -l "host ext4, CPU hog" -o "$work/hog.json" \
    "$small" "$work/mnt" >/dev/null
stop_hogs
echo "host ext4, load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 "$top/bench/gate.py" --judge "$judge" --trials "$trials" \
    --limit "$limit" "host-asis=$work/asis.json" "host-hog=$work/hog.json"
[ -n "${POOLS:-}" ] || exit 0
for cell in $(for d in "$POOLS"/*/*/; do [ -d "$d" ] && basename "$d"; done | sort -u); do
	set --
	for cond in quiet asis hogs kbuild; do
		[ -d "$POOLS/$cond/$cell" ] && set -- "$@" "$cond=$POOLS/$cond/$cell"
	done
	echo
	echo "== $cell"
	/usr/bin/python3 "$top/bench/gate.py" --judge "$judge" \
	    --trials "$trials" --limit "$limit" "$@" || true
done
