#!/bin/sh
# exact_cost.sh - what the exact probe (tracefs) costs the whole process,
# against the interval probe (diskstats), which costs next to nothing:
#
#   wall ratio   `ubcreplay -p exact -n 5` / `ubcreplay -p interval -n 5`
#                on the emacs-sized archive, whole invocations timed by this
#                script, interleaved pairs (which one goes first alternates)
#                on a fresh 1 GiB loop ext4, warm archive; the median of the
#                pairs' ratios. "outside" is the invocation's time not spent
#                in the phases (wall minus the phases' elapsed_ns): the
#                probe's set-up, its marks and its clean-up. Goal <= 1.05.
#                Also what the exact probe adds outside the phases, as a
#                share of the interval run: with the phases equal (their
#                CPU time is), that is the ratio without the phases' noise.
#   peak RSS     GNU time's %M (the largest of the process and its
#                children) of one run with each probe on Debian's
#                linux-source-6.1 tarball, on a fresh 4 GiB loop ext4, with
#                `bsdtar -xf` as the peer. Goal <= 16 MiB with either probe.
#
# Other jobs share the machine, so wall times are noisy: hence the pairs
# and the median, and the outside times, which are small and steadier.
#
#   sh bench/exact_cost.sh TOP		PAIRS=N (default 7)
set -eu
top=$1
pairs=${PAIRS:-7}
ubc=$top/ubcreplay
archive=$top/build/fixtures/emacs-like.tar.gz
. "$top/bench/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "exact_cost bench: needs root (loop filesystems, tracefs); skipped"; exit 0; }
[ -d /sys/kernel/tracing/events/block ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
[ -d /sys/kernel/tracing/events/block ] || { echo "exact_cost bench: no tracefs block events; skipped"; exit 0; }
[ -f "$archive" ] || { echo "exact_cost bench: $archive missing (make check builds it); skipped"; exit 0; }
work=$(mktemp -d /tmp/ubcreplay-bench-cost.XXXXXX)
dev=
cleanup()
{
	if [ -n "$dev" ]; then
		umount "$work/mnt" 2>/dev/null || umount -l "$work/mnt"
		losetup -d "$dev" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# fresh_fs SIZE: a freshly made loop ext4 of SIZE on $work/mnt.
fresh_fs()
{
	if [ -n "$dev" ]; then
		umount "$work/mnt"
		losetup -d "$dev"
		dev=
	fi
	rm -f "$work/img"
	truncate -s "$1" "$work/img"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/img"
	dev=$(losetup -f --show "$work/img")
	mkdir -p "$work/mnt"
	mount "$dev" "$work/mnt"
}

fresh_fs 1G
cat "$archive" >/dev/null
echo "$(basename "$archive"), -n 5, $pairs interleaved pairs on a fresh 1 GiB loop ext4"
printf '  %-4s %11s %11s %8s %14s %14s\n' pair "interval s" "exact s" ratio \
    "outside int ms" "outside ex ms"
: >"$work/pairs"
i=1
while [ "$i" -le "$pairs" ]; do
	for p in $( [ $((i % 2)) -eq 1 ] && echo "interval exact" || echo "exact interval"); do
		sync -f "$work/mnt"
		t0=$(date +%s%N)
		"$ubc" -q -p "$p" -n 5 -o "$work/$p.json" "$archive" "$work/mnt" >/dev/null
		t1=$(date +%s%N)
		echo "$((t1 - t0)) $((t1 - t0 - $(bench_phase_ns "$work/$p.json")))" >"$work/$p.row"
	done
	set -- $(cat "$work/interval.row") $(cat "$work/exact.row")
	echo "$1 $2 $3 $4" >>"$work/pairs"
	echo "$i $1 $2 $3 $4" | awk '{printf "  %-4s %11.3f %11.3f %8.3f %14.1f %14.1f\n",
	    $1, $2 / 1e9, $4 / 1e9, $4 / $2, $3 / 1e6, $5 / 1e6}'
	i=$((i + 1))
done
wr=$(awk '{print $3 / $1}' "$work/pairs" | bench_median)
wi=$(awk '{print $1 / 1e9}' "$work/pairs" | bench_median)
oi=$(awk '{print $2 / 1e6}' "$work/pairs" | bench_median)
oe=$(awk '{print $4 / 1e6}' "$work/pairs" | bench_median)
printf '  median wall ratio exact / interval %.3f (goal <= 1.05)\n' "$wr"
printf '  median outside the phases: interval %.1f ms, exact %.1f ms: the probe adds %.1f ms, %.1f%% of the interval run (%.3f s)\n' \
    "$oi" "$oe" "$(echo "$oe $oi" | awk '{print $1 - $2}')" \
    "$(echo "$oe $oi $wi" | awk '{print ($1 - $2) / 10 / $3}')" "$wi"

src=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
	echo "linux-source-6.1 is not installed (contrib/deps.sh bench installs it): peak RSS skipped"
	exit 0
fi
echo
fresh_fs 4G
cat "$src" >/dev/null
echo "$(basename "$src"), one run each on a fresh 4 GiB loop ext4: peak RSS (goal <= 16 MiB with either probe)"
for who in exact interval bsdtar; do
	sync -f "$work/mnt"
	if [ "$who" = bsdtar ]; then
		mkdir "$work/mnt/ref"
		/usr/bin/time -f %M -o "$work/rss" bsdtar -xf "$src" -C "$work/mnt/ref"
		rm -rf "$work/mnt/ref"
	else
		/usr/bin/time -f %M -o "$work/rss" \
		    "$ubc" -q -p "$who" -o "$work/$who.json" "$src" "$work/mnt" >/dev/null
	fi
	awk -v who="$who" '{printf "  %-9s %8d KiB  %5.1f MiB\n", who, $1, $1 / 1024}' "$work/rss"
done
