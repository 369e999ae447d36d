#! /usr/bin/env atf-sh
# numbers_test.sh - every command reads an integer option the same way:
# a value that is not a whole number in range (one past 2^32, which a cast
# to int once read as 1, a sign, a suffix, blanks, nothing) is refused with
# exit status 2 and one message that names the option and the value, and
# nothing is written. Needs no root: the values are refused before any
# file or device is opened.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# Past int and past long long, signs, a suffix, the bounds' neighbours.
bad_values='4294967297 9223372036854775808 -1 +5 1x 0 1001'

# refuse OPT VALUE LO HI CMD...: CMD, given OPT VALUE first, exits 2 and
# says "OPT 'VALUE' is not a whole number from LO to HI", and no more.
refuse()
{
	opt=$1 val=$2 lo=$3 hi=$4
	shift 4
	atf_check -s exit:2 -o empty -e save:err "$@"
	want="ubcreplay: $opt '$val' is not a whole number from $lo to $hi"
	[ "$(head -n 1 err)" = "$want" ] ||
	    atf_fail "$* said '$(head -n 1 err)', not '$want'"
	[ ! -e r.json ] && [ ! -e out ] || atf_fail "$* wrote a result"
}

# Each command, the bad value in the place of N; the arguments after it
# would be accepted.
each_command()
{
	opt=$1 val=$2
	refuse "$opt" "$val" 1 1000 "$ubc" "$opt" "$val" -o r.json "$small" .
	refuse "$opt" "$val" 1 1000 "$ubc" dd "$opt" "$val" -o r.json \
	    if=/dev/zero of=out count=1
	refuse "$opt" "$val" 1 1000 "$ubc" sweep "$opt" "$val" -o r.json \
	    --bs 4k --size 4k if=/dev/zero of=out
	refuse "$opt" "$val" 1 1000 "$ubc" matrix "$opt" "$val" -o r.json \
	    --from /dev/zero --to out --size 4k
	refuse "$opt" "$val" 1 1000 "$ubc" vm "$opt" "$val" -k /nonexistent \
	    "$small"
}

atf_test_case runs
runs_head()
{
	atf_set descr "-n of every command refuses what is not 1 to 1000"
}
runs_body()
{
	for v in $bad_values '' ' 5'; do
		each_command -n "$v"
	done
}

atf_test_case vm_options
vm_options_head()
{
	atf_set descr "vm's other integer options are read the same way"
}
vm_options_body()
{
	for v in 4294967297 -1 1x 65 ''; do
		refuse -j "$v" 1 64 "$ubc" vm -j "$v" -k /nonexistent "$small"
		refuse --cpus "$v" 1 64 "$ubc" vm --cpus "$v" -k /nonexistent \
		    "$small"
	done
	for v in 4294967297 127 1048577 4x; do
		refuse --mem "$v" 128 1048576 "$ubc" vm --mem "$v" \
		    -k /nonexistent "$small"
	done
	for v in 4294967297 0 21 2x ''; do
		refuse --boot-runs "$v" 1 20 "$ubc" vm --boot-runs "$v" \
		    -k /nonexistent "$small"
	done
	for v in 18446744073709551616 0 604801 1.5; do
		refuse --timeout "$v" 1 604800 "$ubc" vm --timeout "$v" \
		    -k /nonexistent "$small"
	done
}

atf_test_case in_range
in_range_head()
{
	atf_set descr "the bounds themselves are taken: the command fails later, elsewhere"
}
in_range_body()
{
	for v in 1 1000 0001; do
		"$ubc" -n "$v" -o r.json "$small" ./missing-dir 2>err
		[ $? -eq 1 ] || atf_fail "-n $v: not the missing directory's exit"
		grep -q "missing-dir" err || atf_fail "-n $v: $(cat err)"
		"$ubc" vm -n "$v" --mem 128 --timeout 604800 -k /nonexistent \
		    "$small" 2>err
		grep -q "not a whole number" err && atf_fail "-n $v: $(cat err)"
	done
	return 0
}

atf_init_test_cases()
{
	atf_add_test_case runs
	atf_add_test_case vm_options
	atf_add_test_case in_range
}
