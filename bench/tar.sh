#!/bin/sh
# tar.sh - the main job, with the interval probe, against what it replaces:
# `bsdtar -xf` followed by `sync -f`, on the same archive and the same
# freshly made loop ext4, interleaved pairs (which one goes first
# alternates), warm archive.
# Prints per pair the wall times, then the median ratio and the peak RSS
# of each (GNU time's %M: the largest of the process and its children).
#
# Archives: the emacs-sized fixture, and Debian's linux-source-6.1 tarball
# when it is installed.  PAIRS=N sets the pairs (default 5).
set -eu
top=$1
pairs=${PAIRS:-5}
ubc=$top/ubcreplay
[ "$(id -u)" -eq 0 ] || { echo "tar bench: needs root for a loop ext4; skipped"; exit 0; }
. "$top/bench/lib.sh"
bench_work tar
bench_loopfs 6G

# timed NAME CMD...: runs CMD under GNU time (for the peak RSS and the CPU
# time of the process tree; its own clock has only hundredths) between two
# reads of the nanosecond clock; appends "seconds kib cpu_seconds" to NAME.
timed()
{
	name=$1
	shift
	t0=$(date +%s.%N)
	/usr/bin/time -f '%M %U %S' -o "$work/t" "$@" >/dev/null 2>"$work/err" ||
	    { cat "$work/err" >&2; exit 1; }
	t1=$(date +%s.%N)
	echo "$t0 $t1 $(cat "$work/t")" |
	    awk '{printf "%.4f %d %.2f\n", $2 - $1, $3, $4 + $5}' >>"$work/$name"
}

clean()
{
	rm -rf "$work/mnt/ref" "$work"/mnt/ubcreplay-run.*
	sync -f "$work/mnt"
}

bench_one()
{
	archive=$1
	rm -f "$work/ubc" "$work/tar"
	cat "$archive" >/dev/null	# warm: both read it from the cache
	echo "archive $(basename "$archive"), $pairs interleaved pairs on a fresh loop ext4"
	printf '  %-5s %12s %14s %7s\n' pair ubcreplay_s bsdtar+sync_s ratio
	i=1
	while [ "$i" -le "$pairs" ]; do
		for who in $( [ $((i % 2)) -eq 1 ] && echo "ubc tar" || echo "tar ubc"); do
			clean
			if [ "$who" = ubc ]; then
				timed ubc "$ubc" -q -p interval --keep "$archive" "$work/mnt"
			else
				mkdir "$work/mnt/ref"
				timed tar sh -c "bsdtar -xf '$archive' -C '$work/mnt/ref' && sync -f '$work/mnt'"
			fi
		done
		u=$(sed -n "${i}p" "$work/ubc" | cut -d' ' -f1)
		t=$(sed -n "${i}p" "$work/tar" | cut -d' ' -f1)
		printf '  %-5s %12s %14s %7.3f\n' "$i" "$u" "$t" "$(echo "$u $t" | awk '{print $1 / $2}')"
		i=$((i + 1))
	done
	median=$(paste -d' ' "$work/ubc" "$work/tar" | awk '{print $1 / $4}' |
	    sort -n | awk '{r[NR] = $1} END {print r[int((NR + 1) / 2)]}')
	printf '  median ratio ubcreplay / (bsdtar + sync): %.3f (goal <= 1.03)\n' "$median"
	# CPU time is steadier than wall time on a shared machine.
	paste -d' ' "$work/ubc" "$work/tar" | awk '
	    { mu = $2 > mu ? $2 : mu; mt = $5 > mt ? $5 : mt; cu += $3; ct += $6 }
	    END {
		printf "  CPU time (user + system, all pairs): ubcreplay %.2f s, bsdtar + sync %.2f s, ratio %.3f\n", cu, ct, (ct > 0 ? cu / ct : 0)
		printf "  peak RSS: ubcreplay %.1f MiB (goal <= 16), bsdtar %.1f MiB\n", mu / 1024, mt / 1024
	    }'
}

bench_one "$top/build/fixtures/emacs-like.tar.gz"
src=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
if [ -n "$src" ]; then
	echo
	bench_one "$src"
else
	echo "linux-source-6.1 is not installed (contrib/deps.sh bench installs it): skipped"
fi
