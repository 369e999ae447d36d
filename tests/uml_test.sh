#! /usr/bin/env atf-sh
# uml_test.sh - the main job in a User Mode Linux guest on simulated time
# is deterministic: two runs of the same kernel, archive, memory, disk
# model and seed give the same counts and histogram buckets, and so does a
# third beside two CPU hogs; by hand (contrib/uml-run.sh, the whole result
# but for its start time) and as `ubcreplay vm -k UMLTREE`, whose results
# carry the machine and whose exact probe agrees with the guest's
# diskstats. vm refuses what UML has not (NFS, an accelerator, the icount
# clock, a second CPU, virtio queues), a UML kernel without time-travel or
# the project's patches, and a seed for QEMU; compare refuses a size gate
# across machine kinds. On the virtio disk, a UML killed mid-run and a
# disk connection shut down mid-run each fail the cell at once, naming
# it, with nothing left behind. How soon the guest reaches the job is
# printed (a benchmark's figure, not judged here).
#
# The UML kernel is $UBC_UML_LINUX, else the one `make check` builds
# (contrib/uml.sh -n finds it: 6.1 from tinyconfig in the kbuild cache),
# else the first UML defconfig kernel `contrib/vm-kbuild.sh -a um` built
# there (NAME-um-HASH); without one the cases skip and say why (uml.sh's
# reason, when its build failed or found no source).

. "$(atf_get_srcdir)/../../tests/lib.sh"

require_uml()
{
	linux=${UBC_UML_LINUX:-}
	kcache=${UBC_KBUILD_CACHE:-/var/cache/ubcreplay/kbuild}
	[ -n "$linux" ] || linux=$(sh "$top/contrib/uml.sh" -n 2>uml.why) || {
		for l in "$kcache"/*-um-*/linux; do
			[ -x "$l" ] && { linux=$l; break; }
		done
	}
	[ -n "$linux" ] ||
	    atf_skip "$(sed 's/^uml.sh: //' uml.why) (or set UBC_UML_LINUX)"
	[ -x "$linux" ] || atf_skip "UBC_UML_LINUX '$linux' is no program"
	# ASan's shadow memory does not fit a UML guest's address space.
	asan_build &&
	    atf_skip "ubcreplay is built with ASan, which cannot run in a UML guest"
	require_prog mkfs.ext4
	require_prog setarch
	[ -f "$small" ] || atf_fail "missing $small (make build/fixtures/small.tar.gz)"
}

# Two CPU hogs beside the next cells, and their end (also a cleanup's).
hogs_start()
{
	sh -c 'while :; do :; done' &
	echo $! >hogs
	sh -c 'while :; do :; done' &
	echo $! >>hogs
}
hogs_stop()
{
	[ ! -f hogs ] || kill $(cat hogs) 2>/dev/null
	rm -f hogs
	return 0
}

# uml_run NAME [OPTIONS]: one cell, its counts in NAME.json.counts.
uml_run()
{
	name=$1
	shift
	TMPDIR=$PWD "$top/contrib/uml-run.sh" -b "$ubc" -o "$PWD/$name.json" "$@" \
	    "$linux" "$small" 2>"$name.err" ||
	    atf_fail "$name: uml-run.sh failed: $(tail -n 6 "$name.err" | tr '\n' ' ')"
	grep -q ' write ops [1-9]' "$name.json.counts" ||
	    atf_fail "$name: no writes counted: $(head -n 4 "$name.json.counts" | tr '\n' ' ')"
}

# same_counts WHAT A B: the counts files A and B are the same, else fail
# saying WHAT differs and where.
same_counts()
{
	cmp -s "$2" "$3" ||
	    atf_fail "$1 differ: $(diff "$2" "$3" | head -n 8 | tr '\n' ' ')"
}

atf_test_case deterministic cleanup
deterministic_head()
{
	atf_set descr "the same UML cell twice, then beside two CPU hogs: identical counts"
	atf_set timeout 300
}
deterministic_body()
{
	require_uml
	uml_run a
	uml_run b
	hogs_start
	uml_run hog
	hogs_stop
	same_counts "two quiet runs" a.json.counts b.json.counts
	same_counts "a quiet run and one under a CPU hog" a.json.counts \
	    hog.json.counts
	# Whole results too, but for the wall-clock start (the guest's clock
	# starts at a fixed time, the host stamps `started`).
	for n in a b hog; do
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("started"); print(json.dumps(d, sort_keys=True))' \
		    "$n.json" >"$n.flat" || atf_fail "$n.json: not JSON"
	done
	cmp -s a.flat b.flat && cmp -s a.flat hog.flat ||
	    atf_fail "the counts agree but the results do not (beyond started)"
	# The launch's speed is a benchmark's (contrib/uml-run.sh prints it),
	# not a test's: shown here, not judged.
	cat a.json.times b.json.times hog.json.times
}
deterministic_cleanup()
{
	hogs_stop
}

# A UML kernel that has UML's virtio transport (its parameter's name is in
# the program), and the virtio disk's server.
require_virtio()
{
	require_uml
	grep -aq 'virtio_uml.device' "$linux" ||
	    atf_skip "'$linux' has no CONFIG_VIRTIO_UML (a build from contrib/vm-kbuild.sh -a um after contrib/guest-um.config gained it has)"
	[ -x "$top/build/tests/vublk_serve" ] ||
	    atf_fail "missing build/tests/vublk_serve (make build/tests/vublk_serve)"
}

atf_test_case virtio_deterministic cleanup
virtio_deterministic_head()
{
	atf_set descr "the same UML cell on the virtio disk (vublk, time-travel=ext) twice, then beside two CPU hogs: identical counts"
	atf_set timeout 300
}
virtio_deterministic_body()
{
	require_virtio
	uml_run va -V "$top/contrib/vdisk.model"
	uml_run vb -V "$top/contrib/vdisk.model"
	hogs_start
	uml_run vhog -V "$top/contrib/vdisk.model"
	hogs_stop
	same_counts "two quiet runs on the virtio disk" va.json.counts vb.json.counts
	same_counts "a quiet run and one under a CPU hog on the virtio disk" \
	    va.json.counts vhog.json.counts
	grep -q '^run 0 .* vda write ops [1-9]' va.json.counts ||
	    atf_fail "no writes counted on vda: $(head -n 3 va.json.counts | tr '\n' ' ')"
	cat va.json.times vb.json.times vhog.json.times
}
virtio_deterministic_cleanup()
{
	hogs_stop
}

