#!/bin/sh
# uml-run.sh - runs the main job once in a User Mode Linux guest, on
# simulated time: the UML kernel LINUX (a program, from `vm-kbuild.sh -a
# um`) boots with the host's root read-only over hostfs, a fresh ext4 on a
# ubd disk file, and an init script that runs ubcreplay with the exact probe
# on ARCHIVE into that disk, writes the result to a host directory (hostfs)
# and powers off (init then sleeps: the power-off is queued work, and an
# init that exits panics the kernel). Deterministic by construction:
# time-travel=inf-cpu, ubd's disk model (contrib/uml-patches/0002), no
# address-space randomisation for the UML process (setarch -R), mkfs with
# the inode tables and journal written at once with a fixed UUID and hash
# seed, ext4 without block-bitmap prefetch, the guest's random numbers from
# a seed (0003), its clock from a fixed start, and the same command line
# every time: the same kernel, archive, memory, model and seed give the
# same counts, run after run.
#
#   uml-run.sh [-m MEM] [-d BASE_NS,NS_PER_KIB | -V MODEL] [-r SEED] [-s DISKSIZE]
#              [-b UBCREPLAY] [-o RESULT] LINUX ARCHIVE
#
#   -m MEM      the guest's memory (mem=; default 512M)
#   -r SEED     the guest's random seed (uml_seed=, contrib/uml-patches/0003;
#               default 1); its wall clock starts at a fixed time
#               (time-travel-start=) whatever the seed
#   -d MODEL    ubd's disk model (ubd_model=; default the kernel's,
#               100000,2000), or off
#   -V MODEL    the disk is virtio-blk instead of ubd: the kernel's
#               virtio_blk over UML's virtio transport, served by
#               build/tests/vublk_serve (vm/vublk.c) with the disk model
#               file MODEL (vm/vdisk.h; - for the defaults), which also
#               owns the guest's simulated time (time-travel=ext); the
#               guest idles the model's settle_ns before its mounts, as
#               vm's virtio cells do
#   -s SIZE     the disk file (truncate -s; default 256M)
#   -b PROG     ubcreplay (default: ../ubcreplay beside this script)
#   -o RESULT   where the result JSON goes (default uml-result.json)
#
# The work directory is $UBC_UML_WORK, by default TMPDIR/uml-run (one run
# at a time there: it must not exist yet), removed at the end unless
# UBC_UML_KEEP is set; UML's memory file goes to a tmpfs (/dev/shm). The
# guest sees the archive as WORK/archive (a link, or a copy across
# filesystems) and the results as WORK/out. The work directory's name is
# fixed because the guest is chaotic: its command line (which names WORK)
# is mixed into its random number generator at boot, and the length of a
# path it reads is enough to move the counts. So the same counts need the
# same WORK. Prints on stderr, and in RESULT.times, the seconds from
# launch to the job's start (the host's clock on a file the guest creates
# just before the job) and from launch to the guest's exit. Exit 0 when the
# job ran, 2 otherwise (with the guest's console's last lines).
set -u

me=uml-run.sh
here=$(cd "$(dirname "$0")" && pwd)
mem=512M
model=
size=256M
seed=1
prog=$here/../ubcreplay
out=uml-result.json
vmodel=
fs_uuid=75626372-6570-6c61-7975-6d6c00000001

die()
{
	echo "$me: $*" >&2
	exit 2
}

usage="usage: $me [-m MEM] [-d BASE_NS,NS_PER_KIB|off] [-V MODEL] [-r SEED] [-s SIZE] [-b UBCREPLAY] [-o RESULT] LINUX ARCHIVE"
while getopts m:d:V:r:s:b:o: opt; do
	case $opt in
	m) mem=$OPTARG ;;
	d) model=$OPTARG ;;
	V) vmodel=$OPTARG ;;
	r) seed=$OPTARG ;;
	s) size=$OPTARG ;;
	b) prog=$OPTARG ;;
	o) out=$OPTARG ;;
	*) die "$usage" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || die "$usage"
