#! /usr/bin/env atf-sh
# valgrind_test.sh - memcheck on the main paths of the plain build: the tar
# job (its forked children too: memcheck follows fork), a refused archive,
# report (text and SVG), the exact probe with --trace-out and report of
# the trace, compare, dd and sweep, nfs -r on every capture of the
# fixtures, gzip-compressed files read and written. Any invalid access, use
# of an uninitialised value, or a definite or indirect leak fails the test.
# (The sanitizer build does not run here: valgrind and ASan do not mix.)

. "$(atf_get_srcdir)/../../tests/lib.sh"

vg()
{
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
	    --error-exitcode=99 --log-file=vg.%p.log "$@"
}

prepare()
{
	require_prog valgrind
	asan_build && atf_skip "ubcreplay is built with ASan"
	rm -f vg.*.log
	mkdir -p t
}

# clean STATUS EXPECTED: the status is the expected one, the logs empty.
clean()
{
	for f in vg.*.log; do
		[ -s "$f" ] && { cat "$f"; atf_fail "memcheck reported errors (exit $1)"; }
	done
	[ "$1" -eq "$2" ] || atf_fail "exit $1, not $2"
}

atf_test_case tar
tar_head()
{
	atf_set descr "memcheck: the tar job, two runs, a result, and a refused archive"
	atf_set timeout 300
}
tar_body()
{
	prepare
	vg "$ubc" -q -n 2 -o r.json "$small" t
	clean $? 0
	vg "$ubc" report r.json >out
	clean $? 0
	vg "$ubc" report --svg r.svg r.json >out
	clean $? 0
	/usr/bin/python3 "$top/tests/mkhostile.py" arch "$PWD/outside" hardlink
	mkdir -p outside
	vg "$ubc" -q -o bad.json arch/hardlink-abs.pax t 2>err
	clean $? 1
}

atf_test_case exact cleanup
exact_head()
{
	atf_set descr "memcheck: the tar job with the exact probe and --trace-out, and report of the trace"
	atf_set timeout 300
}
exact_body()
{
	prepare
	require_root "makes a loop filesystem; tracefs"
	require_tracefs
	mkloopfs m 128 ext4
	vg "$ubc" -q -n 2 -p exact --trace-out "$PWD/t.trace" -o r.json "$small" m
	clean $? 0
	vg "$ubc" report t.trace >out
	clean $? 0
}
exact_cleanup()
{
	cleanup_loops
}

atf_test_case compare
compare_head()
{
	atf_set descr "memcheck: compare of the fixtures' results, text and SVG"
	atf_set timeout 300
}
compare_body()
{
	prepare
	f=$top/fixtures/compare_test
	vg "$ubc" compare -a --svg c.svg "$f/default.json" "$f/sync.json" "$f/slower.json" >out
	clean $? 0
	# A result cut short: refused (compare's trouble status is 2).
	vg "$ubc" compare "$f/default.json" "$f/truncated.json" >out 2>err
	clean $? 2
}

atf_test_case dd
dd_head()
{
	atf_set descr "memcheck: dd and sweep, and their reports"
	atf_set timeout 300
}
dd_body()
{
	prepare
	vg "$ubc" dd -q -n 2 -o dd.json if="$small" of=t/out bs=64k
	clean $? 0
	vg "$ubc" report dd.json >out
	clean $? 0
	vg "$ubc" sweep -q --bs 4k,64k --size 1M -o sw.json if="$small" of=t/sw
	clean $? 0
	vg "$ubc" report sw.json >out
	clean $? 0
}

atf_test_case nfs
nfs_head()
{
	atf_set descr "memcheck: nfs -r on every capture of the fixtures, malformed ones too, and the report"
	atf_set timeout 600
}
nfs_body()
{
	prepare
	n=0
	for f in "$top"/fixtures/nfs_oracle_test/*.pcap "$top"/fixtures/nfs_malformed_test/*.pcap; do
		[ -f "$f" ] || continue
		vg "$ubc" nfs -q -r "$f" -o r.json >out 2>err
		clean $? 0
		vg "$ubc" report r.json >out
		clean $? 0
		n=$((n + 1))
	done
	[ $n -gt 0 ] || atf_skip "no capture in the fixtures"
	echo "memcheck: nfs -r on $n captures, 0 errors"
}

atf_test_case gzip
gzip_head()
{
	atf_set descr "memcheck: gzipped capture, result and trace read and written, cut ones refused"
	atf_set timeout 300
}
gzip_body()
{
	prepare
	gzip -c "$top/fixtures/nfs_oracle_test/v4_pipeline48.full.pcap" >c.pcap.gz
	vg "$ubc" nfs -q -r c.pcap.gz -o r.json.gz
	clean $? 0
	vg "$ubc" report r.json.gz >out
	clean $? 0
	vg "$ubc" report "$top/fixtures/tracefile_fuzz/seed.trace.gz" >out
	clean $? 0
	head -c 100000 c.pcap.gz >cut.pcap.gz
	vg "$ubc" nfs -q -r cut.pcap.gz -o cut.json 2>err
	clean $? 1
	head -c 3000 "$top/fixtures/tracefile_fuzz/seed.trace.gz" >cut.trace.gz
	vg "$ubc" report cut.trace.gz >out 2>err
	clean $? 1
}

atf_init_test_cases()
{
	atf_add_test_case gzip
	atf_add_test_case exact
	atf_add_test_case nfs
	atf_add_test_case tar
	atf_add_test_case compare
	atf_add_test_case dd
}
