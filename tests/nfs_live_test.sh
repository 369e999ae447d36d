#! /usr/bin/env atf-sh
# nfs_live_test.sh - live capture against a real NFS server: nfs-ganesha
# (FSAL VFS) and rpcbind on 127.0.0.1, nfs-cp from libnfs-utils writing and
# reading files over NFSv3, `ubcreplay nfs -I lo` capturing while tcpdump
# writes a pcap of the same traffic. The live result must equal the offline
# result on that pcap, and both must equal what is known without any
# capture: the bytes nfs-cp wrote and read back (the files' sizes, checked
# by cmp). tshark, with its reassembly of out-of-order segments, is a third
# reading: where its bytes equal the known ones its call counts must equal
# ours; where they do not, tshark misread the capture (a segment tcpdump
# recorded out of order on lo has made it lose a call), and the test says
# so instead of blaming the tool.
# Every process started here is stopped by its pid, even on failure.

atf_test_case ganesha_v3 cleanup
ganesha_v3_head() {
	atf_set descr "ubcreplay nfs -I lo == -r tcpdump's pcap == the bytes nfs-cp moved; tshark where it read them whole; a reordered copy reads the same"
	atf_set require.user root
	atf_set timeout 300
}

# Waits up to 20 s for something to listen on TCP port $1 of 127.0.0.1.
wait_port() {
	i=0
	while ! ss -ltn "sport = :$1" | grep -q LISTEN; do
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.2
	done
}

stop_pid() {
	[ -f "$1" ] || return 0
	pid=$(cat "$1")
	kill "$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 "$pid" 2>/dev/null
	rm -f "$1"
}

