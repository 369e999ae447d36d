#! /usr/bin/env atf-sh
# manyruns_test.sh - what a job holds grows with what its runs measured,
# not with room for the most devices and phases a run could have: -n 1000
# fits an address space of 256 MiB (ulimit -v), where room for 16 devices
# by 4 phases in every run (about 1.1 MB a run) did not. The archive is cut
# short, so that the first run fails and the job ends there: what is
# tested is that the job got as far as running, with the reason the first
# run failed, not "cannot allocate".

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

atf_init_test_cases()
{
	atf_add_test_case address_space
}
