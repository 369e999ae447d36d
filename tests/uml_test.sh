#! /usr/bin/env atf-sh
# uml_test.sh - the main job in a User Mode Linux guest on simulated time
# (contrib/uml-run.sh) is deterministic: two runs of the same kernel,
# archive, memory, disk model and seed give the same counts and histogram
# buckets (and the whole result, but for its start time), and so does a
# third beside two CPU hogs. How soon the guest reaches the job is printed
# (a benchmark's figure, not judged here).
#
# The UML kernel is $UBC_UML_LINUX, else the first `linux` that
# `contrib/vm-kbuild.sh -a um` built in the kbuild cache; without one the
# cases skip and name the command that builds it.

. "$(atf_get_srcdir)/../../tests/lib.sh"

require_uml()
{
	linux=${UBC_UML_LINUX:-}
	if [ -z "$linux" ]; then
		for l in "${UBC_KBUILD_CACHE:-/var/cache/ubcreplay/kbuild}"/*-um-*/linux; do
			[ -x "$l" ] && { linux=$l; break; }
		done
	fi
	[ -n "$linux" ] && [ -x "$linux" ] ||
	    atf_skip "no UML kernel built (about 10 min on 2 cores): mkdir -p /var/cache/ubcreplay/src/um && tar xf /usr/src/linux-source-6.1.tar.xz -C /var/cache/ubcreplay/src/um && contrib/vm-kbuild.sh -a um /var/cache/ubcreplay/src/um/linux-source-6.1 (or set UBC_UML_LINUX)"
	# ASan's shadow memory does not fit a UML guest's address space.
	nm "$ubc" 2>/dev/null | grep -q __asan_ &&
	    atf_skip "ubcreplay is built with ASan, which cannot run in a UML guest"
	require_prog mkfs.ext4
	require_prog setarch
	[ -f "$small" ] || atf_fail "missing $small (make build/fixtures/small.tar.gz)"
}

# uml_run NAME [OPTIONS]: one cell, its counts in NAME.json.counts.
uml_run()
{
	name=$1
	shift
	TMPDIR=$PWD "$top/contrib/uml-run.sh" -b "$ubc" -o "$PWD/$name.json" "$@" \
	    "$linux" "$small" 2>"$name.err" ||
	    atf_fail "$name: uml-run.sh failed: $(tail -n 6 "$name.err" | tr '\n' ' ')"
	grep -q ' write ops [1-9]' "$name.json.counts" ||
	    atf_fail "$name: no writes counted: $(head -n 4 "$name.json.counts" | tr '\n' ' ')"
}

atf_test_case deterministic
deterministic_head()
{
	atf_set descr "the same UML cell twice, then beside two CPU hogs: identical counts"
	atf_set timeout 300
}
deterministic_body()
{
	require_uml
	uml_run a
	uml_run b
	sh -c 'while :; do :; done' &
	h1=$!
	sh -c 'while :; do :; done' &
	h2=$!
	echo "$h1 $h2" >hogs
	uml_run hog
	kill "$h1" "$h2"
	cmp a.json.counts b.json.counts ||
	    atf_fail "two quiet runs differ: $(diff a.json.counts b.json.counts | head -n 8 | tr '\n' ' ')"
	cmp a.json.counts hog.json.counts ||
	    atf_fail "the run under a CPU hog differs: $(diff a.json.counts hog.json.counts | head -n 8 | tr '\n' ' ')"
	# Whole results too, but for the wall-clock start (the guest's clock
	# starts at a fixed time, the host stamps `started`).
	for n in a b hog; do
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("started"); print(json.dumps(d, sort_keys=True))' \
		    "$n.json" >"$n.flat" || atf_fail "$n.json: not JSON"
	done
	cmp -s a.flat b.flat && cmp -s a.flat hog.flat ||
	    atf_fail "the counts agree but the results do not (beyond started)"
	# The launch's speed is a benchmark's (contrib/uml-run.sh prints it),
	# not a test's: shown here, not judged.
	cat a.json.times b.json.times hog.json.times
}
deterministic_cleanup()
{
	[ ! -f hogs ] || kill $(cat hogs) 2>/dev/null
	return 0
}

atf_test_case bad_input
bad_input_head()
{
	atf_set descr "uml-run.sh refuses a bad seed and disk model, naming them"
}
bad_input_body()
{
	atf_check -s exit:2 -e match:"-r 'x1': a number" \
	    "$top/contrib/uml-run.sh" -r x1 /bin/true "$small"
	atf_check -s exit:2 -e match:"-d '5': BASE_NS,NS_PER_KIB or off" \
	    "$top/contrib/uml-run.sh" -d 5 /bin/true "$small"
	atf_check -s exit:2 -e match:"'/nonexistent' is no UML kernel" \
	    "$top/contrib/uml-run.sh" /nonexistent "$small"
}

atf_init_test_cases()
{
	atf_add_test_case deterministic
	atf_add_test_case bad_input
}
