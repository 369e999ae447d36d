#! /usr/bin/env atf-sh
# netbsd_test.sh - the main job on NetBSD's FFS (ffs:IMAGE), in rump kernels
# built from the NetBSD bundle by `make rump`, against instruments that are
# not ubcreplay: strace's count of the kernel process's pread and pwrite
# calls on the image, the host extraction's write() calls, and NetBSD's own
# hw.iostats counters.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# No kernel's process left running from this test.
no_kernels()
{
	no_ubc_left
}

# ffs_bad EXIT EXPECT ARGS...: fails with EXIT and a message with EXPECT,
# no result file, nothing running.
ffs_bad()
{
	code=$1 expect=$2
	shift 2
	atf_check -s "exit:$code" -o ignore -e save:err "$ubc" -o r.json "$@"
	grep -q -- "$expect" err || atf_fail "no '$expect' in: $(cat err)"
	[ ! -e r.json ] || atf_fail "a result was written"
	no_kernels
}

# The write() layer of the first run's first phase: ops bytes histogram.
app()
{
	json "$1" "(lambda p: (p['app_write']['ops'], p['app_write']['bytes'], p['app_write']['size_hist']['buckets'], p['entries']))(d['runs'][0]['phases'][0])"
}

# strace_kernels LOG: reads, bytes, writes, bytes of every kernel process's
# pread and pwrite calls in strace's LOG (threads go with the process that
# made them; ubcreplay's own are not the image's), but the first kernel's,
# which is the trial mount, before the probe.
strace_kernels()
{
	/usr/bin/python3 - "$1" <<'EOF'
import re, sys
lead, first, io, pending, root = {}, [], {}, {}, None
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    m = re.match(r'(\d+) +(.*)', line)
    if not m:
        continue
    pid, text = int(m.group(1)), m.group(2)
    root = pid if root is None else root
    # A call another thread interrupted comes in two lines.
    if text.endswith('<unfinished ...>'):
        pending[pid] = text[:-len('<unfinished ...>')]
        continue
    r = re.match(r'<\.\.\. \w+ resumed>(.*)', text)
    if r:
        text = pending.pop(pid, '') + r.group(1)
    m = re.match(r'(\w+)\((.*)', text)
    r = re.search(r'= (\d+)$', text)
    if not m or not r:
        continue
    call, rest, rv = m.group(1), m.group(2), int(r.group(1))
    me = lead.get(pid, pid)
    if call in ('clone', 'clone3', 'fork', 'vfork'):
        lead[rv] = me if 'CLONE_THREAD' in rest else rv
    elif call in ('pread64', 'pwrite64'):
        k = io.setdefault(me, [0, 0, 0, 0])
        w = call == 'pwrite64'
        k[2 * w] += 1
        k[2 * w + 1] += rv
        if me not in first and me != root:
            first.append(me)
tot = [0, 0, 0, 0]
for p in first[1:]:
    tot = [a + b for a, b in zip(tot, io[p])]
print(*tot)
EOF
}

# transfers JSON: the same four sums in the result, the runs' and between.
transfers()
{
	json "$1" "' '.join(str(sum(dv[k][f] for dv in [dv for r in d['runs'] for p in r['phases'] for dv in p['devices']] + d['between_runs']['devices'])) for k, f in (('read','ops'),('read','bytes'),('write','ops'),('write','bytes')))"
}

atf_test_case app_layer
app_layer_head()
{
	atf_set descr "the write() calls into NetBSD's FFS are the host extraction's, call for call"
}
app_layer_body()
{
	require_rump
	mkffs ffs.img 256m 40000
	mkdir host
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -o ffs.json "$small" ffs:ffs.img
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -p none -o host.json "$small" host
	a=$(app ffs.json) h=$(app host.json)
	[ "$a" = "$h" ] || atf_fail "NetBSD's write() layer differs: $a; the host's: $h"
	case $a in "(0,"*) atf_fail "no write() calls: $a" ;; esac
}

