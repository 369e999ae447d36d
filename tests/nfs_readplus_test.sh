#! /usr/bin/env atf-sh
# nfs_readplus_test.sh - NFSv4.2: a Linux 6.12 client reading with
# READ_PLUS (fixtures/nfs_readplus_test, recorded in a guest by record.sh
# there), from knfsd and from nfs-ganesha. ubcreplay's READ calls, bytes
# asked and bytes returned, per call and in sum, must equal what
# tests/nfs_readplus.py reads from TShark's dissection of the same capture.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# check PCAP FILTER [TSHARK_OPTION...]
check()
{
	require_prog tshark
	require_prog python3
	pcap=$top/fixtures/nfs_readplus_test/$1 filter=$2
	shift 2
	atf_check -o save:calls.csv "$ubc" nfs -f "$filter" --calls -r "$pcap"
	atf_check -o ignore "$ubc" nfs -f "$filter" -q -o r.json -r "$pcap"
	atf_check -o save:fields -e ignore tshark -r "$pcap" "$@" -Y nfs \
	    -T fields -e frame.number -e rpc.xid -e rpc.msgtyp \
	    -e nfs.opcode -e nfs.offset4 -e nfs.count4 \
	    -e nfs.read.data_length -e nfs.content.type -E occurrence=a
	atf_check -o save:figures python3 "$top/tests/nfs_readplus.py" \
	    fields calls.csv r.json
	cat figures
}

atf_test_case knfsd
knfsd_head()
{
	atf_set descr "NFSv4.2 READ_PLUS from knfsd: reads equal tshark's"
}
knfsd_body()
{
	check readplus.pcap 'port 2049'
}

atf_test_case ganesha
ganesha_head()
{
	atf_set descr "NFSv4.2 READ_PLUS from nfs-ganesha 4.3, empty: reads equal tshark's"
}
ganesha_body()
{
	# ganesha listened on a port of the cell's own.
	check readplus-ganesha.pcap 'tcp port 36613' -d tcp.port==36613,rpc
	# It returned no byte of the 40,960 and 98,304 asked.
	atf_check -o match:'^bytes_done: tshark 0 ubcreplay 0$' cat figures
}

atf_init_test_cases()
{
	atf_add_test_case knfsd
	atf_add_test_case ganesha
}
