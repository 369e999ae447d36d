#! /usr/bin/env atf-sh
# slurm_test.sh - a vm plan run by a real scheduler: a single-node Slurm
# cluster (munged, slurmctld, slurmd from Debian's slurm-wlm and munge, with
# a key, a configuration and ports of the test's own) started here, the
# plan's cells submitted by contrib/vm-slurm.sh as one array job and merged
# by a job that depends on it; its verdict and each cell's figures must be
# those of the same plan run here with -j 2. Everything started is stopped
# and removed, whatever the outcome.

. "$(atf_get_srcdir)/../../tests/lib.sh"

VMOPTS="--mem 512 --cpus 1 --timeout 900"

# Three TCP ports nothing holds now, for slurmctld and slurmd.
free_ports()
{
	python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))'
}

start_cluster()
{
	w=$PWD/slurm
	mkdir -p "$w/state" "$w/spool" "$w/munge"
	chmod 700 "$w/munge"
	head -c 1024 /dev/urandom >"$w/munge/key"
	chmod 400 "$w/munge/key"
	munged -f --key-file="$w/munge/key" --socket="$w/munge/sock" \
	    --pid-file="$w/munge/pid" --log-file="$w/munge/log" \
	    --seed-file="$w/munge/seed" || atf_fail "munged did not start"
	set -- $(free_ports)
	node=ubcnode
	cat >"$w/slurm.conf" <<EOF
ClusterName=ubctest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
AuthInfo=socket=$w/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$w/state
SlurmdSpoolDir=$w/spool
SlurmctldPidFile=$w/slurmctld.pid
SlurmdPidFile=$w/slurmd.pid
SlurmctldLogFile=$w/slurmctld.log
SlurmdLogFile=$w/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=ubc Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$w/slurm.conf
	slurmctld -c -f "$SLURM_CONF" || atf_fail "slurmctld did not start"
	slurmd -N "$node" -f "$SLURM_CONF" || atf_fail "slurmd did not start"
	i=0
	until sinfo -h -o %T 2>/dev/null | grep -q idle; do
		i=$((i + 1))
		[ $i -gt 60 ] && atf_fail "the node did not come up: $(tail -3 "$w/slurmctld.log")"
		sleep 1
	done
}

# Stops what start_cluster started, by its pid files (no word from a
# controller that may not be there), and removes its state.
stop_cluster()
{
	w=$PWD/slurm
	[ -d "$w" ] || return 0
	pids=
	for f in "$w/slurmd.pid" "$w/slurmctld.pid" "$w/munge/pid"; do
		[ -f "$f" ] && pids="$pids $(cat "$f")"
	done
	[ -n "$pids" ] && kill $pids 2>/dev/null
	sleep 1
	[ -n "$pids" ] && kill -9 $pids 2>/dev/null
	# The cells' guests, should a task have been killed with its job.
	pkill -9 -f "qemu-system.*$PWD/tmp" 2>/dev/null
	rm -rf "$w"
}

atf_test_case array cleanup
array_head()
{
	atf_set descr "a plan as a Slurm array job gives the verdict and the figures of the same plan run with -j 2"
	atf_set require.user root
	atf_set timeout 1800
}
array_body()
{
	plain_pass_only "its time is guests and Slurm; --cell and --merge under ASan: plan_test:merge"
	for p in munged slurmctld slurmd sbatch jq qemu-system-x86_64; do
		require_prog $p
	done
	kernel k1 6.1; kernel k2 6.12
	mkdir -p tmp
	export TMPDIR=$PWD/tmp
	start_cluster
	set -- -k "$k1" -k "$k2" $VMOPTS --fail-if read.bytes:+1% \
	    -- dd -n 4 if=/dev/vda of=/dev/null bs=64k count=64
	"$top/contrib/vm-slurm.sh" -d run -u "$ubc" -s "--cpus-per-task=1" \
	    -- "$@" >slurm.out 2>slurm.err
	s=$?
	"$ubc" vm -j 2 -o local "$@" >local.out 2>local.err
	l=$?
	cat slurm.out slurm.err
	[ "$s" = "$l" ] || atf_fail "exit $s under Slurm, $l here"
	[ "$s" = 0 ] || atf_fail "the gates did not pass (exit $s): $(cat local.err)"
	n=$(wc -l <run/plan.jsonl)
	[ "$n" = 2 ] || atf_fail "$n cells in the plan, not 2"
	python3 - run/results local <<'EOF' || atf_fail "the cells differ (above)"
import json, os, sys
a, b = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(a))
bad = []
if names != sorted(os.listdir(b)):
    bad.append("results %s under Slurm, %s here" % (names, sorted(os.listdir(b))))
for n in names:
    x, y = json.load(open(os.path.join(a, n))), json.load(open(os.path.join(b, n)))
    if x["vm"]["plan"]["cell"] != y["vm"]["plan"]["cell"]:
        bad.append("%s: cell %s, here %s" % (n, x["vm"]["plan"]["cell"], y["vm"]["plan"]["cell"]))
    for r in range(4):
        dx = x["runs"][r]["phases"][0]["devices"][0]["read"]
        dy = y["runs"][r]["phases"][0]["devices"][0]["read"]
        for k in ("ops", "bytes"):
            if dx[k] != dy[k]:
                bad.append("%s run %d read %s: %s under Slurm, %s here" % (n, r + 1, k, dx[k], dy[k]))
print("%d cells compared" % len(names))
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
EOF
	grep -q "^  PASS read.bytes:+1%" run/merge.out || atf_fail "no verdict from the merge job"
	[ -z "$(ls -A tmp)" ] || atf_fail "left behind: $(ls -A tmp)"
}
array_cleanup()
{
	stop_cluster
}

atf_init_test_cases()
{
	atf_add_test_case array
}