atf_test_case virtio_bad_input
virtio_bad_input_head()
{
	atf_set descr "the virtio disk's server refuses a nonsense model file, an unopenable image, a socket directory it cannot use and a guest that never connects, naming each; fails a guest that runs on after its disk's connection ended; runs a guest's clock played by hand at the time it asked; uml-run.sh -V refuses a missing model"
}
virtio_bad_input_body()
{
	[ -x "$top/build/tests/vublk_serve" ] ||
	    atf_fail "missing build/tests/vublk_serve (make build/tests/vublk_serve)"
	serve=$top/build/tests/vublk_serve
	truncate -s 1M img
	printf 'latency_ns 10000\nbandwidth 5\n' >bad.model
	atf_check -s exit:2 -e match:"bad.model:2: unknown key 'bandwidth'" \
	    "$serve" -i img -m bad.model -d . -- /bin/true
	atf_check -s exit:2 -e match:"cannot open '/nonexistent.img'" \
	    "$serve" -i /nonexistent.img -d . -- /bin/true
	atf_check -s exit:2 -e match:"cannot listen on '/nonexistent/vublk.sock'" \
	    "$serve" -i img -d /nonexistent -- /bin/true
	# A guest that dies before it connects: its status, not a hang.
	atf_check -s exit:2 -e match:"the guest exited 3 before it made the time-travel connection" \
	    "$serve" -i img -d . -- sh -c 'exit 3'
	# One that connects to the clock and then dies: the end of the link.
	atf_check -s exit:4 -e ignore "$serve" -i img -d . -- python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect("time.sock")
sys.exit(4)'
	[ ! -e time.sock ] && [ ! -e vublk.sock ] || atf_fail "sockets left behind"
	# One whose disk's connection ends (here its own side closes it) and
	# that asks the clock for more: the disk fails, naming its socket,
	# rather than the guest waiting for its requests forever.
	cat >gone.py <<'EOF'
import socket, struct
t = socket.socket(socket.AF_UNIX)
t.connect("time.sock")
t.sendall(struct.pack("<IIQ", 1, 1, 0))         # START
assert t.recv(16, socket.MSG_WAITALL)[:8] == struct.pack("<II", 0, 1)
d = socket.socket(socket.AF_UNIX)
d.connect("vublk.sock")
d.sendall(struct.pack("<III", 1, 1, 0))         # GET_FEATURES
assert len(d.recv(20, socket.MSG_WAITALL)) == 20
d.close()
t.sendall(struct.pack("<IIQ", 2, 2, 5000))      # REQUEST: no ACK
t.recv(16, socket.MSG_WAITALL)
EOF
	atf_check -s exit:2 \
	    -e match:"the disk's connection \('\./vublk\.sock'\) ended while the guest ran on" \
	    "$serve" -i img -d . -- python3 gone.py
	[ ! -e time.sock ] && [ ! -e vublk.sock ] || atf_fail "sockets left behind"
	# A guest's clock (um_timetravel.h) played by hand: it runs at the
	# time it asked for, and GET says so.
	cat >clock.py <<'EOF'
import socket, struct
s = socket.socket(socket.AF_UNIX)
s.connect("time.sock")
def ask(op, t, seq):
    s.sendall(struct.pack("<IIQ", op, seq, t))
    return struct.unpack("<IIQ", s.recv(16, socket.MSG_WAITALL))
assert ask(1, 2**64 - 1, 1)[:2] == (0, 1)   # START: ACK
assert ask(2, 5000, 2)[:2] == (0, 2)        # REQUEST 5000: ACK
assert ask(3, 2**64 - 1, 3)[:2] == (0, 3)   # WAIT: ACK, then
op, seq, t = struct.unpack("<IIQ", s.recv(16, socket.MSG_WAITALL))
# Free until the earliest a request kicked from now could reach it:
# 5000 + latency (100 us), at the next interrupt (6 ms).
assert (op, t) == (7, 6000000), (op, t)
s.sendall(struct.pack("<IIQ", 0, seq, 0))
op, seq, t = struct.unpack("<IIQ", s.recv(16, socket.MSG_WAITALL))
assert (op, t) == (6, 5000), (op, t)        # RUN at 5000
s.sendall(struct.pack("<IIQ", 0, seq, 0))
assert ask(4, 0, 4) == (0, 4, 5000)         # GET: 5000
EOF
	atf_check -s exit:0 -e match:"writes 0" "$serve" -i img -d . -- python3 clock.py
	atf_check -s exit:2 -e match:"-V '/nonexistent.model': no such file" \
	    "$top/contrib/uml-run.sh" -V /nonexistent.model /bin/true "$small"
}

atf_test_case bad_input
bad_input_head()
{
	atf_set descr "uml-run.sh refuses a bad seed and disk model, naming them"
}
bad_input_body()
{
	atf_check -s exit:2 -e match:"-r 'x1': a number" \
	    "$top/contrib/uml-run.sh" -r x1 /bin/true "$small"
	atf_check -s exit:2 -e match:"-d '5': BASE_NS,NS_PER_KIB or off" \
	    "$top/contrib/uml-run.sh" -d 5 /bin/true "$small"
	atf_check -s exit:2 -e match:"'/nonexistent' is no UML kernel" \
	    "$top/contrib/uml-run.sh" /nonexistent "$small"
}

