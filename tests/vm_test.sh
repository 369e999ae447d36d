#! /usr/bin/env atf-sh
# vm_test.sh - `ubcreplay vm`: kernels under test booted in QEMU guests run
# the job, and what comes back is checked against what the test knows on
# its own: each kernel's release from its package's name, its digest from
# sha256sum, the guest's requests against the guest's own diskstats (the
# exact probe records both). Bad input ends with exit 2, the reason, and
# nothing left behind: no QEMU, no temporary directory, no output.
#
# Kernels come from build/kernels/ (contrib/kernels.sh fills it: one
# directory per Debian package, unpacked, with modules.dep built); without
# them, or without qemu-system-x86_64, the cases skip and say so.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# Guests as small as the job allows: two cores run the whole suite.
VMOPTS="--mem 512 --cpus 1 --timeout 600"
RESULT=/run/ubcvm/out/result.json

require_qemu()
{
	require_prog qemu-system-x86_64
	[ -f "$small" ] || atf_fail "missing $small (make build/fixtures/small.tar.gz)"
}

# The release a package's directory names: linux-image-REL.
pkgrel()
{
	basename "$(dirname "$(dirname "$1")")" | sed 's/^linux-image-//'
}

# check_cell FILE KERNEL FSTYPE: one result as the guest measured it.
check_cell()
{
	python3 - "$1" "$(pkgrel "$2")" "$(sha256sum "$2" | cut -c1-64)" "$3" "$top" <<'EOF' ||
import json, sys
sys.path.insert(0, sys.argv[5] + "/tests")
from guest_diskstats import mismatch
d = json.load(open(sys.argv[1]))
rel, sha, fs = sys.argv[2], sys.argv[3], sys.argv[4]
vm = d["vm"]
def fail(msg):
    print(msg)
    sys.exit(1)
if vm["kernel_release"] != rel:
    fail("guest release %s, the package says %s" % (vm["kernel_release"], rel))
if vm["kernel_sha256"] != sha:
    fail("kernel_sha256 %s, sha256sum says %s" % (vm["kernel_sha256"], sha))
if d["label"] != rel + " " + fs:
    fail("label %r" % d["label"])
if vm["image"]["fstype"] != ("none" if fs == "raw" else fs):
    fail("image fstype %r" % vm["image"]["fstype"])
if vm["accel"] not in ("kvm", "tcg") or vm["boot_ns"] <= 0:
    fail("accel %r, boot_ns %r" % (vm["accel"], vm["boot_ns"]))
if d["probe"]["name"] != "tracefs":
    fail("probe %r: the guest runs as root with tracefs" % d["probe"])
ok = [r for r in d["runs"] if r["status"] == "ok"]
if len(ok) != len(d["runs"]) or not ok:
    fail("runs: %r" % [r["status"] for r in d["runs"]])
for r in ok:
    why = mismatch(r, "vda")
    if why is not None:
        fail(why)
    way = "read" if fs == "raw" else "write"
    hist = [b for p in r["phases"] for dev in p["devices"]
            for b in dev[way]["size_hist"]["buckets"]]
    if sum(b["count"] for b in hist) == 0:
        fail("empty %s size histogram" % way)
EOF
	    atf_fail "$1: the checks above failed"
}

# two_kernels FSTYPE: both kernels on one filesystem, two runs each.
# two_kernels FSTYPE [ROUNDS]: 2 runs of each kernel, in ROUNDS rounds
# (1: one boot a cell; 2: --boot-runs 1, a boot a run).
two_kernels()
{
	use_tmp
	require_qemu
	kernel k1 6.1
	kernel k2 6.12
	rounds=${2:-1} more=
	[ "$rounds" -eq 1 ] || more="--boot-runs 1"
	atf_check -s exit:0 -o save:series -e save:err \
	    "$ubc" vm $VMOPTS -j 2 -n 2 $more -t "$1" -k "$k1" -k "$k2" -o out "$small"
	r1=out/$(pkgrel "$k1")-$1.json
	r2=out/$(pkgrel "$k2")-$1.json
	check_cell "$r1" "$k1" "$1"
	check_cell "$r2" "$k2" "$1"
	for r in "$r1" "$r2"; do
		[ "$(json "$r" 'd["vm"]["design"]["rounds"], len(d.get("boots", []))')" = "$rounds $((rounds - 1))" ] ||
		    atf_fail "$r: not $rounds rounds: $(json "$r" 'd["vm"]["design"]')"
	done
	grep -q "A  $(pkgrel "$k1") $1" series || atf_fail "the series lacks $k1"
	grep -q "B  $(pkgrel "$k2") $1" series || atf_fail "the series lacks $k2"
	grep -q "^write.mean_bytes" series || atf_fail "no write sizes in the series"
	grep -q "guests ran at once" err || atf_fail "no warning about parallel guests"
	rm -rf out
	no_leftovers
}

atf_test_case ext4
ext4_head()
{
	atf_set "descr" "a 6.1 and a 6.12 kernel on ext4: results, release, reconciliation, series"
	atf_set "timeout" "900"
}
ext4_body()
{
	use_tmp
	two_kernels ext4
}

atf_test_case xfs
xfs_head()
{
	atf_set "descr" "the same on xfs, each run a boot of its own (--boot-runs 1)"
	atf_set "timeout" "900"
}
xfs_body()
{
	plain_pass_only "its time is guests; the cell's code under ASan: vm_test:ext4 (this case differs in the guest's mkfs)"
	use_tmp
	require_prog mkfs.xfs
	two_kernels xfs 2
}

atf_test_case dd
dd_head()
{
	atf_set "descr" "a dd cell on both kernels reads the raw disk"
	atf_set "timeout" "900"
}
dd_body()
{
	use_tmp
	require_qemu
	kernel k1 6.1
	kernel k2 6.12
	atf_check -s exit:0 -o save:series -e ignore \
	    "$ubc" vm $VMOPTS -j 2 -k "$k1" -k "$k2" -o out -- \
	    dd if=/dev/vda of=/dev/null bs=64k count=256 -n 2
	for k in "$k1" "$k2"; do
		r=out/$(pkgrel "$k")-raw.json
		check_cell "$r" "$k" raw
		[ "$(json "$r" 'd["kind"]')" = dd ] || atf_fail "$r is not a dd result"
	done
	rm -rf out
	no_leftovers
}

