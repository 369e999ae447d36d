#!/bin/sh
# uml-overlay.sh - a User Mode Linux kernel built beside another with one
# edit, for `ubcreplay vm -k`: the shell command EDIT is run at the top of
# an overlay of the tree SEED was built from (SEED/source), mounted over
# that tree in a mount namespace of its own, and the overlay built with
# `contrib/vm-kbuild.sh -a um -s SEED -O OUT`, so only what EDIT changed
# is compiled, then the link. The tree itself is never written: the edited
# files stay in the overlay's upper layer, OUT.overlay/upper, which says
# what the kernel in OUT differs by.
#
#   sh contrib/uml-overlay.sh SEED OUT EDIT
#
# Needs root (the mount) and unshare. OUT must not exist yet. Prints OUT.
# Exit 0 when built; 2 when an argument is wrong; 1 when the mount, the
# edit or the build failed, with the reason on stderr (a failed build
# leaves OUT, make's output in OUT/kbuild.log, and the overlay).
set -u

me=uml-overlay.sh
here=$(cd "$(dirname "$0")" && pwd)

die()
{
	echo "$me: $2" >&2
	exit "$1"
}

[ $# -eq 3 ] || die 2 "usage: sh contrib/uml-overlay.sh SEED OUT EDIT"
seed=$(cd "$1" 2>/dev/null && pwd) || die 2 "SEED '$1': no such directory"
[ -x "$seed/linux" ] || die 2 "SEED '$1' is no UML build (no program linux)"
tree=$(readlink "$seed/source") && [ -f "$tree/Makefile" ] ||
    die 2 "SEED '$1': the tree it was built from (its link source) is gone"
[ ! -e "$2" ] && [ ! -e "$2.overlay" ] ||
    die 2 "OUT '$2' or '$2.overlay' exists already"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
    die 1 "this kernel has no overlay filesystem"
command -v unshare >/dev/null || die 1 "no unshare (util-linux)"
mkdir -p "$2.overlay/upper" "$2.overlay/work" ||
    die 2 "cannot make '$2.overlay'"
out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
ov=$out.overlay

# In the namespace: exit 4 when nothing was built (the mount or the edit
# failed; the overlay is removed), 1 when the build failed (OUT and the
# overlay kept, for make's log and what the edit changed).
unshare -m sh -c 'mount -t overlay overlay \
    -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$1" ||
	{ echo "'$me': cannot mount an overlay on $1" >&2; exit 4; }
    (cd "$1" && eval "$3") ||
	{ echo "'$me': the edit failed: $3" >&2; exit 4; }
    "$4" -a um -s "$5" -O "$6" "$1" >/dev/null' \
    sh "$tree" "$ov" "$3" "$here/vm-kbuild.sh" "$seed" "$out"
case $? in
0) echo "$out" ;;
4) rm -rf "$ov" && exit 1 ;;
*) echo "$me: the build failed: its log is $out/kbuild.log, the edit's files in $ov/upper" >&2 && exit 1 ;;
esac