atf_test_case exact_strace
exact_strace_head()
{
	atf_set descr "the exact view's transfers equal strace's count of the kernels' pread and pwrite calls"
}
exact_strace_body()
{
	require_rump
	require_prog strace
	mkffs ffs.img 256m 40000
	# LeakSanitizer cannot work under ptrace: a sanitized build runs
	# without it here (the other cases keep it).
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    atf_check -s exit:0 -o ignore -e ignore strace -f -qq -o st.log \
	    -e trace=pread64,pwrite64,clone,clone3,fork,vfork \
	    "$ubc" -q -n 2 -O log -o r.json "$small" ffs:ffs.img
	got=$(strace_kernels st.log)
	want=$(transfers r.json)
	echo "strace (reads, bytes, writes, bytes): $got; result: $want"
	[ "$got" = "$want" ] || atf_fail "the result's transfers '$want' differ from strace's '$got'"
}

atf_test_case dd_strace
dd_strace_head()
{
	atf_set descr "dd of=ffs:IMAGE: the exact view's transfers equal strace's count of the kernels' pread and pwrite calls, and dd's counts are the copy's"
}
dd_strace_body()
{
	require_rump
	require_prog strace
	mkffs ffs.img 256m 4000
	head -c 3000000 /dev/urandom >src
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    atf_check -s exit:0 -o save:out -e save:err strace -f -qq \
	    -o st.log -e trace=pread64,pwrite64,clone,clone3,fork,vfork \
	    "$ubc" dd -n 2 -o r.json if=src of=ffs:ffs.img bs=64k
	got=$(strace_kernels st.log)
	want=$(transfers r.json)
	echo "strace (reads, bytes, writes, bytes): $got; result: $want"
	[ "$got" = "$want" ] || atf_fail "the result's transfers '$want' differ from strace's '$got'"
	# The file's data reached the image, in the copy or the sync.
	w=$(json r.json "min(sum(p['devices'][0]['write']['bytes'] for p in r['phases'][:2]) for r in d['runs'])")
	[ "$w" -ge 3000000 ] || atf_fail "a run wrote $w bytes, less than the copy's 3000000"
	got=$(json r.json "' '.join(str(x) for x in (d['runs'][1]['dd']['records_in_full'], d['runs'][1]['dd']['records_in_partial'], d['runs'][1]['dd']['records_out_full'], d['runs'][1]['dd']['records_out_partial'], d['runs'][1]['dd']['bytes'], [p['phase'] for p in d['runs'][0]['phases']], len(d['targets'])))")
	[ "$got" = "45 1 45 1 3000000 ['copy', 'sync', 'remove'] 1" ] ||
	    atf_fail "dd's counts, the phases, the targets: $got"
	grep -q "^45+1 records out" err || atf_fail "no closing lines: $(cat err)"
	grep -q "^target   ffs:ffs.img: ffs" out || atf_fail "no ffs target: $(cat out)"
	[ "$(json r.json "'netbsd' in d")" = True ] || atf_fail "no netbsd object"
	no_kernels
}

atf_test_case dd_sweep
dd_sweep_head()
{
	atf_set descr "sweep of=ffs:IMAGE: each block size runs in the image's kernel, its write() calls of that size"
}
dd_sweep_body()
{
	require_rump
	mkffs ffs.img 128m 4000
	head -c 1048576 /dev/urandom >src
	atf_check -s exit:0 -o save:out -e ignore "$ubc" sweep --bs 4k,64k \
	    --size 1m -o s.json if=src of=ffs:ffs.img
	got=$(json s.json "' '.join(str(x) for x in ([s['bs_bytes'] for s in d['sizes']], [r['phases'][0]['app_write']['ops'] for r in d['runs']], [r['dd']['bytes'] for r in d['runs']], d['status']))")
	[ "$got" = "[4096, 65536] [256, 16] [1048576, 1048576] ok" ] ||
	    atf_fail "sizes, write() calls, bytes, status: $got"
	grep -q "65536" out || atf_fail "no table: $(cat out)"
	# Refused: ffs: is a destination only, and names an image.
	atf_check -s exit:1 -e match:"ffs:IMAGE is for of=" "$ubc" dd \
	    if=ffs:ffs.img of=x
	atf_check -s exit:1 -e match:"names no image" "$ubc" dd if=src of=ffs:
	# An image NetBSD cannot use is bad input, as for the main job.
	atf_check -s exit:2 -e match:"image 'none.img': No such file" \
	    "$ubc" dd if=src of=ffs:none.img
	[ ! -e ffs:none.img ] || atf_fail "a host file named ffs:none.img was made"
	no_kernels
}

