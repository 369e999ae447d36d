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

atf_test_case command_usage
command_usage_head()
{
	atf_set descr "each command's -h prints its own lines of the synopsis, and a usage error the same on stderr"
}
command_usage_body()
{
	"$ubc" -h | sed 's/^usage: /       /' >all.txt
	for c in compare dd matrix sweep; do
		atf_check -s exit:0 -o save:$c.txt -e empty "$ubc" $c -h
		head -n 1 $c.txt | grep -q "^usage: ubcreplay $c " ||
		    atf_fail "$c -h: '$(head -n 1 $c.txt)'"
		# Its synopsis lines, in order, with nothing between them.
		sed 's/^usage: /       /' $c.txt | grep -v '^       change:' >mine.txt
		n=$(wc -l <mine.txt)
		grep -n -F -x -f mine.txt all.txt | cut -d: -f1 >at.txt
		[ "$(wc -l <at.txt)" -eq "$n" ] &&
		    [ "$(tail -n 1 at.txt)" -eq $(($(head -n 1 at.txt) + n - 1)) ] ||
		    atf_fail "$c -h is not its lines of the synopsis: $(cat $c.txt)"
		# The next synopsis line is another command's.
		next=$(sed -n "$(($(tail -n 1 at.txt) + 1))p" all.txt)
		[ -z "$next" ] || echo "$next" | grep -q '^       ubcreplay ' ||
		    atf_fail "$c -h stops before its last line: '$next'"
	done
	atf_check -s exit:2 -o empty -e save:err "$ubc" sweep --nosuch
	grep -q '^usage: ubcreplay sweep ' err || atf_fail "no usage on a usage error"
}

atf_init_test_cases()
{
	atf_add_test_case lint
	atf_add_test_case synopsis_is_usage
	atf_add_test_case command_usage
}
