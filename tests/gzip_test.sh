#! /usr/bin/env atf-sh
# gzip_test.sh - captures, traces and results kept gzip-compressed: read by
# their first bytes whatever their names, to the same figures as the plain
# files (TShark, reading the same .gz, counts the same packets); a cut or
# damaged .gz is an error that names the file and leaves nothing; an output
# named .gz is written compressed. The trace written compressed by the
# exact probe itself is tests/exact_test.sh's trace_out_gz.

. "$(atf_get_srcdir)/../../tests/lib.sh"

nfsfx=$top/fixtures/nfs_oracle_test
seed=$top/fixtures/tracefile_fuzz/seed.trace

# The result without what differs between two readings of one capture:
# the time it was made and the file's name.
masked()
{
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("started")
d["workload"].pop("name")
print(json.dumps(d, indent=1))' "$1"
}

# same_capture PLAIN GZ: the same calls, byte for byte, and the same result.
same_capture()
{
	atf_check -o save:plain.csv "$ubc" nfs --calls -f 'ip or ip6' -r "$1"
	atf_check -o save:gz.csv "$ubc" nfs --calls -f 'ip or ip6' -r "$2"
	[ "$(wc -l <plain.csv)" -gt 1 ] || atf_fail "$1: no calls decoded"
	cmp plain.csv gz.csv || atf_fail "$2: the calls differ from $1's"
	atf_check "$ubc" nfs -q -l same -f 'ip or ip6' -o plain.json -r "$1"
	atf_check "$ubc" nfs -q -l same -f 'ip or ip6' -o gz.json -r "$2"
	masked plain.json >plain.masked
	masked gz.json >gz.masked
	cmp plain.masked gz.masked || atf_fail "$2: the result differs from $1's"
}

# packets RESULT: the packets the filter passed.
packets()
{
	json "$1" 'd["runs"][0]["nfs"]["packets"]'
}

atf_test_case capture_gz
capture_gz_head()
{
	atf_set descr "nfs -r of a gzipped pcap or pcapng: the same calls and result as the plain file; TShark counts the same packets in the .gz"
}
capture_gz_body()
{
	require_prog tshark
	for s in v4_pipeline48.full v3_small200.s200; do
		gzip -c "$nfsfx/$s.pcap" >"$s.pcap.gz"
		same_capture "$nfsfx/$s.pcap" "$s.pcap.gz"
		n=$(tshark -r "$s.pcap.gz" -Y 'ip or ipv6' 2>/dev/null | wc -l)
		[ "$n" -gt 0 ] || atf_fail "tshark read no packet of $s.pcap.gz"
		[ "$(packets gz.json)" -eq "$n" ] ||
		    atf_fail "$s.pcap.gz: $(packets gz.json) packets, tshark counts $n"
	done
	require_prog editcap
	editcap -F pcapng "$nfsfx/v4_pipeline48.full.pcap" p.pcapng ||
	    atf_fail "editcap cannot write pcapng"
	gzip -c p.pcapng >p.pcapng.gz
	same_capture p.pcapng p.pcapng.gz
	same_capture "$nfsfx/v4_pipeline48.full.pcap" p.pcapng.gz
}

atf_test_case capture_by_content
capture_by_content_head()
{
	atf_set descr "the first bytes decide, not the name: a .gz named .pcap is inflated, a plain pcap named .gz is read as it is, and so is one through a pipe"
}
capture_by_content_body()
{
	f=$nfsfx/v4_pipeline48.s200.pcap
	gzip -c "$f" >inflate.pcap
	cp "$f" plain.pcap.gz
	same_capture "$f" inflate.pcap
	same_capture "$f" plain.pcap.gz
	atf_check -o save:pipe.csv -e empty sh -c \
	    "cat '$f' | '$ubc' nfs --calls -f 'ip or ip6' -r /dev/stdin"
	cmp plain.csv pipe.csv || atf_fail "a capture through a pipe reads differently"
}

# refused nfs|report FILE WORDS...: `nfs -r FILE` or `report FILE`
# exits 1, prints nothing, writes nothing, and says each word, naming FILE.
refused()
{
	cmd=$1 f=$2
	shift 2
	case $cmd in
	nfs)	atf_check -s exit:1 -o empty -e save:err "$ubc" nfs -q \
		    -o r.json -r "$f" ;;
	report)	atf_check -s exit:1 -o empty -e save:err "$ubc" report "$f" ;;
	esac
	[ ! -e r.json ] || atf_fail "$cmd $f: a result was written"
	grep -qF -- "'$f'" err || atf_fail "$cmd $f: the message does not name it: $(cat err)"
	for w in "$@"; do
		grep -qF -- "$w" err || atf_fail "$cmd $f: the message does not say '$w': $(cat err)"
	done
}

