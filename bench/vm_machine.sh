#!/bin/sh
# vm_machine.sh - what the guest's machine does to the sizes a kernel under
# test writes (docs/vm-machine.md): two kernels, each knob changed alone
# from a base machine (1 vCPU, 1 GiB, 1 virtio-blk queue, the host's real
# time): vCPUs 2 and 4 (one queue per vCPU), 2 vCPUs on one queue, 512 MiB
# and 2 GiB, QEMU's instruction count as the clock at shifts 0 and 4; on a
# large archive, and the main ones again on a small one. Every cell records
# the host's load before it and the guest's calibration (vm.calibration_ns).
# The table (write requests, mean write and its run-to-run spread, median
# bucket, share under 16 KiB, flushes, bios per request, the guest's blk-mq
# queues) goes to OUT/table.md.
#
#   sh bench/vm_machine.sh TOP OUT LARGE.tar.gz [SMALL.tar.gz]
#	RUNS=N (default 3); UBC=the binary (default TOP/ubcreplay); KERNELS="K1 K2" (default: the 6.1 and 6.12
#	under TOP/build/kernels); NICE=-5 (the guests' priority); CELLS=
#	a shell pattern of the cells to run (small-*); TABLE=1 only redraws
#	the table from OUT.
set -eu
top=$1
if [ $# -lt 3 ]; then
	echo "vm_machine: a study of an hour, not run by make bench: sh bench/vm_machine.sh TOP OUT LARGE.tar.gz"
	exit 0
fi
out=$2
large=$3
small=${4:-$top/build/fixtures/small.tar.gz}
runs=${RUNS:-3}
ubc=${UBC:-$top/ubcreplay}
mkdir -p "$out"
kernels=${KERNELS:-$(ls -d "$top"/build/kernels/linux-image-6.1.*/boot/vmlinuz-* \
    "$top"/build/kernels/linux-image-6.12.*/boot/vmlinuz-* | sort -V)}

# cell NAME ARCHIVE OPTION...: the kernels (ONLY=6.12: those whose
# release begins so) on one machine.
cell() {
	name=$1 archive=$2
	shift 2
	[ -d "$out/$name" ] && return 0
	# shellcheck disable=SC2254
	case $name in ${CELLS:-*}) ;; *) return 0 ;; esac
	ks=
	for k in $kernels; do
		case $(basename "$k") in
		vmlinuz-${ONLY:-}*) ks="$ks -k $k" ;;
		esac
	done
	t0=$(date +%s)
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	# shellcheck disable=SC2086
	if nice -n "${NICE:--5}" "$ubc" vm $ks -n "$runs" -o "$out/$name.tmp" \
	    "$@" "$archive" >"$out/$name.txt" 2>&1; then
		mv "$out/$name.tmp" "$out/$name"
		status=ok
	else
		status=failed
	fi
	echo "$name|$load|$(($(date +%s) - t0))|$status|$*" >>"$out/cells.txt"
	echo "vm_machine: $name $status in $(($(date +%s) - t0)) s (load $load)"
}

if [ -z "${TABLE:-}" ]; then
	# A large archive's cell of two kernels took about 7 minutes on
	# the loaded machine of the study: the large archive has the knobs
	# that moved the sizes most, the small one all of them.
	L=large S=small
	cell $L-base "$large" --cpus 1 --queues 1
	cell $L-2cpu "$large" --cpus 2 --queues 2
	ONLY=6.12 cell $L-2cpu-1q "$large" --cpus 2 --queues 1
	cell $L-icount4 "$large" --cpus 1 --queues 1 --clock icount:4
	cell $S-base "$small" --cpus 1 --queues 1
	cell $S-2cpu "$small" --cpus 2 --queues 2
	cell $S-2cpu-1q "$small" --cpus 2 --queues 1
	cell $S-4cpu "$small" --cpus 4 --queues 4
	cell $S-icount0 "$small" --cpus 1 --queues 1 --clock icount:0
	cell $S-icount4 "$small" --cpus 1 --queues 1 --clock icount:4
	cell $S-512M "$small" --cpus 1 --queues 1 --mem 512
	cell $S-2G "$small" --cpus 1 --queues 1 --mem 2048
fi

python3 - "$out" >"$out/table.md" <<'EOF'
import glob, json, os, statistics, sys

out = sys.argv[1]
loads = {}
for line in open(os.path.join(out, "cells.txt")):
    f = line.rstrip("\n").split("|")
    loads[f[0]] = (f[1].split()[0], f[2])

def run_figures(run):
    ops = byts = bios = flushes = 0
    hist = {}
    for p in run["phases"]:
        for d in p.get("devices", []):
            if d["device"] != "vda":
                continue
            w = d["write"]
            ops += w["ops"]
            byts += w["bytes"]
            bios += w["bios"]
            flushes += d["flushes"]
            for b in w["size_hist"]["buckets"]:
                hist[b["min_bytes"]] = hist.get(b["min_bytes"], 0) + b["count"]
    acc, median = 0, 0
    for k in sorted(hist):
        acc += hist[k]
        if acc * 2 >= ops:
            median = k
            break
    small = sum(c for k, c in hist.items() if k < 16384)
    return ops, byts / ops if ops else 0, median, small / ops if ops else 0, \
        flushes, bios / ops if ops else 0

def kib(b):
    return "%dK" % (b // 1024) if b >= 1024 else "%d" % b

print("| cell | kernel | machine | requests | mean write | cv | median | < 16 KiB | flushes | bios/req | hw queues | calibration | load |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for d in sorted(glob.glob(os.path.join(out, "*/")), key=lambda p: list(loads).index(os.path.basename(p[:-1])) if os.path.basename(p[:-1]) in loads else 99):
    name = os.path.basename(d[:-1])
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        doc = json.load(open(f))
        vm = doc["vm"]
        figs = [run_figures(r) for r in doc["runs"] if r["status"] == "ok"]
        means = [x[1] for x in figs]
        mean = statistics.mean(means)
        cv = statistics.stdev(means) / mean * 100 if len(means) > 1 else 0
        clock = "realtime" if vm.get("clock") != "icount" else "icount:%d" % vm["icount_shift"]
        machine = "%d vCPU, %d MiB, %dq, %s" % (vm["cpus"], vm["mem_mib"], vm.get("queues", vm["cpus"]), clock)
        print("| %s | %s | %s | %.0f | %.1f KiB | %.1f%% | %s | %.0f%% | %.1f | %.2f | %d | %.0f ms | %s |" % (
            name, vm["kernel_release"], machine,
            statistics.mean(x[0] for x in figs), mean / 1024, cv,
            kib(statistics.median(x[2] for x in figs)),
            statistics.mean(x[3] for x in figs) * 100,
            statistics.mean(x[4] for x in figs),
            statistics.mean(x[5] for x in figs),
            vm.get("hw_queues", 0), vm.get("calibration_ns", 0) / 1e6,
            loads.get(name, ("?",))[0]))
EOF
echo "vm_machine: table in $out/table.md"
