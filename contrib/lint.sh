#!/bin/sh
# lint.sh - `make lint`: the checked-in .clang-format holds for every C file,
# cppcheck finds nothing, includes point one way and the runner's files
# call each other one way (arrows.py), the manual
# passes mandoc, the shell scripts parse.
set -u
rc=0
files=$(git ls-files '*.c' '*.h')
if command -v clang-format >/dev/null 2>&1; then
	clang-format --dry-run -Werror $files || rc=1
else
	echo "lint: clang-format missing" >&2; rc=1
fi
if command -v cppcheck >/dev/null 2>&1; then
	cppcheck -q --error-exitcode=1 --std=c11 --inline-suppr \
	    --enable=warning,portability,performance \
	    --include=/usr/include/jansson.h -D__linux__ -D_GNU_SOURCE \
	    $files || rc=1
fi
python3 contrib/arrows.py . || rc=1
# A comment line whose star touches its text is one clang-format reflowed
# with the wrong decoration (it does so in a comment that holds tab-indented
# example lines): rewrap the prose by hand.
if git grep -nE '^ +\*[^[:space:]*/]' -- '*.c' '*.h'; then
	echo "lint: comment lines folded by the formatter (above)" >&2
	rc=1
fi
mandoc -Tlint -Wwarning docs/ubcreplay.1 || rc=1
for s in $(git ls-files '*.sh') .ci/run; do
	[ -f "$s" ] && { sh -n "$s" || rc=1; }
done
[ $rc -eq 0 ] && echo "lint: clean"
exit $rc
