# lib.sh - what the shell tests share, sourced by each tests/*_test.sh:
#
#	. "$(atf_get_srcdir)/../../tests/lib.sh"
#
# (the programs run from build/tests, two levels below the top).
# Loop filesystems are made in the test's work directory and recorded in
# ./loops, so that the cleanup part of the test case detaches every one,
# even when the body failed half way.

top=$(cd "$(atf_get_srcdir)/../.." && pwd)
ubc=$top/ubcreplay
small=$top/build/fixtures/small.tar.gz

# NetBSD's FFS in rump kernels (make rump), and the bundle it is built from.
rump=${UBCREPLAY_RUMP:-/var/cache/ubcreplay/rump/bundle/rump}
bundle=${UBC_NETBSD_BUNDLE:-$top/../shared/netbsd}

# The libraries, or a skip where the bundle they are built from is absent;
# with the bundle there, their absence is a failure of `make rump`.
require_rump()
{
	[ -f "$rump/lib/librumpfs_ffs.so" ] && return 0
	[ -f "$bundle/SHA256SUMS" ] ||
	    atf_skip "no NetBSD bundle at $bundle: no rump kernel can be built"
	atf_fail "no rump kernel in $rump though the bundle is at $bundle: did make rump fail?"
}

# mkffs NAME SIZE [INODES]: an FFSv2 image as newfs makes one for the
# seeds' era: 16 KiB blocks, 2 KiB fragments (makefs sizes the inode
# table to the files it copies: none here, so it is told).
mkffs()
{
	require_prog makefs
	mkdir -p empty
	makefs -t ffs -o version=2,bsize=16384,fsize=2048 -f "${3:-4000}" \
	    -s "$2" "$1" empty >/dev/null || atf_fail "makefs failed"
}

# Skips the test, with the reason, unless we are root.
require_root()
{
	[ "$(id -u)" -eq 0 ] || atf_skip "needs root: $1"
}

# Whether ubcreplay is built with ASan: .ci/run's second pass.
asan_build()
{
	nm "$ubc" 2>/dev/null | grep -q __asan_
}

# plain_pass_only WHAT: skips, in the sanitized pass, a case whose time
# goes to what the sanitizers do not look at (guests, kernel builds, shell
# scripts) and whose ubcreplay code other cases run in that pass too: WHAT
# says which. The plain pass runs it; CI's hour runs it once.
plain_pass_only()
{
	! asan_build || atf_skip "run by the plain pass only (ubcreplay is built with ASan): $1"
}

# The processes of ubcreplay working in the test's directory (a job and
# its NetBSD kernels' processes), by pid: other tests' are not this one's.
ubc_here()
{
	for _p in $(pgrep -x ubcreplay); do
		[ "$(readlink "/proc/$_p/cwd" 2>/dev/null)" = "$PWD" ] && echo "$_p"
	done
}

# No process of ubcreplay left running from this test: killed, and failed.
no_ubc_left()
{
	_left=$(ubc_here)
	if [ -n "$_left" ]; then
		kill -9 $_left 2>/dev/null
		atf_fail "a process of ubcreplay was left running: $_left"
	fi
}

# Skips unless a command exists.
require_prog()
{
	command -v "$1" >/dev/null 2>&1 || atf_skip "needs $1 (contrib/deps.sh test installs it)"
}

# Mounts tracefs on /sys/kernel/tracing where it is not mounted yet (as the
# exact probe does itself: a fresh machine may not have it mounted before
# the first exact run), then skips unless it has the block events.
require_tracefs()
{
	[ -d /sys/kernel/tracing/events/block/block_rq_issue ] ||
	    [ ! -d /sys/kernel/tracing ] ||
	    mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events/block/block_rq_issue ] ||
	    atf_skip "needs tracefs with the block events"
}

