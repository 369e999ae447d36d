#! /usr/bin/env atf-sh
# nfs_ack_test.sh - a server that acknowledges less than each WRITE asks
# (and returns less than each READ asks): the NFS analysis must follow what
# the server acknowledged. nfs-ganesha with a small MaxWrite and MaxRead
# under an export that offers large ones, and a libnfs client that sends the
# rest of each short call again (fixtures/nfs_ack_test, made by record.sh
# there). ubcreplay's acknowledged bytes, short replies, sequential calls
# and bytes between COMMITs must equal what tests/nfs_ack.py works out from
# TShark's reading of the same capture (with its reassembly of segments
# recorded out of order), and differ from what the requests alone would
# give. On a capture recorded now, what the client moved is the ground
# truth that judges both.

. "$(atf_get_srcdir)/../../tests/lib.sh"

fx=$top/fixtures/nfs_ack_test

# check PCAP [WRITTEN READ]: ubcreplay's result on PCAP against tshark's
# reading of it; against the bytes the client wrote and read when known.
check()
{
	atf_check -o save:out "$ubc" nfs -f 'port 20490' -o r.json -r "$1"
	atf_check -o save:pdml -e ignore tshark -r "$1" \
	    -o tcp.try_heuristic_first:TRUE \
	    -o tcp.reassemble_out_of_order:TRUE -d tcp.port==20490,rpc -T pdml
	shift
	atf_check -o save:figures python3 "$top/tests/nfs_ack.py" r.json pdml "$@"
	cat figures
	# The text report says it too, and says it again from the JSON.
	atf_check -o match:'WRITE: [0-9]+ calls, .* [0-9]+ short \(acknowledged less than asked\)' cat out
	atf_check -o match:'as its reply said: [1-9]' cat out
	atf_check -o match:'WRITEs counted as acknowledged' cat out
	atf_check -o save:again "$ubc" report r.json
	atf_check cmp out again
}

atf_test_case fixture_v3
fixture_v3_head()
{
	atf_set descr "NFSv3 short WRITEs and READs retried by libnfs: ubcreplay == tshark"
}
fixture_v3_body()
{
	require_prog tshark
	require_prog python3
	check "$fx/v3.pcap"
}

atf_test_case fixture_v3_reordered
fixture_v3_reordered_head()
{
	atf_set descr "the same capture with a segment recorded out of order, as tcpdump records them on lo: ubcreplay == tshark"
}
fixture_v3_reordered_body()
{
	require_prog tshark
	require_prog python3
	atf_check -o match:'^[1-9][0-9]* segments? swapped' \
	    python3 "$top/tests/pcap_reorder.py" "$fx/v3.pcap" reordered.pcap 20490
	check reordered.pcap
}

atf_test_case live_v3 cleanup
live_v3_head()
{
	atf_set descr "record.sh against nfs-ganesha now: ubcreplay == tshark"
	atf_set timeout 300
}
live_v3_body()
{
	require_root "starts rpcbind and nfs-ganesha in a network namespace"
	for p in ganesha.nfsd rpcbind tcpdump tshark python3 cc unshare ss; do
		require_prog $p
	done
	[ -n "$(find /usr/lib -name libfsalvfs.so 2>/dev/null)" ] ||
	    atf_skip "needs nfs-ganesha-vfs (contrib/deps.sh test installs it)"
	[ -f /usr/include/nfsc/libnfs.h ] ||
	    atf_skip "needs libnfs-dev (contrib/deps.sh test installs it)"
	"$fx/record.sh" "$PWD/rec" 3 >record.out 2>&1 || {
		cat record.out rec/ganesha.log 2>/dev/null
		atf_fail "record.sh failed"
	}
	# The client wrote a and b whole and read a back whole (it checks
	# every byte, and record.sh fails when it does not).
	a=$(wc -c <rec/exp/sub/a) b=$(wc -c <rec/exp/sub/b)
	check rec/v3.pcap $((a + b)) "$a"
}
live_v3_cleanup()
{
	[ -f rec/pids ] || return 0
	for pid in $(cat rec/pids); do
		kill "$pid" 2>/dev/null || :
	done
}

atf_init_test_cases()
{
	atf_add_test_case fixture_v3
	atf_add_test_case fixture_v3_reordered
	atf_add_test_case live_v3
}
