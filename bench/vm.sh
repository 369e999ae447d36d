#!/bin/sh
# vm.sh - what a `ubcreplay vm` cell costs before its job starts: from
# QEMU's start to the job's start in the guest (the result's vm.boot_ns,
# as the host saw it), and the whole invocation's wall time, for a job that
# does almost nothing (dd of 1 MiB from the raw disk), one guest at a time,
# under the accelerator --accel auto picks. Goal: under 10 s under TCG on
# a 2-core machine, under 2 s with KVM (issue 10); for a minimal kernel
# built from a tree with contrib/vm-kbuild.sh, under 2 s under TCG (issue
# 15). Built trees are measured beside Debian's kernels when there are any:
# UBC_BENCH_TREES (directories separated by spaces), by default the build
# of the from-source test's base in the kbuild cache.
#
#   sh bench/vm.sh TOP		REPS=N (default 3)
set -eu
top=$1
reps=${REPS:-3}
ubc=$top/ubcreplay
command -v qemu-system-x86_64 >/dev/null 2>&1 ||
    { echo "vm bench: no qemu-system-x86_64; skipped"; exit 0; }
kernels=$(ls -d "$top"/build/kernels/linux-image-*/boot/vmlinuz-* 2>/dev/null | sort -V) ||
    true
trees=${UBC_BENCH_TREES:-${UBC_KBUILD_CACHE:-/var/cache/ubcreplay/kbuild}/ktree-base}
for t in $trees; do
	[ -f "$t/arch/x86/boot/bzImage" ] && kernels="$kernels $t"
done
[ -n "$kernels" ] ||
    { echo "vm bench: no kernels under build/kernels (contrib/kernels.sh); skipped"; exit 0; }
work=$(mktemp -d /tmp/ubcreplay-bench-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
for k in $kernels; do
	rel=$(basename "$k" | sed 's/^vmlinuz-//')
	# A tree's result file is named by its release, directory and commit.
	[ -d "$k" ] && rel=
	: >"$work/boot" && : >"$work/wall"
	i=0
	while [ $i -lt "$reps" ]; do
		i=$((i + 1))
		rm -rf "$work/out"
		t0=$(date +%s%N)
		"$ubc" vm --mem 512 --cpus 1 -k "$k" -o "$work/out" -- \
		    dd if=/dev/vda of=/dev/null bs=64k count=16 >/dev/null 2>"$work/err" ||
		    { echo "vm bench: $k failed: $(tail -12 "$work/err")"; exit 1; }
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000)) >>"$work/wall"
		python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["vm"]; print(v["boot_ns"] // 1000000, v["accel"])' \
		    "$(ls "$work"/out/*-raw.json)" >>"$work/boot"
	done
	accel=$(awk '{print $2}' "$work/boot" | sort -u | tr '\n' ' ')
	boot=$(awk '{print $1}' "$work/boot" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	wall=$(sort -n "$work/wall" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	[ -n "$rel" ] || rel=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["vm"]["tree"]["name"])' "$(ls "$work"/out/*-raw.json)")
	printf '%-28s %s boot to job %6.1f s, whole cell %6.1f s (median of %d)\n' \
	    "$rel" "$accel" "$(echo "$boot / 1000" | bc -l)" "$(echo "$wall / 1000" | bc -l)" "$reps"
done
echo "goal: boot to job under 10 s under tcg, under 2 s under kvm; load average $(cut -d' ' -f1-3 /proc/loadavg)"