case $model in
'' | off) ;;
*[!0-9,]* | *,*,* | ,* | *,) die "-d '$model': BASE_NS,NS_PER_KIB or off" ;;
*,*) ;;
*) die "-d '$model': BASE_NS,NS_PER_KIB or off" ;;
esac
case $seed in
'' | *[!0-9]*) die "-r '$seed': a number" ;;
esac
serve= cpuarg= settle=0
if [ -n "$vmodel" ]; then
	[ -z "$model" ] || die "-d is ubd's model, -V the virtio disk's: one of them"
	serve=$here/../build/tests/vublk_serve
	[ -x "$serve" ] || die "no '$serve' (make build/tests/vublk_serve)"
	if [ "$vmodel" != - ]; then
		[ -f "$vmodel" ] || die "-V '$vmodel': no such file"
		vmodel=$(cd "$(dirname "$vmodel")" && pwd)/$(basename "$vmodel")
		cpuarg=$("$serve" -c -m "$vmodel") ||
		    die "-V '$vmodel': the model is refused (above)"
		settle=$("$serve" -s -m "$vmodel") || die "$serve -s failed"
	else
		cpuarg=$("$serve" -c) || die "$serve -c failed"
		settle=$("$serve" -s) || die "$serve -s failed"
	fi
fi
linux=$1
archive=$2
[ -f "$linux" ] && [ -x "$linux" ] || die "'$linux' is no UML kernel (not an executable file)"
[ -f "$archive" ] || die "'$archive': no such file"
[ -x "$prog" ] || die "-b '$prog': not executable (make ubcreplay)"
linux=$(cd "$(dirname "$linux")" && pwd)/$(basename "$linux")
archive=$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")
prog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
: >"$out" 2>/dev/null || die "-o '$out': cannot write"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

work=${UBC_UML_WORK:-}
if [ -z "$work" ]; then
	work=${TMPDIR:-/tmp}/uml-run
	mkdir "$work" 2>/dev/null ||
	    die "cannot make '$work': another uml-run.sh is using it, or one left it (remove it), or set UBC_UML_WORK"
