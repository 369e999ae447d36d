#! /usr/bin/env atf-sh
# attrib_test.sh - attribution (model/layout.h): each transfer of the exact
# view split by what its blocks held, held against instruments that share
# none of its code. On an archive of this machine's own files (its
# /usr/share/doc, never used while attribution was built): the classes add
# up to the exact view per phase; the run's trace split by the layout that
# `ubcreplay layout` reads gives the result's classes exactly; and 1,000
# written blocks drawn at random have the class that debugfs (ext2, ext4),
# xfs_db (xfs) or a second FFS decoder written for the tests (NetBSD's FFS)
# gives them, every one; on ext so does every long symbolic link's target
# block, which no sample is sure to draw. Then the filesystems and probes
# that cannot say, saying why, and a gate on a class.

. "$(atf_get_srcdir)/../../tests/lib.sh"

check=$top/tests/attrib_check.py

# The held-out archive: this machine's documentation, real files of every
# size, with directories and symbolic links; and long links of our own,
# whose targets have blocks of their own on ext (60 bytes or more; xfs and
# NetBSD take at most 1,024).
held_out()
{
	mkdir -p links/deep
	for n in 60 300 1000; do
		ln -s "$(head -c "$n" /dev/zero | tr '\0' t)" "links/deep/l$n"
	done
	tar czf held.tar.gz -C /usr/share doc -C "$PWD" links 2>/dev/null ||
	    atf_fail "cannot make an archive of /usr/share/doc"
}

# long_links MOUNT: the long links' paths under MOUNT, from its root.
long_links()
{
	find "$1" -type l -name 'l[0-9]*' | sed "s|^$1/||" | sort
}

# written RESULT CLASS KEY: the class's KEY (ops, bytes) over run 1's phases.
written()
{
	json "$1" "sum(p['attribution']['write']['classes']['$2']['$3'] for p in d['runs'][0]['phases'])"
}

needs()
{
	require_root "loop devices and the exact probe"
	require_tracefs
	require_prog python3
}

# attributed NAME MKFS TOOL: runs the held-out archive on a fresh loop
# filesystem, keeping it (--keep) so that the layout and the filesystem's
# own tool see what the job saw after its sync, and checks the three ways.
attributed()
{
	needs
	require_prog "$3"
	held_out
	mkloopfs "$1" 1024 "$2"
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 1 --keep \
	    --trace-out run.trace -o run.json held.tar.gz "$1"
	atf_check -s exit:0 -o save:layout.txt "$ubc" layout "$1"
	atf_check -s exit:0 -o match:"add up" python3 "$check" sums run.json
	atf_check -s exit:0 -o match:"gives the result" \
	    python3 "$check" replay run.json run.trace layout.txt
	seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
	echo "sampling with seed $seed"
	atf_check -s exit:0 -o save:sample.txt \
	    python3 "$check" sample run.trace layout.txt 4096 1000 "$seed"
	grep -q "^# 1000 of" sample.txt || atf_fail "fewer than 1000 blocks written: $(head -1 sample.txt)"
	links=$(long_links "$1")
	[ "$(echo "$links" | wc -w)" -eq 3 ] ||
	    atf_fail "the run kept not 3 long links but: $links"
	bs=$(stat -f -c %S "$1")
	umount "$1" || atf_fail "cannot unmount $1"
	case $3 in
	debugfs) atf_check -s exit:0 -o match:"1000 agree" \
	    python3 "$check" debugfs "$1.img" sample.txt
	    atf_check -s exit:0 -o match:"3 links: 3 with every" \
	    python3 "$check" links "$1.img" layout.txt "$bs" $links ;;
	xfs_db) atf_check -s exit:0 -o match:"1000 agree" \
	    python3 "$check" xfsdb "$1.img" sample.txt 4096 ;;
	esac
}

