#!/bin/sh
# attrib.sh - what attribution (what the blocks of each request held, read
# after the sync) costs the job, against the same job without it
# (--no-attribution), on Debian's linux-source-6.1 tarball (about 80,000
# entries) on a fresh 4 GiB loop ext4, warm tarball:
#
#   added         wall time not in the phases, with attribution minus
#                 without: the layout's reading and the attributing, as a
#                 share of the whole invocation without it. Goal < 10%.
#                 Steadier than the whole ratio: the phases, where other
#                 jobs' noise lands, are left out on both sides.
#   whole ratio   the invocation's wall time with attribution / without,
#                 interleaved pairs (which one goes first alternates), the
#                 median of the pairs' ratios.
#   phases ratio  the same of the measured phases' elapsed_ns alone: the
#                 layout is read outside them, so this is 1 but for noise.
#   peak RSS      GNU time's %M of each (the largest of the process and its
#                 children).
#
#   sh bench/attrib.sh TOP		PAIRS=N (default 3)
set -eu
top=$1
pairs=${PAIRS:-3}
ubc=$top/ubcreplay
. "$top/bench/lib.sh"
src=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1 || true)
bench_needs attrib "${src:-/usr/src/linux-source-6.1.tar.xz}"
[ -d /sys/kernel/tracing/events/block ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
[ -d /sys/kernel/tracing/events/block ] || { echo "attrib bench: no tracefs block events; skipped"; exit 0; }
bench_work attrib
bench_loopfs 4G
cat "$src" >/dev/null

echo "$(basename "$src"), -n 1, $pairs interleaved pairs on a fresh 4 GiB loop ext4"
printf '  %-4s %9s %9s %7s %10s %10s %9s %9s\n' pair "with s" "without s" ratio \
    "phases w/o" "outside +s" "RSS KiB" "w/o KiB"
: >"$work/pairs"
i=1
while [ "$i" -le "$pairs" ]; do
	for who in $( [ $((i % 2)) -eq 1 ] && echo "with without" || echo "without with"); do
		opt=
		[ "$who" = with ] || opt=--no-attribution
		sync -f "$work/mnt"
		t0=$(date +%s%N)
		/usr/bin/time -f %M -o "$work/$who.rss" \
		    "$ubc" -q $opt -o "$work/$who.json" "$src" "$work/mnt" >/dev/null
		t1=$(date +%s%N)
		echo "$((t1 - t0)) $(bench_phase_ns "$work/$who.json") $(cat "$work/$who.rss")" >"$work/$who.row"
	done
	set -- $(cat "$work/with.row") $(cat "$work/without.row")
	echo "$*" >>"$work/pairs"
	echo "$i $*" | awk '{printf "  %-4s %9.2f %9.2f %7.3f %10.3f %10.2f %9d %9d\n",
	    $1, $2 / 1e9, $5 / 1e9, $2 / $5, $3 / $6, ($2 - $3 - $5 + $6) / 1e9, $4, $7}'
	i=$((i + 1))
done
wr=$(awk '{print $1 / $4}' "$work/pairs" | bench_median)
pr=$(awk '{print $2 / $5}' "$work/pairs" | bench_median)
out=$(awk '{print ($1 - $2 - $4 + $5) / 1e9}' "$work/pairs" | bench_median)
share=$(awk '{print 100 * ($1 - $2 - $4 + $5) / $4}' "$work/pairs" | bench_median)
printf '  median added outside the phases %.2f s, %.1f%% of the job without it (goal < 10%%)\n' "$out" "$share"
printf '  median whole ratio with / without %.3f; phases ratio %.3f (1 but for noise)\n' "$wr" "$pr"
/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
a = [p["attribution"] for r in d["runs"] for p in r["phases"]]
n = sum(v["ops"] for x in a if "error" not in x for v in x["write"]["classes"].values())
print("  the last run with attribution: %d write requests attributed, layout by %s" %
      (n, a[0].get("layout", a[0].get("error"))))' "$work/with.json"
