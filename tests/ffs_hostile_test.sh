#! /usr/bin/env atf-sh
# ffs_hostile_test.sh - the ffs:IMAGE target under damaged images and
# crashes, one case for each of issue 43's reproducers: a kernel killed by a
# signal, a superblock that asks for gigabytes, damage that mounts, a
# kernel that dies mid-phase, a superblock whose derived fields disagree
# with its block size, ubcreplay killed outright, the "-O log" hint,
# the labels of builds without a commit, an empty --rump. After each, no
# process of ubcreplay and no image copy in TMPDIR.

. "$(atf_get_srcdir)/../../tests/lib.sh"

rump=${UBCREPLAY_RUMP:-/var/cache/ubcreplay/rump/bundle/rump}

require_rump()
{
	[ -f "$rump/lib/librumpfs_ffs.so" ] ||
	    atf_skip "no rump kernel in $rump (make rump builds it)"
	require_prog makefs
	# The image copies go here, where the case can see what is left.
	mkdir -p tmp
	export TMPDIR="$PWD/tmp"
}

# mkffs NAME SIZE [VERSION [INODES [BSIZE]]]: an FFS image with room for
# the archive, fragments of an eighth of a block.
mkffs()
{
	mkdir -p empty
	makefs -t ffs -o "version=${3:-2},bsize=${5:-16384},fsize=$((${5:-16384} / 8))" \
	    -f "${4:-20000}" -s "$2" "$1" empty >/dev/null || atf_fail "makefs failed"
}

# setsb IMAGE FIELD=VALUE...: superblock fields set, the superblock found
# by its magic where FFS looks (Debian's makefs puts it at 8 KiB).
setsb()
{
	/usr/bin/python3 - "$@" <<'EOF' || atf_fail "setsb $*"
import struct, sys
off = {"ncg": (44, "<i"), "bmask": (72, "<i"), "fsbtodb": (100, "<i"),
       "nindir": (116, "<i"), "cssize": (156, "<i"), "qbmask": (1336, "<q"),
       "fpg": (188, "<i"), "old_flags": (211, "<B"), "csaddr": (1096, "<q"),
       "contigsumsize": (1316, "<i")}
with open(sys.argv[1], "r+b") as f:
    d = f.read(300000)
    sb = next(o for o in (0, 8192, 65536, 262144)
              if struct.unpack_from("<i", d, o + 1372)[0] in
              (0x19540119, 0x011954))
    for a in sys.argv[2:]:
        k, v = a.split("=")
        o, fmt = off[k]
        v = int(v, 0)
        if fmt == "<i" and v >= 1 << 31:
            v -= 1 << 32
        f.seek(sb + o)
        f.write(struct.pack(fmt, v))
EOF
}

# Nothing left: no process, no image copy in TMPDIR.
nothing_left()
{
	no_ubc_left
	[ -z "$(ls -A tmp)" ] || atf_fail "left in TMPDIR: $(ls -A tmp)"
}

# refused EXPECT ARGS...: exit 2 naming the image and EXPECT, no result.
refused()
{
	expect=$1
	shift
	atf_check -s exit:2 -o ignore -e save:err "$ubc" -q -n 3 -o r.json "$@"
	grep -q "image '.*': .*$expect" err ||
	    atf_fail "no \"image '...': ...$expect\" in: $(cat err)"
	[ ! -e r.json ] || atf_fail "a result was written"
	nothing_left
}

# slowtrace NAME: a recorded command whose replay at its recorded pace
# (--timing) takes 4 s, whatever the machine's speed: a window in which to
# kill a run's kernel mid-phase.
slowtrace()
{
	mkdir -p rec
	(cd rec && "$ubc" record -q -o "../$1" -- \
	    sh -c 'echo a >f; sleep 4; echo b >g; rm f g') ||
	    atf_fail "ubcreplay record failed"
}