# counts FILE: every count and histogram bucket of every run, phase and
# device of a result, one a line, in FILE.counts; then checks that the
# exact probe's requests agree with the guest's diskstats deltas (as
# vm_test does) and that the "vm" object records the UML machine.
counts()
{
	python3 - "$1" "$top" <<'EOF' || atf_fail "$1: $(tail -n 1 "$1.check" 2>/dev/null)"
import json, sys
sys.path.insert(0, sys.argv[2] + "/tests")
from guest_diskstats import mismatch
d = json.load(open(sys.argv[1]))
def fail(msg):
    open(sys.argv[1] + ".check", "w").write(msg + "\n")
    sys.exit(1)
vm = d["vm"]
if (vm["machine"], vm["accel"], vm["clock"], vm["cpus"], vm["queues"]) != \
        ("uml", "uml", "time-travel", 1, 1):
    fail("machine %r accel %r clock %r cpus %r queues %r" % (vm["machine"],
         vm["accel"], vm["clock"], vm["cpus"], vm["queues"]))
# ubd: the seed's disk model, 0.1 us more a request for every seed past
# 1; the virtio disk: contrib/vdisk.model's values, the built-in defaults.
if vm["disk"] == "virtio":
    disk = "vda"
    want = {"kind": "virtio", "file": vm["disk_model"].get("file"),
            "latency_ns": 100000,
            "ns_per_kib": 2000, "flush_ns": 0, "irq_ns": 6000000,
            "depth": 64, "seg_max": 254,
            "size_max": 0, "blk_size": 512, "num_queues": 1}
    arg = "virtio_uml.device=/tmp/ubcreplay-uml/vublk.sock:2"
    # The CPU's charges, as the model file says them over the defaults,
    # all four when one is not 0, and on the guest's command line; so
    # the yield before an unplugged bio (1 by default), and the time the
    # guest idles before its mount when not 0 (2 s by default).
    cpu = ["cpu_syscall_ns", "cpu_kib_ns", "cpu_bio_ns", "cpu_bio_kib_ns"]
    said = dict(zip(cpu, [56550, 14790, 0, 0]), cpu_bio_yield=1,
                settle_ns=2000000000)
    for line in open(want["file"]) if want["file"] else []:
        w = line.split("#")[0].split()
        if len(w) == 2 and w[0] in said:
            said[w[0]] = int(w[1])
    if any(said[k] for k in cpu):
        want.update((k, said[k]) for k in cpu)
        if "uml_cpu=%d,%d,%d,%d" % tuple(said[k] for k in cpu) not in vm["cmdline"]:
            fail("the charges %r not on the command line %r" % (said, vm["cmdline"]))
    elif "uml_cpu=" in vm["cmdline"]:
        fail("charges on the command line %r, none in the model" % vm["cmdline"])
    if said["cpu_bio_yield"]:
        want["cpu_bio_yield"] = 1
    if said["settle_ns"]:
        want["settle_ns"] = said["settle_ns"]
    if ("uml_bio_yield" in vm["cmdline"].split()) != bool(said["cpu_bio_yield"]):
        fail("cpu_bio_yield %d, command line %r" % (said["cpu_bio_yield"], vm["cmdline"]))
    # The guest without wakeup preemption (vm/vm_impl.h), as it said.
    if vm.get("sched_features") != "NO_WAKEUP_PREEMPTION":
        fail("sched_features %r" % vm.get("sched_features"))
else:
    disk = "ubda"
    want = {"base_ns": 100000 + (vm["seed"] - 1) % 100 * 100,
            "ns_per_kib": 2000}
    arg = "ubd0=/tmp/ubcreplay-uml/disk.img"
    if "sched_features" in vm:
        fail("ubd with sched_features %r" % vm["sched_features"])
if vm["disk_model"] != want or not isinstance(want.get("file", ""), str):
    fail("disk_model %r for seed %r" % (vm["disk_model"], vm["seed"]))
if not isinstance(vm["seed"], int) or not vm["patches"] or vm["boot_ns"] <= 0:
    fail("seed %r patches %r boot_ns %r" % (vm["seed"], vm["patches"], vm["boot_ns"]))
if arg not in vm["cmdline"]:
    fail("cmdline %r" % vm["cmdline"])
if d["probe"]["name"] != "tracefs":
    fail("probe %r" % d["probe"])
out = open(sys.argv[1] + ".counts", "w")
for i, r in enumerate(d["runs"]):
    if r["status"] != "ok":
        fail("run %d: %s" % (i, r["status"]))
    for p in r["phases"]:
        for dev in p["devices"]:
            at = "run %d %s %s" % (i, p["phase"], dev["device"])
            for way in ("read", "write"):
                w = dev[way]
                print(at, way, "ops", w["ops"], "bytes", w["bytes"], file=out)
                for b in w["size_hist"]["buckets"]:
                    print(at, way, "bucket", json.dumps(b, sort_keys=True), file=out)
            for k in ("flushes", "discards", "empty_preflush"):
                print(at, k, dev[k], file=out)
    why = mismatch(r, disk)
    if why is not None:
        fail("run %d: %s" % (i, why))
    if not any(dev["write"]["ops"] for p in r["phases"] for dev in p["devices"]):
        fail("run %d: no writes" % i)
EOF
}