atf_test_case dd_options
dd_options_head()
{
	atf_set descr "dd of=ffs:IMAGE takes the main job's -O, --rump and --rump-mem, each reaching the kernel; other destinations refuse them"
}
dd_options_body()
{
	require_rump
	mkffs ffs.img 128m 4000
	head -c 1000000 /dev/urandom >src
	# NetBSD's own words for an option it dropped: -O reached the mount.
	atf_check -s exit:2 -e match:"NetBSD says .*softdep" "$ubc" dd \
	    -O softdep if=src of=ffs:ffs.img
	atf_check -s exit:2 -e match:"no NetBSD rump kernel in '/nonexistent'" \
	    "$ubc" dd --rump /nonexistent if=src of=ffs:ffs.img
	atf_check -s exit:0 -o ignore -e ignore "$ubc" dd -O log \
	    --rump-mem 256m -o r.json if=src of=ffs:ffs.img bs=64k
	[ "$(json r.json "d['netbsd']['mount_options']")" = log ] ||
	    atf_fail "the result does not say -O log"
	for o in "-O log" "--rump $rump" "--rump-mem 256m"; do
		atf_check -s exit:2 -e match:"is for of=ffs:IMAGE" "$ubc" dd \
		    $o if=src of=/dev/null
		atf_check -s exit:2 -e match:"is for of=ffs:IMAGE" "$ubc" \
		    sweep --bs 4k --size 64k $o if=src
	done
	atf_check -s exit:2 -e match:"less than 64m" "$ubc" dd \
	    --rump-mem 1m if=src of=ffs:ffs.img
	no_kernels
}

atf_test_case iostats
iostats_head()
{
	atf_set descr "NetBSD's hw.iostats over the job equals the exact view, and -p interval reads it"
}
iostats_body()
{
	require_rump
	mkffs ffs.img 256m 40000
	atf_check -s exit:0 -o save:out -e ignore "$ubc" -n 2 -o r.json "$small" ffs:ffs.img
	# Phase by phase: the transfers the exact view saw, and hw.iostats.
	json r.json "'\\n'.join('%s %s exact %d %d %d %d iostats %d %d %d %d' % (r['run'], p['phase'], dv['read']['ops'], dv['read']['bytes'], dv['write']['ops'], dv['write']['bytes'], dv['diskstats']['read_ops'], dv['diskstats']['read_bytes'], dv['diskstats']['write_ops'], dv['diskstats']['write_bytes']) for r in d['runs'] for p in r['phases'] for dv in p['devices'])" >phases
	cat phases
	[ "$(wc -l <phases)" -eq 6 ] || atf_fail "not 6 phases"
	awk '$3 != "exact" || $4 != $9 || $5 != $10 || $6 != $11 || $7 != $12 { exit 1 }' phases ||
	    atf_fail "hw.iostats differs from the exact view in a phase"
	grep -q 'hw.iostats: [0-9]* write ops = ' out || atf_fail "the report does not reconcile with hw.iostats"
	atf_check -s exit:0 -o save:out -e ignore "$ubc" -p interval -n 2 -o i.json "$small" ffs:ffs.img
	grep -q 'interval means' out || atf_fail "no interval means in the report"
	json i.json "d['probe']['name']" | grep -qx iostat || atf_fail "not the iostat probe"
	w=$(json i.json "sum(p['devices'][0]['write']['ops'] for r in d['runs'] for p in r['phases'])")
	[ "$w" -gt 0 ] || atf_fail "hw.iostats saw no writes"
}

atf_test_case log_clusters
log_clusters_head()
{
	atf_set descr "WAPBL (-O log) sends larger writes during the extraction than plain FFS, and async fewer"
}
log_clusters_body()
{
	require_rump
	for m in plain log async; do
		mkffs $m.img 256m 40000
		o=
		[ $m = plain ] || o="-O $m"
		atf_check -s exit:0 -o ignore -e ignore "$ubc" -q $o -o $m.json "$small" ffs:$m.img
	done
	ext="d['runs'][0]['phases'][0]['devices'][0]['write']"
	p=$(json plain.json "$ext['mean_bytes']") l=$(json log.json "$ext['mean_bytes']")
	pn=$(json plain.json "$ext['ops']") an=$(json async.json "$ext['ops']")
	echo "extract: plain $pn writes of $p bytes; log $l bytes; async $an writes"
	[ "$l" -gt "$p" ] || atf_fail "log's mean write $l is not larger than plain's $p"
	[ "$an" -lt "$pn" ] || atf_fail "async made $an writes, plain $pn"
}

