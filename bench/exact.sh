#!/bin/sh
# exact.sh - what the exact probe (tracefs) costs, and how much it disturbs
# what it measures: the same extraction with -p exact and with -p none (no
# probe at all), interleaved pairs (which one goes first alternates), on a
# fresh loop filesystem, warm archive, one run per invocation.
#
# Per pair and as medians:
#   time ratio      the extract + sync phases' wall time (from the result),
#                   exact / none: the overhead while the workload runs
#   wall ratio      the whole invocation, exact / none: with the probe's
#                   set-up, its drains at the marks and its clean-up
#   request ratio   the device's write requests during the invocation, read
#                   by this script from /sys/block/DEV/stat around it (the
#                   same instrument for both), exact / none: the observer
#                   effect. Goal: within 2% (issue 3).
#
#   sh bench/exact.sh TOP		PAIRS=N (default 7), FS="ext4 ext4:sync"
set -eu
top=$1
pairs=${PAIRS:-7}
filesystems=${FS:-ext4 ext4:sync}
ubc=$top/ubcreplay
archive=$top/build/fixtures/emacs-like.tar.gz
[ "$(id -u)" -eq 0 ] || { echo "exact bench: needs root (loop filesystems, tracefs); skipped"; exit 0; }
[ -d /sys/kernel/tracing/events/block ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
[ -d /sys/kernel/tracing/events/block ] || { echo "exact bench: no tracefs block events; skipped"; exit 0; }
[ -f "$archive" ] || { echo "exact bench: $archive missing (make check builds it); skipped"; exit 0; }
work=$(mktemp -d /tmp/ubcreplay-bench-exact.XXXXXX)
dev=
cleanup()
{
	if [ -n "$dev" ]; then
		umount "$work/mnt" 2>/dev/null || true
		losetup -d "$dev" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

now() { date +%s.%N; }
writes() { awk '{print $5}' "/sys/block/$(basename "$dev")/stat"; }

# phase_ns RESULT: the extract and sync phases' elapsed_ns, summed.
phase_ns()
{
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(p["elapsed_ns"] for r in d["runs"] for p in r["phases"] if p["phase"] != "remove"))' "$1"
}

median()
{
	sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

bench_fs()
{
	fs=${1%%:*}
	opts=
	[ "$fs" != "$1" ] && opts=${1#*:}
	truncate -s 2G "$work/img"
	mkfs."$fs" -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/img" >/dev/null
	dev=$(losetup -f --show "$work/img")
	mkdir -p "$work/mnt"
	mount ${opts:+-o "$opts"} "$dev" "$work/mnt"
	: >"$work/pairs"
	echo "$fs${opts:+ -o $opts}, $(basename "$archive"), $pairs pairs"
	printf '  %-4s %10s %10s %8s %8s %9s %9s %8s\n' pair "none s" "exact s" \
	    "time" "wall" "req none" "req exact" "req"
	i=1
	while [ "$i" -le "$pairs" ]; do
		for p in $( [ $((i % 2)) -eq 1 ] && echo "none exact" || echo "exact none"); do
			sync -f "$work/mnt"
			w0=$(writes)
			t0=$(now)
			"$ubc" -q -p "$p" -o "$work/$p.json" "$archive" "$work/mnt" >/dev/null
			t1=$(now)
			w1=$(writes)
			echo "$(phase_ns "$work/$p.json") $(echo "$t0 $t1" | awk '{print $2 - $1}') $((w1 - w0))" >"$work/$p.row"
		done
		set -- $(cat "$work/none.row") $(cat "$work/exact.row")
		echo "$1 $2 $3 $4 $5 $6" >>"$work/pairs"
		printf '  %-4s %10.3f %10.3f %8.3f %8.3f %9s %9s %8.3f\n' "$i" \
		    "$(echo "$1" | awk '{print $1 / 1e9}')" \
		    "$(echo "$4" | awk '{print $1 / 1e9}')" \
		    "$(echo "$4 $1" | awk '{print $1 / $2}')" \
		    "$(echo "$5 $2" | awk '{print $1 / $2}')" "$3" "$6" \
		    "$(echo "$6 $3" | awk '{print $1 / $2}')"
		i=$((i + 1))
	done
	tr=$(awk '{print $4 / $1}' "$work/pairs" | median)
	wr=$(awk '{print $5 / $2}' "$work/pairs" | median)
	rn=$(awk '{print $3}' "$work/pairs" | median)
	re=$(awk '{print $6}' "$work/pairs" | median)
	printf '  median: time ratio %.3f, wall ratio %.3f; write requests none %s, exact %s: ratio %.4f (goal within 2%%)\n' \
	    "$tr" "$wr" "$rn" "$re" "$(echo "$re $rn" | awk '{print $1 / $2}')"
	umount "$work/mnt"
	losetup -d "$dev"
	dev=
	rm -f "$work/img"
}

for f in $filesystems; do
	bench_fs "$f"
done
