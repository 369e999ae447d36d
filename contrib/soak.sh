#!/bin/sh
# soak.sh - the suite run again and again, so that a test that fails one
# time in twenty shows before CI finds it.
#
#   sh contrib/soak.sh [-n passes] [test ...]
#
# Run from the top of a tree built for `make check` (the suite's programs in
# build/tests). Without tests: every program of the suite (build/tests/
# Kyuafile), but ktree_test's cases that build kernels (config,
# from_source), which are builds rather than tests that can flake: a list of
# the live ones would miss the next one written. Each pass is one kyua run
# (its results in build/soak/passN.db); first the code's identity, then a
# line per pass, then "N passes, N with failures". Stops early at ^C.
#
# The code's identity is a hash of the files git tracks, but docs/ and the
# README (no test reads them): passes on one identity continue one count,
# on any machine or in any session; "-dirty" when tracked files changed.
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
code="unknown (not a git checkout)"
if git rev-parse --git-dir >/dev/null 2>&1; then
	tab=$(printf '\t')
	code=$(git ls-tree -r HEAD | grep -v -E "$tab(docs/|README\.md\$)" |
	    git hash-object --stdin | cut -c1-12)
	git diff --quiet HEAD -- . ':(exclude)docs' ':(exclude)README.md' ||
	    code="$code-dirty"
fi
cd build/tests || exit 1
if [ $# -eq 0 ]; then
	for p in $(sed -n 's/^atf_test_program{name="\(.*\)"}$/\1/p' Kyuafile); do
		[ "$p" = ktree_test ] || set -- "$@" "$p"
	done
	for c in $(./ktree_test -l | awk '$1 == "ident:" { print $2 }'); do
		case $c in config|from_source) ;; *) set -- "$@" "ktree_test:$c" ;; esac
	done
fi
mkdir -p ../soak
echo "code $code"
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