ganesha_v3_body() {
	. "$(atf_get_srcdir)/../../tests/lib.sh"
	lock_lo
	top=$(atf_config_get top "$(atf_get_srcdir)/../..")
	for c in ganesha.nfsd rpcbind nfs-cp tcpdump tshark python3 ss; do
		command -v $c >/dev/null || atf_skip "$c is not installed"
	done
	[ -f /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so ] ||
	    [ -n "$(find /usr/lib -name libfsalvfs.so 2>/dev/null)" ] ||
	    atf_skip "nfs-ganesha-vfs is not installed"
	ss -ltn 'sport = :2049' | grep -q LISTEN &&
	    atf_skip "port 2049 is taken by another NFS server"
	dir=$(pwd)
	mkdir -p export recov
	sed -e "s|/srv/nfs/export32k|$dir/export|;s|/srv/nfs/export|$dir/export|" \
	    -e "s|/srv/nfs/recov|$dir/recov|" \
	    "$top/fixtures/nfs_live_test/ganesha.conf" >ganesha.conf
	if ! ss -ltn 'sport = :111' | grep -q LISTEN; then
		rpcbind -f -w &
		echo $! >rpcbind.pid
		wait_port 111 || atf_fail "rpcbind did not start"
	fi
	ganesha.nfsd -F -f ganesha.conf -L "$dir/ganesha.log" \
	    -p "$dir/ganesha.nfsd.pid" &
	echo $! >ganesha.pid
	wait_port 2049 || { cat ganesha.log; atf_fail "ganesha did not start"; }

	head -c 3000000 /dev/urandom >big
	head -c 70000 /dev/urandom >small
	tcpdump -i lo -s 0 -B 131072 -U --time-stamp-precision=nano -w live.pcap \
	    'port 2049' 2>tcpdump.err &
	echo $! >tcpdump.pid
	"$top/ubcreplay" nfs -I lo -t 25 -q -o live.json 2>ubc.err &
	echo $! >ubc.pid
	i=0
	until grep -q listening tcpdump.err; do
		i=$((i + 1)); [ $i -gt 50 ] && atf_fail "tcpdump did not start"
		sleep 0.2
	done
	sleep 2
	url="nfs://127.0.0.1$dir/export"
	for f in big small; do
		atf_check -o ignore nfs-cp "$f" "$url/$f?version=3"
		atf_check -o ignore nfs-cp "$url/$f?version=3" "back.$f"
		atf_check cmp "$f" "back.$f"
	done
	# ubcreplay stops by itself after -t; then tcpdump, with everything.
	pid=$(cat ubc.pid)
	wait "$pid"
	rc=$?
	[ $rc -eq 0 ] || { cat ubc.err; atf_fail "ubcreplay nfs -I lo failed (exit $rc)"; }
	rm -f ubc.pid
	sleep 1
	stop_pid tcpdump.pid
	cat tcpdump.err
	atf_check -o ignore "$top/ubcreplay" nfs -q -r live.pcap -o offline.json
	atf_check -o save:tshark.txt -e ignore tshark -r live.pcap \
	    -o tcp.try_heuristic_first:TRUE \
	    -o tcp.reassemble_out_of_order:TRUE -Y nfs -T fields \
	    -e rpc.msgtyp -e nfs.procedure_v3 -e nfs.count3 -e nfs.status
	known=$(($(wc -c <big) + $(wc -c <small)))
	python3 - live.json offline.json tshark.txt "$known" <<'PY' ||
import json, sys
live = json.load(open(sys.argv[1]))["runs"][0]["nfs"]
off = json.load(open(sys.argv[2]))["runs"][0]["nfs"]
known = int(sys.argv[4])
bad = []
# The two captures stamp each packet on their own: a latency on a bucket's
# edge may fall either side. The latency histograms must hold the same
# number of calls; everything else must be equal.
def same_shape(o):
    if isinstance(o, dict):
        return {k: (sum(b["count"] for b in v["buckets"])
                    if k == "latency_hist" else same_shape(v))
                for k, v in o.items()}
    return o
live, off = same_shape(live), same_shape(off)
for k in live:
    if k != "loss" and live[k] != off[k]:
        bad.append("live %s %r != offline %r" % (k, live[k], off[k]))
for k in live["loss"]:
    if k not in ("pcap_drops", "pcap_ifdrops") and \
            live["loss"][k] != off["loss"][k]:
        bad.append("loss %s: live %r offline %r" %
                   (k, live["loss"][k], off["loss"][k]))
if live["loss"]["pcap_drops"]:
    bad.append("the live capture dropped packets")
# tshark: calls (msgtyp 0) and replies (1) of WRITE (7), READ (6), COMMIT
t = {"calls": {}, "bytes": {}, "done": {}}
for line in open(sys.argv[3]):
    f = (line.rstrip("\n").split("\t") + ["", "", "", ""])[:4]
    typ, proc, count = f[0], f[1], f[2].split(",")[0]
    if proc not in ("6", "7", "21"):
        continue
    if typ == "0":
        t["calls"][proc] = t["calls"].get(proc, 0) + 1
        if proc != "21":
            t["bytes"][proc] = t["bytes"].get(proc, 0) + int(count or 0)
    elif typ == "1" and proc != "21" and count:
        t["done"][proc] = t["done"].get(proc, 0) + int(count)
# The ground truth: nfs-cp wrote both files whole and read them back
# whole (cmp said so), so the server acknowledged and returned exactly
# their sizes, and the client asked to write exactly that.
for name, ours in (("write bytes asked", off["write"]["bytes_requested"]),
                   ("write bytes acknowledged", off["write"]["bytes_done"]),
                   ("read bytes returned", off["read"]["bytes_done"])):
    print("%s: ubcreplay %d, nfs-cp moved %d" % (name, ours, known))
    if ours != known:
        bad.append("%s: ubcreplay %d, but nfs-cp moved %d" %
                   (name, ours, known))
want = [("write calls", off["write"]["calls"], t["calls"].get("7", 0)),
        ("read calls", off["read"]["calls"], t["calls"].get("6", 0)),
        ("commit calls", off["commit"]["calls"], t["calls"].get("21", 0)),
        ("write bytes", off["write"]["bytes_requested"], t["bytes"].get("7", 0)),
        ("write acked", off["write"]["bytes_done"], t["done"].get("7", 0)),
        ("read bytes", off["read"]["bytes_requested"], t["bytes"].get("6", 0)),
        ("read returned", off["read"]["bytes_done"], t["done"].get("6", 0))]
# tshark is an oracle only where it read the capture whole.
tshark_known = (t["bytes"].get("7", 0), t["done"].get("7", 0),
                t["done"].get("6", 0))
if tshark_known != (known, known, known):
    print("tshark misread this capture: it read %d bytes asked to write, "
          "%d acknowledged and %d read, where nfs-cp moved %d each; its "
          "counts are not compared (ubcreplay's are checked against the "
          "files above)" % (tshark_known + (known,)))
else:
    for name, ours, theirs in want:
        print("%s: ubcreplay %d tshark %d" % (name, ours, theirs))
        if ours != theirs:
            bad.append("%s: ubcreplay %d, tshark %d" % (name, ours, theirs))
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	    atf_fail "ubcreplay's reading differs (above)"

	# The same capture with segments recorded out of order, as tcpdump
	# sometimes records them on lo (this is what once made tshark
	# misread a run): ubcreplay must read the same calls and bytes.
	atf_check -o match:'^[1-9][0-9]* segments swapped' \
	    python3 "$top/tests/pcap_reorder.py" live.pcap reordered.pcap 2049
	atf_check -o ignore "$top/ubcreplay" nfs -q -r reordered.pcap \
	    -o reordered.json
	python3 - offline.json reordered.json <<'PY' ||
import json, sys
a = json.load(open(sys.argv[1]))["runs"][0]["nfs"]
b = json.load(open(sys.argv[2]))["runs"][0]["nfs"]
bad = []
if not b["loss"]["out_of_order_segments"]:
    bad.append("no segment was seen out of order")
# Time stamps stay in place while packets trade places: latencies move,
# the calls and their sizes do not.
for op in ("read", "write", "commit"):
    for k, v in a[op].items():
        if k != "latency_hist" and b[op][k] != v:
            bad.append("%s %s: in order %r, reordered %r" % (op, k, v, b[op][k]))
for k in ("rpc_calls", "rpc_replies", "ops", "stable", "committed"):
    if a[k] != b[k]:
        bad.append("%s: in order %r, reordered %r" % (k, a[k], b[k]))
for k in ("calls_without_reply", "replies_without_call", "bytes_skipped",
          "resyncs", "malformed", "truncated"):
    if b["loss"][k] != a["loss"][k]:
        bad.append("loss %s: in order %r, reordered %r" %
                   (k, a["loss"][k], b["loss"][k]))
for x in bad:
    print(x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	    atf_fail "the reordered capture reads differently (above)"
}

ganesha_v3_cleanup() {
	for p in ubc tcpdump ganesha rpcbind; do
		stop_pid $p.pid
	done
}

atf_init_test_cases() {
	atf_add_test_case ganesha_v3
}