# kernel_of PID RUN [SIGNAL [held]]: the pid of PID's kernel process once
# run RUN's copy is made (waits up to 20 s), in kpid; with SIGNAL (STOP,
# ...) it is sent the moment the kernel is seen. The trial's kernel (RUN
# 0) may live a few tens of milliseconds, less than python takes to
# start: so PID may be held (started as `sh -c 'kill -STOP $$; exec ...'`
# and "held" given), and is let go only once /proc is being watched,
# every half millisecond, with no process started between reads.
kernel_of()
{
	kpid=$(python3 - "$1" "$2" "${3:-}" "${4:-}" <<'PY'
import glob, os, signal, sys, time
pid, run, sig, held = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
img = "tmp/ubcreplay-ffs.%d.%s.img" % (pid, run)
end = time.monotonic() + 20
if held:
    while open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0] != "T":
        if time.monotonic() > end:
            sys.exit(1)
        time.sleep(0.001)
    os.kill(pid, signal.SIGCONT)
while time.monotonic() < end:
    kids = []
    for f in glob.glob("/proc/%d/task/*/children" % pid):
        try:
            kids += open(f).read().split()
        except OSError:
            pass
    if kids and os.path.exists(img):
        if sig:
            os.kill(int(kids[0]), getattr(signal, "SIG" + sig))
        print(kids[0])
        sys.exit(0)
    time.sleep(0.0005)
PY
)
	[ -n "$kpid" ] || atf_fail "no kernel process for run $2 of $1"
}

atf_test_case signal_trial
signal_trial_head()
{
	atf_set descr "fs_contigsumsize = 0x7fffffff: the kernel's SIGSEGV in the trial mount refuses the image, naming it and the signal"
}
signal_trial_body()
{
	require_rump
	mkffs c.img 64m
	setsb c.img contigsumsize=0x7fffffff
	refused "killed by signal 11 (Segmentation fault)" "$small" ffs:c.img
	refused "killed by signal 11" -O log "$small" ffs:c.img
}

atf_test_case signal_run
signal_run_head()
{
	atf_set descr "a kernel killed by SIGSEGV mid-phase: its run says so, no 'left behind', no remove phase, the job goes on"
	atf_set timeout 300
}
signal_run_body()
{
	require_rump
	mkffs s.img 128m
	slowtrace slow.trace
	"$ubc" -q -n 3 --timing -o r.json slow.trace ffs:s.img 2>err &
	pid=$!
	kernel_of "$pid" 1
	sleep 1
	kill -SEGV "$kpid"
	wait "$pid"
	rc=$?
	cat err
	[ "$rc" -eq 1 ] || atf_fail "exit $rc, not 1"
	grep -q "run 1 failed: the NetBSD kernel's process was killed by signal 11 (Segmentation fault)" err ||
	    atf_fail "run 1's death is not named"
	! grep -q "left behind" err || atf_fail "a copy already removed is said to be left behind"
	s=$(json r.json "' '.join(r['status'] for r in d['runs'])")
	[ "$s" = "failed ok ok" ] || atf_fail "runs: $s"
	p=$(json r.json "' '.join(p['phase'] + ':' + p['status'] for p in d['runs'][0]['phases'])")
	echo "run 1's phases: $p"
	[ "$p" = "replay:failed" ] || atf_fail "run 1's phases, its kernel killed in the first: $p"
	nothing_left
}

atf_test_case memory
memory_head()
{
	atf_set descr "fs_ncg = 0x7fffffff (a mount that asks for 2 GB): refused at the trial's memory limit within seconds; --rump-mem"
}
memory_body()
{
	require_rump
	mkffs m.img 64m
	setsb m.img ncg=0x7fffffff
	t0=$(date +%s)
	refused "the NetBSD kernel ran out of memory: .* over its limit of 512 MiB" "$small" ffs:m.img
	[ $(($(date +%s) - t0)) -lt 10 ] || atf_fail "the refusal took $(($(date +%s) - t0)) s"
	refused "over its limit of 100 MiB" --rump-mem 100m "$small" ffs:m.img
	atf_check -s exit:2 -o ignore -e match:"--rump-mem '10m': less than 64m" \
	    "$ubc" --rump-mem 10m "$small" ffs:m.img
	atf_check -s exit:2 -o ignore -e match:"--rump-mem is for an ffs:IMAGE target" \
	    "$ubc" --rump-mem 1g "$small" .
	# A sound image runs under a ceiling well below the default.
	mkffs ok.img 64m
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q --rump-mem 256m "$small" ffs:ok.img
	nothing_left
}

atf_test_case trial_damage
trial_damage_head()
{
	atf_set descr "damage that mounts (fs_csaddr 0, fs_fpg 1, fs_cssize huge) is refused before the first run, with the console's reason"
}
trial_damage_body()
{
	require_rump
	mkffs ok.img 64m 2 4000
	for f in csaddr=0 fpg=1 cssize=0x7fffffff; do
		cp ok.img d.img
		setsb d.img "$f"
		case $f in
		csaddr=*) want="cannot make a directory in it: No space left on device; the NetBSD kernel's console: .*out of inodes" ;;
		fpg=*) want="cannot make a directory in it: No space left on device; the NetBSD kernel's console: .*file system full" ;;
		cssize=*) want="ran out of memory" ;;
		esac
		echo "$f"
		refused "$want" "$small" ffs:d.img
	done
}

