#! /usr/bin/env atf-sh
# nfs_readplus_test.sh - NFSv4.2: a Linux 6.12 client reading from knfsd
# with READ_PLUS (fixtures/nfs_readplus_test, recorded in a guest by
# record.sh there). ubcreplay's READ calls, bytes asked and bytes returned,
# per call and in sum, must equal what tests/nfs_readplus.py reads from
# TShark's dissection of the same capture.

. "$(atf_get_srcdir)/../../tests/lib.sh"

atf_test_case read_plus
read_plus_head()
{
	atf_set descr "NFSv4.2 READ_PLUS from knfsd: reads equal tshark's"
}
read_plus_body()
{
	require_prog tshark
	require_prog python3
	pcap=$top/fixtures/nfs_readplus_test/readplus.pcap
	atf_check -o save:calls.csv "$ubc" nfs --calls -r "$pcap"
	atf_check -o ignore "$ubc" nfs -q -o r.json -r "$pcap"
	atf_check -o save:fields -e ignore tshark -r "$pcap" -Y nfs \
	    -T fields -e frame.number -e rpc.xid -e rpc.msgtyp \
	    -e nfs.opcode -e nfs.offset4 -e nfs.count4 \
	    -e nfs.read.data_length -e nfs.content.type -E occurrence=a
	atf_check -o save:figures python3 "$top/tests/nfs_readplus.py" \
	    fields calls.csv r.json
	cat figures
}

atf_init_test_cases()
{
	atf_add_test_case read_plus
}