atf_test_case softdep
softdep_head()
{
	atf_set descr "-O softdep is refused before anything runs, in NetBSD's words"
}
softdep_body()
{
	require_rump
	mkffs ffs.img 64m
	ffs_bad 2 "consider \`-o log'" -O softdep "$small" ffs:ffs.img
	ffs_bad 2 "not a NetBSD FFS mount option" -O noexist "$small" ffs:ffs.img
}

atf_test_case bad_images
bad_images_head()
{
	atf_set descr "an image NetBSD cannot mount, a missing one, missing libraries: exit 2, nothing written"
}
bad_images_body()
{
	require_rump
	truncate -s 64m zeros.img
	ffs_bad 2 "image '.*zeros.img': NetBSD cannot mount it as FFS" "$small" ffs:zeros.img
	ffs_bad 2 "image 'none.img': No such file" "$small" ffs:none.img
	mkffs ffs.img 64m
	ffs_bad 2 "make rump" --rump "$PWD/nolibs" "$small" ffs:ffs.img
	ffs_bad 2 "a command workload cannot run on a NetBSD FFS target" ffs:ffs.img -- true
	ffs_bad 2 "is for an ffs:IMAGE target" -O log "$small" .
}

atf_test_case full
full_head()
{
	atf_set descr "an image too small for the archive: the run fails with ENOSPC, naming the entry"
}
full_body()
{
	require_rump
	mkffs small.img 3m 500
	ffs_bad 1 "cannot write '.*': No space left on device" "$small" ffs:small.img
}

atf_test_case long_name
long_name_head()
{
	atf_set descr "a name over FFS's 255 bytes: the run fails, naming the entry"
}
long_name_body()
{
	require_rump
	mkffs ffs.img 64m
	/usr/bin/python3 -c "
import io, tarfile
with tarfile.open('long.tar', 'w') as t:
    i = tarfile.TarInfo('d/' + 'x' * 256); i.size = 3
    t.addfile(i, io.BytesIO(b'abc'))"
	ffs_bad 1 "refused entry 'd/xxxx.*File name too long" long.tar ffs:ffs.img
}

atf_test_case trace
trace_head()
{
	atf_set descr "a command recorded on the host (ubcreplay record) replays into NetBSD's FFS with the host replay's write() calls"
}
trace_body()
{
	require_rump
	mkffs ffs.img 256m 40000
	mkdir src host
	tar -xzf "$small" -C src || atf_fail "cannot unpack the archive"
	(cd src && "$ubc" record -q -o ../t.trace -- sh -c \
	    'cp -r * ../copy && tar cf all.tar ../copy && rm -rf ../copy all.tar && sync') ||
	    atf_fail "record failed"
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -p none -o host.json t.trace host
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 2 -o ffs.json t.trace ffs:ffs.img
	a=$(app ffs.json) h=$(app host.json)
	[ "$a" = "$h" ] || atf_fail "NetBSD's write() layer differs: $a; the host's: $h"
	case $a in "(0,"*) atf_fail "no write() calls: $a" ;; esac
	w=$(json ffs.json "d['runs'][1]['phases'][0]['devices'][0]['write']['ops']")
	echo "replay: $a; NetBSD's disk writes in run 2's replay: $w"
	[ "$w" -gt 0 ] || atf_fail "the disk saw no writes"
	json ffs.json "d['kind']" | grep -qx trace || atf_fail "not a trace result"
}

