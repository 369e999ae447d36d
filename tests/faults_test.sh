#! /usr/bin/env atf-sh
# faults_test.sh - faults injected into a running job on small loop
# filesystems: the filesystem full (first run, later run), remounted
# read-only, lazily unmounted, the run directory removed by someone else,
# and permission taken away from an unprivileged run.
#
# Each must end with exit 1 and a message that says what happened; when a
# run after the first fails, the result holds the completed run and the
# failed one, marked; no run directory is left (a read-only filesystem
# cannot give it back: then the message names it); no child of ubcreplay
# and no tracing instance of its own outlives it.
#
# Each case prints "faults CASE: 1 fault injected, N leftovers".

. "$(atf_get_srcdir)/../../tests/lib.sh"

at_run=$top/tests/at_run.py

# run CMD...: runs CMD (ubcreplay, or what execs it) in a process group of
# its own and notes its pid, which names the group and its tracing instance
# (instances/ubcreplay.PID).
run()
{
	setsid "$@" &
	echo $! >>pids
	wait $!
}

prepare()
{
	require_root "makes loop filesystems"
	require_prog /usr/bin/python3
	: >pids
}

# leftovers MNT: what is in MNT but lost+found and the filler, processes
# left in the runs' groups, tracing instances of the runs.
leftovers()
{
	ls -A "$1" | grep -v -e '^lost+found$' -e '^filler$' -e '^t$' -e '^r\.json'
	[ -d "$1/t" ] && ls -A "$1/t"
	while read -r pid; do
		pgrep -g "$pid" | sed 's/^/process /'
		[ -e "/sys/kernel/tracing/instances/ubcreplay.$pid" ] &&
		    echo "tracing instance ubcreplay.$pid"
	done <pids
}

# no_leftovers CASE MNT: the case's line, and a failure for anything left.
no_leftovers()
{
	left=$(leftovers "$2")
	echo "faults $1: 1 fault injected, $(printf '%s' "$left" | grep -c .) leftovers"
	[ -z "$left" ] || atf_fail "left behind: $left"
}

# check CASE MNT WHY: exit 1 (in ./rc), WHY in the message and in the
# failed second run of the result, the first run ok, nothing left.
check()
{
	case=$1 mnt=$2 why=$3
	echo "exit $(cat rc); stderr:"; cat err
	[ "$(cat rc)" -eq 1 ] || atf_fail "exit $(cat rc), not 1"
	grep -q -- "$why" err || atf_fail "the message does not say '$why'"
	[ -f r.json ] || atf_fail "no result file: the completed run is lost"
	echo "probe: $(json r.json "d['probe']['name']")"
	got=$(json r.json "' '.join([d['status']] + [r['status'] for r in d['runs']])")
	[ "$got" = "failed ok failed" ] || atf_fail "result status and runs: '$got', not 'failed ok failed'"
	json r.json "d['runs'][1]['error']" | grep -q -- "$why" ||
	    atf_fail "the failed run's error does not say '$why'"
	no_leftovers "$case" "$mnt"
}

# run_with_fault MNT N CMD: ubcreplay -n 3 on MNT/t, CMD (sh, $RUN set)
# injected while the N-th run extracts. Exit status in ./rc.
run_with_fault()
{
	mnt=$1 nth=$2 cmd=$3
	shift 3
	mkdir -p "$mnt/t"
	/usr/bin/python3 "$at_run" "$mnt/t" "$nth" 20 "$cmd" &
	watcher=$!
	# An fsync per file makes the extraction last long enough to be hit.
	run "$ubc" -q -n 3 --fsync file -o r.json "$@" "$small" "$mnt/t" >out 2>err
	echo $? >rc
	wait $watcher
	wrc=$?
	[ $wrc -eq 0 ] || atf_fail "the fault was not injected (watcher exit $wrc): $(cat err)"
}

atf_test_case enospc_first cleanup
enospc_first_head()
{
	atf_set descr "a filesystem too small for the first run: ENOSPC named, no result, nothing left"
}
enospc_first_body()
{
	prepare
	mkloopfs m 8 ext4
	mkdir m/t
	run "$ubc" -q -n 3 -o r.json "$small" m/t >out 2>err
	rc=$?
	cat err
	[ $rc -eq 1 ] || atf_fail "exit $rc, not 1"
	grep -q "No space left on device" err || atf_fail "ENOSPC not named"
	grep -q "cannot write '" err || atf_fail "the entry is not named"
	[ ! -e r.json ] || atf_fail "a result was written for a first run that failed"
	no_leftovers enospc_first m
}
enospc_first_cleanup()
{
	cleanup_loops
}

