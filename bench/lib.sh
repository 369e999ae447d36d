# lib.sh - what the benchmarks share, sourced (not a benchmark; run.sh
# skips it):
#
#	. "$top/bench/lib.sh"
#	bench_needs NAME FILE	root and FILE, or says why not and exits 0
#	bench_work NAME		a work directory, removed at exit
#	bench_loopfs SIZE	a fresh loop ext4 of SIZE on $work/mnt
#	bench_phase_ns RESULT	every phase's elapsed_ns in a result, summed
#	... | bench_median	the median of numbers, one a line
#
# The loop device is unmounted and detached at exit, however the script
# ends.

work=
dev=

bench_cleanup()
{
	if [ -n "$dev" ]; then
		umount "$work/mnt" 2>/dev/null || umount -l "$work/mnt"
		losetup -d "$dev" 2>/dev/null || true
	fi
	[ -z "$work" ] || rm -rf "$work"
}

bench_needs()
{
	[ "$(id -u)" -eq 0 ] || { echo "$1 bench: needs root (a loop filesystem); skipped"; exit 0; }
	[ -f "$2" ] || { echo "$1 bench: $2 missing (make check builds it); skipped"; exit 0; }
}

bench_work()
{
	work=$(mktemp -d "/tmp/ubcreplay-bench-$1.XXXXXX")
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM HUP PIPE
}

# No lazy init: the kernel must not write while the tool measures.
bench_loopfs()
{
	truncate -s "$1" "$work/img"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/img"
	dev=$(losetup -f --show "$work/img")
	mkdir -p "$work/mnt"
	mount "$dev" "$work/mnt"
}

bench_phase_ns()
{
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(p["elapsed_ns"] for r in d["runs"] for p in r["phases"]))' "$1"
}

bench_median()
{
	sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
