#! /usr/bin/env atf-sh
# command_test.sh - the command workload, `ubcreplay [options] DIR --
# command ...`: what its devices received against diskstats and the bytes
# the command wrote; a command that fails, cannot start or is stopped; and
# the usage errors. Nothing may be left in the target, and a stopped
# command's processes must die with the phase.

. "$(atf_get_srcdir)/../../tests/lib.sh"

compare=$top/tests/exact_compare.py

# empty DIR: fails unless DIR holds nothing (no run directory left).
empty()
{
	[ -z "$(ls -A "$1")" ] || atf_fail "left in $1: $(ls -A "$1")"
}

atf_test_case diskstats cleanup
diskstats_head()
{
	atf_set descr "a command's device writes, exact probe, reconcile with diskstats and hold the bytes it wrote"
	atf_set timeout 300
}
diskstats_body()
{
	require_root "makes a loop filesystem"
	require_tracefs
	mkloopfs c 256 ext4
	dev=$loopdev
	prog='i=0; while [ $i -lt 200 ]; do head -c 40000 /dev/urandom >f$i; i=$((i + 1)); done'
	before=$(devstat "$dev")
	# Files of 40,000 bytes: no bio is split (a split would make the
	# kernel's merge count differ from bios - requests: docs/json.md).
	"$ubc" -p exact -n 2 -o r.json c -- sh -c "$prog" >out 2>err ||
	    atf_fail "ubcreplay failed: $(cat err)"
	after=$(devstat "$dev")
	/usr/bin/python3 "$compare" diskstats r.json "$before" "$after" ||
	    atf_fail "the result's totals do not reconcile with diskstats"
	# Each run wrote 200 files of 40,000 bytes: the device got them.
	json r.json 'min(sum(dv["write"]["bytes"] for p in r["phases"]
	    if p["phase"] != "remove" for dv in p["devices"]) for r in d["runs"])' >wrote
	[ "$(cat wrote)" -ge 8000000 ] ||
	    atf_fail "a run's devices received $(cat wrote) bytes, less than the 8000000 written"
	atf_check_equal "command" "$(json r.json 'd["kind"]')"
	atf_check_equal "['sh', '-c', '$prog']" "$(json r.json 'd["workload"]["command"]')"
	# Its write() calls are not seen: no app layer, not one of zeros.
	atf_check_equal "command False" \
	    "$(json r.json 'd["runs"][0]["phases"][0]["phase"], "app_write" in d["runs"][0]["phases"][0]')"
	grep -q 'app write()' out && atf_fail "the report shows a write() column it did not see"
	[ "$(ls -A c)" = lost+found ] || atf_fail "left in the target: $(ls -A c)"
}
diskstats_cleanup()
{
	cleanup_loops
}

atf_test_case fails
fails_head()
{
	atf_set descr "a command that exits non-zero fails its run: exit 1, the status named, no result, no run directory"
}
fails_body()
{
	mkdir d
	atf_check -s exit:1 -o ignore -e save:err "$ubc" -p none -o r.json d -- sh -c 'echo partial >f; exit 3'
	grep -q "run 1 failed: command 'sh' exited with status 3" err ||
	    atf_fail "the error does not name the command and its status: $(cat err)"
	[ ! -e r.json ] || atf_fail "a result was written for a job whose only run failed"
	empty d
}

atf_test_case not_found
not_found_head()
{
	atf_set descr "a command that cannot start is named with why: exit 1, nothing left"
}
not_found_body()
{
	mkdir d
	atf_check -s exit:1 -o ignore -e save:err "$ubc" -p none -o r.json d -- ./no-such-program x
	grep -q "command './no-such-program': cannot run it: No such file or directory" err ||
	    atf_fail "the error does not say why: $(cat err)"
	[ ! -e r.json ] || atf_fail "a result was written"
	empty d
}

