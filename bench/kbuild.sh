#!/bin/sh
# kbuild.sh - what a patch costs between its tree and its verdict here
# (issue 15), on Debian's 6.1 source made into the from-source test's
# history (tests/ktree_history.sh): a build of the guest config from
# nothing with the ccache as it is (and, with COLD=1, with an empty one:
# the first build a machine ever makes), the incremental rebuild after the
# one-file patch under fs/ (the peer: the build from nothing, measured in
# the same run), and `git bisect run` of contrib/vm-bisect.sh over the
# history's 4 commits: its total time and how much of it was building.
# Boot-to-job of the built kernel beside Debian's is bench/vm.sh's.
#
#   sh bench/kbuild.sh TOP	COLD=1 also builds with an empty ccache;
#				BISECT=0 leaves the bisection out
set -eu
top=$1
ubc=$top/ubcreplay
kbuild=$top/contrib/vm-kbuild.sh
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${UBC_KBUILD_CACHE:-/var/cache/ubcreplay/kbuild}
src=${UBC_KTREE_SRC:-/var/cache/ubcreplay/src/linux-source-6.1}
archive=$top/build/fixtures/small.tar.gz
[ -f "$tarball" ] ||
    { echo "kbuild bench: no $tarball (apt-get install linux-source-6.1); skipped"; exit 0; }
for p in flex bison bc gcc make git; do
	command -v $p >/dev/null 2>&1 ||
	    { echo "kbuild bench: no $p (sh contrib/deps.sh kbuild); skipped"; exit 0; }
done
work=$(mktemp -d /tmp/ubcreplay-bench-kbuild.XXXXXX)
trap 'git -C "$src" bisect reset base >/dev/null 2>&1; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP
mkdir -p "$(dirname "$src")" "$cache"
sh "$top/tests/ktree_history.sh" "$tarball" "$src"
git -C "$src" checkout -q base

# built NAME ARGS...: vm-kbuild.sh ARGS, its seconds (kbuild.time) printed.
built()
{
	name=$1
	shift
	"$kbuild" "$@" "$src" >"$work/$name.out" 2>"$work/$name.err" ||
	    { echo "kbuild bench: $name: $(tail -n 5 "$work/$name.err")"; exit 1; }
	cat "$(cat "$work/$name.out")/kbuild.time"
}

echo "Debian's $(basename "$tarball" .tar.xz), guest config over tinyconfig, make -j$(getconf _NPROCESSORS_ONLN) with ccache"
base=$cache/ktree-base
if [ ! -f "$base/arch/x86/boot/bzImage" ]; then
	echo "  the base's cached build ($base): $(built base -O "$base") s (made now)"
fi
fresh=$(built fresh -O "$work/fresh")
echo "  a build from nothing, ccache as found: $fresh s"
if [ "${COLD:-0}" = 1 ]; then
	cold=$(CCACHE_DIR=$work/ccache built cold -O "$work/cold")
	echo "  a build from nothing, empty ccache:    $cold s"
fi
git -C "$src" checkout -q regress
inc=$(built inc -O "$work/inc" -s "$base")
git -C "$src" checkout -q base
echo "  the one-file patch (fs/ext4/page-io.c) rebuilt beside the base: $inc s (goal < 120 s)"
awk -v a="$inc" -v b="$fresh" 'BEGIN { printf "  rebuild / build from nothing: %.2f\n", a / (b ? b : 1) }'

[ "${BISECT:-1}" = 1 ] || exit 0
[ -f "$archive" ] && command -v qemu-system-x86_64 >/dev/null 2>&1 ||
    { echo "  bisection: no $archive or qemu-system-x86_64; skipped"; exit 0; }
t0=$(date +%s)
(cd "$src" && git bisect start unrelated2 base >/dev/null &&
    UBC_BISECT_BUILD="'$kbuild' -O '$work/bisect' -s '$base' ." \
    UBCREPLAY=$ubc git bisect run "$top/contrib/vm-bisect.sh" -b "$base" \
    -F write.mean_bytes:-10% -a "$archive" -R "$work/bres" \
    -- --mem 512 --cpus 1 -n 5) >"$work/bisect.out" 2>"$work/bisect.err" ||
    { echo "kbuild bench: bisection: $(tail -n 5 "$work/bisect.err")"; exit 1; }
total=$(($(date +%s) - t0))
named=$(sed -n 's/ is the first bad commit$//p' "$work/bisect.out")
steps=$(grep -c 'ubcreplay vm exited' "$work/bisect.err" || true)
building=$(sed -n 's/.*(built in \([0-9]*\) s, measured.*/\1/p' "$work/bisect.err" |
    awk '{ s += $1 } END { print s + 0 }')
echo "  git bisect run over 4 commits: $steps steps, $total s in all, $building s building; named $(git -C "$src" describe --tags --exact-match "$named" 2>/dev/null || echo "$named")"
grep 'vm-bisect.sh: ' "$work/bisect.err" | grep -v '^vm-bisect.sh:   ' | sed 's/^/    /'
