#!/bin/sh
# deps.sh - install what ubcreplay's build, tests or benchmarks need.
#
#   sh contrib/deps.sh build|test|bench|kbuild|rump|all
#
# kbuild is what building a kernel tree for `vm -k` needs (contrib/vm-kbuild.sh,
# Debian's 6.1 source for the from-source tests, 6.12's for the UML patches'
# variants, the headers of Debian's current 6.1 kernel for a module built
# apart: ktree_test:virtio_blk_patch); the tests take it too.
# rump is what building NetBSD's FFS as rump kernel libraries needs (`make
# rump`, contrib/rump.sh) and makefs for FFS images.
#
# On Debian it installs the missing packages with apt-get (as root); elsewhere
# it prints the packages to install and fails, rather than guess.
set -eu

build="gcc make pkg-config libarchive-dev zlib1g-dev libjansson-dev libpcap-dev libatf-dev"
test="tcpreplay kyua atf-sh libarchive-tools e2fsprogs xfsprogs btrfs-progs util-linux bsdextrautils mandoc
      bpftrace python3 python3-scipy librsvg2-bin tshark tcpdump chrony
      nfs-ganesha nfs-ganesha-vfs rpcbind libnfs-utils libnfs-dev nfs-kernel-server clang valgrind
      iproute2 procps busybox-static qemu-system-x86 jq file git slurm-wlm munge"
kbuild="linux-source-6.1 linux-source-6.12 linux-headers-amd64 flex bison bc libelf-dev libssl-dev ccache git"
bench="hyperfine time libarchive-tools e2fsprogs linux-source-6.1 qemu-system-x86"
rump="gcc libc6-dev zlib1g-dev xz-utils patch ccache makefs"

case "${1:-all}" in
build) want=$build ;;
test)  want="$build $test $kbuild $rump strace" ;;
bench) want="$build $bench $kbuild" ;;
kbuild) want="$build $kbuild" ;;
rump)  want=$rump ;;
all)   want="$build $test $bench $kbuild $rump strace" ;;
*)     echo "usage: deps.sh build|test|bench|kbuild|rump|all" >&2; exit 2 ;;
esac

if [ ! -f /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
	if command -v pkg-config >/dev/null 2>&1 &&
	    pkg-config --exists libarchive zlib jansson atf-c; then
		exit 0
	fi
	echo "deps.sh: not a Debian system; install these (names as in" \
	    "pkgsrc or ports: libarchive, jansson, libpcap, atf, kyua):" >&2
	echo "  $want" >&2
	exit 1
fi

missing=
for p in $want; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	    grep -q '^install ok installed$' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing Debian packages:$missing" >&2
	echo "deps.sh: run as root: apt-get install$missing" >&2
	exit 1
fi
echo "deps.sh: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