atf_test_case trace
trace_head()
{
	atf_set "descr" "a workload trace recorded here replays in a cell on both kernels: the write() calls the test knows, the series' verdict; a hostile one is refused before any boot"
	atf_set "timeout" "900"
}
trace_body()
{
	use_tmp
	require_qemu
	kernel k1 6.1
	kernel k2 6.12
	# Three processes, 50 writes of 4 KiB each: 150 writes, 614400 bytes.
	mkdir src
	(cd src && "$ubc" record -q -o ../w.trace.gz -- sh -c \
	    'for i in 1 2 3; do dd if=/dev/zero of=f$i bs=4096 count=50 2>/dev/null & done; wait; mv f1 g1') ||
	    atf_fail "record failed"
	atf_check -s exit:0 -o save:series -e ignore \
	    "$ubc" vm $VMOPTS -n 2 -k "$k1" -k "$k2" -o out w.trace.gz
	for k in "$k1" "$k2"; do
		r=out/$(pkgrel "$k")-ext4.json
		check_cell "$r" "$k" ext4
		[ "$(json "$r" 'd["kind"]')" = trace ] || atf_fail "$r is not a trace result"
		for n in 0 1; do
			w="d['runs'][$n]['phases'][0]['app_write']"
			[ "$(json "$r" "$w['ops']") $(json "$r" "$w['bytes']")" = "150 614400" ] ||
			    atf_fail "$r run $n: $(json "$r" "$w") write() calls, not 150 of 614400 bytes"
		done
	done
	grep -q "B $(pkgrel "$k2") ext4 against A $(pkgrel "$k1") ext4:" series ||
	    atf_fail "the series gives no verdict: $(cat series)"
	grep -q "^app.write.ops  *150 " series || atf_fail "the series lacks the write() calls"
	rm -rf out
	# A hostile trace: refused with the reason, no guest booted.
	python3 "$top/tests/mkwtrace.py" h || atf_fail "mkwtrace.py failed"
	bad "h/dotdot.trace.*'\.\.'" $VMOPTS -k "$k1" -o out h/dotdot.trace
}

atf_test_case bisect
bisect_head()
{
	atf_set "descr" "--bisect over every kernel under build/kernels finds the first 6.12"
	atf_set "timeout" "1200"
}
bisect_body()
{
	plain_pass_only "its time is guests; --bisect under ASan: vm_test:bisect_parallel"
	use_tmp
	require_qemu
	kernel k1 6.1; kernel k2 6.12
	# Oldest first: every 6.1 before every 6.12. Measured here, 6.12
	# sends ext4's writes of this archive about 30% larger (fewer, larger
	# requests) than 6.1 does: the first 6.12 is the first "bad" one.
	# Under TCG a run's mean write varies from run to run (6% here, a
	# third once under load): -n auto runs each step until its gate is
	# decided, rather than guessing good or bad from too few runs.
	ks=$(ls -d "$top"/build/kernels/linux-image-*-amd64/boot/vmlinuz-* | sort -V)
	want=$(for k in $ks; do pkgrel "$k"; done | grep '^6\.12\.' | head -1)
	n=$(echo "$ks" | wc -l)
	args=
	for k in $ks; do
		args="$args -k $k"
	done
	atf_check -s exit:0 -o save:path -e ignore "$ubc" vm --bisect $VMOPTS \
	    -j 2 -n auto --fail-if write.mean_bytes:+5% $args -o out "$small"
	# The ends ran side by side (-j 2), and every other kernel beside
	# the first booted again.
	for k in $ks; do
		r=out/$(pkgrel "$k")-ext4.json
		[ -f "$r" ] || continue
		par=2
		[ "$(json "$r" 'd["vm"]["parallel_guests"]')" = $par ] ||
		    atf_fail "$r: parallel_guests $(json "$r" 'd["vm"]["parallel_guests"]'), not $par"
	done
	grep -q "^first bad kernel: $want " path || atf_fail "not $want: $(cat path)"
	# The ends, then one boot per halving.
	max=2
	m=$((n - 1))
	while [ $m -gt 1 ]; do
		m=$(((m + 1) / 2))
		max=$((max + 1))
	done
	boots=$(ls out | wc -l)
	[ "$boots" -le $max ] || atf_fail "$boots boots for $n kernels, more than $max"
	rm -rf out
	no_leftovers
}

