#! /usr/bin/env atf-sh
# fsci_test.sh - contrib/fs-ci.sh as a CI job would run it: the first run
# stores the baseline, the same configuration passes, -o sync fails the
# write-size gate, and a filesystem that cannot be made is an error (2).
# Every loop device it attached is gone afterwards.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# The script as a CI job runs it, its scratch directory in the test's.
fsci()
{
	echo "env TMPDIR=$PWD UBCREPLAY=$ubc sh $top/contrib/fs-ci.sh -s 256"
}

# The loop devices backed by images under this test's directory.
our_loops()
{
	losetup -a | grep -c "$PWD/" || true
}

atf_test_case gate
gate_head()
{
	atf_set descr "fs-ci.sh: baseline stored, same config passes, -o sync fails write.mean_bytes, nothing left attached"
	atf_set timeout 600
}
gate_body()
{
	require_root "makes loop filesystems"
	require_prog mkfs.ext4
	atf_check -s exit:0 -o match:"no baseline yet" -e ignore \
	    $(fsci) -t ext4 -u -b base.json -o first.json "$small"
	[ -f base.json ] || atf_fail "no baseline written"
	# The same configuration: never a failure; five runs a side pass a
	# 20% gate unless the runner is noisy enough to leave it undecided.
	$(fsci) -t ext4 -b base.json -F write.mean_bytes:-20% -o same.json \
	    "$small" >same.out 2>same.err
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 3 ] ||
	    atf_fail "the same configuration exits $rc: $(cat same.out same.err | tail -n 5)"
	grep -Eq "^  (PASS|UNDECIDED) write.mean_bytes:-20%" same.out ||
	    atf_fail "no verdict on the same configuration"
	atf_check -s exit:1 -o save:out -e match:"a gate failed" \
	    $(fsci) -t ext4 -O sync -b base.json -F write.mean_bytes:-20% \
	    -o sync.json "$small"
	grep -q "FAIL write.mean_bytes:-20%" out || atf_fail "the gate is not named"
	[ -f sync.json.svg ] || atf_fail "no picture next to the result"
	[ "$(our_loops)" -eq 0 ] || atf_fail "a loop device was left attached"
	ls -d fs-ci.* >/dev/null 2>&1 && atf_fail "a scratch directory was left"
	return 0
}

atf_test_case bad_mkfs
bad_mkfs_head()
{
	atf_set descr "fs-ci.sh: mkfs options that fail give exit 2 and mkfs's message"
}
bad_mkfs_body()
{
	require_root "makes loop filesystems"
	require_prog mkfs.ext4
	atf_check -s exit:2 -o empty -e match:"mkfs.ext4 -O nosuchfeature failed" \
	    $(fsci) -t ext4 -m "-O nosuchfeature" -o r.json "$small"
	[ ! -e r.json ] || atf_fail "a result was written"
	atf_check -s exit:2 -o empty -e match:"usage" sh "$top/contrib/fs-ci.sh"
}

atf_init_test_cases()
{
	atf_add_test_case gate
	atf_add_test_case bad_mkfs
}