# vm_run NAME [OPTIONS]: one UML cell of vm at -n 1, its result NAME.json
# and its counts NAME.json.counts; prints the boot and the cell's time.
vm_run()
{
	name=$1
	shift
	start=$(date +%s.%N)
	"$ubc" vm -n 1 -o "$name.out" "$@" -k "$tree" "$small" \
	    >"$name.series" 2>"$name.err" ||
	    atf_fail "$name: vm failed: $(tail -n 6 "$name.err" | tr '\n' ' ')"
	end=$(date +%s.%N)
	set -- "$name.out"/*.json
	[ $# -eq 1 ] && [ -f "$1" ] || atf_fail "$name: not one result: $(ls "$name.out")"
	mv "$1" "$name.json"
	rm -r "$name.out"
	counts "$name.json"
	echo "$name: boot to job $(json "$name.json" 'd["vm"]["boot_ns"] / 1e9') s, cell $(echo "$end - $start" | bc) s"
}

# side_by_side COUNTS [OPTIONS]: vm -j 2 with the tree and its program,
# both results' counts the same as the quiet cell's COUNTS.
side_by_side()
{
	quiet=$1
	shift
	"$ubc" vm -n 1 -j 2 "$@" -o par -k "$tree" -k "$linux" "$small" \
	    >par.series 2>par.err ||
	    atf_fail "vm -j 2 $*: $(tail -n 6 par.err | tr '\n' ' ')"
	n=0
	for r in par/*.json; do
		counts "$r"
		same_counts "a quiet cell and $r, run beside another cell," \
		    "$quiet" "$r.counts"
		n=$((n + 1))
	done
	[ $n = 2 ] || atf_fail "-j 2 $*: $n results: $(ls par)"
	rm -r par
}

# The build directory of the UML kernel require_uml found.
require_tree()
{
	tree=$(dirname "$linux")
	grep -qx CONFIG_UML=y "$tree/.config" 2>/dev/null ||
	    atf_skip "'$linux' is not in a UML build directory (contrib/vm-kbuild.sh -a um makes one)"
}

atf_test_case vm cleanup
vm_head()
{
	atf_set descr "vm -k UMLTREE twice (once in a TMPDIR without O_DIRECT), beside two CPU hogs, and -j 2 as tree and program: identical counts, exact probe = diskstats, the machine recorded"
	atf_set timeout 600
}
vm_body()
{
	require_uml
	require_tree
	use_tmp
	vm_run a
	# The second in a TMPDIR on ramfs, which has no O_DIRECT: QEMU's
	# cache=none needs it, UML's ubd does not.
	require_root "mounts a ramfs"
	mkdir ram
	mount -t ramfs ubcreplay-test "$PWD/ram" || atf_fail "cannot mount a ramfs"
	TMPDIR=$PWD/ram vm_run b
	[ -z "$(ls -A ram)" ] || atf_fail "left in TMPDIR: $(ls -A ram)"
	umount "$PWD/ram" || atf_fail "cannot unmount the ramfs"
	hogs_start
	vm_run hog
	hogs_stop
	same_counts "two quiet cells" a.json.counts b.json.counts
	same_counts "a quiet cell and one beside CPU hogs" a.json.counts \
	    hog.json.counts
	[ "$(json a.json 'd["vm"]["seed"]')" = 1 ] || atf_fail "the default seed is not 1"
	[ "$(json a.json 'd["vm"]["kernel_sha256"]')" = "$(sha256sum "$linux" | cut -c1-64)" ] ||
	    atf_fail "kernel_sha256 is not the linux program's"
	# Two cells side by side, the tree and its program: the same kernel,
	# each in a mount namespace of its own at the same fixed path.
	side_by_side a.json.counts
	no_leftovers
}
vm_cleanup()
{
	hogs_stop
	umount "$PWD/ram" 2>/dev/null || true
}

atf_test_case vm_virtio cleanup
vm_virtio_head()
{
	atf_set descr "vm --disk virtio twice, beside two CPU hogs and -j 2: identical counts, exact probe = the guest's diskstats for vda, the model recorded; a nonsense model file, --disk virtio on QEMU and a server killed mid-run are each a clear error, nothing left behind"
	atf_set timeout 600
}
vm_virtio_body()
{
	require_uml
	require_tree
	require_virtio
	use_tmp
	vm_run va --disk virtio
	vm_run vb --disk virtio --disk-model "$top/contrib/vdisk.model"
	hogs_start
	vm_run vhog --disk virtio
	hogs_stop
	# The same model, from the file or built in: only its name differs.
	[ "$(json vb.json 'd["vm"]["disk_model"]["file"]')" = "$top/contrib/vdisk.model" ] ||
	    atf_fail "the model's file is not recorded"
	[ -z "$(json va.json 'd["vm"]["disk_model"]["file"]')" ] ||
	    atf_fail "the built-in model is recorded with a file"
	same_counts "two quiet cells on the virtio disk" va.json.counts vb.json.counts
	same_counts "a quiet cell on the virtio disk and one beside CPU hogs" \
	    va.json.counts vhog.json.counts
	# Fidelity: the sync phase's mean write within 10% of a TCG guest's
	# median on the same cell (158.0 KiB: Debian's 6.1.0-57, 20 boots of
	# 3 runs, 2026-12-05; docs/vm-machine.md, "Where the merging goes").
	# It was 72 KiB (119 requests) before the model's coalesced
	# interrupt and the guest without wakeup preemption.
	kib=$(json va.json '[p for p in d["runs"][0]["phases"] if p["phase"] == "sync"][0]["devices"][0]["write"]["mean_bytes"] / 1024')
	echo "$kib" | awk '{ exit !($1 >= 142.2 && $1 <= 173.8) }' ||
	    atf_fail "the small archive's sync phase writes $kib KiB a request on the virtio disk, not within 10% of TCG's 158.0"
	# Two side by side, the tree and its program, each with its server.
	side_by_side va.json.counts --disk virtio
	# compare judges two virtio results, and refuses ubd against virtio.
	atf_check -s exit:0 -o ignore -e ignore "$ubc" compare va.json vb.json
	vm_run ubd
	atf_check -s exit:2 -o empty -e match:"UML's disk \(ubd, virtio\)" \
	    "$ubc" compare --fail-if write.mean_bytes:+5% ubd.json va.json
	printf 'latency_ns 100000\ndepth 0\n' >zero.model
	atf_check -s exit:2 -o empty -e match:"--disk-model: zero.model:2: 'depth' wants a whole number from 1" \
	    "$ubc" vm --disk virtio --disk-model zero.model -k "$tree" "$small"
	atf_check -s exit:2 -o empty -e match:"--disk-model: cannot open 'none.model'" \
	    "$ubc" vm --disk virtio --disk-model none.model -k "$tree" "$small"
	atf_check -s exit:2 -o empty \
	    -e match:"--disk-model is the virtio disk's: give --disk virtio" \
	    "$ubc" vm --disk-model zero.model -k "$tree" "$small"
	atf_check -s exit:2 -o empty -e match:"--disk 'scsi': ubd or virtio" \
	    "$ubc" vm --disk scsi -k "$tree" "$small"
	# The disk's server dies mid-run: the guest goes with it, the cell
	# fails naming it, no process, socket or image is left.
	"$ubc" vm -n 3 --disk virtio -o vkill -k "$tree" "$small" \
	    >vkill.series 2>vkill.err &
	vm=$!
	guest=
	for i in $(seq 300); do
		guest=$(virtio_guest)
		[ -n "$guest" ] && break
		sleep 0.1
	done
	[ -n "$guest" ] || atf_fail "no UML guest on the virtio disk started"
	server=$(ps -o ppid= -p "$guest" | tr -d ' ')
	sleep 1
	kill -9 "$server"
	wait $vm && atf_fail "vm succeeded though its disk's server was killed"
	grep -q "the virtio disk's server (UML's parent) was killed by signal 9" vkill.err ||
	    atf_fail "the failure does not name the disk's server: $(head -n 2 vkill.err)"
	# Its parent-death signal ends it; it may take a moment to go.
	for i in $(seq 50); do
		[ -n "$(uml_here)" ] || break
		sleep 0.1
	done
	[ -z "$(uml_here)" ] ||
	    atf_fail "a UML guest was left running"
	[ ! -e core ] || atf_fail "a core was left behind"
	rm -rf vkill
	no_leftovers
}
vm_virtio_cleanup()
{
	hogs_stop
}

# The UML processes started from this test's directory (their cwd is
# ours), by pid: other tests' and sessions' guests are not this one's.
uml_here()
{
	for _p in $(pgrep -f "^$linux .*vublk.sock"); do
		[ "$(readlink "/proc/$_p/cwd" 2>/dev/null)" = "$PWD" ] && echo "$_p"
	done
}

# This test's UML on the virtio disk itself (its parent is the disk's
# server, a ubcreplay), not one of UML's own processes; or nothing.
virtio_guest()
{
	for _p in $(uml_here); do
		_pp=$(ps -o ppid= -p "$_p" | tr -d ' ')
		[ "$(ps -o comm= -p "$_pp")" = ubcreplay ] && echo "$_p"
	done
}

# virtio_fault NAME ACTION EXPECT: one virtio cell (vm -n 1, --timeout 60),
# ACTION run (with $guest and $server set) once its job has started; vm
# must fail with EXPECT, leaving no process, socket, image or core.
virtio_fault()
{
	name=$1 action=$2 expect=$3
	"$ubc" vm -n 1 --timeout 60 --disk virtio -o "$name.out" -k "$tree" \
	    "$small" >"$name.series" 2>"$name.err" &
	vm=$!
	guest=
	for i in $(seq 300); do
		guest=$(virtio_guest)
		[ -n "$guest" ] && ls tmp/ubcreplay-vm.*/out/started \
		    >/dev/null 2>&1 && break
		sleep 0.1
	done
	[ -n "$guest" ] || atf_fail "$name: no UML guest on the virtio disk started"
	server=$(ps -o ppid= -p "$guest" | tr -d ' ')
	eval "$action"
	wait $vm && atf_fail "$name: vm succeeded: $(tail -n 2 "$name.err")"
	grep -qF -- "$expect" "$name.err" ||
	    atf_fail "$name: no \"$expect\" in: $(head -n 2 "$name.err" | tr "\n" " ")"
	# UML's own processes end with it, a moment after.
	for i in $(seq 50); do
		[ -z "$(uml_here)" ] && break
		sleep 0.1
	done
	[ -z "$(uml_here)" ] || atf_fail "$name: UML was left running: $(uml_here)"
	no_ubc_left
	[ ! -e core ] || atf_fail "$name: a core was left behind"
	[ -z "$(ls -A "$name.out" 2>/dev/null)" ] ||
	    atf_fail "$name: a result was written: $(ls "$name.out")"
	rm -rf "$name.out"
	no_leftovers
}