atf_test_case until_decided
until_decided_head()
{
	atf_set "descr" "runs until decided (-n 5..7): two looks at 97.5%, the first in two rounds of at most 3 runs a boot (A B, B A), the second in one (A B), the later boots in each result's boots and the rounds in its vm.design, exit 3; the results record how vm judged them, and compare on the files gives vm's verdicts (exit status and intervals) on a metric that changes, at vm's level: a limit between its 95% and 97.5% bounds, recomputed by Python, is decided at 95% and UNDECIDED by compare"
	atf_set "timeout" "900"
}
until_decided_body()
{
	use_tmp
	plain_pass_only "its time is guests; the looks and the merge under ASan: runner_test, compare judging vm's results: compare_test"
	require_qemu
	kernel k 6.1
	# The workload's own writes are the same in every run: the change is
	# exactly +0.0%, on the limit of +0%, which no interval can leave, so
	# both looks are taken. The device's mean write varies from run to
	# run under TCG: its interval is the level's.
	gates="--fail-if app.write.ops:+0% --fail-if write.mean_bytes:-50%"
	atf_check -s exit:3 -o save:log -e save:err "$ubc" vm $VMOPTS \
	    -n 5..7 $gates -k "$k" -k "$k" -o out "$small"
	grep -q "look 1 of 2, 5 runs a cell: undecided: more runs" err ||
	    atf_fail "no first look: $(grep look err)"
	grep -q "look 2 of 2, 7 runs a cell: undecided at the most runs" err ||
	    atf_fail "no second look: $(grep look err)"
	grep -q "^Runs until decided (-n 5..7): looks at 5, 7 runs a cell, each judging at 97.5%" log ||
	    atf_fail "the looks are not told"
	grep -q "^  UNDECIDED app.write.ops:+0%: app.write.ops +0.0% \[+0.0, +0.0\] .*the change sits on the limit" log ||
	    atf_fail "not undecided on the limit: $(grep -A2 '^Gates' log)"
	[ "$(ls out | wc -l)" -eq 2 ] || atf_fail "not 2 results: $(ls out)"
	set -- "out/$(pkgrel "$k")-ext4.json" "out/$(pkgrel "$k")-ext4-2.json"
	/usr/bin/python3 - "$@" <<'EOF' || atf_fail "the boots or the record are not what the looks ran"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    if len(d["runs"]) != 3 or [len(x["runs"]) for x in d["boots"]] != [2, 2]:
        sys.exit("runs %d, boots %s" % (len(d["runs"]), [len(x["runs"]) for x in d.get("boots", [])]))
    if d["vm"]["judged"] != {"rule": "interval", "level": 0.975, "looks": [5, 7]}:
        sys.exit("judged: %r" % d["vm"].get("judged"))
    if d["vm"]["design"] != {"rounds": 3, "runs_per_round": 3, "order": "alternating", "cells": 2}:
        sys.exit("design: %r" % d["vm"].get("design"))
# The first look's two rounds, A B then B A; the second's one, A B.
s = lambda d, i: ([d] + d["boots"])[i]["started"]
t = [s(a, 0), s(b, 0), s(b, 1), s(a, 1), s(a, 2), s(b, 2)]
if t != sorted(t):
    sys.exit("boots not in rounds A B, B A, A B: %s" % t)
EOF
	# compare on the files: vm's exit status and vm's lines, intervals
	# and all, judged at 97.5% as it says.
	atf_check -s exit:3 -o save:cmp -e ignore "$ubc" compare $gates "$@"
	grep -q "7 of 7 runs ok in 3 boots" cmp || atf_fail "compare does not read the boots"
	grep -q "^Runs in rounds: 3 rounds a cell of up to 3 runs a boot" cmp ||
	    atf_fail "compare does not say the runs were rounds"
	grep -qF "Judged as ubcreplay vm judged these runs: looks at 5, 7 runs a cell, each at 97.5% (0.05 spread over the 2), by the interval rule." cmp ||
	    atf_fail "compare does not say how it judged"
	sed -n '/^Gates/,/failed,/p' log >vm.gates
	sed -n '/^Gates/,/failed,/p' cmp >cmp.gates
	grep -q "^  [A-Z]* write.mean_bytes:-50%: write.mean_bytes .*\[" vm.gates ||
	    atf_fail "vm judged no write.mean_bytes: $(cat vm.gates)"
	cmp -s vm.gates cmp.gates ||
	    atf_fail "vm said '$(cat vm.gates)', compare '$(cat cmp.gates)'"
	# A gate whose verdict hangs on the level: its limit between the 95%
	# and the 97.5% interval's bounds, by their definition from the runs
	# in the files (every pairwise ratio, the rank-sum distribution
	# enumerated). At 95% it is decided; at vm's 97.5%, UNDECIDED.
	/usr/bin/python3 "$top/tests/hl_interval.py" "$@" 0.95 0.975 >iv ||
	    atf_fail "Python cannot read the runs"
	/usr/bin/python3 - iv >limit <<'EOF' || atf_fail "no limit between the intervals: $(cat iv)"
import sys
(lo95, hi95), (lo, hi) = [map(float, l.split()) for l in open(sys.argv[1])]
# A limit x in a gap between the bounds: below, (lo, lo95); above,
# (hi95, hi). Either may be empty where the runs tie; one is enough.
# A gate +x (x > 0) FAILs at 95% from the lower gap and PASSes from the
# upper; a gate -x (x < 0) PASSes from the lower gap and FAILs from the
# upper.
for a, b, below in ((lo, lo95, True), (hi95, hi, False)):
    if a < b:
        x = next(x for x in ((a + b) / 2, (a + 3 * b) / 4) if abs(x) > 1e-3)
        break
else:
    sys.exit("no gap between the 95%% and 97.5%% bounds: %s %s" % ((lo95, hi95), (lo, hi)))
gate = "+" if x > 0 else "-"
at95 = "FAIL" if below == (x > 0) else "PASS"
x = abs(x)
print("write.mean_bytes:%s%.4f%%" % (gate, x), at95, "[%+.1f, %+.1f]" % (lo, hi))
EOF
	read -r gate at95 i975 <limit
	atf_check -s exit:3 -o save:lvl -e ignore "$ubc" compare --fail-if "$gate" "$@"
	grep -qF -- "UNDECIDED $gate: write.mean_bytes " lvl &&
	    grep -qF -- "% $i975 in $2" lvl ||
	    atf_fail "$gate, $at95 at 95%: not UNDECIDED at 97.5% $i975: $(grep -A1 '^Gates' lvl)"
	rm -rf out
	no_leftovers
}

atf_test_case until_decided_refused
until_decided_refused_head()
{
	atf_set "descr" "runs until decided (-n MIN..MAX) are refused, with the reason, where they cannot be: no gate, a plan, a job of its own, machines, too few runs for the test the runs take (pairs on UML: the signed-rank test's 8), the significance rule; -n auto on UML starts at 8 pairs"
}
until_decided_refused_body()
{
	use_tmp
	k=/nonexistent/vmlinuz
	bad "needs --fail-if" -n auto -k "$k" "$small"
	bad "needs one invocation" -n auto --fail-if elapsed:+5% --plan \
	    -k "$k" "$small"
	bad "needs the main job" -n auto --fail-if elapsed:+5% -k "$k" -- \
	    dd if=/dev/vda of=/dev/null
	bad "needs one machine" -n auto --fail-if elapsed:+5% --cpus 1,2 \
	    -k "$k" "$small"
	bad "-n '3..10': N, auto, or MIN..MAX" -n 3..10 -k "$k" "$small"
	bad "-n '5..1000': 5 runs a side bound no interval" -n 5..1000 \
	    -k "$k" "$small"
	# A rule that never says undecided would end at the first look.
	bad "needs the interval rule: --gate-rule significance never says undecided" \
	    -n auto --gate-rule significance --fail-if elapsed:+5% -k "$k" "$small"
	# On UML the runs pair up by seed, and the signed-rank test needs 8
	# pairs at the 99% of five looks (5 runs a side do for Mann-Whitney).
	# A program that looks like a UML kernel is enough: the check comes
	# before any boot.
	require_prog cc
	printf '%s\n' \
	    '__attribute__((section(".uml.setup.init"), used)) static const char s[] = "x";' \
	    '__attribute__((used)) const char v[] = "time-travel-start=\0ubd_model=\0uml_seed=\0Linux version 6.1.0-fake (test)";' \
	    'int main(void) { return 1; }' >fakeuml.c
	cc -o fakeuml fakeuml.c || atf_fail "cannot build a program"
	bad "-n '5..20': the runs pair up by seed on UML, and 5 pairs bound no interval at the 99.00% that each of its 5 looks takes (the signed-rank test): MIN must be 8 or more" \
	    -n 5..20 --fail-if write.ops:+5% -k fakeuml -k fakeuml "$small"
	bad "-n '7..20': .* 7 pairs bound no interval at the 98.75%" \
	    -n 7..20 --fail-if write.ops:+5% -k fakeuml -k fakeuml "$small"
	# auto starts at the pairs its looks need (the fake then fails to
	# boot: exit 2, for that reason, not for -n).
	bad "the signed-rank test needs 8 pairs at 98.75%: looks at 8, 12, 18, 20$" \
	    -n auto --fail-if write.ops:+5% -k fakeuml -k fakeuml "$small"
	grep -q "UML failed" err || atf_fail "auto refused: $(cat err)"
	! grep -q "^ubcreplay: -n" err || atf_fail "auto refused: $(cat err)"
}