atf_test_case enospc_later cleanup
enospc_later_head()
{
	atf_set descr "the filesystem fills up during run 2: run 1 kept in the result, run 2 failed"
}
enospc_later_body()
{
	prepare
	mkloopfs m 64 ext4
	# Every free block, the reserved ones too (we are root), at once.
	run_with_fault m 2 'f="$RUN/../../filler"; fallocate -l $(($(stat -f -c "%f * %S" "$RUN") - 262144)) "$f"; dd if=/dev/zero of="$f" bs=4k oflag=append conv=notrunc 2>/dev/null; true'
	check enospc_later m "No space left on device"
}
enospc_later_cleanup()
{
	cleanup_loops
}

atf_test_case enospc_keep cleanup
enospc_keep_head()
{
	atf_set descr "--keep on a filesystem that holds one tree: run 2 fails, both trees kept"
}
enospc_keep_body()
{
	prepare
	mkloopfs m 16 ext4
	mkdir m/t
	run "$ubc" -q -n 3 --keep -o r.json "$small" m/t >out 2>err
	echo $? >rc
	cat err
	[ "$(cat rc)" -eq 1 ] || atf_fail "exit $(cat rc), not 1"
	got=$(json r.json "' '.join([d['status']] + [r['status'] for r in d['runs']])")
	[ "$got" = "failed ok failed" ] || atf_fail "result: '$got'"
	[ "$(ls -d m/t/ubcreplay-run.* | wc -l)" -eq 2 ] || atf_fail "--keep did not keep both trees"
	rm -rf m/t/ubcreplay-run.*
	no_leftovers enospc_keep m
}
enospc_keep_cleanup()
{
	cleanup_loops
}

atf_test_case readonly cleanup
readonly_head()
{
	atf_set descr "remounted read-only during run 2: EROFS named, the stranded run directory named"
}
readonly_body()
{
	prepare
	mkloopfs m 64 ext4
	# A remount to read-only waits for no file to be open for writing.
	run_with_fault m 2 'until mount -o remount,ro "$RUN/../.."; do sleep 0.001; done 2>/dev/null'
	mount -o remount,rw m
	# The one thing that cannot be removed: said, by name.
	run=$(ls -d m/t/ubcreplay-run.* 2>/dev/null)
	if [ -n "$run" ]; then
		grep -qF "'$run' left behind" err ||
		    atf_fail "run directory $run left without a word"
		rm -rf "$run"
	fi
	check readonly m "Read-only file system"
}
readonly_cleanup()
{
	cleanup_loops
}

atf_test_case unmounted cleanup
unmounted_head()
{
	atf_set descr "lazily unmounted during run 2: said, and the run directory removed all the same"
}
unmounted_body()
{
	prepare
	mkloopfs m 64 ext4
	dev=$loopdev
	run_with_fault m 2 'umount -l "$RUN/../.."'
	# Mount it again to see what the detached filesystem kept.
	mount "/dev/$dev" m || atf_fail "cannot mount $dev again"
	check unmounted m "unmounted"
}
unmounted_cleanup()
{
	cleanup_loops
}

atf_test_case rundir_removed cleanup
rundir_removed_head()
{
	atf_set descr "the run directory removed by someone else during run 2: said"
}
rundir_removed_body()
{
	prepare
	mkloopfs m 64 ext4
	# Out of its path at once (rm -rf would race the extraction that adds
	# to the tree, and the extraction's own error could come first), then
	# removed.
	# (The extraction goes on in the moved tree, its working directory:
	# rm -rf races it, so the test removes what is left afterwards.)
	run_with_fault m 2 'mv "$RUN" "${RUN%/*}/../gone" && { rm -rf "${RUN%/*}/../gone"; true; } 2>/dev/null'
	rm -rf m/gone
	check rundir_removed m "removed during the run\|no longer at its path"
}
rundir_removed_cleanup()
{
	cleanup_loops
}

atf_test_case eacces cleanup
eacces_head()
{
	atf_set descr "an unprivileged run loses write permission on its run directory: EACCES named"
}
eacces_body()
{
	prepare
	require_prog setpriv
	mkloopfs m 64 ext4
	mkdir -p m/t
	chown 65534:65534 m/t
	chmod o+x . m
	cp "$small" small.tar.gz && chmod 644 small.tar.gz
	mkdir o && chown 65534:65534 o
	/usr/bin/python3 "$at_run" m/t 2 20 'chmod -R u-w "$RUN"' &
	watcher=$!
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$ubc" -q -n 3 --fsync file -o o/r.json small.tar.gz m/t >out 2>err
	echo $? >rc
	wait $watcher || atf_fail "the fault was not injected: $(cat err)"
	mv o/r.json r.json
	check eacces m "Permission denied"
}
eacces_cleanup()
{
	cleanup_loops
}

atf_init_test_cases()
{
	atf_add_test_case enospc_first
	atf_add_test_case enospc_later
	atf_add_test_case enospc_keep
	atf_add_test_case readonly
	atf_add_test_case unmounted
	atf_add_test_case rundir_removed
	atf_add_test_case eacces
}