# mkloopfs NAME SIZE_MB MKFS [MOUNT_OPTIONS]: makes a filesystem on a loop
# device, mounts it on ./NAME and sets loopdev to the device's kernel name,
# or fails or skips. Not in a command substitution: a skip or failure there
# ends the subshell, not the test.
# With loopfs_fresh=1 set before, ext4's block bitmaps are left for the
# kernel to read in the background, as after any mount (settle_test).
mkloopfs()
{
	_lname=$1 _lsize=$2 _lmkfs=$3 _lopts=${4:-}
	_limg=$PWD/$_lname.img
	truncate -s "${_lsize}M" "$_limg" || atf_fail "cannot make $_limg"
	case $_lmkfs in
	ext4|ext2)
		# No lazy init: the kernel must not write while we measure.
		mkfs."$_lmkfs" -q -F -E lazy_itable_init=0,lazy_journal_init=0 \
		    "$_limg" >/dev/null 2>&1 || atf_fail "mkfs.$_lmkfs failed" ;;
	xfs)	mkfs.xfs -q -f "$_limg" >/dev/null 2>&1 || atf_fail "mkfs.xfs failed" ;;
	xfs-rmap)
		# With the reverse-mapping btree: every block's owner.
		mkfs.xfs -q -f -m rmapbt=1 "$_limg" >/dev/null 2>&1 ||
		    atf_fail "mkfs.xfs -m rmapbt=1 failed" ;;
	btrfs)	mkfs.btrfs -q -f "$_limg" >/dev/null 2>&1 || atf_fail "mkfs.btrfs failed" ;;
	*)	atf_fail "mkloopfs: unknown filesystem $_lmkfs" ;;
	esac
	_ldev=$(losetup -f --show "$_limg") || atf_skip "cannot attach a loop device"
	loopdev=${_ldev#/dev/}
	echo "$_ldev $PWD/$_lname" >>"$PWD/loops"
	mkdir -p "$_lname"
	mount ${_lopts:+-o "$_lopts"} "$_ldev" "$_lname" || atf_fail "cannot mount $_ldev"
	# ext4 (ext2 too, through it) reads its block bitmaps once in the
	# background at a random time up to 5 s after the mount (its lazy-init
	# thread's prefetch): reads that once fell between a test's diskstats
	# snapshot and the start of the probe (exact_test:ext4_sync, a soak).
	# ubcreplay loads them before it watches, but that is after a test's
	# snapshot; reading mb_groups here loads them before it.
	_lmbg=/proc/fs/ext4/$loopdev/mb_groups
	[ "${loopfs_fresh:-0}" = 1 ] || [ ! -r "$_lmbg" ] ||
	    cat "$_lmbg" >/dev/null || atf_fail "cannot read $_lmbg"
	sync -f "$_lname"
}

# Unmounts and detaches everything mkloopfs made here.
cleanup_loops()
{
	[ -f loops ] || return 0
	while read -r dev dir; do
		umount "$dir" 2>/dev/null || umount -l "$dir" 2>/dev/null
		losetup -d "$dev" 2>/dev/null
	done <loops
	rm -f loops
}

# devstat DEV: the counters of /sys/block/DEV/stat on one line.
devstat()
{
	tr -s ' ' <"/sys/block/$1/stat" | sed 's/^ //'
}

