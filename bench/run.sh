#!/bin/sh
# run.sh - `make bench`: every benchmark in bench/, each measuring ubcreplay
# against a peer in the same run and printing the ratio. Benchmarks are not
# tests: these machines are noisy, so they report and do not fail on speed.
set -u
top=$1
sh "$top/contrib/deps.sh" bench || exit 1
rc=0
for b in "$top"/bench/*.sh; do
	case $(basename "$b") in run.sh|lib.sh) continue ;; esac
	echo "== $(basename "$b" .sh)"
	sh "$b" "$top" || rc=1
	echo
done
exit $rc