atf_test_case ext4 cleanup
ext4_head()
{
	atf_set descr "ext4: classes add up, match the trace split by the layout, and 1,000 written blocks and every long link's target agree with debugfs"
	atf_set timeout 600
}
ext4_body()
{
	attributed e4 ext4 debugfs
	# The journal and the inode tables are written, and told.
	for c in data journal; do
		[ "$(written run.json "$c" ops)" -gt 0 ] ||
		    atf_fail "no $c writes told"
	done
}
ext4_cleanup()
{
	cleanup_loops
}

atf_test_case ext2 cleanup
ext2_head()
{
	atf_set descr "ext2: indirect blocks are the map class, as debugfs says of 1,000 written blocks"
	atf_set timeout 600
}
ext2_body()
{
	attributed e2 ext2 debugfs
	[ "$(written run.json map bytes)" -gt 0 ] ||
	    atf_fail "no indirect block told among the writes"
}
ext2_cleanup()
{
	cleanup_loops
}

atf_test_case xfs cleanup
xfs_head()
{
	atf_set descr "xfs with rmapbt: classes add up, match the trace split by the layout, and 1,000 written blocks agree with xfs_db"
	atf_set timeout 600
}
xfs_body()
{
	attributed x xfs-rmap xfs_db
}
xfs_cleanup()
{
	cleanup_loops
}

atf_test_case ffs cleanup
ffs_head()
{
	atf_set descr "NetBSD's FFS with its log: classes add up, and 1,000 fragments its kernel wrote (strace's pwrite64 calls) have the class a second decoder (tests/ffs_blocks.py) gives them"
	atf_set timeout 600
}
ffs_body()
{
	require_rump
	require_prog strace
	require_prog python3
	held_out
	mkffs ffs.img 768m 20000
	mkdir tmp
	# Each run's kernel writes a copy of the image, kept with --keep.
	# LeakSanitizer cannot work under ptrace: under ASan this job's leaks
	# are left to the cases without strace.
	nolsan=
	! asan_build || nolsan="ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0"
	atf_check -s exit:0 -o ignore -e ignore env TMPDIR="$PWD/tmp" $nolsan \
	    strace -f -y -e trace=pwrite64 -o st.txt "$ubc" --rump "$rump" \
	    -q -O log --keep -n 1 -o run.json held.tar.gz ffs:ffs.img
	set -- tmp/ubcreplay-ffs.*.1.kept.img
	[ -f "$1" ] || atf_fail "--keep kept no copy of run 1's image in tmp/"
	atf_check -s exit:0 -o match:"add up" python3 "$check" sums run.json
	atf_check -s exit:0 -o save:layout.txt "$ubc" layout "ffs:$1"
	# The kernel wrote it under its name in the run; --keep renamed it.
	atf_check -s exit:0 -o save:writes.txt \
	    python3 "$check" writes st.txt "${1%.kept.img}.img"
	seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
	echo "sampling with seed $seed"
	atf_check -s exit:0 -o save:sample.txt \
	    python3 "$check" wsample writes.txt layout.txt 2048 1000 "$seed"
	grep -q "^# 1000 of" sample.txt || atf_fail "fewer than 1000 fragments written: $(head -1 sample.txt)"
	atf_check -s exit:0 -o save:second.txt python3 "$top/tests/ffs_blocks.py" "$1"
	atf_check -s exit:0 -o match:"1000 agree" \
	    python3 "$check" agree sample.txt second.txt 2048
	for c in data inode journal; do
		[ "$(written run.json "$c" ops)" -gt 0 ] ||
		    atf_fail "no $c writes told"
	done
}
ffs_cleanup()
{
	rm -rf tmp
}

atf_test_case xfs_no_rmap cleanup
xfs_no_rmap_head()
{
	atf_set descr "xfs without rmapbt: data is told, the rest unknown, and the report says why"
	atf_set timeout 300
}
xfs_no_rmap_body()
{
	needs
	mkloopfs x 1024 xfs
	atf_check -s exit:0 -o match:"note: xfs without rmapbt" -e ignore \
	    "$ubc" -o run.json "$small" x
	atf_check -s exit:0 -o match:"add up" python3 "$check" sums run.json
}
xfs_no_rmap_cleanup()
{
	cleanup_loops
}