atf_test_case hostile
hostile_head()
{
	atf_set descr "hostile archives (tests/mkhostile.py) are refused or contained in NetBSD's FFS as on the host"
	atf_set timeout 600
}
hostile_body()
{
	require_rump
	require_prog /usr/bin/python3
	mkffs h.img 128m 8000
	mkdir host outside
	/usr/bin/python3 "$top/tests/mkhostile.py" arch "$PWD/outside" dotdot \
	    absolute symlink hardlink device fifo setid duplicate ctrlname \
	    >/dev/null || atf_fail "mkhostile.py failed"
	n=0 bad=
	for a in arch/*.tar; do
		rm -rf host/* host/.[!.]* 2>/dev/null
		"$ubc" -q -p none "$a" host >/dev/null 2>h.err
		hr=$?
		"$ubc" -q "$a" ffs:h.img >/dev/null 2>f.err
		fr=$?
		n=$((n + 1))
		[ "$hr" = "$fr" ] || bad="$bad $a (host $hr, ffs $fr: $(cat f.err))"
	done
	echo "hostile: $n archives, each the same verdict on the host and in FFS"
	[ -z "$bad" ] || atf_fail "verdicts differ:$bad"
	[ -z "$(ls -A outside)" ] || atf_fail "written outside: $(ls -A outside)"
	no_kernels
}

atf_test_case signals
signals_head()
{
	atf_set descr "INT, TERM, HUP at seeded moments of an FFS job: a whole result or none, no kernel left running"
	atf_set timeout 600
}
signals_body()
{
	require_rump
	mkffs ffs.img 256m 40000
	# By its whole path: other tests' jobs are not this one's.
	img=$PWD/ffs.img
	t0=$(date +%s%N)
	"$ubc" -q -n 2 -o r.json "$small" ffs:$img 2>err || atf_fail "the job fails: $(cat err)"
	span=$((($(date +%s%N) - t0) / 1000000))
	rm -f r.json
	i=0 signalled=0 bad=
	while [ $i -lt 20 ]; do
		i=$((i + 1))
		set -- INT TERM HUP
		shift $((i % 3))
		sig=$1
		ms=$(((i * 7919) % span))
		env --default-signal=INT setsid "$ubc" -q -n 2 -o r.json "$small" \
		    ffs:$img >/dev/null 2>err &
		pid=$!
		sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
		if [ $((i % 2)) -eq 0 ]; then kill -"$sig" -- -"$pid" 2>/dev/null
		else kill -"$sig" "$pid" 2>/dev/null; fi
		wait "$pid"
		rc=$?
		case $rc in
		0) json r.json "len(d['runs'])" | grep -qx 2 ||
		       bad="$bad run $i ($sig at $ms ms): an incomplete result;" ;;
		129|130|143) signalled=$((signalled + 1))
		       [ ! -e r.json ] || bad="$bad run $i ($sig at $ms ms): a result after the signal;" ;;
		*) bad="$bad run $i ($sig at $ms ms): exit $rc: $(cat err);" ;;
		esac
		sleep 0.2
		left=$(ubc_here)
		if [ -n "$left" ]; then
			kill -9 $left 2>/dev/null
			bad="$bad run $i ($sig at $ms ms): a process left;"
		fi
		ls r.json?* .r.json* 2>/dev/null | grep -q . && bad="$bad run $i: a temporary file left;"
		rm -f r.json
	done
	echo "signals ffs: 20 runs over $span ms, $signalled signalled"
	[ -z "$bad" ] || atf_fail "$bad"
	[ -z "$(ls core* 2>/dev/null)" ] || atf_fail "a core file was left"
	# The image is still one NetBSD mounts, and the job runs on it.
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q "$small" ffs:$img
}

atf_test_case panic
panic_head()
{
	atf_set descr "a NetBSD panic in the trial mount refuses the image before any run, said as the kernel said it"
}
panic_body()
{
	require_rump
	# Its panic once came in each run; the trial's files meet it now.
	# ffs_hostile_test:signal_run has a kernel die in a run.
	xz -dc "$top/fixtures/netbsd_test/dup_alloc.img.xz" >p.img
	ffs_bad 2 "image '.*p.img': the trial mount before the first run failed: the NetBSD kernel panicked: ffs_newvnode: dup alloc" \
	    -n 2 "$small" ffs:p.img
	[ -z "$(ls core* 2>/dev/null)" ] || atf_fail "a core file was left"
}

atf_init_test_cases()
{
	atf_add_test_case trace
	atf_add_test_case hostile
	atf_add_test_case signals
	atf_add_test_case panic
	atf_add_test_case app_layer
	atf_add_test_case exact_strace
	atf_add_test_case dd_strace
	atf_add_test_case dd_sweep
	atf_add_test_case dd_options
	atf_add_test_case iostats
	atf_add_test_case log_clusters
	atf_add_test_case softdep
	atf_add_test_case bad_images
	atf_add_test_case full
	atf_add_test_case long_name
}
