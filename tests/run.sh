#!/bin/sh
# run.sh - run every test program under kyua and print the closing line
# "N passed, N failed, N skipped". Exits non-zero when any test failed or
# broke. Called by `make check` with the top of the tree.
set -u
top=$1
cd "$top/build/tests" || exit 1
# For a build with sanitizers (make check SANITIZE=...): a report must fail
# the test that caused it, with a status no test expects (ubcreplay's own
# failures are 1), from the child workloads too; leaks are reported.
export ASAN_OPTIONS="${ASAN_OPTIONS:-exitcode=86:detect_leaks=1:abort_on_error=0:print_summary=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:exitcode=87:print_stacktrace=1}"
db=$top/build/tests/kyua.db
rm -f "$db"

kyua test --results-file="$db" --kyuafile=Kyuafile
kyua report --results-file="$db" \
    --results-filter=skipped,failed,broken >"$top/build/tests/report.txt"
cat "$top/build/tests/report.txt"
# What each failed or broken case printed (its section of the verbose
# report, without the run's environment), for a log that is all there is.
kyua report --results-file="$db" --verbose \
    --results-filter=failed,broken 2>/dev/null |
    awk '/^===> / { show = $2 != "Execution" && $2 != "Failed" &&
	$2 != "Broken" && $2 != "Summary" } show' | head -n 400
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