# shut_disk PID: shuts down the disk's connection in the server PID from
# outside, its socket taken with pidfd_getfd (root's, or ptrace's right).
shut_disk()
{
	python3 - "$1" <<'EOF'
import ctypes, os, socket, sys
pid = int(sys.argv[1])
ends = set()
for line in open("/proc/net/unix").readlines()[1:]:
    f = line.split()
    # Connected (state 03) and named vublk.sock: the accepted connection.
    if len(f) == 8 and f[5] == "03" and f[7].endswith("/vublk.sock"):
        ends.add(f[6])
libc = ctypes.CDLL(None, use_errno=True)
pidfd = os.pidfd_open(pid)
for fd in os.listdir("/proc/%d/fd" % pid):
    link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
    if link.startswith("socket:[") and link[8:-1] in ends:
        mine = libc.syscall(438, pidfd, int(fd), 0)   # pidfd_getfd
        if mine < 0:
            sys.exit("pidfd_getfd: " + os.strerror(ctypes.get_errno()))
        socket.socket(fileno=mine).shutdown(socket.SHUT_RDWR)
        sys.exit(0)
sys.exit("no disk connection in process %d" % pid)
EOF
}

atf_test_case vm_virtio_faults cleanup
vm_virtio_faults_head()
{
	atf_set descr "a virtio cell whose UML is killed mid-run, and one whose disk's connection is shut down mid-run: each fails at once naming it, nothing left behind"
	atf_set timeout 300
}
vm_virtio_faults_body()
{
	require_uml
	require_tree
	require_virtio
	require_root "takes the disk's server's socket (pidfd_getfd)"
	use_tmp
	# UML's side of both sockets goes at once.
	virtio_fault umlkill 'kill -9 $guest' "UML was killed by signal 9"
	# The server's side of the disk's socket, shut down while the server
	# is stopped: the guest then waited for its requests forever, its
	# clock spinning, until --timeout.
	virtio_fault shut 'echo $server >stopped; kill -STOP $server;
	    shut_disk $server || atf_fail "cannot shut the disk down";
	    kill -CONT $server; rm stopped' \
	    "the virtio disk failed: the disk's connection ('/tmp/ubcreplay-uml/vublk.sock') ended while the guest ran on"
}
vm_virtio_faults_cleanup()
{
	[ ! -f stopped ] || kill -CONT "$(cat stopped)" 2>/dev/null
	return 0
}

