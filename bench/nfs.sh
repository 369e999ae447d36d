#!/bin/sh
# nfs.sh - decode throughput of `ubcreplay nfs -r` on the largest shared
# capture, against `tshark -r FILE -T fields` reading the same fields
# (goal: 50 times faster) and against a bare libpcap read loop over the same
# file (bench/pcap_loop.c, the ceiling; goal: at least half its speed).
# The capture (5.9 MB) is too small to time a decoder apart from process
# start-up, so it is repeated REPEAT times (default 10) into one file, each
# copy a fresh set of TCP connections (SYN to RST) as in the original; the
# file is warm in the page cache. Each tool reads it once; the best of RUNS
# (default 3). Prints MB/s and both ratios.
set -eu
top=$1
runs=${RUNS:-3}
repeat=${REPEAT:-10}
ubc=$top/ubcreplay
orig=$top/fixtures/nfs_oracle_test/v3_small200.full.pcap
command -v tshark >/dev/null || { echo "nfs bench: tshark is not installed; skipped"; exit 0; }
work=$(mktemp -d /tmp/ubcreplay-nfsbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

cc -O2 -o "$work/pcap_loop" "$top/bench/pcap_loop.c" $(pkg-config --cflags --libs libpcap)
pcap=$work/repeated.pcap
# The 24-byte file header once, then the packet records repeat times.
head -c 24 "$orig" >"$pcap"
i=0
while [ "$i" -lt "$repeat" ]; do
	tail -c +25 "$orig" >>"$pcap"
	i=$((i + 1))
done
cat "$pcap" >/dev/null
size=$(wc -c <"$pcap")

# seconds N CMD...: the best wall time of N runs of CMD, in seconds.
seconds()
{
	n=$1
	shift
	i=0
	while [ "$i" -lt "$n" ]; do
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || { echo "nfs bench: $* failed" >&2; exit 1; }
		t1=$(date +%s.%N)
		echo "$t0 $t1" | awk '{printf "%.4f\n", $2 - $1}'
		i=$((i + 1))
	done | sort -n | head -1
}

# The same filter for both, so both read every packet of the file.
t_ubc=$(seconds "$runs" "$ubc" nfs -q -f 'ip or ip6' -r "$pcap" -o "$work/r.json")
t_loop=$(seconds "$runs" "$work/pcap_loop" "$pcap")
t_tshark=$(seconds 1 tshark -r "$pcap" -o tcp.try_heuristic_first:TRUE \
    -T fields -e frame.number -e rpc.xid -e rpc.msgtyp -e nfs.procedure_v3 \
    -e nfs.offset3 -e nfs.count3 -e nfs.write.stable -e nfs.status -e tcp.srcport)

echo "$size $runs $t_ubc $t_loop $t_tshark" | awk '{
	mb = $1 / 1e6
	ubc = $3; loop = $4; tsh = $5
	printf "capture %s repeated %d times: %.1f MB\n", "'"$(basename "$orig")"'", '"$repeat"', mb
	printf "  %-28s %8.4f s %9.1f MB/s\n", "ubcreplay nfs -r", ubc, mb / ubc
	printf "  %-28s %8.4f s %9.1f MB/s\n", "bare libpcap loop", loop, mb / loop
	printf "  %-28s %8.4f s %9.1f MB/s\n", "tshark -T fields", tsh, mb / tsh
	printf "ubcreplay is %.0f times as fast as tshark (goal 50)\n", tsh / ubc
	printf "ubcreplay runs at %.2f of the bare libpcap loop'"'"'s speed (goal 0.5)\n", loop / ubc
}'
