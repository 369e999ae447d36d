#! /usr/bin/env atf-sh
# settle_test.sh - what a filesystem reads by itself after its mount is read
# before the first run, not in it: ext4 prefetches its block bitmaps in the
# background, starting at a random moment up to 5 s after the mount and
# going on in batches on a filesystem of many groups. Each case mounts a
# fresh ext4 of 128 groups (16 GiB, sparse) and starts ubcreplay at once.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# The fresh filesystems: their bitmaps are not loaded by mkloopfs.
loopfs_fresh=1

# reads DEV: the reads the device has completed.
reads()
{
	devstat "$1" | cut -d' ' -f1
}

# quiet_after DEV: fails if the device is read in the 6 s that follow
# (the prefetch's first batch comes within 5 s of the mount).
quiet_after()
{
	a=$(reads "$1")
	sleep 6
	b=$(reads "$1")
	echo "reads when ubcreplay ended: $a; 6 s later: $b"
	[ "$a" = "$b" ] ||
	    atf_fail "$(($b - $a)) reads after ubcreplay ended: ext4's prefetch was left to come"
}

atf_test_case command cleanup
command_head()
{
	atf_set descr "a command that reads nothing, started at once after the mount and lasting 7 s: its run reads nothing, and nothing is read after"
	atf_set timeout 300
}
command_body()
{
	require_root "makes a loop filesystem"
	mkloopfs f 16384 ext4
	dev=$loopdev
	"$ubc" -q -p interval -o r.json f -- sleep 7 2>err ||
	    atf_fail "ubcreplay failed: $(cat err)"
	quiet_after "$dev"
	json r.json '[(p["phase"], dv["read"]["ops"]) for p in d["runs"][0]["phases"]
	    for dv in p["devices"]]' >phases
	echo "run 1, reads by phase: $(cat phases)"
	json r.json 'sum(dv["read"]["ops"] for p in d["runs"][0]["phases"]
	    for dv in p["devices"])' >n
	[ "$(cat n)" = 0 ] || atf_fail "run 1 read $(cat n) times; sleep reads nothing"
	# The probe saw the device: the remove phase's sync writes.
	json r.json 'sum(dv["write"]["ops"] for p in d["runs"][0]["phases"]
	    for dv in p["devices"])' >w
	[ "$(cat w)" -gt 0 ] || atf_fail "the probe saw no writes in run 1"
}
command_cleanup()
{
	cleanup_loops
}

atf_test_case dd cleanup
dd_head()
{
	atf_set descr "ubcreplay dd onto a fresh ext4: nothing of the prefetch is left to come after it ends"
	atf_set timeout 300
}
dd_body()
{
	require_root "makes a loop filesystem"
	mkloopfs f 16384 ext4
	dev=$loopdev
	"$ubc" dd -q -p interval -o r.json if=/dev/zero of=f/out bs=64k \
	    count=16 2>err || atf_fail "ubcreplay dd failed: $(cat err)"
	quiet_after "$dev"
}
dd_cleanup()
{
	cleanup_loops
}

atf_test_case no_prefetch cleanup
no_prefetch_head()
{
	atf_set descr "a filesystem mounted with no_prefetch_block_bitmaps is left so: its bitmaps are still to be read after ubcreplay"
	atf_set timeout 300
}
no_prefetch_body()
{
	require_root "makes a loop filesystem"
	case $(uname -r) in
	[0-4].*|5.[0-8].*)
		atf_skip "no_prefetch_block_bitmaps came with Linux 5.9; this is $(uname -r)" ;;
	esac
	mkloopfs f 16384 ext4 no_prefetch_block_bitmaps
	dev=$loopdev
	"$ubc" -q -p interval -o r.json f -- true 2>err ||
	    atf_fail "ubcreplay failed: $(cat err)"
	a=$(reads "$dev")
	cat "/proc/fs/ext4/$dev/mb_groups" >/dev/null
	b=$(reads "$dev")
	echo "reading mb_groups after ubcreplay: $(($b - $a)) reads"
	[ "$b" -gt "$a" ] ||
	    atf_fail "every bitmap was loaded: ubcreplay did not leave the filesystem as mounted"
}
no_prefetch_cleanup()
{
	cleanup_loops
}

atf_init_test_cases()
{
	atf_add_test_case command
	atf_add_test_case dd
	atf_add_test_case no_prefetch
}