atf_test_case dead_qemu
dead_qemu_head()
{
	atf_set "descr" "a QEMU dead at its start, noticed late, is a QEMU error, not a KVM one that sends later cells to TCG"
	atf_set "timeout" "300"
}
dead_qemu_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	fake_qemu dies
	"$ubc" vm $VMOPTS -k "$k" --accel auto -o out -- \
	    dd if=/dev/vda of=/dev/null bs=64k count=16 -n 1 >/dev/null 2>err &
	pid=$!
	n=0
	until [ -e qemu-died ]; do
		n=$((n + 1))
		[ $n -lt 600 ] || { kill -CONT $pid; atf_fail "QEMU never started: $(cat err)"; }
		sleep 0.1
	done
	# Long past the 10 s in which a silent KVM guest is given up on.
	sleep 12
	kill -CONT $pid
	wait $pid
	rc=$?
	[ $rc -eq 2 ] || atf_fail "exit $rc, not 2: $(cat err)"
	grep -q "QEMU failed (exit 1): qemu-system-x86_64: this start fails" err ||
	    atf_fail "not a QEMU error: $(cat err)"
	[ "$(cat qemu-starts)" = kvm ] ||
	    atf_fail "QEMU started again: $(cat qemu-starts | tr '\n' ' ')"
	no_leftovers
}

atf_test_case boot_time
boot_time_head()
{
	atf_set "descr" "boot_ns is when the guest's job started, not when a busy host noticed it"
	atf_set "timeout" "600"
}
boot_time_body()
{
	plain_pass_only "its time is guests, its check the meaning of a time; the cell's code under ASan: vm_test:ext4"
	use_tmp
	require_qemu
	kernel k 6.1
	# The stand-in QEMU stops ubcreplay until 8 s after the start file is
	# there: a poll that comes late, as behind another cell's preparation.
	fake_qemu late
	atf_check -s exit:0 -o ignore -e ignore "$ubc" vm $VMOPTS -k "$k" \
	    --accel tcg -o out -- dd if=/dev/vda of=/dev/null bs=64k count=16 -n 1
	seen=$(cat started-seen)
	boot=$(json out/*-raw.json 'd["vm"]["boot_ns"]')
	echo "the start file seen $seen ns after QEMU began; boot_ns $boot"
	# Within 2 s: the QEMU stand-in's own start and its 20 ms polls.
	[ $((boot - seen)) -lt 2000000000 ] && [ $((seen - boot)) -lt 2000000000 ] ||
	    atf_fail "boot_ns $boot, the start file appeared at $seen"
	rm -rf out
	no_leftovers
}

atf_test_case qemu_killed
qemu_killed_head()
{
	atf_set "descr" "QEMU killed from outside mid-job: the cell named, exit 2, nothing left, the other cell's result kept"
	atf_set "timeout" "900"
}
qemu_killed_body()
{
	use_tmp
	require_qemu
	kernel k1 6.1
	kernel k2 6.12
	# One after the other: the first finishes; the second's QEMU is
	# killed once its job has started.
	"$ubc" vm $VMOPTS -j 1 -k "$k1" -k "$k2" -o out -- \
	    dd if=/dev/vda of=/dev/null bs=64k count=256 -n 4 >/dev/null 2>err &
	pid=$!
	n=0
	until grep -q "$(pkgrel "$k1") raw: done" err &&
	    ls tmp/*/out/started >/dev/null 2>&1; do
		n=$((n + 1))
		[ $n -lt 6000 ] || atf_fail "the second cell's job never started: $(cat err)"
		sleep 0.1
	done
	q=$(pgrep -f "qemu-system.*$PWD/tmp") || atf_fail "no QEMU left to kill: $(cat err)"
	kill -9 $q
	wait $pid
	rc=$?
	[ $rc -eq 2 ] || atf_fail "exit $rc, not 2: $(cat err)"
	grep -q "kernel '$k2': QEMU was killed by signal 9" err ||
	    atf_fail "the error does not name the cell: $(cat err)"
	[ -f "out/$(pkgrel "$k1")-raw.json" ] || atf_fail "the finished cell's result is lost"
	rm -rf out
	no_leftovers
}

atf_test_case machines
machines_head()
{
	atf_set "descr" "--cpus 1,2 makes a cell for each machine, named and labelled by it, recorded as the guest saw it; compare refuses a size gate across them"
	atf_set "timeout" "900"
}
machines_body()
{
	plain_pass_only "its time is guests; machine labels under ASan: plan_test:machine_labels, the refusal across machines: compare_test:vm_machines"
	use_tmp
	require_qemu
	kernel k 6.1
	rel=$(pkgrel "$k")
	atf_check -s exit:0 -o save:series -e save:err "$ubc" vm --mem 512 \
	    --timeout 600 --cpus 1,2 --queues 1 -n 1 -k "$k" -o out "$small"
	for c in 1 2; do
		r=out/$rel-ext4-${c}cpu.json
		[ -f "$r" ] || atf_fail "no $r: $(ls out)"
		[ "$(json "$r" 'd["label"]')" = "$rel ext4 ${c}cpu" ] ||
		    atf_fail "$r: label $(json "$r" 'd["label"]')"
		[ "$(json "$r" 'd["vm"]["cpus"]')" = $c ] || atf_fail "$r: cpus"
		# The guest kernel's own count of the disk's blk-mq hardware
		# queues (/sys/block/vda/mq) is what QEMU was asked for.
		[ "$(json "$r" 'd["vm"]["hw_queues"]')" = 1 ] ||
		    atf_fail "$r: the guest saw $(json "$r" 'd["vm"]["hw_queues"]') queues, not 1"
		[ "$(json "$r" 'd["vm"]["queues"]')" = 1 ] || atf_fail "$r: queues"
		[ "$(json "$r" 'd["vm"]["clock"]')" = realtime ] || atf_fail "$r: clock"
		[ "$(json "$r" 'd["vm"]["calibration_ns"] > 0')" = True ] ||
		    atf_fail "$r: no calibration"
	done
	grep -q "^  machine: tcg, 512M, 1q, realtime; differs in vCPUs (in the labels)$" series ||
	    atf_fail "the series does not show its machine: $(grep -A3 '^Series' series)"
	grep -q "^  B  $rel ext4 2cpu " series || atf_fail "no 2cpu result in the comparison"
	# A size gate across vCPUs: refused, naming both and the difference.
	atf_check -s exit:2 -o empty -e save:err "$ubc" compare --fail-if \
	    write.mean_bytes:+5% out/$rel-ext4-1cpu.json out/$rel-ext4-2cpu.json
	grep -qF "cannot judge sizes across machines: the guests' machines differ in vCPUs: 'out/$rel-ext4-1cpu.json' (1cpu), 'out/$rel-ext4-2cpu.json' (2cpu)" err ||
	    atf_fail "the refusal does not name the difference: $(cat err)"
	rm -rf out
	no_leftovers
}

atf_test_case bisect_parallel
bisect_parallel_head()
{
	atf_set "descr" "--bisect -j 2: the two ends, run side by side, record parallel_guests 2"
	atf_set "timeout" "600"
}
bisect_parallel_body()
{
	use_tmp
	require_qemu
	kernel k1 6.1
	kernel k2 6.12
	# Whatever the gate says of two runs, both ends' results are written.
	atf_check -s ignore -o ignore -e ignore "$ubc" vm --bisect $VMOPTS \
	    -j 2 -k "$k1" -k "$k2" --fail-if read.mean_bytes:+5% -o out -- \
	    dd if=/dev/vda of=/dev/null bs=64k count=64 -n 2
	for k in "$k1" "$k2"; do
		r=out/$(pkgrel "$k")-raw.json
		[ "$(json "$r" 'd["vm"]["parallel_guests"]')" = 2 ] ||
		    atf_fail "$r: parallel_guests $(json "$r" 'd["vm"]["parallel_guests"]'), not 2"
	done
	rm -rf out
	no_leftovers
}

atf_test_case machine_refused
machine_refused_head()
{
	atf_set "descr" "machines that cannot run are refused before anything boots"
}
machine_refused_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	bad "QEMU runs them in one thread under icount" --cpus 2 \
	    --clock icount:4 -k "$k" -o out "$small"
	bad "icount is QEMU's TCG only" --cpus 1 --accel kvm --clock icount \
	    -k "$k" -o out "$small"
	bad "at most one a vCPU" --cpus 1 --queues 2 -k "$k" -o out "$small"
	bad "is not realtime, icount or icount:SHIFT" --clock fast -k "$k" \
	    -o out "$small"
	bad "'1' twice" --cpus 1,1 -k "$k" -o out "$small"
	bad "one machine" --bisect --cpus 1,2 --fail-if write.ops:+1% \
	    -k "$k" -k "$k" -o out "$small"
}