fi
mkdir -p "$work/out" || die "cannot make '$work/out'"
work=$(cd "$work" && pwd)
mem_dir=$(mktemp -d /dev/shm/uml-mem.XXXXXX) || die "cannot make UML's memory directory under /dev/shm"
cleanup()
{
	rm -rf "$mem_dir"
	[ -n "${UBC_UML_KEEP:-}" ] || [ -n "${UBC_UML_WORK:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

disk=$work/disk.img
rm -f "$disk" "$work"/out/* "$work/archive"
ln "$archive" "$work/archive" 2>/dev/null || cp "$archive" "$work/archive" ||
    die "cannot copy '$archive' to '$work'"
truncate -s "$size" "$disk" || die "-s '$size': cannot make the disk file"
# The same filesystem every time: mkfs draws the UUID and the directory
# hash seed at random, and the seed decides directory layouts and which
# group the allocator (Orlov) puts a top-level directory in.
E2FSPROGS_FAKE_TIME=1700000000 mkfs.ext4 -q -F -U "$fs_uuid" \
    -E lazy_itable_init=0,lazy_journal_init=0,hash_seed="$fs_uuid" "$disk" ||
    die "mkfs.ext4 failed on '$disk'"

# The guest's init: the host's /bin/sh on the host's root (read-only; the
# kernel mounts devtmpfs on /dev). Its mounts are the guest's own, on the
# work directory's mnt/ (the disk) and out/ (hostfs, read-write).
mkdir -p "$work/mnt" || die "cannot make '$work/mnt'"
dev=/dev/ubda
sched=
if [ -n "$serve" ]; then
	dev=/dev/vda
	# As vm's virtio cells (vm/vm_impl.h, VM_UML_SCHED_FEATURES): no
	# wakeup preemption on a CPU that costs no simulated time.
	sched="mount -t debugfs debugfs /sys/kernel/debug
echo NO_WAKEUP_PREEMPTION >/sys/kernel/debug/sched/features"
	# As vm's init: the model's settle_ns idled before the mount.
	[ "$settle" = 0 ] ||
	    sched="$sched
sleep $(echo "$settle" | awk '{ printf "%.9f", $1 / 1e9 }')"
fi
cat >"$work/init" <<EOF || die "cannot write '$work/init'"
#!/bin/sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tracefs tracefs /sys/kernel/tracing
$sched
mount -t hostfs -o '$work/out' none '$work/out'
mount -t ext4 -o no_prefetch_block_bitmaps $dev '$work/mnt'
: >'$work/out/started'
'$prog' -p exact -o '$work/out/result.json' '$work/archive' '$work/mnt' \\
    >'$work/out/report.txt' 2>&1
echo \$? >'$work/out/rc'
umount '$work/mnt'
umount '$work/out'
echo o >/proc/sysrq-trigger
while :; do sleep 1; done
EOF
chmod +x "$work/init"

modelarg=
[ -z "$model" ] || modelarg=ubd_model=$model
# The virtio disk: vublk_serve listens on WORK/time.sock and
# WORK/vublk.sock, starts the kernel and serves both until it exits.
clock=time-travel=inf-cpu
diskarg=ubd0=$disk
server=
if [ -n "$serve" ]; then
	clock=time-travel=ext:$work/time.sock
	diskarg=virtio_uml.device=$work/vublk.sock:2
	server="$serve -i $disk -d $work"
	[ "$vmodel" = - ] || server="$server -m $vmodel"
	server="$server --"
	# The model's words for the guest's CPU, as vm gives them (0004's
	# charges, 0005's yield).
	modelarg=$cpuarg
fi
start=$(date +%s.%N)
TMPDIR=$mem_dir setarch x86_64 -R $server "$linux" mem="$mem" $clock \
    time-travel-start=1700000000000000000 uml_seed="$seed" uml_dir="$work" \
    root=/dev/root rootfstype=hostfs rootflags=/ ro "$diskarg" \
    $modelarg init="$work/init" con0=null,fd:1 con=null \
    </dev/null >"$work/console.log" 2>&1
end=$(date +%s.%N)
[ -z "$serve" ] || grep '^vublk_serve: ' "$work/console.log" | sed 's/^vublk_serve: /uml-run.sh: vublk: /' >&2
if [ ! -f "$work/out/rc" ] || [ "$(cat "$work/out/rc")" != 0 ] ||
    [ ! -s "$work/out/result.json" ]; then
	echo "$me: the job did not finish in the guest; the console's last lines ($work/console.log):" >&2
	tail -n 15 "$work/console.log" | sed 's/^/  /' >&2
	[ ! -f "$work/out/report.txt" ] || tail -n 5 "$work/out/report.txt" | sed 's/^/  /' >&2
	UBC_UML_KEEP=1
	exit 2
fi
jobstart=$(stat -c %.9Y "$work/out/started")
cp "$work/out/result.json" "$out" || die "cannot write '$out'"
times=$(printf 'boot_to_job_s %.3f\ncell_s %.3f\n' \
    "$(echo "$jobstart - $start" | bc)" "$(echo "$end - $start" | bc)")
echo "$times" >"$out.times"
# Every count and histogram bucket of every device, phase and run, one a
# line, in RESULT.counts: two runs are the same when these files are.
python3 - "$out" >"$out.counts" <<'EOF' || die "'$out': not a result with runs, phases and devices"
import json, sys
d = json.load(open(sys.argv[1]))
for i, r in enumerate(d["runs"]):
    for p in r["phases"]:
        for dev in p["devices"]:
            at = "run %d %s %s" % (i, p["phase"], dev["device"])
            for way in ("read", "write"):
                w = dev[way]
                print(at, way, "ops", w["ops"], "bytes", w["bytes"])
                for b in w["size_hist"]["buckets"]:
                    print(at, way, "bucket", json.dumps(b, sort_keys=True))
            for k in ("flushes", "discards", "empty_preflush"):
                print(at, k, dev[k])
EOF
echo "$times" | sed "s/^/$me: /" >&2
awk '$5 == "write" && $6 == "ops" { n += $7; b += $9 }
    END { printf "%s: writes %d, %d bytes, mean %.3f KiB\n", me, n, b, n ? b / n / 1024 : 0 }' \
    me="$me" "$out.counts" >&2
