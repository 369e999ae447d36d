#! /usr/bin/env atf-sh
# kernels_test.sh - contrib/kernels.sh (`make kernels`): the kernels it
# prints are bzImages of the release their package names, read from the
# image's own setup header; modules.dep knows the filesystems `ubcreplay vm`
# loads; a second run fetches nothing; a bad name or a missing tool is a
# clear error that leaves nothing behind.
#
# UBC_KERNEL_DEBS=DIR in the environment lends the script a directory of
# .debs already downloaded; without it the first run downloads (about
# 180 MB) into build/kernels, which later runs reuse.

. "$(atf_get_srcdir)/../../tests/lib.sh"

script=$top/contrib/kernels.sh

require_tools()
{
	require_prog dpkg-deb
	require_prog busybox
	require_prog apt-cache
	require_prog apt-get
	busybox depmod -h 2>&1 | grep -q 'Usage: depmod' ||
	    atf_skip "this busybox has no depmod (busybox-static has)"
}

# require_net PACKAGE: skips unless the archive that serves PACKAGE answers,
# or UBC_KERNEL_DEBS holds it.
require_net()
{
	[ -n "${UBC_KERNEL_DEBS:-}" ] &&
	    ls "$UBC_KERNEL_DEBS/$1"_*.deb >/dev/null 2>&1 && return 0
	uri=$(apt-get download --print-uris "$1" 2>/dev/null |
	    sed -n "s/^'\([^']*\)'.*/\1/p" | head -n 1)
	[ -n "$uri" ] || atf_skip "apt knows no $1 (apt-get update as root)"
	/usr/bin/python3 - "$uri" <<'EOF' ||
import socket, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
socket.create_connection((u.hostname, u.port or 80), timeout=10).close()
EOF
	    atf_skip "no network: cannot reach the archive of $1 ($uri)"
}