atf_test_case not_a_kernel
not_a_kernel_head()
{
	atf_set "descr" "a file that is not a kernel is named and refused"
}
not_a_kernel_body()
{
	use_tmp
	require_qemu
	head -c 4096 /dev/urandom >vmlinuz-junk
	bad "'vmlinuz-junk' is not a kernel image" -k vmlinuz-junk -o out "$small"
}

atf_test_case missing_module
missing_module_head()
{
	atf_set "descr" "a kernel without a module the cell needs is named with it"
}
missing_module_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	mkdir mods
	: >mods/modules.dep
	: >mods/modules.builtin
	bad "has no module virtio_pci" -k "$k" --modules mods -o out "$small"
	# A package unpacked as it comes (Debian's ship no modules.dep): the
	# error gives the depmod that makes it, and that depmod does.
	rel=${k##*/vmlinuz-}
	mkdir -p "unpacked/boot" "unpacked/lib/modules/$rel"
	cp "$k" unpacked/boot/
	cp "$(dirname "$k")/../lib/modules/$rel/modules.builtin" \
	    "$(dirname "$k")/../lib/modules/$rel/modules.order" \
	    "unpacked/lib/modules/$rel/"
	bad "depmod -b 'unpacked/boot/..' $rel\`" -k "unpacked/boot/vmlinuz-$rel" -o out "$small"
	busybox depmod -b "unpacked/boot/.." "$rel" ||
	    atf_fail "the depmod the error gave failed"
	[ -f "unpacked/lib/modules/$rel/modules.dep" ] ||
	    atf_fail "the depmod the error gave made no modules.dep"
}

atf_test_case tmpdir_full cleanup
tmpdir_full_head()
{
	atf_set "descr" "the host's temporary directory full while a cell prepares: the cell named, exit 2, nothing left"
	atf_set "timeout" "300"
}
# small_tmp SIZE: ./tmp a tmpfs of SIZE (small_tmp_cleanup unmounts it),
# to be only ubcreplay's TMPDIR: atf-check keeps its own files in TMPDIR.
small_tmp()
{
	require_root "a small tmpfs as TMPDIR"
	require_qemu
	mkdir tmp
	mount -t tmpfs -o size="$1" tmpfs tmp || atf_skip "cannot mount a tmpfs"
}
small_tmp_cleanup()
{
	umount tmp 2>/dev/null
	return 0
}

tmpdir_full_body()
{
	small_tmp 1m
	kernel k 6.1
	atf_check -s exit:2 -o ignore -e save:err env TMPDIR="$PWD/tmp" \
	    "$ubc" vm $VMOPTS -k "$k" -o out "$small"
	grep -q "kernel '$k': cannot write" err || atf_fail "$(cat err)"
	no_leftovers
}
tmpdir_full_cleanup()
{
	small_tmp_cleanup
}