# cut_copies FILE.gz: FILE.gz cut in its middle (cut.gz), before its 8-byte
# trailer is whole (tail.gz), inside its header (head.gz), and a copy with
# one byte of its middle changed (flip.gz).
cut_copies()
{
	n=$(wc -c <"$1")
	head -c $((n / 2)) "$1" >cut.gz
	head -c $((n - 3)) "$1" >tail.gz
	head -c 6 "$1" >head.gz
	/usr/bin/python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[len(d) // 2] ^= 0x55
open("flip.gz", "wb").write(d)' "$1"
}

atf_test_case capture_gz_damaged
capture_gz_damaged_head()
{
	atf_set descr "a cut or damaged .gz capture: exit 1, the file named, truncated or corrupt said, no result"
}
capture_gz_damaged_body()
{
	gzip -c "$nfsfx/v4_pipeline48.full.pcap" >c.pcap.gz
	cut_copies c.pcap.gz
	for f in cut.gz tail.gz head.gz; do
		refused nfs "$f" "the gzip data is truncated"
	done
	refused nfs flip.gz "the gzip data is corrupt"
	# Nothing else: the whole file is read.
	atf_check -o ignore "$ubc" nfs -q -o r.json -r c.pcap.gz
}

atf_test_case capture_gz_damaged_tshark
capture_gz_damaged_tshark_head()
{
	atf_set descr "TShark also refuses each cut or damaged .gz that nfs -r refuses, and reads the whole one"
}
capture_gz_damaged_tshark_body()
{
	require_prog tshark
	gzip -c "$nfsfx/v4_pipeline48.full.pcap" >c.pcap.gz
	cut_copies c.pcap.gz
	atf_check -o ignore -e ignore tshark -r c.pcap.gz
	for f in cut.gz tail.gz head.gz flip.gz; do
		atf_check -s not-exit:0 -o ignore -e save:err tshark -r "$f"
		grep -Eq 'cut short|damaged or corrupt' err ||
		    atf_fail "tshark on $f: $(cat err)"
	done
}

atf_test_case capture_gz_not_capture
capture_gz_not_capture_head()
{
	atf_set descr "a .gz that holds no capture says so"
}
capture_gz_not_capture_body()
{
	echo 'not a capture' | gzip >junk.pcap.gz
	refused nfs junk.pcap.gz "gzip-compressed, but what it holds is not a pcap or pcapng capture"
	: | gzip >empty.pcap.gz
	refused nfs empty.pcap.gz "gzip-compressed, but what it holds is not a pcap"
}

atf_test_case trace_gz
trace_gz_head()
{
	atf_set descr "report of a gzipped trace equals the plain one's; cut, damaged or not a trace: exit 1, said"
}
trace_gz_body()
{
	atf_check -o save:plain.txt -e empty "$ubc" report "$seed"
	gzip -c "$seed" >t.trace.gz
	atf_check -o save:gz.txt -e empty "$ubc" report t.trace.gz
	grep -q '^run 2 ' gz.txt || atf_fail "the report of the trace has no run 2"
	atf_check cmp plain.txt gz.txt
	cp t.trace.gz named.trace
	atf_check -o save:named.txt -e empty "$ubc" report named.trace
	atf_check cmp plain.txt named.txt
	cut_copies t.trace.gz
	for f in cut.gz tail.gz head.gz; do
		refused report "$f" "the gzip data is truncated"
	done
	refused report flip.gz "the gzip data is corrupt"
	echo 'neither a trace nor a result' | gzip >junk.gz
	refused report junk.gz "is not valid JSON (inflated"
}

atf_test_case result_gz
result_gz_head()
{
	atf_set descr "-o FILE.gz writes the result gzipped; report and compare read it as the plain one"
}
result_gz_body()
{
	f=$nfsfx/v4_pipeline48.full.pcap
	atf_check -o ignore "$ubc" nfs -q -l same -o r.json.gz -r "$f"
	atf_check -o ignore "$ubc" nfs -q -l same -o plain.json -r "$f"
	[ "$(od -An -tx1 -N2 r.json.gz | tr -d ' ')" = 1f8b ] ||
	    atf_fail "r.json.gz is not gzip"
	atf_check gzip -t r.json.gz
	gzip -dc r.json.gz >inflated.json
	masked plain.json >plain.masked
	masked inflated.json >gz.masked
	atf_check cmp plain.masked gz.masked
	ls | grep -q 'tmp' && atf_fail "a temporary file was left: $(ls)"
	atf_check -o save:plain.txt "$ubc" report plain.json
	atf_check -o save:gz.txt "$ubc" report r.json.gz
	atf_check cmp plain.txt gz.txt
	# compare reads a gzipped result as the plain one; only its name shows.
	cp plain.json p.json
	gzip -c p.json >p.json.gz
	atf_check -o save:cmp.txt "$ubc" compare p.json inflated.json
	atf_check -o save:cmpgz.txt "$ubc" compare p.json.gz inflated.json
	sed 's/p\.json\.gz$/p.json/' cmpgz.txt | cmp - cmp.txt ||
	    atf_fail "compare of the gzipped result differs: $(diff cmp.txt cmpgz.txt)"
}

atf_test_case result_gz_full cleanup
result_gz_full_head()
{
	atf_set descr "-o FILE.gz on a full filesystem: exit 1, cannot write said, no file and no temporary left"
}
result_gz_full_body()
{
	require_root "mounts a small tmpfs and fills it"
	mkdir full
	mount -t tmpfs -o size=16k tmpfs full || atf_skip "cannot mount a tmpfs"
	dd if=/dev/zero of=full/fill bs=1k count=64 2>/dev/null
	atf_check -s exit:1 -o empty \
	    -e match:"cannot write 'full/r.json.gz': No space left on device" \
	    "$ubc" nfs -q -o full/r.json.gz -r "$nfsfx/v4_pipeline48.full.pcap"
	[ "$(ls full)" = fill ] || atf_fail "left behind: $(ls full)"
	rm full/fill
	atf_check -o ignore "$ubc" nfs -q -o full/r.json.gz \
	    -r "$nfsfx/v4_pipeline48.full.pcap"
	atf_check gzip -t full/r.json.gz
}
result_gz_full_cleanup()
{
	umount full 2>/dev/null || true
}

atf_init_test_cases()
{
	atf_add_test_case capture_gz
	atf_add_test_case capture_by_content
	atf_add_test_case capture_gz_damaged
	atf_add_test_case capture_gz_damaged_tshark
	atf_add_test_case capture_gz_not_capture
	atf_add_test_case trace_gz
	atf_add_test_case result_gz
	atf_add_test_case result_gz_full
}
