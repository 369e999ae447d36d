#! /usr/bin/env atf-sh
# ddcmd_test.sh - `ubcreplay dd`, `sweep` and `matrix` against independent
# instruments: dd itself (cmp of what each copied), the kernel's diskstats
# read by the test around the run, chronyd on loopback for lossage. Loop
# devices and chronyd need root; without it those cases skip and say so.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# Makes a loop device over a file of $2 MiB of random bytes; its name is
# kept in the file named $1, where the cleanup and the case read it (not
# printed: a skip in a command substitution would end the subshell only).
mkloop() {
	dd if=/dev/urandom of="$PWD/$1.img" bs=1M count="$2" 2>/dev/null ||
	    atf_fail "cannot make $1.img"
	losetup -f --show "$PWD/$1.img" >"$1" 2>err ||
	    atf_skip "no loop device: $(cat err)"
}

rmloops() {
	for f in loop1 loop2; do
		[ -s "$f" ] && losetup -d "$(cat "$f")" 2>/dev/null
	done
	return 0
}

# The sectors read and written by device $1 (/dev/loopN), in bytes.
devbytes() {
	awk '{ printf "%.0f %.0f\n", $3 * 512, $7 * 512 }' \
	    "/sys/block/${1#/dev/}/stat"
}

# Sums a direction's bytes for device $2 over every phase of result $1,
# and what lay between the runs.
jsonbytes() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
dev, way = sys.argv[2], sys.argv[3]
n = sum(d[way]["bytes"] for r in doc["runs"] for p in r["phases"]
        for d in p["devices"] if d["device"] == dev)
n += sum(d[way]["bytes"] for d in doc.get("between_runs", {}).get(
        "devices", []) if d["device"] == dev)
print(n)
EOF
}