atf_test_case geometry
geometry_head()
{
	atf_set descr "a superblock whose derived fields disagree with its block size (fs_nindir 0, fs_fsbtodb, fs_bmask, fs_qbmask) is refused before the trial, the field named, whatever the geometry"
}
geometry_body()
{
	require_rump
	# fs_nindir 0, which NetBSD does not check, was a shift by -1 in its
	# block mapping: on FFSv2 of 4 KiB blocks the whole job ran and
	# exited 0, of 8 KiB run 1 failed "cannot write ...: Invalid
	# argument", of 16 KiB the trial refused it, and on FFSv1 of 32 KiB
	# the kernel's heap was overrun (glibc's "malloc(): invalid next
	# size", SIGABRT in a run); under ASan a whole job ran.
	for g in "2 4096" "2 8192" "2 16384" "1 8192" "1 32768"; do
		set -- $g
		mkffs g.img 64m "$1" 4000 "$2"
		setsb g.img nindir=0
		echo "FFSv$1, $2-byte blocks: fs_nindir 0"
		refused "its superblock is damaged: fs_nindir 0 is not fs_bsize / $((4 * $1)) ($(($2 / 4 / $1)))" \
		    "$small" ffs:g.img
		refused "its superblock is damaged: fs_nindir 0" -O log "$small" ffs:g.img
	done
	mkffs ok.img 64m 2 4000
	for f in fsbtodb=3 bmask=0xffffe000 qbmask=0x1fff; do
		cp ok.img d.img
		setsb d.img "$f"
		echo "$f"
		refused "its superblock is damaged: fs_${f%%=*} " "$small" ffs:d.img
	done
}

atf_test_case trial_hang
trial_hang_head()
{
	atf_set descr "a trial mount that does not finish (its kernel stopped) is killed after 30 s and the image refused; a damaged journal that makes NetBSD loop (wapbl_discard) is refused too"
	atf_set timeout 300
}
trial_hang_body()
{
	require_rump
	# The deadline itself, whatever the machine's load: the trial's kernel
	# is stopped as soon as it is there, so it can only end by the kill.
	mkffs h.img 64m
	sh -c 'kill -STOP $$; exec "$@"' sh \
	    "$ubc" -q -n 3 -o r.json "$small" ffs:h.img 2>err &
	pid=$!
	kernel_of "$pid" 0 STOP held
	t0=$(date +%s)
	wait "$pid"
	rc=$?
	t=$(($(date +%s) - t0))
	echo "refused after $t s"
	[ "$rc" -eq 2 ] || atf_fail "exit $rc, not 2: $(cat err)"
	grep -q "image '.*': the trial mount before the first run failed: the NetBSD kernel had not finished after 30 s, and was killed" err ||
	    atf_fail "no deadline's refusal in: $(cat err)"
	[ "$t" -lt 60 ] || atf_fail "the refusal took $t s"
	[ ! -e r.json ] || atf_fail "a result was written"
	nothing_left
	# A real damaged journal: NetBSD loops in wapbl_discard, and is killed
	# at the deadline; on a loaded machine its I/O can come back in another
	# order and the mount fail with EIO first. Either way, refused.
	xz -dc "$top/fixtures/ffs_hostile_test/wapbl_loop.img.xz" >w.img
	t0=$(date +%s)
	refused "" -O log "$small" ffs:w.img
	t=$(($(date +%s) - t0))
	echo "refused after $t s: $(cat err)"
	[ "$t" -lt 60 ] || atf_fail "the refusal took $t s"
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q "$small" ffs:w.img
	nothing_left
}

atf_test_case parent_death
parent_death_head()
{
	atf_set descr "ubcreplay killed outright: its kernel dies with it, and the next job removes the stale copy (not a --keep one)"
	atf_set timeout 300
}
parent_death_body()
{
	require_rump
	mkffs p.img 128m
	slowtrace slow.trace
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q --keep "$small" ffs:p.img
	kept=$(ls tmp)
	case $kept in
	ubcreplay-ffs.*.1.kept.img) ;;
	*) atf_fail "the kept copy is named '$kept'" ;;
	esac
	"$ubc" -q -n 2 --timing -o r.json slow.trace ffs:p.img 2>err &
	pid=$!
	kernel_of "$pid" 1
	sleep 1
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	for i in $(seq 40); do
		kill -0 "$kpid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$kpid" 2>/dev/null; then
		kill -9 "$kpid"
		atf_fail "the kernel's process outlived ubcreplay by 2 s"
	fi
	[ -e "tmp/ubcreplay-ffs.$pid.1.img" ] || atf_fail "no stale copy to remove: $(ls tmp)"
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q "$small" ffs:p.img
	[ "$(ls tmp)" = "$kept" ] || atf_fail "in TMPDIR after the next job: $(ls tmp); only $kept should be"
	rm -f "tmp/$kept"
	nothing_left
}