atf_test_case host_disk_full cleanup
host_disk_full_head()
{
	atf_set "descr" "the host's filesystem under the image fills while the guest writes its disk: the guest gets I/O errors and the cell fails naming the full filesystem, exit 2, nothing left, instead of a guest paused until its timeout"
	atf_set "timeout" "600"
}
host_disk_full_body()
{
	small_tmp 24m
	kernel k 6.1
	# 64 MiB written straight to a raw disk of 128 MiB whose sparse image
	# lies on 24 MiB. Paused, the guest would wait for --timeout.
	atf_check -s exit:2 -o ignore -e save:err env TMPDIR="$PWD/tmp" \
	    "$ubc" vm --mem 512 --cpus 1 --timeout 300 --size 128M -k "$k" \
	    -o out -- dd if=/dev/zero of=/dev/vda bs=64k count=1024 oflag=direct -n 1
	grep -q "kernel '$k': the host's filesystem under '$PWD/tmp' is full" err ||
	    atf_fail "$(cat err)"
	no_leftovers
}
host_disk_full_cleanup()
{
	small_tmp_cleanup
}

atf_test_case no_9p
no_9p_head()
{
	atf_set "descr" "a kernel with no 9p, built in or as a module, is refused before any boot"
}
no_9p_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	mods=$(dirname "$(dirname "$k")")/lib/modules/$(pkgrel "$k")
	[ -f "$mods/modules.dep" ] || atf_skip "no modules.dep in $mods"
	mkdir mods
	cp -rs "$mods"/. mods/
	rm mods/modules.dep mods/modules.builtin
	grep -v '/9p\.ko[^:]*:' "$mods/modules.dep" >mods/modules.dep
	grep -v '/9p\.ko' "$mods/modules.builtin" >mods/modules.builtin
	bad "has no module 9p" $VMOPTS -k "$k" --modules mods -o out "$small"
}

atf_test_case unknown_fstype
unknown_fstype_head()
{
	atf_set "descr" "an unknown filesystem type is refused before any boot"
}
unknown_fstype_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	bad "unknown filesystem type 'nosuchfs'" -k "$k" -t nosuchfs -o out "$small"
}

atf_test_case mkfs_fails
mkfs_fails_head()
{
	atf_set "descr" "mkfs refusing its options, or more words of options than it takes, fails the cell with mkfs's own word, exit 2, nothing left"
}
mkfs_fails_body()
{
	use_tmp
	require_qemu
	require_prog mkfs.ext4
	kernel k 6.1
	# mkfs's own message, as mkfs.ext4 prints it here.
	truncate -s 16M img
	want=$(mkfs.ext4 -q -F -O nosuchfeature img 2>&1 | tail -1)
	rm -f img
	[ -n "$want" ] || atf_fail "mkfs.ext4 took -O nosuchfeature"
	bad "kernel '$k', ext4: .*mkfs.ext4 failed: $want" -k "$k" -t ext4 \
	    -m "-O nosuchfeature" -o out "$small"
	bad "kernel '$k', ext4: too many mkfs options (more than 64 words)" \
	    -k "$k" -t ext4 -m "$(yes -- -v | head -65 | tr '\n' ' ')" \
	    -o out "$small"
}

atf_test_case no_qemu
no_qemu_head()
{
	atf_set "descr" "without QEMU on PATH, the error says so"
}
no_qemu_body()
{
	use_tmp
	kernel k 6.1
	mkdir empty
	PATH=$PWD/empty atf_check -s exit:2 -o ignore -e save:err \
	    "$ubc" vm -k "$k" -o out "$small"
	grep -q "qemu-system-x86_64: it is not on PATH" err || atf_fail "$(cat err)"
	no_leftovers
}

atf_test_case panic
panic_head()
{
	atf_set "descr" "a guest whose init cannot run panics: the console's last lines"
	atf_set "timeout" "600"
}
panic_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	# A dynamic program cannot run as the initramfs's /init.
	export UBCREPLAY_VM_INIT=/bin/true
	bad "Kernel panic" $VMOPTS -k "$k" -o out "$small"
	grep -q "the guest stopped before its job ended" err || atf_fail "$(cat err)"
}

atf_test_case hang
hang_head()
{
	atf_set "descr" "a guest that does not finish in --timeout is killed"
	atf_set "timeout" "300"
}
hang_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	bad "did not finish within 3 s" --mem 512 --cpus 1 --timeout 3 \
	    -k "$k" -o out "$small"
}

atf_test_case boot_hang
boot_hang_head()
{
	atf_set "descr" "a guest whose init never comes up is given up at --boot-timeout, not --timeout"
	atf_set "timeout" "300"
}
boot_hang_body()
{
	plain_pass_only "its time is guests; a guest killed at a timeout under ASan: vm_test:hang"
	use_tmp
	require_qemu
	require_prog cc
	kernel k 6.1
	# An init that never gets to the job: the kernel boots, then nothing.
	printf '#include <stdio.h>\n#include <unistd.h>\nint main(void) { fputs("stuck before the job\\n", stderr); for (;;) pause(); }\n' >stuck.c
	cc -static -o stuck stuck.c || atf_skip "cannot link a static program here"
	export UBCREPLAY_VM_INIT=$PWD/stuck
	start=$(date +%s)
	bad "did not boot within 20 s (--boot-timeout): its init never came up" \
	    --mem 512 --cpus 1 --timeout 1200 --boot-timeout 20 -k "$k" -o out "$small"
	# The console's last lines come with it (the kernel's, or the stuck
	# init's own word, however far this machine got in 20 s).
	sed -n '/the last lines of its console:/,$p' err | sed 1d >tail
	[ -s tail ] && ! grep -q '^(nothing)$' tail ||
	    atf_fail "no console lines after the error"
	# Given up long before the 20-minute job timeout.
	[ $(($(date +%s) - start)) -lt 600 ] || atf_fail "waited past 600 s"
}

