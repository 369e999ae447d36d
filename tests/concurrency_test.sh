#! /usr/bin/env atf-sh
# concurrency_test.sh - two ubcreplay jobs at once on the same target: each
# works in its own run directories (and, with the exact probe, its own
# tracing instance), each result is complete and right about its own work,
# and one job interrupted leaves the other's work alone.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# target: a loop filesystem as root (a device for the probe), else here,
# with m/t to extract into; and bsdtar's tree of the archive in ref, its
# listing in ref.lst, to compare the runs' trees with.
target()
{
	require_prog bsdtar
	if [ "$(id -u)" -eq 0 ]; then
		mkloopfs m 256 ext4
	else
		mkdir m
	fi
	mkdir m/t
	mkdir ref && bsdtar -xf "$small" -C ref || atf_fail "bsdtar failed"
	tree ref >ref.lst
}

# tree DIR: the extracted tree's names, types, modes and times, for
# comparison with bsdtar's (contents: diff -r; directory sizes differ
# between filesystems).
tree()
{
	(cd "$1" && find . -mindepth 1 -printf '%p %y %m %T@\n' | sort)
}

atf_test_case two_at_once cleanup
two_at_once_head()
{
	atf_set descr "two jobs at once on one target: own run directories, both results complete"
	atf_set timeout 300
}
two_at_once_body()
{
	target
	"$ubc" -q -n 3 --keep -o a.json "$small" m/t >a.out 2>a.err &
	a=$!
	"$ubc" -q -n 3 --keep -o b.json "$small" m/t >b.out 2>b.err &
	b=$!
	# With the exact probe, each its own tracing instance, both at once.
	both=0
	i=0
	while [ $i -lt 200 ] && kill -0 $a 2>/dev/null && kill -0 $b 2>/dev/null; do
		if [ -d "/sys/kernel/tracing/instances/ubcreplay.$a" ] &&
		    [ -d "/sys/kernel/tracing/instances/ubcreplay.$b" ]; then
			both=1
			break
		fi
		sleep 0.01
		i=$((i + 1))
	done
	wait $a || atf_fail "job a failed: $(cat a.err)"
	wait $b || atf_fail "job b failed: $(cat b.err)"
	probe=$(json a.json "d['probe']['name']")
	echo "probe: $probe; both tracing instances seen at once: $both"
	[ "$probe" != tracefs ] || [ $both -eq 1 ] ||
	    atf_fail "the two exact probes did not have their own instances at once"
	for r in a b; do
		got=$(json $r.json "' '.join([d['status']] + [x['status'] for x in d['runs']])")
		[ "$got" = "ok ok ok ok" ] || atf_fail "$r.json: '$got'"
		n=$(json $r.json "d['workload']['entries']")
		[ "$n" -eq "$(wc -l <ref.lst)" ] || atf_fail "$r.json: $n entries, bsdtar made $(wc -l <ref.lst)"
	done
	# Six runs, six run directories, each the archive's tree exactly.
	dirs=$(ls -d m/t/ubcreplay-run.* | wc -l)
	[ "$dirs" -eq 6 ] || atf_fail "$dirs run directories, not 6"
	for d in m/t/ubcreplay-run.*; do
		tree "$d" >run.lst
		diff ref.lst run.lst >/dev/null && diff -r ref "$d" >/dev/null ||
		    atf_fail "$d differs from bsdtar's tree"
	done
	rm -rf m/t/ubcreplay-run.*
	# Without --keep: both clean up after themselves, and nothing else.
	"$ubc" -q -n 3 -o a.json "$small" m/t >a.out 2>a.err &
	a=$!
	"$ubc" -q -n 3 -o b.json "$small" m/t >b.out 2>b.err &
	b=$!
	wait $a || atf_fail "job a failed: $(cat a.err)"
	wait $b || atf_fail "job b failed: $(cat b.err)"
	[ -z "$(ls -A m/t)" ] || atf_fail "left behind: $(ls -A m/t)"
	echo "concurrency: 2 jobs twice, 6 + 6 runs, own run directories, 0 leftovers"
}
two_at_once_cleanup()
{
	cleanup_loops
}

atf_test_case one_interrupted cleanup
one_interrupted_head()
{
	atf_set descr "of two jobs at once, one interrupted: the other's runs and trees untouched"
	atf_set timeout 300
}
one_interrupted_body()
{
	target
	"$ubc" -q -n 4 --keep -o b.json "$small" m/t >b.out 2>b.err &
	b=$!
	"$ubc" -q -n 20 -o a.json "$small" m/t >a.out 2>a.err &
	a=$!
	# Interrupt a once b has kept its first tree.
	i=0
	while [ "$(ls -d m/t/ubcreplay-run.* 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	kill -INT $a
	wait $a
	rc=$?
	[ $rc -eq 130 ] || atf_fail "job a: exit $rc, not 130 (SIGINT): $(cat a.err)"
	[ ! -e a.json ] || atf_fail "the interrupted job wrote a result"
	wait $b || atf_fail "job b failed: $(cat b.err)"
	got=$(json b.json "' '.join([d['status']] + [x['status'] for x in d['runs']])")
	[ "$got" = "ok ok ok ok ok" ] || atf_fail "b.json: '$got'"
	dirs=$(ls -d m/t/ubcreplay-run.* | wc -l)
	[ "$dirs" -eq 4 ] || atf_fail "$dirs run directories, not b's 4"
	for d in m/t/ubcreplay-run.*; do
		tree "$d" >run.lst
		diff ref.lst run.lst >/dev/null && diff -r ref "$d" >/dev/null ||
		    atf_fail "$d differs from bsdtar's tree"
	done
}
one_interrupted_cleanup()
{
	cleanup_loops
}

atf_init_test_cases()
{
	atf_add_test_case two_at_once
	atf_add_test_case one_interrupted
}