# check_kernel PATH: a bzImage whose version string, read from its setup
# header, is the release in its package's name; modules.dep lists ext4, xfs
# and 9p.
check_kernel()
{
	[ -f "$1" ] || atf_fail "printed '$1', which does not exist"
	pkgdir=${1%/boot/*}
	pkg=${pkgdir##*/}
	rel=${pkg#linux-image-}
	[ "${1##*/}" = "vmlinuz-$rel" ] || atf_fail "$1 is not the kernel of $pkg"
	# The boot protocol: "HdrS" at 0x202, and at 0x20e the offset from
	# 0x200 of the NUL-terminated version string.
	v=$(/usr/bin/python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read(65536)
assert b[0x202:0x206] == b"HdrS", "no bzImage setup header"
off = struct.unpack("<H", b[0x20e:0x210])[0] + 0x200
print(b[off:b.index(b"\0", off)].decode().split()[0])
EOF
	) || atf_fail "$1 is not a bzImage"
	[ "$v" = "$rel" ] || atf_fail "$1 says it is $v, its package $rel"
	file -b "$1" | grep -q "bzImage, version $rel " ||
	    atf_fail "file(1) disagrees about $1: $(file -b "$1")"
	dep=$pkgdir/lib/modules/$rel/modules.dep
	[ -s "$dep" ] || atf_fail "no modules.dep for $pkg"
	for m in ext4 xfs 9p 9pnet_virtio; do
		grep -Eq "(^|/)$m\\.ko(\\.xz)?:" "$dep" ||
		    atf_fail "modules.dep of $pkg has no $m"
	done
	# The dependencies are resolved: ext4 needs jbd2 and mbcache.
	grep -E '(^|/)ext4\.ko(\.xz)?:' "$dep" | grep -q 'jbd2' ||
	    atf_fail "modules.dep of $pkg: ext4 without jbd2"
}

# state DIR: what is in a cache, with inode numbers and times, so that a
# second run can be seen to have changed nothing.
state()
{
	(cd "$1" && ls -lAi --time-style=full-iso . */boot */lib/modules/*/modules.dep)
}

atf_test_case newest
newest_head()
{
	atf_set descr "make kernels: the newest 6.1 and 6.12 amd64 images, oldest first, checked; a second run fetches nothing"
	atf_set timeout 1800
}
newest_body()
{
	require_tools
	want1=$(apt-cache pkgnames linux-image-6. | grep -E '^linux-image-6\.1\.0-[0-9]+-amd64$' | sort -V | tail -n 1)
	want2=$(apt-cache pkgnames linux-image-6. | grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' | sort -V | tail -n 1)
	[ -n "$want1" ] && [ -n "$want2" ] ||
	    atf_skip "the apt lists hold no 6.1 or 6.12 amd64 image (apt-get update as root)"
	[ -d "$top/build/kernels/$want1" ] || require_net "$want1"
	[ -d "$top/build/kernels/$want2" ] || require_net "$want2"
	atf_check -s exit:0 -o save:out -e save:err sh "$script"
	[ "$(wc -l <out)" -eq 2 ] || atf_fail "not two paths: $(cat out)"
	sed -n 1p out | grep -q "/$want1/boot/vmlinuz-" ||
	    atf_fail "first is not $want1: $(cat out)"
	sed -n 2p out | grep -q "/$want2/boot/vmlinuz-" ||
	    atf_fail "second is not $want2: $(cat out)"
	while read -r k; do
		check_kernel "$k"
	done <out
	state "$top/build/kernels" >before
	atf_check -s exit:0 -o file:out -e save:err2 sh "$script"
	grep -E 'downloading|unpacking' err2 && atf_fail "the second run fetched"
	state "$top/build/kernels" >after
	diff before after || atf_fail "the second run changed the cache"
}

atf_test_case fresh
fresh_head()
{
	atf_set descr "a package into an empty cache: downloaded or taken from UBC_KERNEL_DEBS, unpacked, depmod'ed; a second run fetches nothing"
	atf_set timeout 1800
}
fresh_body()
{
	plain_pass_only "contrib/kernels.sh alone: no ubcreplay code"
	require_tools
	pkg=$(apt-cache pkgnames linux-image-6. | grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' | sort -V | tail -n 1)
	[ -n "$pkg" ] || atf_skip "the apt lists hold no 6.12 amd64 image (apt-get update as root)"
	require_net "$pkg"
	export UBC_KERNEL_CACHE=$PWD/cache
	atf_check -s exit:0 -o save:out -e save:err sh "$script" "$pkg"
	grep -q "unpacking $pkg" err || atf_fail "nothing was unpacked: $(cat err)"
	[ "$(cat out)" = "$PWD/cache/$pkg/boot/vmlinuz-${pkg#linux-image-}" ] ||
	    atf_fail "printed '$(cat out)'"
	check_kernel "$(cat out)"
	[ "$(ls -A cache)" = "$pkg" ] || atf_fail "left in the cache: $(ls -A cache)"
	state cache >before
	atf_check -s exit:0 -o file:out -e empty sh "$script" "$pkg"
	state cache >after
	diff before after || atf_fail "the second run changed the cache"
}

atf_test_case bad_name
bad_name_head()
{
	atf_set descr "no such package, not a kernel package, not a package name: a clear error, nothing left in the cache"
	atf_set timeout 300
}
bad_name_body()
{
	require_tools
	export UBC_KERNEL_CACHE=$PWD/cache
	mkdir cache
	atf_check -s exit:1 -o empty \
	    -e match:"'linux-image-../x' is not a kernel image package name" \
	    sh "$script" linux-image-../x
	atf_check -s exit:1 -o empty -e match:"'-o' is not a kernel image" \
	    sh "$script" -o
	[ -z "$(ls -A cache)" ] || atf_fail "left: $(ls -A cache)"
	# Needs the archive: apt-get answers "Unable to locate" from its
	# lists, but the metapackage below must be downloaded.
	atf_check -s exit:1 -o empty \
	    -e match:"cannot download 'linux-image-6.1.0-0-nosuch-amd64': E: " \
	    sh "$script" linux-image-6.1.0-0-nosuch-amd64
	[ -z "$(ls -A cache)" ] || atf_fail "left: $(ls -A cache)"
	# A real package that is no kernel: downloaded, unpacked, refused.
	apt-cache show linux-image-amd64 >/dev/null 2>&1 ||
	    atf_skip "apt knows no linux-image-amd64 to try"
	require_net linux-image-amd64
	atf_check -s exit:1 -o empty \
	    -e match:"linux-image-amd64 holds no kernel" \
	    sh "$script" linux-image-amd64
	[ -z "$(ls -A cache)" ] || atf_fail "left: $(ls -A cache)"
}

atf_test_case interrupted
interrupted_head()
{
	atf_set descr "SIGTERM to the script and its children in mid-fetch: nothing left in the cache, no process left"
	atf_set timeout 600
}
interrupted_body()
{
	require_tools
	require_prog setsid
	pkg=$(apt-cache pkgnames linux-image-6. | grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' | sort -V | tail -n 1)
	[ -n "$pkg" ] || atf_skip "the apt lists hold no 6.12 amd64 image (apt-get update as root)"
	require_net "$pkg"
	export UBC_KERNEL_CACHE=$PWD/cache
	setsid sh "$script" "$pkg" >out 2>err &
	pid=$!
	# Into the download or the unpacking, then the whole group, as a
	# terminal's ^C would.
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		grep -qE 'downloading|unpacking' err 2>/dev/null && break
		sleep 0.5
	done
	sleep 1
	kill -TERM -- "-$pid" 2>/dev/null || atf_fail "the script ended before the signal: $(cat err)"
	wait "$pid"
	rc=$?
	[ "$rc" -ne 0 ] || atf_fail "exit 0 after SIGTERM"
	[ -s out ] && atf_fail "printed a kernel after SIGTERM: $(cat out)"
	[ -z "$(ls -A cache)" ] || atf_fail "left in the cache: $(ls -A cache)"
	# The group's children may take a moment to die; zombies are not
	# left behind, only not reaped yet.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		ps -eo pid=,pgid=,stat=,args= |
		    awk -v g="$pid" '$2 == g && $3 !~ /^Z/' >left
		[ -s left ] || return 0
		sleep 1
	done
	atf_fail "processes left: $(tr '\n' ' ' <left)"
}

atf_test_case no_apt
no_apt_head()
{
	atf_set descr "without apt: a clear message naming what is missing, nothing left"
}
no_apt_body()
{
	require_prog dpkg-deb
	require_prog busybox
	# A PATH with what the script uses but apt.
	mkdir bin
	for p in sh dirname mkdir mktemp rm mv ls sort tail head grep cut \
	    printf cat id dpkg-deb busybox tar; do
		q=$(command -v "$p") && ln -s "$q" "bin/$p"
	done
	export UBC_KERNEL_CACHE=$PWD/cache
	atf_check -s exit:1 -o empty -e match:'needs apt-cache' \
	    env PATH="$PWD/bin" sh "$script"
	atf_check -s exit:1 -o empty -e match:'needs apt-get' \
	    env PATH="$PWD/bin" UBC_KERNEL_DEBS=/nonexistent sh "$script" \
	    linux-image-6.1.0-57-amd64
	[ -z "$(ls -A cache)" ] || atf_fail "left: $(ls -A cache)"
}

atf_init_test_cases()
{
	atf_add_test_case newest
	atf_add_test_case fresh
	atf_add_test_case bad_name
	atf_add_test_case interrupted
	atf_add_test_case no_apt
}
