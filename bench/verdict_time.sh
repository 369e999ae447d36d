#!/bin/sh
# verdict_time.sh - how long from a one-file patch to a verdict (issue 41),
# on User Mode Linux with the virtio disk and under TCG, in the same run.
# The patch is the ktree history's ext4 regression (tests/ktree_history.sh
# -e regress: fs/ext4/page-io.c), judged by `vm --fail-if
# write.mean_bytes:-5%` against the unpatched kernel:
#
#   UML  the tests' UML kernel (contrib/uml.sh) is the base. The edit is
#        made in an overlay of its tree and built beside it
#        (contrib/uml-overlay.sh: the file and the link);
#        then `vm -j 2 -n 6 --disk virtio -k BASE -k NEW` (six seeds
#        paired, the fewest that bound a 95% interval). "base kept": the
#        base's result of an earlier run kept, only NEW's six cells run
#        and `compare` pairs them by seed (simulated time does not move
#        the base's counts).
#   TCG  Debian's 6.1 package (make kernels) is the base. ext4 is a module
#        there, so the patched fs/ext4 of the package's own source is built
#        alone against its headers and put in a copy of the package
#        (contrib/deb-module.sh, with ccache); then `vm -n auto -k BASE
#        -k COPY`. A patch to code built into the kernel would rebuild
#        and link a bzImage instead.
#
# Each step runs twice: the first warms the caches (ccache, the page
# cache), the second is timed. Archives: the small and the emacs-like
# fixtures. Prints, for each archive and machine, the seconds of the
# rebuild and of the verdict, their sum, the verdict, and TCG's time over
# UML's.
#
#   sh bench/verdict_time.sh TOP
#	UBC=the binary (default TOP/ubcreplay); ARCHIVES="A B" (the default:
#	TOP/build/fixtures/small.tar.gz and emacs-like.tar.gz)
set -eu
top=$(cd "$1" && pwd)
. "$top/bench/lib.sh"
ubc=${UBC:-$top/ubcreplay}
archives=${ARCHIVES:-"$top/build/fixtures/small.tar.gz $top/build/fixtures/emacs-like.tar.gz"}
# Absolute: the runs below are made in a work directory.
abs=
for a in $archives; do
	[ -f "$a" ] || { echo "verdict_time bench: no archive '$a'" >&2; exit 2; }
	abs="$abs $(cd "$(dirname "$a")" && pwd)/$(basename "$a")"
done
archives=$abs

skip()
{
	echo "verdict_time bench: $1; skipped"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip "needs root (an overlay mount)"
l=$(sh "$top/contrib/uml.sh" -n 2>&1) || skip "${l#uml.sh: }"
seed=$(dirname "$l")
tree=$(readlink "$seed/source")
pkg=$(ls -d "$top"/build/kernels/linux-image-6.1.*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$pkg" ] || skip "no Debian 6.1 kernel under build/kernels (make kernels)"
rel=$(ls "$pkg/lib/modules")
[ -f "/usr/src/linux-headers-$rel/Module.symvers" ] ||
    skip "no headers for $rel (apt-get install linux-headers-$rel)"
ver=$(make -s -C "$tree" kernelversion)
zcat "$pkg/usr/share/doc/linux-image-$rel/changelog.gz" | head -n 1 |
    grep -q "($ver+" || skip "$rel is not built from $ver, the UML tree's version"
bench_work verdict_time
cd "$work"

# timed VAR CMD...: CMD's wall time in seconds (to 0.1) in VAR, its
# output in ./last.out, its exit status in $status.
timed()
{
	var=$1
	shift
	t0=$(date +%s.%N)
	status=0
	"$@" >last.out 2>&1 || status=$?
	eval "$var=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')"
}

# The UML kernel with the edit, in ./uml (rebuilt by each call).
uml_build()
{
	rm -rf uml uml.overlay
	sh "$top/contrib/uml-overlay.sh" "$seed" uml \
	    "sh '$top/tests/ktree_history.sh' -e regress ."
}

# The package with the edited ext4 module, in ./pkg (the module rebuilt by
# each call: its page-io.c taken again from the source and edited).
tcg_build()
{
	if [ ! -d m ]; then
		mkdir -p m/fs
		cp -r "$tree/fs/ext4" m/fs/
		cp "$tree"/fs/*.h m/fs/
	fi
	cp "$tree/fs/ext4/page-io.c" m/fs/ext4/page-io.c
	rm -rf pkg
	sh "$top/tests/ktree_history.sh" -e regress m &&
	    sh "$top/contrib/deb-module.sh" "$pkg" m fs/ext4 "$PWD/pkg"
}

# verdict: the gate's line of the last vm's output, or its failure.
verdict()
{
	v=$(grep -Eo '^  (FAIL|PASS|UNDECIDED) write.mean_bytes:-5%: write.mean_bytes [-+][0-9.]+% \[[^]]*\]' last.out |
	    sed 's/^  \([A-Z]*\) write.mean_bytes:-5%: write.mean_bytes /\1 /')
	echo "${v:-exit $status: $(tail -n 1 last.out)}"
}

echo "verdict_time: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), UML base $(basename "$seed"), TCG base $rel"
echo "| archive | machine | rebuild (s) | verdict (s) | total (s) | verdict |"
echo "|---|---|---:|---:|---:|---|"
for a in $archives; do
	name=$(basename "$a" .tar.gz)
	for pass in warm timed; do
		timed ub uml_build
		[ "$status" -eq 0 ] || { echo "uml build failed:"; tail -n 5 last.out; exit 1; }
		timed uv "$ubc" vm -j 2 -n 6 --disk virtio --fail-if write.mean_bytes:-5% \
		    -k "$seed" -k "$PWD/uml" -o "u-$pass-$name" "$a"
		uverd=$(verdict)
		base=$(ls "u-$pass-$name"/*-"$(basename "$seed")"-*.json)
		timed kv sh -c '"$1" vm -j 2 -n 6 --disk virtio -k "$2" -o "$3" "$4" &&
		    "$1" compare --fail-if write.mean_bytes:-5% "$5" "$3"/*.json' \
		    sh "$ubc" "$PWD/uml" "k-$pass-$name" "$a" "$base"
		kverd=$(verdict)
		timed tb tcg_build
		[ "$status" -eq 0 ] || { echo "tcg build failed:"; tail -n 5 last.out; exit 1; }
		timed tv "$ubc" vm -n auto --fail-if write.mean_bytes:-5% \
		    -k "$pkg/boot/vmlinuz-$rel" -k "$PWD/pkg/boot/vmlinuz-$rel" \
		    -o "t-$pass-$name" "$a"
		tverd=$(verdict)
	done
	ut=$(echo "$ub $uv" | awk '{ printf "%.1f", $1 + $2 }')
	tt=$(echo "$tb $tv" | awk '{ printf "%.1f", $1 + $2 }')
	kt=$(echo "$ub $kv" | awk '{ printf "%.1f", $1 + $2 }')
	echo "| $name | UML, virtio | $ub | $uv | $ut | $uverd |"
	echo "| $name | UML, virtio, base kept | $ub | $kv | $kt | $kverd |"
	echo "| $name | TCG | $tb | $tv | $tt | $tverd |"
	echo "$name: TCG over UML $(echo "$tt $ut $kt" | awk '{ printf "%.2f (base kept: %.2f)", $1 / $2, $1 / $3 }')x, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
