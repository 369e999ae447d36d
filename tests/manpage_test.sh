#! /usr/bin/env atf-sh
# manpage_test.sh - the manual is mdoc that mandoc passes clean, and usage()
# prints its SYNOPSIS: the same words, wrapped differently.

. "$(atf_get_srcdir)/../../tests/lib.sh"

atf_test_case lint
lint_body()
{
	require_prog mandoc
	atf_check -s exit:0 -o empty -e empty mandoc -Tlint -Wwarning "$top/docs/ubcreplay.1"
}

atf_test_case synopsis_is_usage
synopsis_is_usage_body()
{
	require_prog mandoc
	mandoc -Tutf8 "$top/docs/ubcreplay.1" | col -b |
	    awk '/^SYNOPSIS/ {f = 1; next} /^[A-Z]/ {f = 0} f' |
	    tr -s ' \t\n' ' ' | sed 's/^ //; s/ $//' >man.txt
	"$ubc" -h | sed 's/^usage: //' | tr -s ' \t\n' ' ' |
	    sed 's/^ //; s/ $//' >usage.txt
	diff man.txt usage.txt || atf_fail "usage() and the SYNOPSIS differ"
}

atf_init_test_cases()
{
	atf_add_test_case lint
	atf_add_test_case synopsis_is_usage
}
