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
	mkloopfs def 256 ext4
	dd=$loopdev
	mkloopfs syn 256 ext4 sync
	ds=$loopdev
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
	atf_set descr "two sets of 5 runs of ext4 default: gates at 10% either way on write.mean_bytes never fail; each passes exactly when its interval is within the limit"
	atf_set timeout 600
}
same_config_body()
{
	require_root "makes loop filesystems"
	mkloopfs def 256 ext4
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 5 -l "first" \
	    -o a.json "$small" def
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 5 -l "second" \
	    -o b.json "$small" def
	# The same job twice: no gate may fail. The rule allows a false FAIL
	# at most 2.5% of the time at the limit, and far less for no change
	# at all; five runs a side may leave a gate undecided (exit 3) when
	# the runs are noisy, never passed on an interval that holds the
	# limit, so a pass must show an interval within it.
	"$ubc" compare --fail-if write.mean_bytes:-10% \
	    --fail-if write.mean_bytes:+10% a.json b.json >out 2>err
	rc=$?
	cat out
	[ $rc -eq 0 ] || [ $rc -eq 3 ] ||
	    atf_fail "the same job twice exits $rc: $(grep -A3 '^Gates' out) $(cat err)"
	grep -q '^  FAIL' out && atf_fail "a gate failed the same job"
	/usr/bin/python3 - out <<'EOF' || atf_fail "a verdict does not follow its interval"
import re, sys
seen = 0
for line in open(sys.argv[1]):
    m = re.match(r"  (PASS|UNDECIDED) write.mean_bytes:([+-])10%: \S+ \S+% \[([-+]\S+), ([-+]\S+)\]", line)
    if not m:
        continue
    seen += 1
    lo, hi = float(m.group(3)), float(m.group(4))
    inside = lo > -10 if m.group(2) == "-" else hi < 10
    if (m.group(1) == "PASS") != inside:
        sys.exit(line)
if seen != 2:
    sys.exit("%d verdicts, not 2" % seen)
EOF
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
