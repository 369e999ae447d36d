#!/bin/sh
# run.sh - run every test program under kyua and print the closing line
# "N passed, N failed, N skipped". Exits non-zero when any test failed or
# broke. Called by `make check` with the top of the tree.
set -u
top=$1
cd "$top/build/tests" || exit 1
db=$top/build/tests/kyua.db
rm -f "$db"

kyua test --results-file="$db" --kyuafile=Kyuafile
kyua report --results-file="$db" \
    --results-filter=skipped,failed,broken >"$top/build/tests/report.txt"
cat "$top/build/tests/report.txt"
line=$(sed -n 's/^Test cases: //p' "$top/build/tests/report.txt")
# "N total, N skipped, N expected failures, N broken, N failed"
set -- $(echo "$line" | tr -d ',' | awk '{print $1, $3, $5, $8, $10}')
total=${1:-0} skipped=${2:-0} xfail=${3:-0} broken=${4:-0} failed=${5:-0}
if [ -z "$line" ]; then
	echo "run.sh: kyua produced no summary" >&2
	total=0 failed=1
fi
bad=$((failed + broken))
echo "$((total - skipped - bad)) passed, $bad failed, $skipped skipped"
[ "$bad" -eq 0 ] && [ "$total" -gt 0 ]
