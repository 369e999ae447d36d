#! /usr/bin/env atf-sh
# manyruns_test.sh - what a job holds grows with what its runs measured,
# not with room for the most devices and phases a run could have: -n 1000
# fits an address space of 256 MiB (ulimit -v), where room for 16 devices
# by 4 phases in every run (about 1.1 MB a run) did not. The archive is cut
# short, so that the first run fails and the job ends there: what is
# tested is that the job got as far as running, with the reason the first
# run failed, not "cannot allocate". And the whole job's peak RSS does
# not grow with its runs: each run goes into the result's file as it ends.

. "$(atf_get_srcdir)/../../tests/lib.sh"

atf_test_case address_space
address_space_head()
{
	atf_set descr "-n 1000 starts within a 256 MiB address space"
}
address_space_body()
{
	# ASan maps terabytes of shadow memory: no ulimit -v fits it.
	grep -qa __asan_init "$ubc" &&
	    atf_skip "a build with AddressSanitizer cannot run under ulimit -v"
	head -c 200000 "$small" >trunc.tar.gz
	mkdir d
	(ulimit -v 262144 && exec "$ubc" -q -n 1000 -p none -o r.json \
	    trunc.tar.gz d) 2>err
	rc=$?
	grep -q "cannot allocate" err && atf_fail "$(cat err)"
	[ $rc -eq 1 ] || atf_fail "exit $rc, not 1: $(cat err)"
	grep -q "run 1 failed: .*trunc.tar.gz.*truncated" err ||
	    atf_fail "not the archive's failure: $(cat err)"
	[ ! -e r.json ] || atf_fail "a failed first run wrote a result"
}

# peak N OUT: the job's peak RSS in KiB with -n N on ./m, by GNU time.
peak()
{
	/usr/bin/time -v -o "time$1" "$ubc" -q -n "$1" -o "$PWD/$2" "$small" m \
	    2>err || atf_fail "-n $1: $(cat err)"
	awk -F: '/Maximum resident set size/ { print $2 + 0 }' "time$1"
}

atf_test_case peak_rss cleanup
peak_rss_head()
{
	atf_set descr "the peak RSS (GNU time) of -n 200 is within 2 MiB of -n 2, its result whole"
	atf_set require.user root
}
peak_rss_body()
{
	require_prog /usr/bin/time
	# ASan keeps what is freed in a quarantine: its RSS grows by design.
	grep -qa __asan_init "$ubc" &&
	    atf_skip "a build with AddressSanitizer holds freed memory back"
	mkloopfs m 256 ext4
	few=$(peak 2 r2.json)
	many=$(peak 200 r200.json)
	echo "peak RSS: -n 2 $few KiB, -n 200 $many KiB"
	[ $((many - few)) -le 2048 ] ||
	    atf_fail "-n 200 peaks at $many KiB, $((many - few)) KiB above -n 2 ($few KiB)"
	# Every run is in the result, and the summary is of them all.
	[ "$(json r200.json "len(d['runs'])")" = 200 ] ||
	    atf_fail "the result does not hold 200 runs"
	/usr/bin/python3 "$top/tests/summary_check.py" \
	    r200.json || atf_fail "the summary is not that of the runs"
}
peak_rss_cleanup()
{
	cleanup_loops
}

atf_init_test_cases()
{
	atf_add_test_case address_space
	atf_add_test_case peak_rss
}