atf_test_case log_hint
log_hint_head()
{
	atf_set descr "'-O log' is named only where it is the cause: FFSv1 journals, an old-layout superblock does not"
}
log_hint_body()
{
	require_rump
	truncate -s 64m zeros.img
	refused "NetBSD cannot mount it as FFS: Invalid argument (not an FFS image, or a damaged one)" "$small" ffs:zeros.img
	grep -q -- "-O log" err && atf_fail "the -O log hint without -O log: $(cat err)"
	mkffs v1.img 64m 1
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -O log -o r.json "$small" ffs:v1.img
	# The journal's writes: WAPBL's are larger than plain FFS's.
	mkffs plain.img 64m 1
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -o p.json "$small" ffs:plain.img
	ext="d['runs'][0]['phases'][0]['devices'][0]['write']['mean_bytes']"
	l=$(json r.json "$ext") p=$(json p.json "$ext")
	echo "FFSv1 extraction: mean write $l bytes with -O log, $p without"
	[ "$l" -gt "$p" ] || atf_fail "FFSv1 with -O log did not journal"
	# FFSv1's superblock in its old layout (FS_FLAGS_UPDATED cleared).
	cp v1.img old.img
	setsb old.img old_flags=0
	rm -f r.json
	refused "-O log needs a superblock in the newer layout" -O log "$small" ffs:old.img
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q "$small" ffs:old.img
	nothing_left
}

atf_test_case labels
labels_head()
{
	atf_set descr "builds from trees without a commit get labels that tell them apart; --rump '' is refused"
}
labels_body()
{
	require_rump
	mkffs ok.img 64m
	# Two builds of the same libraries, as rump-kbuild.sh records trees
	# without git: the hash of their sources, or (before it recorded one)
	# the build directory.
	for b in a b c; do
		mkdir -p "$b/rump"
		ln -s "$rump/lib" "$b/rump/lib"
	done
	printf 'src=/x/src-netbsd\ncommit=\ndirty=0\nsources=%s\npatches=\n' 111111111111 >a/rump/ubcreplay-build
	printf 'src=/y/src-netbsd\ncommit=\ndirty=0\nsources=%s\npatches=\n' 222222222222 >b/rump/ubcreplay-build
	printf 'src=/y/src-netbsd\ncommit=\ndirty=0\npatches=\n' >c/rump/ubcreplay-build
	for b in a b c; do
		atf_check -s exit:0 -o ignore -e ignore "$ubc" -q --rump "$PWD/$b/rump" -o $b.json "$small" ffs:ok.img
	done
	la=$(json a.json "d['label']") lb=$(json b.json "d['label']") lc=$(json c.json "d['label']")
	echo "labels: '$la' '$lb' '$lc'"
	[ "$la" = "ffs rw src-netbsd#111111111111" ] || atf_fail "label '$la'"
	[ "$lb" = "ffs rw src-netbsd#222222222222" ] || atf_fail "label '$lb'"
	[ "$lc" = "ffs rw src-netbsd (built in c)" ] || atf_fail "label '$lc'"
	atf_check -s exit:2 -o ignore -e match:"--rump '': names no directory" \
	    "$ubc" --rump "" "$small" ffs:ok.img
	[ -x "$top/contrib/rump-kbuild.sh" ] || atf_fail "contrib/rump-kbuild.sh has no run bit"
	if git -C "$top" rev-parse 2>/dev/null; then
		git -C "$top" ls-files -s contrib/rump-kbuild.sh | grep -q '^100755' ||
		    atf_fail "git records contrib/rump-kbuild.sh without its run bit"
	fi
	nothing_left
}

atf_init_test_cases()
{
	atf_add_test_case signal_trial
	atf_add_test_case signal_run
	atf_add_test_case memory
	atf_add_test_case trial_damage
	atf_add_test_case geometry
	atf_add_test_case trial_hang
	atf_add_test_case parent_death
	atf_add_test_case log_hint
	atf_add_test_case labels
}