atf_test_case signal
signal_head()
{
	atf_set "descr" "SIGINT or SIGTERM mid-boot or mid-job: everything removed, death by the signal"
	atf_set "timeout" "300"
}
signal_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	# While it boots, then while its job runs (the guest said it started).
	for when in INT:boot TERM:boot INT:job; do
		sig=${when%:*}
		"$ubc" vm $VMOPTS -n 20 -k "$k" -o out "$small" \
		    >/dev/null 2>err &
		pid=$!
		n=0
		until pgrep -f "qemu-system.*$PWD/tmp" >/dev/null &&
		    { [ "${when#*:}" = boot ] || ls tmp/*/out/started >/dev/null 2>&1; }; do
			n=$((n + 1))
			[ $n -lt 1200 ] || atf_fail "the guest never got to $when: $(cat err)"
			sleep 0.1
		done
		[ "${when#*:}" = boot ] && sleep 2
		kill -s $sig $pid
		wait $pid
		rc=$?
		want=$((128 + $(kill -l $sig)))
		[ $rc -eq $want ] || atf_fail "SIG$sig at $when: exit $rc, not $want"
		no_leftovers
	done
}

# What the guest is handed, and what is refused before it boots: /vm.conf
# is read back from the initramfs the host would boot (a stand-in
# qemu-system-x86_64 on PATH keeps a copy and exits: no guest boots in
# those cases).

# A qemu-system-x86_64 that says its version, keeps the initramfs it is
# given as ./initrd.gz and fails: the cell ends there.
initrd_qemu()
{
	mkdir -p fakebin
	cat >fakebin/qemu-system-x86_64 <<EOF
#!/bin/sh
if [ "\$1" = --version ]; then
	echo "QEMU emulator version 7.2.0 (stand-in)"
	exit 0
fi
while [ \$# -gt 0 ]; do
	[ "\$1" = -initrd ] && cp "\$2" "$PWD/initrd.gz"
	shift
done
echo "the test's stand-in QEMU" >&2
exit 1
EOF
	chmod +x fakebin/qemu-system-x86_64
	PATH=$PWD/fakebin:$PATH
	export PATH
}

# before_boot: for a case that ends before any guest boots: its temporary
# directory, the stand-in QEMU, the test archive and a 6.1 kernel in $k.
before_boot()
{
	use_tmp
	require_prog bsdtar
	initrd_qemu
	[ -f "$small" ] || atf_fail "missing $small (make build/fixtures/small.tar.gz)"
	kernel k 6.1
}

# jobconf ARGS...: runs vm with ARGS under the stand-in and prints the
# argument lines of the /vm.conf it would have booted, one a line.
jobconf()
{
	rm -f initrd.gz
	"$ubc" vm $VMOPTS -k "$k" -o out "$@" >/dev/null 2>err
	[ -f initrd.gz ] || atf_fail "no initramfs reached QEMU: $(cat err)"
	bsdtar -xOf initrd.gz vm.conf >vm.conf || atf_fail "no vm.conf in the initramfs"
	grep -q "^exe $ubc\$" vm.conf || atf_fail "exe is not this program: $(cat vm.conf)"
	sed -n 's/^arg //p' vm.conf
}

# expect_job WANT ARGS...: the job's argv after `vm ... -- ARGS` is WANT
# (words separated by blanks).
expect_job()
{
	want=$1
	shift
	got=$(jobconf -- "$@" | tr '\n' ' ')
	[ "$got" = "$want " ] || atf_fail "-- $*: the guest runs '$got', not '$want'"
	no_leftovers
}

atf_test_case output_option
output_option_head()
{
	atf_set "descr" "-o RESULT lands where each job's command takes it (vm.conf read back)"
	atf_set "timeout" "600"
}
output_option_body()
{
	before_boot
	# dd, sweep and matrix share one rule (vm_test:dd boots a dd job);
	# a bare dd once got no -o at all, nfs got it before its name.
	expect_job "dd -o $RESULT" dd
	expect_job "nfs -o $RESULT -I eth0 -t 1" nfs -I eth0 -t 1
	expect_job "-o $RESULT /a.tar /run/ubcvm/disk -n 1" /a.tar /run/ubcvm/disk -n 1
	# The commands themselves take -o there: the nfs job's argv, on the
	# host with a capture of the fixtures, writes its result to -o's file.
	pcap=$top/fixtures/nfs_malformed_test/link_raw_ipv4.pcap
	jobconf -- nfs -r "$pcap" | sed "s|^$RESULT\$|$PWD/nfs.json|" >argv
	set --
	while read -r a; do
		set -- "$@" "$a"
	done <argv
	atf_check -s exit:0 -o ignore -e ignore "$ubc" "$@"
	[ -s nfs.json ] || atf_fail "'ubcreplay $*' wrote no result at -o"
	no_leftovers
}

atf_test_case not_a_job
not_a_job_head()
{
	atf_set "descr" "compare, report or vm after -- is refused: they write no result"
}
not_a_job_body()
{
	before_boot
	atf_check -s exit:2 -o ignore -e save:err "$ubc" vm -k "$k" -o out -- \
	    compare a.json b.json
	grep -q "cannot be 'compare'" err || atf_fail "$(cat err)"
	[ ! -e initrd.gz ] || atf_fail "a guest was started"
	no_leftovers
}

atf_test_case job_output
job_output_head()
{
	atf_set "descr" "the job's own -o after -- is refused before boot (it took the place of the cell's result); a value holding an o is not"
}
job_output_body()
{
	before_boot
	for job in "-o x.json $small /run/ubcvm/disk" "-ox.json $small /run/ubcvm/disk" \
	    "$small /run/ubcvm/disk -qo x.json" "dd -o x.json" "nfs -I eth0 -o x.json"; do
		# shellcheck disable=SC2086
		refused "the job after -- takes no -o" \
		    "$ubc" vm -k "$k" -o out -- $job
	done
	jobconf -- dd -lfoo -l o >args
	grep -qx -- -lfoo args || atf_fail "-lfoo did not reach vm.conf: $(cat err)"
	no_leftovers
}

# refused EXPECT ARGS...: exit 2 naming it, before any guest starts.
refused()
{
	expect=$1
	shift
	rm -f initrd.gz
	atf_check -s exit:2 -o ignore -e save:err "$@"
	grep -q "$expect" err || atf_fail "no '$expect' in: $(cat err)"
	[ ! -e initrd.gz ] || atf_fail "a guest was started"
	no_leftovers
}

atf_test_case conf_newline
conf_newline_head()
{
	atf_set "descr" "a newline in -O, a job argument or this program's path is refused before boot"
}
conf_newline_body()
{
	before_boot
	nl='
'
	refused "the mount options (-O) holds a newline" \
	    "$ubc" vm -k "$k" -O "noatime${nl}exe /bin/sh" -o out "$small"
	refused "a job argument holds a newline" \
	    "$ubc" vm -k "$k" -o out -- dd "if=/dev/vda${nl}exe /bin/sh"
	mkdir "bin${nl}setup"
	cp "$ubc" "bin${nl}setup/ubcreplay"
	refused "this program's path holds a newline" \
	    "$PWD/bin${nl}setup/ubcreplay" vm -k "$k" -o out "$small"
}

atf_test_case conf_limits
conf_limits_head()
{
	atf_set "descr" "a value past the guest's line limit is refused before boot, not cut"
}
conf_limits_body()
{
	before_boot
	long=$(python3 -c 'print("x" * 5000)')
	refused "the mount options (-O) is 5000 bytes long" \
	    "$ubc" vm -k "$k" -O "$long" -o out "$small"
	refused "a job argument is 5003 bytes long" \
	    "$ubc" vm -k "$k" -o out -- dd "if=$long"
	# The longest value that fits goes through whole.
	fit=$(python3 -c 'print("x" * (4096 - len("arg ") - 1 - len("if=")))')
	jobconf -- dd "if=$fit" >args
	grep -qx "if=$fit" args || atf_fail "the longest argument did not reach vm.conf whole"
	no_leftovers
}

atf_test_case size_too_small
size_too_small_head()
{
	atf_set "descr" "an archive that cannot fit --size is refused before boot, with the size it needs"
}
size_too_small_body()
{
	before_boot
	# Its data alone, as bsdtar lists it, is more than 7 MiB.
	data=$(bsdtar -tvzf "$small" | awk '{s += $5} END {print s}')
	[ "$data" -gt $((7 << 20)) ] || atf_fail "the fixture holds only $data bytes"
	refused "does not fit a 8 MiB disk" \
	    "$ubc" vm -k "$k" --size 8M -o out "$small"
	refused "'1000': not a whole number of 512-byte sectors" \
	    "$ubc" vm -k "$k" --size 1000 -o out "$small"
}

atf_test_case tmpdir_no_direct cleanup
tmpdir_no_direct_head()
{
	atf_set "descr" "a TMPDIR whose filesystem refuses O_DIRECT is refused before boot, saying how to fix it"
	atf_set "require.user" "root"
}
tmpdir_no_direct_body()
{
	before_boot
	# ramfs has no O_DIRECT (tmpfs has had it since Linux 6.6).
	mkdir ram
	mount -t ramfs ubcreplay-test "$PWD/ram" || atf_skip "cannot mount a ramfs"
	python3 -c 'import os, sys; os.open(sys.argv[1], os.O_CREAT | os.O_RDWR | os.O_DIRECT)' \
	    ram/probe 2>/dev/null && atf_skip "this kernel's ramfs takes O_DIRECT"
	rm -f ram/probe
	TMPDIR=$PWD/ram refused "filesystem refuses O_DIRECT.*set TMPDIR" \
	    "$ubc" vm -k "$k" -o out "$small"
	[ -z "$(ls -A ram)" ] || atf_fail "left in TMPDIR: $(ls -A ram)"
	umount "$PWD/ram" || atf_fail "cannot unmount the ramfs"
}
tmpdir_no_direct_cleanup()
{
	umount "$PWD/ram" 2>/dev/null || true
}

atf_test_case disk_full
disk_full_head()
{
	atf_set "descr" "a job that fills the guest's disk says so, naming the cell"
	atf_set "timeout" "600"
}
disk_full_body()
{
	use_tmp
	require_qemu
	kernel k 6.1
	# 4 MiB written to a 1 MiB disk: the guest's kernel says ENOSPC.
	bad "guest disk full: the job filled the raw disk of 1 MiB (--size)" \
	    $VMOPTS --size 1M -k "$k" -o out -- \
	    dd if=/dev/zero of=/dev/vda bs=64k count=64 -n 1
	grep -q "kernel '$k'" err || atf_fail "the cell is not named: $(cat err)"
}

atf_test_case sigchld_ignored
sigchld_ignored_head()
{
	atf_set "descr" "started with SIGCHLD ignored, vm still waits for its guest"
	atf_set "timeout" "600"
}
sigchld_ignored_body()
{
	plain_pass_only "its time is guests, its check a signal's disposition; vm's waiting under ASan: vm_test:ext4 and vm_test:signal"
	use_tmp
	require_qemu
	kernel k 6.1
	# The parent ignores SIGCHLD and execs: the disposition is inherited,
	# and the kernel would reap mkfs and QEMU before vm could wait for them.
	atf_check -s exit:0 -o ignore -e save:err python3 -c '
import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$ubc" vm $VMOPTS -n 1 -k "$k" -o out "$small"
	f=out/$(pkgrel "$k")-ext4.json
	[ -f "$f" ] || atf_fail "no result: $(cat err)"
	# The guest wrote at least the archive's data, as bsdtar lists it.
	data=$(bsdtar -tvzf "$small" | awk '{s += $5} END {print s}')
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(dev["write"]["bytes"] for r in d["runs"] for p in r["phases"]
        for dev in p["devices"])
if n < int(sys.argv[2]):
    sys.exit("the guest wrote %d bytes, the archive holds %s" % (n, sys.argv[2]))
' "$f" "$data" || atf_fail "the result is not the job's"
	rm -rf out
	no_leftovers
}

atf_init_test_cases()
{
	atf_add_test_case ext4
	atf_add_test_case xfs
	atf_add_test_case dd
	atf_add_test_case trace
	atf_add_test_case bisect
	atf_add_test_case bisect_parallel
	atf_add_test_case until_decided
	atf_add_test_case until_decided_refused

	atf_add_test_case machines
	atf_add_test_case machine_refused
	atf_add_test_case not_a_kernel
	atf_add_test_case missing_module
	atf_add_test_case dead_qemu
	atf_add_test_case boot_time
	atf_add_test_case qemu_killed
	atf_add_test_case tmpdir_full
	atf_add_test_case host_disk_full
	atf_add_test_case no_9p
	atf_add_test_case unknown_fstype
	atf_add_test_case mkfs_fails
	atf_add_test_case no_qemu
	atf_add_test_case panic
	atf_add_test_case hang
	atf_add_test_case boot_hang
	atf_add_test_case signal
	atf_add_test_case output_option
	atf_add_test_case not_a_job
	atf_add_test_case job_output
	atf_add_test_case conf_newline
	atf_add_test_case conf_limits
	atf_add_test_case size_too_small
	atf_add_test_case tmpdir_no_direct
	atf_add_test_case disk_full
	atf_add_test_case sigchld_ignored
}
