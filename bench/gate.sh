#!/bin/sh
# gate.sh - the gate's figures (issue 32): false alarms, misses, undecided
# and runs a side of `-n auto`'s rule on real run-to-run noise, quiet and
# with a CPU hog on every core (bench/gate.py says how a trial goes).
#
# The noise: POOL runs of the small test archive on a fresh loop ext4, the
# exact probe, quiet, then the same with the hog; and any results named in
# GUEST_POOLS (spaces between pools, commas between the boots of one: a
# guest cell's noise, from `ubcreplay vm`).
#
#   sh bench/gate.sh TOP	POOL=N (default 30), TRIALS=N (default 20),
#				LIMIT=PCT (default 5), GUEST_POOLS="...",
#				UBC=the binary (default TOP/ubcreplay)
set -eu
top=$1
pool=${POOL:-30}
trials=${TRIALS:-20}
limit=${LIMIT:-5}
ubc=${UBC:-$top/ubcreplay}
small=$top/build/fixtures/small.tar.gz
. "$top/bench/lib.sh"
bench_needs gate "$small"
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

"$ubc" -q -n "$pool" -l "host ext4, quiet" -o "$work/quiet.json" \
    "$small" "$work/mnt" >/dev/null
for i in $(seq "$(getconf _NPROCESSORS_ONLN)"); do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
"$ubc" -q -n "$pool" -l "host ext4, CPU hog" -o "$work/hog.json" \
    "$small" "$work/mnt" >/dev/null
stop_hogs
# shellcheck disable=SC2086
/usr/bin/python3 "$top/bench/gate.py" --ubc "$ubc" --trials "$trials" \
    --limit "$limit" "$work/quiet.json" "$work/hog.json" ${GUEST_POOLS:-}
