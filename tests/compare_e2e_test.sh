#! /usr/bin/env atf-sh
# compare_e2e_test.sh - `ubcreplay compare` on real results: ext4 default
# against ext4 -o sync on loop devices, 5 runs each. The device's own
# counters, read by the test around each set of runs, say independently
# which set wrote in smaller pieces; compare must agree and its gate fire.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# mean_write DEV BEFORE: the mean write size since BEFORE (a devstat line).
mean_write()
{
	set -- "$1" $2
	w0=$6 s0=$8
	set -- $(devstat "$1")
	echo $(( ($7 - s0) * 512 / ($5 - w0) ))
}

atf_test_case sync_smaller cleanup
sync_smaller_head()
{
	atf_set descr "ext4 -o sync against default, 5 runs each: smaller writes, significant, the gate exits 1 naming it"
	atf_set timeout 600
}
sync_smaller_body()
{
	require_root "makes loop filesystems"
	dd=$(mkloopfs def 256 ext4)
	ds=$(mkloopfs syn 256 ext4 sync)
	before=$(devstat "$dd")
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 5 -l "ext4 default" \
	    -o def.json "$small" def
	md=$(mean_write "$dd" "$before")
	before=$(devstat "$ds")
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 5 -l "ext4 sync" \
	    -o syn.json "$small" syn
	ms=$(mean_write "$ds" "$before")
	echo "diskstats mean write: default $md bytes, sync $ms bytes"
	[ $((ms * 100)) -lt $((md * 80)) ] ||
	    atf_fail "the devices do not show a 20% drop ($md -> $ms): the test's premise fails"

	atf_check -s exit:1 -o save:out -e match:'a gate failed' "$ubc" compare \
	    --fail-if write.mean_bytes:-20% --svg c.svg def.json syn.json
	cat out
	grep -q '^  FAIL write.mean_bytes:-20%: write.mean_bytes -' out ||
	    atf_fail "the gate does not name write.mean_bytes"
	grep -E '^write.mean_bytes ' out | grep -q -- '-[0-9.]*% \*$' ||
	    atf_fail "write.mean_bytes is not a significant drop"
	grep -Eq '^  write.mean_bytes +-[0-9.]+% \[-[0-9.]+, -[0-9.]+\] +p 0\.0[0-4][0-9]* ' out ||
	    atf_fail "write.mean_bytes: p not below 0.05"
	if command -v rsvg-convert >/dev/null 2>&1; then
		rsvg-convert -o c.png c.svg || atf_fail "the SVG does not render"
	fi
}
sync_smaller_cleanup()
{
	cleanup_loops
}

atf_test_case same_config cleanup
same_config_head()
{
	atf_set descr "two sets of 5 runs of ext4 default: gates at 10% either way on write.mean_bytes pass, the interval within them"
	atf_set timeout 600
}
same_config_body()
{
	require_root "makes loop filesystems"
	mkloopfs def 256 ext4 >/dev/null
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 5 -l "first" \
	    -o a.json "$small" def
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 5 -l "second" \
	    -o b.json "$small" def
	# The same job twice: the change's interval must lie within 10%
	# either way, so both gates pass (a significant difference alone is
	# no failure: the second set runs on a filesystem the first has used).
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    --fail-if write.mean_bytes:-10% --fail-if write.mean_bytes:+10% \
	    a.json b.json
	cat out
	grep -q '^  0 failed, 0 undecided, 2 passed$' out ||
	    atf_fail "the gates do not say they passed"
}
same_config_cleanup()
{
	cleanup_loops
}

atf_init_test_cases()
{
	atf_add_test_case sync_smaller
	atf_add_test_case same_config
}
