#!/bin/sh
# soak.sh - the tests that depend on live parts (loop filesystems, tracefs,
# NFS servers on the host, QEMU guests, the scheduler) run again and again,
# so that a test that fails one time in twenty shows before CI finds it.
#
#   sh contrib/soak.sh [-n passes] [test ...]
#
# Run from the top of a tree built for `make check` (the suite's programs in
# build/tests). Without tests: every program that boots a guest or drives a
# live server or device, but ktree_test's cases that build kernels (config,
# from_source), which are builds rather than guests. Each pass is one kyua
# run (its results in build/soak/passN.db); a line per pass, then
# "N passes, N with failures". Stops early at ^C.
set -u
cd "$(dirname "$0")/.." || exit 1
passes=20
while getopts n: c; do
	case $c in
	n) passes=$OPTARG ;;
	*) echo "usage: sh contrib/soak.sh [-n passes] [test ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -x build/tests/vm_test ] || { echo "soak.sh: build the suite first (make check)" >&2; exit 2; }
cd build/tests || exit 1
if [ $# -eq 0 ]; then
	set -- nfs_live_test exact_test signals_test concurrency_test faults_test \
	    record_test command_test manyruns_test vm_test vm_nfs_test kernels_test \
	    bisect_test plan_test slurm_test compare_test numbers_test \
	    settle_test
	for c in $(./ktree_test -l | awk '$1 == "ident:" { print $2 }'); do
		case $c in config|from_source) ;; *) set -- "$@" "ktree_test:$c" ;; esac
	done
fi
mkdir -p ../soak
bad=0 i=0
trap 'echo "soak.sh: stopped in pass $i, after $((i - 1)) whole"; exit 1' INT TERM
while [ $i -lt "$passes" ]; do
	i=$((i + 1))
	db=$PWD/../soak/pass$i.db
	start=$(date +%s)
	kyua test --results-file="$db" --kyuafile=Kyuafile "$@" >../soak/pass$i.log 2>&1
	line=$(kyua report --results-file="$db" | sed -n 's/^Test cases: //p')
	echo "pass $i: $(($(date +%s) - start)) s, $line"
	if grep -q -E ' -> +(failed|broken)' ../soak/pass$i.log; then
		bad=$((bad + 1))
		grep -E ' -> +(failed|broken)' ../soak/pass$i.log
	fi
done
echo "$i passes, $bad with failures"
[ "$bad" -eq 0 ]