atf_test_case output
output_head()
{
	atf_set descr "the command runs in the run directory with /dev/null as input, its output on stderr: -o - stays JSON"
}
output_body()
{
	mkdir d
	"$ubc" -q -p none -o - d -- sh -c 'pwd; read x && echo "read $x"; echo said' \
	    </dev/zero >r.json 2>err || atf_fail "ubcreplay failed: $(cat err)"
	json r.json 'd["kind"]' >/dev/null || atf_fail "stdout is not the result: $(head -c 300 r.json)"
	grep -q '^said$' err || atf_fail "the command's output is not on stderr: $(cat err)"
	grep -q '^read' err && atf_fail "the command read something from its input"
	grep -q "^$(cd d && pwd -P)/ubcreplay-run\." err ||
	    atf_fail "the command did not run in a run directory: $(cat err)"
	empty d
}

atf_test_case stopped
stopped_head()
{
	atf_set descr "SIGTERM while a command runs: ubcreplay dies of it, and the command and its children with it"
	atf_set timeout 120
}
stopped_body()
{
	mkdir d
	# The command starts a child and waits: both must go.
	"$ubc" -q -p none d -- sh -c "sleep 300 & echo \$! >$PWD/pids; echo \$\$ >>$PWD/pids; wait" \
	    2>err &
	pid=$!
	i=0
	while [ "$(wc -l <pids 2>/dev/null || echo 0)" -lt 2 ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || atf_fail "the command did not start: $(cat err)"
		sleep 0.1
	done
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -eq 143 ] || atf_fail "ubcreplay exited $rc, not of SIGTERM (143): $(cat err)"
	i=0
	while kill -0 $(cat pids) 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || { kill -9 $(cat pids) 2>/dev/null; atf_fail "the command's processes outlived the stop"; }
		sleep 0.1
	done
	empty d
}

atf_test_case left_running cleanup
left_running_head()
{
	atf_set descr "a command that exits leaving processes running fails its run, naming them; they are killed, in its process group or out of it, their children too; one that waits for its children passes"
	atf_set timeout 120
}
left_running_body()
{
	mkdir d
	# A child, a child in a session of its own, and a subshell with a
	# child of its own: 4 processes, the last one a grandchild.
	atf_check -s exit:1 -o ignore -e save:err "$ubc" -p none -o r.json d -- \
	    sh -c 'sleep 3001 & setsid sleep 3002 & (sleep 3003; :) & sleep 0.5; exit 0'
	grep -q "run 1 failed: command 'sh' exited and left 4 processes running, now killed: .*wait for what it starts" err ||
	    atf_fail "the error does not name what was left: $(cat err)"
	left=$(pgrep -f 'sleep 300[123]' | tr '\n' ' ')
	[ -z "$left" ] || atf_fail "left running after ubcreplay ended: $left"
	[ ! -e r.json ] || atf_fail "a result was written for a job whose only run failed"
	empty d
	"$ubc" -q -p none d -- sh -c 'sleep 0.2 & sleep 0.3 & wait' 2>err ||
	    atf_fail "a command that waits for its children failed: $(cat err)"
	empty d
}
left_running_cleanup()
{
	pkill -9 -f 'sleep 300[123]' 2>/dev/null || true
}

atf_test_case usage
usage_head()
{
	atf_set descr "a command without a directory, a directory without a command, and options for archives: exit 2"
}
usage_body()
{
	mkdir d
	for args in "d --" "tar.gz d -- true" "-- true" "--timing d -- true" "--fsync file d -- true"; do
		atf_check -s exit:2 -o ignore -e save:err "$ubc" $args
		grep -q -e "expected a command after" -e "expected a directory before" \
		    -e "is for a workload trace or an archive" err ||
		    atf_fail "'$args': no clear error: $(cat err)"
	done
	empty d
}

atf_init_test_cases()
{
	atf_add_test_case diskstats
	atf_add_test_case fails
	atf_add_test_case not_found
	atf_add_test_case output
	atf_add_test_case stopped
	atf_add_test_case left_running
	atf_add_test_case usage
}
