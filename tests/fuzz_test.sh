#! /usr/bin/env atf-sh
# fuzz_test.sh - every libFuzzer target in fuzz/ (built by `make fuzz`'s
# rules, clang with ASan and UBSan) replays the inputs that once broke it
# (fixtures/NAME_fuzz/) and its seeds, then fuzzes for a few seconds: the
# short CI run of `make fuzz`. Longer runs: make -k fuzz FUZZ_SECONDS=600.

. "$(atf_get_srcdir)/../../tests/lib.sh"

SECONDS_EACH=5

atf_test_case targets
targets_head()
{
	atf_set descr "each fuzz target: regressions replayed, then ${SECONDS_EACH}s of fuzzing, no crash"
	atf_set timeout 900
}
targets_body()
{
	plain_pass_only "the fuzz targets are built with ASan and UBSan in either pass, so this pass would run them again"
	require_prog clang
	echo 'int LLVMFuzzerTestOneInput(const char *d, long n);
int LLVMFuzzerTestOneInput(const char *d, long n) { (void)d; (void)n; return 0; }' >probe.c
	clang -fsanitize=fuzzer,address,undefined -o probe probe.c 2>/dev/null ||
	    atf_skip "clang cannot build libFuzzer targets here"
	names=$(cd "$top/fuzz" && ls *_fuzz.c | sed 's/_fuzz\.c$//')
	[ -n "$names" ] || atf_fail "no fuzz target in fuzz/"
	bad=
	for n in $names; do
		env -u MAKEFLAGS -u MAKELEVEL make -s -C "$top" "build/fuzz/${n}_fuzz" >build.log 2>&1 ||
		    atf_fail "cannot build fuzz/${n}_fuzz.c: $(tail -5 build.log)"
		bin=$top/build/fuzz/${n}_fuzz
		if [ -d "$top/fixtures/${n}_fuzz" ]; then
			# Files as arguments: each run once, no fuzzing.
			inputs=$(ls "$top/fixtures/${n}_fuzz/"* | grep -v '/README$')
			if ! "$bin" $inputs >"$n.replay" 2>&1; then
				cat "$n.replay"
				bad="$bad $n(regression)"
			fi
		fi
		if ! env -u MAKEFLAGS -u MAKELEVEL make -s -C "$top" "fuzz-$n" FUZZ_SECONDS=$SECONDS_EACH >"$n.out" 2>&1; then
			cat "$n.out"
			bad="$bad $n"
		fi
		grep "^fuzz $n: [0-9]* executions" "$n.out"
	done
	[ -z "$bad" ] || atf_fail "crashed:$bad"
}

atf_init_test_cases()
{
	atf_add_test_case targets
}
