#! /usr/bin/env atf-sh
# nfs_fuzz_test.sh - a short run of the NFS decoder's libFuzzer target
# (fuzz/nfs_fuzz.c) under ASan and UBSan, seeded from the fixtures: the
# brief CI run of `make fuzz`. Longer runs: make fuzz FUZZ_SECONDS=600.

atf_test_case fuzz_briefly
fuzz_briefly_head() {
	atf_set descr "libFuzzer on the NFS decoder for 15 seconds"
	atf_set timeout 300
}
fuzz_briefly_body() {
	top=$(atf_config_get top "$(atf_get_srcdir)/../..")
	command -v clang >/dev/null || atf_skip "clang is not installed"
	echo 'int LLVMFuzzerTestOneInput(const char *d, long n);
int LLVMFuzzerTestOneInput(const char *d, long n) { (void)d; (void)n;
return 0; }' >probe.c
	clang -fsanitize=fuzzer,address,undefined -o probe probe.c \
	    2>/dev/null || atf_skip "clang cannot build libFuzzer targets here"
	# The NFS target alone (make fuzz runs every target in fuzz/; each is
	# also fuzzed briefly by fuzz_test.sh).
	atf_check -o match:'^fuzz nfs: [0-9]+ executions, 0 crashes' -e ignore \
	    env -u MAKEFLAGS -u MAKELEVEL make -s -C "$top" fuzz-nfs FUZZ_SECONDS=15
}

atf_init_test_cases() {
	atf_add_test_case fuzz_briefly
}