atf_test_case copy_matches_dd cleanup
copy_matches_dd_head() {
	atf_set "descr" "ubcreplay dd copies what dd copies, and its device" \
	    "bytes agree with the device's diskstats"
	atf_set "require.progs" "python3 cmp dd"
}
copy_matches_dd_body() {
	require_root "loop devices"
	mkloop loop1 16
	src=$(cat loop1)
	mkloop loop2 16
	dst=$(cat loop2)
	name=${src#/dev/}

	# Buffered, with skip, into a fresh file.
	atf_check -s exit:0 -o ignore -e ignore "$ubc" dd -q if="$src" \
	    of=a bs=64k count=100 skip=3
	dd if="$src" of=b bs=64k count=100 skip=3 2>/dev/null
	atf_check cmp a b

	# With seek, into a file that has data before and after.
	head -c 3000000 /dev/urandom >c
	cp c d
	atf_check -s exit:0 -o ignore -e ignore "$ubc" dd -q if="$src" of=c \
	    bs=4k count=33 seek=7
	dd if="$src" of=d bs=4k count=33 seek=7 2>/dev/null
	atf_check cmp c d

	# Odd sizes: a partial last record, dd's closing lines alike.
	atf_check -s exit:0 -o ignore -e save:ubc.err "$ubc" dd if=c of=e bs=1000
	dd if=c of=f bs=1000 2>dd.err
	atf_check cmp e f
	atf_check -o save:ubc.rec head -2 ubc.err
	atf_check -o save:dd.rec head -2 dd.err
	atf_check cmp ubc.rec dd.rec

	# Direct reads: the device reads exactly what was asked, and what the
	# result says it read is what diskstats says, counted by the test.
	set -- $(devbytes "$src")
	before=$1
	atf_check -s exit:0 -o ignore -e ignore "$ubc" dd -q -o r.json \
	    if="$src" of=/dev/null bs=64k count=50 iflag=direct
	set -- $(devbytes "$src")
	delta=$(($1 - before))
	atf_check_equal "$delta" $((50 * 65536))
	got=$(jsonbytes r.json "$name" read)
	atf_check_equal "$got" "$delta"

	# Writes to a device, buffered: the sync phase brings them out.
	set -- $(devbytes "$dst")
	before=$2
	atf_check -s exit:0 -o ignore -e ignore "$ubc" dd -q -o w.json \
	    if=/dev/zero of="$dst" bs=64k count=64
	set -- $(devbytes "$dst")
	delta=$(($2 - before))
	[ "$delta" -ge $((64 * 65536)) ] ||
	    atf_fail "diskstats: $delta bytes written, fewer than copied"
	got=$(jsonbytes w.json "${dst#/dev/}" write)
	atf_check_equal "$got" "$delta"
	cmp -n $((64 * 65536)) "$dst" /dev/zero ||
	    atf_fail "the device does not hold what was written"
}
copy_matches_dd_cleanup() {
	rmloops
}

atf_test_case direct_sweep cleanup
direct_sweep_head() {
	atf_set "descr" "a direct sweep sees one device request per block"
	atf_set "require.progs" "python3"
}
direct_sweep_body() {
	require_root "loop devices"
	mkloop loop1 8
	src=$(cat loop1)
	name=${src#/dev/}
	maxkb=$(cat "/sys/block/$name/queue/max_sectors_kb")
	atf_check -s exit:0 -o save:table -e ignore "$ubc" sweep -o s.json \
	    --bs 512,4k,16k,64k --size 4m if="$src" iflag=direct
	python3 - s.json "$name" "$maxkb" <<'EOF' || atf_fail "see stderr"
import json, sys
doc = json.load(open(sys.argv[1]))
dev, maxb = sys.argv[2], int(sys.argv[3]) * 1024
bad = 0
for s in doc["sizes"]:
    bs = s["bs_bytes"]
    if bs > maxb:
        continue
    d = s["summary"]["devices"][dev]["read"]
    want = 4 * 1024 * 1024 // bs
    if d["ops"]["median"] != want or d["mean_bytes"]["median"] != bs:
        print("bs=%d: %d reads of %d bytes, expected %d of %d" % (
            bs, d["ops"]["median"], d["mean_bytes"]["median"], want, bs),
            file=sys.stderr)
        bad = 1
sys.exit(bad)
EOF
	atf_check -o match:'^ +512 ' -o match:'^ +65536 ' cat table
}
direct_sweep_cleanup() {
	rmloops
}

atf_test_case cold_sweep
cold_sweep_head() {
	atf_set "descr" "--cold says how it makes the cache cold"
}
cold_sweep_body() {
	head -c 1048576 /dev/urandom >src
	if [ "$(id -u)" -eq 0 ]; then
		want="dropping the page cache"
	else
		want="direct I/O"
	fi
	atf_check -s exit:0 -o match:"cold" -e match:"$want" \
	    "$ubc" sweep --cold --bs 4k,64k --size 1m if=src
}

# chronyd serving its own clock (-x: it never touches the system clock) as
# a local stratum 10 reference on loopback and a high port.
start_chronyd() {
	require_prog chronyd
	require_root "chronyd binds as root"
	port=$((20000 + $$ % 20000))
	cat >chrony.conf <<EOF
port $port
bindaddress 127.0.0.1
allow 127.0.0.1
local stratum 10
cmdport 0
pidfile $PWD/chronyd.pid
driftfile $PWD/chrony.drift
EOF
	trap 'stop_chronyd' EXIT
	chronyd -x -u root -f "$PWD/chrony.conf" -l "$PWD/chrony.log" ||
	    atf_fail "chronyd did not start: $(cat chrony.log)"
	server=127.0.0.1:$port
}

stop_chronyd() {
	[ -s chronyd.pid ] && kill "$(cat chronyd.pid)" 2>/dev/null
	rm -f chronyd.pid
	return 0
}

atf_test_case lossage_chronyd cleanup
lossage_chronyd_head() {
	atf_set "descr" "lossage against chronyd on loopback is near zero"
	atf_set "require.progs" "python3"
}
lossage_chronyd_body() {
	start_chronyd
	# chronyd answers once it has read its configuration.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$ubc" dd -q -o r.json -n 3 --ntp "$server" if=/dev/zero \
		    of=/dev/null bs=64k count=256 2>err && ! grep -q lossage err &&
		    break
		sleep 0.5
	done
	python3 - r.json <<'EOF' || atf_fail "see stderr"
import json, sys
doc = json.load(open(sys.argv[1]))
bad = 0
for r in doc["runs"]:
    l = r["lossage"]
    if l["status"] != "ok":
        print("run %d: %s" % (r["run"], l["error"]), file=sys.stderr)
        bad = 1
    # chronyd -x serves this very clock: only the noise of two queries.
    elif abs(l["lossage_ns"]) > 5000000:
        print("run %d: lossage %d ns" % (r["run"], l["lossage_ns"]),
              file=sys.stderr)
        bad = 1
    if abs(l["realtime_drift_ns"]) > 5000000:
        print("run %d: drift %d ns" % (r["run"], l["realtime_drift_ns"]),
              file=sys.stderr)
        bad = 1
    if l.get("before", {}).get("stratum") != 10:
        print("run %d: not chronyd's stratum 10" % r["run"],
              file=sys.stderr)
        bad = 1
sys.exit(bad)
EOF
	atf_check -o match:'lossage [+-]0\.00' "$ubc" report r.json
}
lossage_chronyd_cleanup() {
	stop_chronyd
}

atf_test_case ntp_no_answer cleanup
ntp_no_answer_head() {
	atf_set "descr" "a server that never answers times out cleanly; the" \
	    "run still counts"
	atf_set "require.progs" "python3"
}
ntp_no_answer_body() {
	# A UDP socket that is never read, for as long as the test needs.
	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
time.sleep(60)' >port &
	echo $! >silent.pid
	trap 'kill $(cat silent.pid) 2>/dev/null' EXIT
	while [ ! -s port ]; do sleep 0.1; done
	atf_check -s exit:0 -o ignore \
	    -e match:"no answer from NTP server '127.0.0.1:$(cat port)'" \
	    "$ubc" dd -o r.json --ntp "127.0.0.1:$(cat port)" if=/dev/zero \
	    of=/dev/null count=10
	atf_check -o inline:'ok failed\n' python3 -c '
import json
r = json.load(open("r.json"))["runs"][0]
print(r["status"], r["lossage"]["status"])'
}
ntp_no_answer_cleanup() {
	[ -s silent.pid ] && kill "$(cat silent.pid)" 2>/dev/null
	return 0
}

# Runs ubcreplay with bad input $2...; expects exit 1, a message matching
# $1, and neither the result nor the destination written.
refused() {
	msg=$1
	shift
	rm -f r.json out
	atf_check -s exit:1 -o empty -e match:"$msg" "$ubc" "$@" -o r.json
	[ ! -e r.json ] || atf_fail "$*: a result was written"
	[ ! -e out ] || atf_fail "$*: the destination was written"
	[ -z "$(ls r.json.tmp.* 2>/dev/null)" ] ||
	    atf_fail "$*: a temporary result was left"
}

atf_test_case bad_input
bad_input_head() {
	atf_set "descr" "bad input: a clear message, exit 1, nothing written"
}
bad_input_body() {
	mkdir adir
	echo data >src
	refused "unknown operand 'conv=sync'" dd if=src of=out conv=sync
	refused "unknown operand 'bogus'" dd if=src of=out bogus
	refused "invalid block size 'bs=0'" dd if=src of=out bs=0
	refused "too large for memory" dd if=src of=out bs=1000000g
	refused "'bs=12q'.*unknown suffix" dd if=src of=out bs=12q
	refused "cannot open 'nosuch': No such file" dd if=nosuch of=out
	refused "cannot copy from 'adir': is a directory" dd if=adir of=out
	refused "cannot copy to 'adir': is a directory" dd if=src of=adir
	refused "cannot create 'nodir/out'" dd if=src of=nodir/out
	refused "'src' and 'src' are the same file" dd if=src of=src
	refused "invalid block size '0'" sweep --bs 4k,0 if=src of=out
	refused "--bs '4k,,8k': an empty item in the list of block sizes" \
	    sweep --bs 4k,,8k if=src of=out
	refused "--from 'src,': an empty item in the list of files" \
	    matrix --from src, --to out
	refused "cannot open 'nosuch'" sweep --bs 4k if=nosuch of=out
	refused "cannot open 'nosuch'" matrix --from src,nosuch --to out
	refused "cannot copy to 'adir'" matrix --from src --to adir
	if [ "$(id -u)" -ne 0 ]; then
		chmod 000 src
		refused "cannot open 'src': Permission denied" dd if=src of=out
		chmod 644 src
	fi
	# Bad option values are usage errors, as for the tar job.
	atf_check -s exit:2 -e match:"bad NTP server '::1'" "$ubc" dd \
	    --ntp ::1 if=src of=out
	atf_check -s exit:2 -e match:"-n '0' is not a whole number" "$ubc" sweep -n 0 --bs 4k \
	    if=src
	[ ! -e out ] || atf_fail "a usage error wrote the destination"
	atf_check_equal "$(cat src)" data
}

atf_test_case matrix_skips
matrix_skips_head() {
	atf_set "descr" "a matrix runs every sensible pair and skips the rest"
}
matrix_skips_body() {
	head -c 200000 /dev/urandom >a
	atf_check -s exit:0 -o save:table -e ignore "$ubc" matrix \
	    --from /dev/zero,a,/dev/null --to /dev/null,b,a --size 64k
	atf_check -o match:'^DD FROM +TO +XFER TIME +RATE +LOSSAGE' cat table
	atf_check -o match:'^a +a +\(skipped: a file onto itself\)' cat table
	atf_check -o match:'^/dev/null +b +\(skipped: /dev/null reads nothing\)' \
	    cat table
	atf_check -o match:'^/dev/zero +b +[0-9.]+ s' cat table
	# a was overwritten by /dev/zero's 64 KiB; b holds a's copy of that.
	atf_check -s exit:0 cmp -n 65536 b /dev/zero
}

atf_test_case matrix_protects_source cleanup
matrix_protects_source_head() {
	atf_set "descr" "a matrix never copies a file onto the device under it"
}
matrix_protects_source_body() {
	require_root "loop filesystems"
	require_prog mkfs.ext4
	mkloopfs fs 32 ext4
	dev=$loopdev
	head -c 100000 /dev/urandom >fs/f
	sync
	before=$(md5sum <fs.img)
	atf_check -s exit:1 -o empty \
	    -e match:"skipped: fs/f is on /dev/$dev: the copy would overwrite" \
	    "$ubc" matrix --from fs/f --to "/dev/$dev" --size 64k
	sync
	atf_check_equal "$(md5sum <fs.img)" "$before"
}
matrix_protects_source_cleanup() {
	cleanup_loops
}

atf_init_test_cases() {
	atf_add_test_case copy_matches_dd
	atf_add_test_case direct_sweep
	atf_add_test_case cold_sweep
	atf_add_test_case lossage_chronyd
	atf_add_test_case ntp_no_answer
	atf_add_test_case bad_input
	atf_add_test_case matrix_skips
	atf_add_test_case matrix_protects_source
}
