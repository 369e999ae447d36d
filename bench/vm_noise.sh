#!/bin/sh
# vm_noise.sh - the noise study (docs/vm-machine.md, "Noise at its
# source"): how much a cell's mean write varies from run to run on each
# machine a `vm` cell can run on, with the host as it is ("base") and with
# two CPU hogs beside it. Machines, on the small archive, both kernels:
#   default   vm's default: 2 vCPUs, 1 GiB, one queue, the host's clock
#   cpu1      one vCPU
#   icount4   one vCPU, QEMU's instruction count as the clock (16 ns each)
#   icount0   the same at 1 ns an instruction
#   pinned    the default with each vCPU's thread pinned to its own core
#   knobs     the default with guest arguments against timer noise
#             (tsc=reliable: no clocksource watchdog; nohz=off: a steady
#             tick)
# The last two go through a qemu-system-x86_64 wrapper put first in PATH
# (vm has no option for them: they are what the study weighs). Machines
# are interleaved, round by round, so that a change in the host's load
# falls on all of them alike; each cell records the load before and after.
#
#   sh bench/vm_noise.sh TOP OUT [ARCHIVE]
#	ROUNDS=N (2), RUNS=N (12), MACHINES="default cpu1 ..." (all),
#	UBC=the binary (TOP/ubcreplay); TABLE=1 only redraws OUT/table.md
set -u
top=$1
if [ $# -lt 2 ]; then
	echo "vm_noise: a study of an hour, not run by make bench: sh bench/vm_noise.sh TOP OUT"
	exit 0
fi
out=$2
archive=${3:-$top/build/fixtures/small.tar.gz}
ubc=${UBC:-$top/ubcreplay}
k1=$(ls "$top"/build/kernels/linux-image-6.1.0*/boot/vmlinuz-* 2>/dev/null)
k2=$(ls "$top"/build/kernels/linux-image-6.12.*/boot/vmlinuz-* 2>/dev/null)
[ -n "$k1" ] && [ -n "$k2" ] || { echo "vm_noise: no kernels: make kernels" >&2; exit 1; }
mkdir -p "$out/bin" || exit 1

# The wrapper: NOISE_APPEND adds to the guest's command line, NOISE_PIN
# pins the vCPU threads ("CPU N/TCG") to cores N mod the cores online.
cat >"$out/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
real=/usr/bin/qemu-system-x86_64
args=()
while [ $# -gt 0 ]; do
	if [ "$1" = -append ] && [ -n "${NOISE_APPEND:-}" ]; then
		args+=("$1" "$2 $NOISE_APPEND"); shift 2; continue
	fi
	args+=("$1"); shift
done
if [ -n "${NOISE_PIN:-}" ]; then
	# QEMU names its vCPU threads only when asked to.
	args+=(-name debug-threads=on)
	me=$$ cores=$(getconf _NPROCESSORS_ONLN)
	( for i in $(seq 100); do
		sleep 0.1
		for t in /proc/$me/task/*; do
			c=$(cat "$t/comm" 2>/dev/null)
			case $c in "CPU "*"/TCG")
				n=${c#CPU }; n=${n%%/*}
				taskset -pc $((n % cores)) "${t##*/}" >/dev/null 2>&1 ;;
			esac
		done
	done ) &
fi
exec $real "${args[@]}"
EOF
chmod +x "$out/bin/qemu-system-x86_64"

if [ -z "${TABLE:-}" ]; then
	for r in $(seq "${ROUNDS:-2}"); do
		for host in base hog; do
			hogs=
			if [ $host = hog ]; then
				for i in 1 2; do
					sh -c 'while :; do :; done' &
					hogs="$hogs $!"
				done
			fi
			for m in ${MACHINES:-default cpu1 icount4 pinned knobs icount0}; do
				cell=$out/r$r-$host-$m
				[ -d "$cell" ] && continue
				opts= pin= append=
				case $m in
				cpu1) opts="--cpus 1" ;;
				icount4) opts="--cpus 1 --clock icount:4" ;;
				icount0) opts="--cpus 1 --clock icount" ;;
				pinned) pin=1 ;;
				knobs) append="tsc=reliable nohz=off" ;;
				esac
				l0=$(cut -d' ' -f1 /proc/loadavg) t0=$(date +%s)
				# shellcheck disable=SC2086
				if PATH=$out/bin:$PATH NOISE_PIN=$pin \
				    NOISE_APPEND=$append "$ubc" vm -k "$k1" -k "$k2" \
				    $opts -n "${RUNS:-12}" -o "$cell.tmp" "$archive" \
				    >"$cell.log" 2>&1; then
					mv "$cell.tmp" "$cell"
					st=ok
				else
					st=failed
				fi
				echo "$r $host $m $st load $l0 $(cut -d' ' -f1 /proc/loadavg) $(($(date +%s) - t0)) s" |
				    tee -a "$out/cells.txt"
			done
			[ -z "$hogs" ] || kill $hogs
		done
	done
fi

# The table: per machine, host and kernel, the pooled CV of the mean write
# within a boot (the root of the mean of the boots' variances over the
# grand mean), each boot's own CV, and the load the cells ran under.
python3 - "$out" >"$out/table.md" <<'EOF'
import glob, json, os, statistics, sys
out = sys.argv[1]
load = {}
for line in open(os.path.join(out, "cells.txt")):
    w = line.split()
    load.setdefault((w[2], w[1]), []).extend(float(x) for x in w[5:7])
rows = {}
for d in sorted(glob.glob(os.path.join(out, "r*-*-*"))):
    if d.endswith((".tmp", ".log")) or not os.path.isdir(d):
        continue
    r, host, m = os.path.basename(d).split("-", 2)
    for f in glob.glob(d + "/*.json"):
        doc = json.load(open(f))
        vals = []
        for run in doc["runs"]:
            if run["status"] == "ok":
                ops = sum(x["write"]["ops"] for p in run["phases"] for x in p["devices"])
                b = sum(x["write"]["bytes"] for p in run["phases"] for x in p["devices"])
                vals.append(b / ops / 1024)
        rel = doc["vm"]["kernel_release"].split("+")[0].replace("-amd64", "")
        rows.setdefault((m, host, rel), []).append(vals)
print("| machine | host | kernel | boots | runs | mean write | CV in a boot | each boot | load |")
print("|---|---|---|---:|---:|---:|---:|---|---|")
for (m, host, rel), boots in sorted(rows.items()):
    allv = [x for v in boots for x in v]
    pooled = (sum(statistics.variance(v) for v in boots) / len(boots)) ** 0.5
    l = load.get((m, host), [0])
    print("| %s | %s | %s | %d | %d | %.1f KiB | %.1f%% | %s | %.1f-%.1f |" % (
        m, host, rel, len(boots), len(allv), statistics.mean(allv),
        100 * pooled / statistics.mean(allv),
        ", ".join("%.1f%%" % (100 * statistics.stdev(v) / statistics.mean(v)) for v in boots),
        min(l), max(l)))
EOF
cat "$out/table.md"