atf_test_case btrfs cleanup
btrfs_head()
{
	atf_set descr "btrfs: no attribution, the reason named, the job measured as ever"
	atf_set timeout 300
}
btrfs_body()
{
	needs
	require_prog mkfs.btrfs
	mkloopfs b 1024 btrfs
	atf_check -s exit:0 -o match:"what the writes are: not told: btrfs: btrfs answers no GETFSMAP" \
	    -e ignore "$ubc" -o run.json "$small" b
	[ "$(json run.json "sum(1 for p in d['runs'][0]['phases'] if 'error' not in p['attribution'])")" = 0 ] ||
	    atf_fail "a phase on btrfs has an attribution"
	atf_check -s exit:1 -e match:"ubcreplay: btrfs: btrfs answers no GETFSMAP" "$ubc" layout b
}
btrfs_cleanup()
{
	cleanup_loops
}

atf_test_case probes cleanup
probes_head()
{
	atf_set descr "the interval probe cannot attribute and says so; --no-attribution leaves attribution out"
	atf_set timeout 300
}
probes_body()
{
	needs
	mkloopfs e 256 ext4
	atf_check -s exit:0 -o match:"not told: the diskstats probe does not see each request's place" \
	    -e ignore "$ubc" -p interval -o iv.json "$small" e
	atf_check -s exit:0 -o ignore -e ignore "$ubc" --no-attribution -o no.json "$small" e
	[ "$(json no.json "sum(1 for p in d['runs'][0]['phases'] if 'attribution' in p)")" = 0 ] ||
	    atf_fail "--no-attribution: a phase has an attribution"
	atf_check -s exit:2 -e match:"usage: ubcreplay layout" "$ubc" layout
	atf_check -s exit:1 -e match:"nowhere" "$ubc" layout nowhere
}
probes_cleanup()
{
	cleanup_loops
}

atf_test_case class_gate cleanup
class_gate_head()
{
	atf_set descr "a gate on a class metric fails on a change that moves that class (ext4 -o dirsync's journal commits), names it, and passes one on the data it does not move"
	atf_set timeout 600
}
class_gate_body()
{
	needs
	mkloopfs plain 256 ext4
	mkloopfs dirsync 256 ext4 dirsync
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 4 -o plain.json "$small" plain
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 4 -o dirsync.json "$small" dirsync
	atf_check -s exit:1 -o save:gate.out -e ignore "$ubc" compare \
	    --fail-if write.class.journal.ops:+50% plain.json dirsync.json
	grep -q "FAIL write.class.journal.ops:+50%" gate.out ||
	    atf_fail "the journal's gate did not fail: $(grep -A2 Gates gate.out)"
	grep -q "moved most: journal +" gate.out ||
	    atf_fail "the failing gate does not name the journal: $(grep -A2 Gates gate.out)"
	# The size gate's failure names the class that made the small writes.
	atf_check -s exit:1 -o match:"moved most: journal \+" -e ignore "$ubc" \
	    compare --fail-if write.mean_bytes:-20% plain.json dirsync.json
	# The files' data is written in as many requests either way (about
	# 150 a run, within a few percent). Not the directories' blocks: 3 to
	# 5 a run, so that one request more in a run of plain's and one less
	# in dirsync's make an interval that holds +50% (a CI run's UNDECIDED).
	atf_check -s exit:0 -o match:"PASS write.class.data.ops:\+50%" -e ignore \
	    "$ubc" compare --fail-if write.class.data.ops:+50% plain.json dirsync.json
}
class_gate_cleanup()
{
	cleanup_loops
}

atf_init_test_cases()
{
	atf_add_test_case ext4
	atf_add_test_case ext2
	atf_add_test_case xfs
	atf_add_test_case ffs
	atf_add_test_case xfs_no_rmap
	atf_add_test_case btrfs
	atf_add_test_case probes
	atf_add_test_case class_gate
}