# phase RESULT PHASE EXPR: EXPR (a Python subscript, and what follows it)
# of PHASE's object in RESULT's first run.
phase()
{
	json "$1" "[p for p in d[\"runs\"][0][\"phases\"] if p[\"phase\"] == \"$2\"][0]$3"
}

# without_option WORD OUT: a copy of the UML kernel in OUT whose setup
# string WORD (an option it takes) is spelled otherwise, as a kernel built
# without the patch that adds it would lack it.
without_option()
{
	python3 - "$linux" "$2" "$1" <<'PY' || atf_fail "cannot copy $linux"
import sys
b = open(sys.argv[1], "rb").read()
w = sys.argv[3].encode()
assert w + b"\0" in b, "no %r in the kernel" % w
open(sys.argv[2], "wb").write(b.replace(w + b"\0", w[:-1] + b"X\0"))
PY
	chmod +x "$2"
}

atf_test_case vm_virtio_cpu cleanup
vm_virtio_cpu_head()
{
	atf_set descr "the model's CPU charges (uml_cpu=, uml-patches/0004): the extraction's simulated time, as the guest's own clock reads it, grows with the charge a system call, twice the charge twice the time; counts identical beside two CPU hogs; the charges recorded; a UML kernel without 0004, or without 0005 for the default model's yield, refused, naming it"
	atf_set timeout 300
}
vm_virtio_cpu_body()
{
	require_uml
	require_tree
	require_virtio
	grep -aq 'uml_cpu=' "$linux" ||
	    atf_skip "'$linux' has no uml_cpu= (contrib/uml-patches/0004): make uml rebuilds it"
	grep -aq 'uml_bio_yield' "$linux" ||
	    atf_skip "'$linux' has no uml_bio_yield (contrib/uml-patches/0005): make uml rebuilds it"
	use_tmp
	printf 'cpu_syscall_ns 0\ncpu_kib_ns 0\n' >c0.model
	printf 'cpu_syscall_ns 10000\ncpu_kib_ns 0\n' >c1.model
	printf 'cpu_syscall_ns 20000\ncpu_kib_ns 0\n' >c2.model
	vm_run c0 --disk virtio --disk-model c0.model
	vm_run c1 --disk virtio --disk-model c1.model
	vm_run c2 --disk virtio --disk-model c2.model
	hogs_start
	vm_run c1hog --disk virtio --disk-model c1.model
	hogs_stop
	same_counts "two cells of one charged model, one beside CPU hogs" \
	    c1.json.counts c1hog.json.counts
	# The extraction writes nothing to the disk (it all waits for sync),
	# so its simulated time is the charges: none without them, at least
	# 10 us for each of the job's write() calls with them, and twice as
	# much at twice the charge (the same calls).
	e0=$(phase c0.json extract '["elapsed_ns"]')
	e1=$(phase c1.json extract '["elapsed_ns"]')
	e2=$(phase c2.json extract '["elapsed_ns"]')
	w=$(phase c1.json extract '["app_write"]["ops"]')
	echo "extract: $e0 ns uncharged, $e1 ns at 10 us a call, $e2 ns at 20 us; $w write() calls"
	[ "$e0" -lt 5000000 ] ||
	    atf_fail "the uncharged extraction took $e0 ns of simulated time"
	[ "$e1" -ge $((w * 10000)) ] ||
	    atf_fail "at 10 us a system call the extraction took $e1 ns, less than its $w write() calls' $((w * 10)) us"
	awk -v a="$e1" -v b="$e2" -v z="$e0" \
	    'BEGIN { r = (b - z) / (a - z); exit !(r > 1.95 && r < 2.05) }' ||
	    atf_fail "twice the charge made the extraction $e2 ns against $e1 ns, not twice"
	[ "$(json c1.json 'd["vm"]["disk_model"]["cpu_syscall_ns"]')" = 10000 ] ||
	    atf_fail "the charge is not in the result's model"
	[ "$(json c0.json '"cpu_syscall_ns" in d["vm"]["disk_model"]')" = False ] ||
	    atf_fail "an uncharged model records charges"
	# A copy of the kernel without the option is refused before it boots.
	without_option uml_cpu= nocpu
	atf_check -s exit:2 -o empty \
	    -e match:"UML kernel 'nocpu' cannot charge the guest's CPU" \
	    "$ubc" vm --disk virtio --disk-model c1.model -k nocpu "$small"
	# So is one without the yield, with the default model (0005).
	without_option uml_bio_yield noyield
	atf_check -s exit:2 -o empty \
	    -e match:"UML kernel 'noyield' cannot yield before an unplugged bio .*0005" \
	    "$ubc" vm --disk virtio -k noyield "$small"
	rm nocpu noyield
	no_leftovers
}
vm_virtio_cpu_cleanup()
{
	hogs_stop
}