# json FILE EXPR: evaluates a Python expression on the parsed file as d.
json()
{
	/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# lock_lo: waits until no other test on this machine, of this suite or of
# another run at the same time, serves NFS on port 2049 or captures NFS on
# lo, then holds that until the test's process ends (the lock is on a
# descriptor the test keeps open).
lock_lo()
{
	exec 9>/tmp/ubcreplay-test-lo.lock &&
	    flock 9 || atf_fail "cannot lock /tmp/ubcreplay-test-lo.lock"
}

# kernel VAR SERIES: sets VAR to the newest bzImage of a Debian package of
# that series under build/kernels (6.1 or 6.12), or skips. Not in a command
# substitution: a skip there ends the subshell, not the test.
kernel()
{
	_k=$(ls -d "$top"/build/kernels/linux-image-"$2".*-amd64/boot/vmlinuz-* \
	    2>/dev/null | sort -V | tail -1)
	[ -n "$_k" ] || atf_skip "no $2 kernel under build/kernels (contrib/kernels.sh fetches them)"
	eval "$1=\$_k"
}

# What the tests of `ubcreplay vm` (vm_test, ktree_test) share: guests
# start from the test's own directory and leave nothing behind.

# The test's own temporary directory for ubcreplay's cells.
use_tmp()
{
	mkdir -p "$PWD/tmp"
	export TMPDIR="$PWD/tmp"
}

# Nothing left behind: no QEMU started from here, no temporary files.
no_leftovers()
{
	if pgrep -f "qemu-system.*$PWD/tmp" >/dev/null; then
		pkill -9 -f "qemu-system.*$PWD/tmp"
		atf_fail "a QEMU process was left running"
	fi
	[ -z "$(ls -A "$PWD/tmp" 2>/dev/null)" ] ||
	    atf_fail "left in the temporary directory: $(ls -A "$PWD/tmp")"
	[ ! -e out ] || atf_fail "an output directory was made: $(ls -A out)"
}

# bad EXPECT ARGS...: exit 2 with a message matching EXPECT, nothing left.
bad()
{
	expect=$1
	shift
	atf_check -s exit:2 -o ignore -e save:err "$ubc" vm "$@"
	grep -q -- "$expect" err || atf_fail "no '$expect' in: $(cat err)"
	no_leftovers
}

# fake_qemu MODE: a qemu-system-x86_64 early on PATH (./fakebin) that
# notes each guest's accelerator in ./qemu-starts and otherwise runs the
# real one, except:
#   kvm-death  under -accel kvm: QEMU's "KVM internal error", then it spins,
#              as QEMU does on a KVM that cannot run the guest;
#   dies       under -accel kvm: stops its parent (ubcreplay), makes its
#              console file and exits 1, then touches ./qemu-died: a QEMU
#              dead at its start that the parent notices only late (the
#              test continues it);
#   late       under -accel tcg: stops its parent, runs the real QEMU, and
#              when the guest's start file appears notes when (ns since
#              this QEMU began) in ./started-seen and continues the parent
#              8 s later: a poll that comes late.
# UBCREPLAY_VM_ASSUME_KVM=1 makes --accel auto try KVM on this machine.
fake_qemu()
{
	real=$(command -v qemu-system-x86_64) || atf_skip "needs qemu-system-x86_64"
	mkdir -p fakebin
	cat >fakebin/qemu-system-x86_64 <<EOF
#!/bin/sh
began=\$(date +%s%N)
case " \$* " in
*" -accel kvm "*)
	echo kvm >>"$PWD/qemu-starts"
	case $1 in
	kvm-death)
		echo "KVM internal error. Suberror: 1" >&2
		echo "emulation failure" >&2
		exec sleep 600 ;;
	dies)
		kill -STOP \$PPID
		# As QEMU does: its console file is made before it fails.
		for a; do
			case \$a in
			file:*) : >"\${a#file:}" ;;
			esac
		done
		echo "qemu-system-x86_64: this start fails" >&2
		: >"$PWD/qemu-died"
		exit 1 ;;
	esac ;;
*" -accel tcg "*)
	echo tcg >>"$PWD/qemu-starts"
	if [ $1 = late ]; then
		for a; do
			case \$a in
			local,path=*,mount_tag=ubcout,*)
				out=\${a#local,path=}
				out=\${out%%,mount_tag=ubcout,*} ;;
			esac
		done
		# The parent sleeps through the boot and 8 s more.
		parent=\$PPID
		kill -STOP \$parent
		"$real" "\$@" &
		q=\$!
		(
			until [ -e "\$out/started" ]; do sleep 0.02; done
			echo \$((\$(date +%s%N) - began)) >"$PWD/started-seen"
			sleep 8
			kill -CONT \$parent
		) &
		wait \$q
		exit \$?
	fi ;;
esac
exec "$real" "\$@"
EOF
	chmod +x fakebin/qemu-system-x86_64
	export PATH="$PWD/fakebin:$PATH" UBCREPLAY_VM_ASSUME_KVM=1
}
