#!/bin/sh
# hardening.sh - the figures of docs/hardening.md, measured again: hostile
# archives tried and escapes, faults injected and leftovers, signal runs
# and leftovers, concurrent jobs, memcheck, then fuzz executions and
# crashes per target.
#
#   sh contrib/hardening.sh [FUZZ_SECONDS]
#
# As root (loop filesystems, the exact probe); FUZZ_SECONDS per fuzz target,
# 60 unless given, 0 for no fuzzing. The tests' own lines are in build/hardening.report.
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-60}
tests="hostile_test faults_test signals_test concurrency_test valgrind_test"
make -s ubcreplay build/tests/Kyuafile build/fixtures/small.tar.gz \
    build/fixtures/emacs-like.tar.gz $(for t in $tests; do echo "build/tests/$t"; done) ||
    exit 1
db=$PWD/build/hardening.db
rm -f "$db"
(cd build/tests && kyua test --results-file="$db" --kyuafile=Kyuafile $tests) \
    >build/hardening.log 2>&1
(cd build/tests && kyua report --results-file="$db" --verbose \
    --results-filter=passed,failed,broken,skipped) >build/hardening.report 2>&1

lines=$(grep -E '^(hostile|faults|signals|concurrency|memcheck)( [a-z_]+)*:' build/hardening.report)
echo "$lines"
echo "$lines" | awk '
/^hostile result_file/ { rf += $3; rfe += $6; next }
/^hostile/  { h += $3; he += $6 }
/^faults/   { f += $3; fl += $6 }
/^signals/  { s += $4; ss += $6; sl += $8 }
END {
	printf "hostile archives: %d tried, %d escapes\n", h, he
	printf "hostile result files: %d commands, %d escapes\n", rf, rfe
	printf "faults: %d injected, %d leftovers\n", f, fl
	printf "signals: %d runs, %d interrupted, %d leftovers\n", s, ss, sl
}'
grep -E '^[a-z_]+:[a-z_]+  ->  ' build/hardening.report | grep -v ' ->  passed' |
    sed 's/^/not passed: /'
grep -E '^valgrind_test:[a-z_]+  ->  ' build/hardening.report | sed 's/^/memcheck: /'
[ "$secs" -gt 0 ] &&
    make -k fuzz FUZZ_SECONDS="$secs" 2>&1 | grep -E '^fuzz [a-z_]+: [0-9]+ executions'