# xfs_cell NAME ARCHIVE [OPTION ...]: one xfs cell of the tests' tree on
# the virtio disk, with vm's OPTIONs; its result in NAME.json, counted.
xfs_cell()
{
	name=$1
	archive=$2
	shift 2
	"$ubc" vm -n 1 --disk virtio "$@" -t xfs -o "$name.out" \
	    -k "$tree" "$archive" >"$name.series" 2>"$name.err" ||
	    atf_fail "$name: vm failed: $(tail -n 6 "$name.err" | tr '\n' ' ')"
	mv "$name.out"/*.json "$name.json" && rm -r "$name.out"
	counts "$name.json"
}

atf_test_case vm_virtio_yield
vm_virtio_yield_head()
{
	atf_set descr "the default model's yield before an unplugged bio (uml_bio_yield, uml-patches/0005): xfs's log leaves one log buffer a request in the emacs-like archive's remove phase, as under TCG (20 to 22 of 30.6 to 33.5 KiB), where without it the log's writes merge"
	atf_set timeout 300
}
vm_virtio_yield_body()
{
	require_uml
	require_tree
	require_virtio
	grep -aq 'uml_bio_yield' "$linux" ||
	    atf_skip "'$linux' has no uml_bio_yield (contrib/uml-patches/0005): make uml rebuilds it"
	grep -qx CONFIG_XFS_FS=y "$tree/.config" ||
	    atf_skip "'$linux' has no xfs (contrib/guest-um.config names it since 0005): make uml rebuilds it"
	require_prog mkfs.xfs
	use_tmp
	printf 'cpu_bio_yield 0\n' >noyield.model
	xfs_cell yield "$top/build/fixtures/emacs-like.tar.gz"
	xfs_cell noyield "$top/build/fixtures/emacs-like.tar.gz" \
	    --disk-model noyield.model
	w='["devices"][0]["write"]'
	yield_n=$(phase yield.json remove "$w[\"ops\"]")
	yield_kib=$(phase yield.json remove "$w[\"mean_bytes\"] / 1024")
	noyield_n=$(phase noyield.json remove "$w[\"ops\"]")
	noyield_kib=$(phase noyield.json remove "$w[\"mean_bytes\"] / 1024")
	echo "remove phase: $yield_n requests of $yield_kib KiB with the yield, $noyield_n of $noyield_kib KiB without"
	# One 32 KiB log buffer a request, as TCG's median (31.5 KiB) +-10%.
	echo "$yield_kib" | awk '{ exit !($1 >= 28.4 && $1 <= 34.7) }' ||
	    atf_fail "with the yield the remove phase writes $yield_kib KiB a request, not TCG's log buffer of about 31.5"
	# Without it the same log leaves merged: fewer, larger requests.
	[ "$noyield_n" -le $((yield_n / 2)) ] ||
	    atf_fail "without the yield $noyield_n requests against $yield_n with it: the yield changes nothing here"
	no_leftovers
}

atf_test_case vm_virtio_settle
vm_virtio_settle_head()
{
	atf_set descr "the default model's settle_ns and 3 runs a boot: the guest idles 2 s of simulated time before its mount (its clock says so), past wbt's first second, so that the small archive's first run on xfs writes its sync as a TCG boot's first run does (66 to 76 KiB a request) and the later runs as TCG's later runs (133 to 140), where a job started at once meets wbt's later-run state from its first run; settle_ns recorded only when not 0"
	atf_set timeout 300
}
vm_virtio_settle_body()
{
	require_uml
	require_tree
	require_virtio
	grep -qx CONFIG_XFS_FS=y "$tree/.config" ||
	    atf_skip "'$linux' has no xfs (contrib/guest-um.config names it since 0005): make uml rebuilds it"
	grep -qx CONFIG_HZ_250=y "$tree/.config" ||
	    atf_skip "'$linux' ticks at 100 Hz (contrib/uml-patches/0006 makes it 250): make uml rebuilds it"
	require_prog mkfs.xfs
	use_tmp
	printf 'settle_ns 0\n' >nosettle.model
	xfs_cell settle "$small" -n 3
	xfs_cell nosettle "$small" --disk-model nosettle.model
	[ "$(json settle.json 'd["vm"]["disk_model"].get("settle_ns")')" = 2000000000 ] ||
	    atf_fail "the default's settle_ns is not recorded"
	[ "$(json nosettle.json '"settle_ns" in d["vm"]["disk_model"]')" = False ] ||
	    atf_fail "settle_ns 0 is recorded"
	[ "$(json settle.json 'len(d["runs"]), "boots" in d')" = "3 False" ] ||
	    atf_fail "-n 3 on the virtio disk is not one boot of 3 runs"
	# The guest's own wall clock (simulated, from a fixed start) at the
	# job's start: 2 s later, to its second.
	late=$(python3 -c 'import json, sys, datetime
t = [datetime.datetime.strptime(json.load(open(f))["started"], "%Y-%m-%dT%H:%M:%SZ") for f in sys.argv[1:]]
print((t[0] - t[1]).total_seconds())' settle.json nosettle.json)
	echo "$late" | awk '{ exit !($1 >= 1 && $1 <= 3) }' ||
	    atf_fail "the settled guest's job started $late s later, not about 2"
	# Each run's sync phase: requests and KiB a request.
	sync='" ".join("%d:%.1f" % (w["ops"], w["mean_bytes"] / 1024) for w in [[p for p in r["phases"] if p["phase"] == "sync"][0]["devices"][0]["write"] for r in d["runs"]])'
	settled=$(json settle.json "$sync")
	now=$(json nosettle.json "$sync")
	echo "sync phase (requests:KiB): $settled settled, $now at once"
	# TCG, 6.1.0-57, on two machines (docs/vm-machine.md, "Writeback
	# throttling's state"): a boot's first runs 63.8 to 76.2 KiB, +-10%;
	# its later runs 132.9 to 139.6, within 10% of the median of all
	# (137.3).
	echo "$settled" | tr ' :' '\n ' | awk 'NR == 1 && !($2 >= 57.4 && $2 <= 83.8) ||
	    NR > 1 && !($2 >= 123.6 && $2 <= 151.0) { exit 1 }' ||
	    atf_fail "settled, the runs' xfs syncs write $settled (requests:KiB), not TCG's first run (63.8 to 76.2 KiB) +-10% and later runs within 10% of 137.3"
	# Inside wbt's first second more writes may be in flight: the first
	# run's plug fills further and fewer requests leave.
	[ "${now%%:*}" -lt "${settled%%:*}" ] ||
	    atf_fail "at once $now against $settled settled: the settle changes nothing here"
	no_leftovers
}

atf_test_case vm_bad_input
vm_bad_input_head()
{
	atf_set descr "vm refuses on UML what it has not, a UML kernel without time-travel or our patches, and --seed for QEMU"
}
vm_bad_input_body()
{
	require_uml
	require_tree
	use_tmp
	for bad in "-t nfs:NFS cells are not on UML" \
	    "--accel kvm:--accel is QEMU's: not on UML" \
	    "--clock icount:--clock icount is QEMU's" \
	    "--cpus 2:--cpus: UML has one CPU" \
	    "--queues 1:--queues is virtio-blk's: not on UML"; do
		atf_check -s exit:2 -o empty \
		    -e match:"kernel '$linux': ${bad#*:}" \
		    "$ubc" vm ${bad%%:*} -k "$tree" "$small"
	done
	# Copies without one of the strings that say what it was built with.
	for what in time-travel-start= ubd_model= uml_seed=; do
		python3 - "$linux" "$what" nopatch <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
w = sys.argv[2].encode() + b"\0"
open(sys.argv[3], "wb").write(b.replace(w, w[:-2] + b"X\0"))
EOF
		chmod +x nopatch
		case $what in
		time-travel-start=) msg="UML kernel 'nopatch' has no time-travel support" ;;
		*) msg="UML kernel 'nopatch' lacks the project's patches" ;;
		esac
		atf_check -s exit:2 -o empty -e match:"$msg" \
		    "$ubc" vm -k nopatch "$small"
	done
	rm nopatch
	atf_check -s exit:2 -o empty \
	    -e match:"'/bin/true' is not a kernel image \(no x86 boot header, nor a User Mode Linux program\)" \
	    "$ubc" vm -k /bin/true "$small"
	atf_check -s exit:2 -o empty -e match:"--seed 'x'" \
	    "$ubc" vm --seed x -k "$tree" "$small"
	# One CPU and one queue, in the plan as in the result, though QEMU's
	# defaults are two.
	atf_check -s exit:0 -o save:plan -e ignore "$ubc" vm --plan -k "$tree" "$small"
	got=$(json plan '"%d %d" % (d["cpus"], d["queues"])')
	[ "$got" = "1 1" ] || atf_fail "the plan's UML cell has cpus, queues $got"
	no_leftovers
}

atf_test_case seeds
seeds_head()
{
	atf_set descr "vm -n N on UML: N boots of one run on seeds 1..N (or from --seed), each with its seed's disk model, recorded in each boot; two kernels pair up by seed and compare judges them as pairs (6 of them, the fewest the signed-rank test bounds a 95% interval with)"
	atf_set timeout 600
}
seeds_body()
{
	require_uml
	require_tree
	use_tmp
	atf_check -s exit:0 -o save:series -e ignore "$ubc" vm -n 6 -o s \
	    --fail-if write.mean_bytes:-5% -k "$tree" -k "$linux" "$small"
	grep -q "^  PASS write.mean_bytes:-5%" series ||
	    atf_fail "the same kernel against itself does not pass: $(grep -A2 Gates series | tr '\n' ' ')"
	for r in s/*.json; do
		got=$(json "$r" '" ".join("%d:%d" % (b["vm"]["seed"], len(b["runs"])) for b in [d] + d.get("boots", []))')
		[ "$got" = "1:1 2:1 3:1 4:1 5:1 6:1" ] ||
		    atf_fail "$r: boots (seed:runs) $got, want 1:1 2:1 3:1 4:1 5:1 6:1"
		# What a seed changes: the disk model's cost per request, on
		# the guest's command line and in the result.
		got=$(json "$r" '" ".join("%d:%s" % (b["vm"]["disk_model"]["base_ns"], "ubd_model=%d,2000" % b["vm"]["disk_model"]["base_ns"] in b["vm"]["cmdline"]) for b in [d] + d.get("boots", []))')
		[ "$got" = "100000:True 100100:True 100200:True 100300:True 100400:True 100500:True" ] ||
		    atf_fail "$r: the seeds' disk models (base_ns:on the command line) $got"
	done
	set -- s/*.json
	atf_check -s exit:0 -o ignore -e ignore "$ubc" compare --json c.json \
	    --fail-if write.mean_bytes:-5% "$1" "$2"
	[ "$(json c.json 'd["gates"][0]["pairs"]')" = 6 ] ||
	    atf_fail "compare did not pair the runs by seed: $(json c.json 'd["gates"][0]')"
	atf_check -s exit:0 -o ignore -e ignore "$ubc" vm -n 2 --seed 7 -o t \
	    -k "$tree" "$small"
	got=$(json t/*.json '" ".join(str(b["vm"]["seed"]) for b in [d] + d.get("boots", []))')
	[ "$got" = "7 8" ] || atf_fail "--seed 7 -n 2: seeds $got"
	# A job of its own keeps its own -n, in one boot.
	atf_check -s exit:0 -o ignore -e ignore "$ubc" vm -o j -k "$tree" -- \
	    dd if=/dev/ubda of=/dev/null bs=64k count=16 -n 2
	got=$(json j/*.json '"%d %d" % (len(d["runs"]), len(d.get("boots", [])))')
	[ "$got" = "2 0" ] || atf_fail "a job after --: runs and boots $got, want 2 0"
	no_leftovers
}

atf_test_case compare_kinds
compare_kinds_head()
{
	atf_set descr "compare refuses a size gate between a QEMU and a UML result"
	atf_set timeout 300
}
compare_kinds_body()
{
	require_uml
	require_tree
	use_tmp
	vm_run uml
	# The same result as a QEMU guest's would say it.
	python3 - uml.json qemu.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
vm = d["vm"]
vm.update(machine="qemu", accel="tcg", clock="realtime")
for k in ("disk_model", "seed", "patches"):
    del vm[k]
d["label"] = "qemu " + d["label"]
json.dump(d, open(sys.argv[2], "w"))
EOF
	atf_check -s exit:2 -o empty -e save:err "$ubc" compare --fail-if \
	    write.mean_bytes:+5% qemu.json uml.json
	grep -qF "cannot judge sizes across machines: the guests' machines differ in machine kind (QEMU, UML): 'qemu.json' (qemu), 'uml.json' (uml)" err ||
	    atf_fail "the refusal does not name the machines: $(cat err)"
	no_leftovers
}

atf_init_test_cases()
{
	atf_add_test_case deterministic
	atf_add_test_case bad_input
	atf_add_test_case virtio_deterministic
	atf_add_test_case virtio_bad_input
	atf_add_test_case vm
	atf_add_test_case vm_bad_input
	atf_add_test_case vm_virtio
	atf_add_test_case vm_virtio_faults
	atf_add_test_case vm_virtio_cpu
	atf_add_test_case vm_virtio_yield
	atf_add_test_case vm_virtio_settle
	atf_add_test_case compare_kinds
	atf_add_test_case seeds
}
