#! /usr/bin/env atf-sh
# nfs_oracle_test.sh - `ubcreplay nfs -r` on real NFS captures (nfs-ganesha
# and libnfs over loopback, fixtures/nfs_oracle_test) against TShark's
# reading of them (the .calls.csv and .summary.json oracles), compared by
# tests/nfs_oracle.py. The filter passes every IP packet so that frame and
# stream numbers count the same packets as the oracle's.

top() {
	top=$(atf_config_get top "$(atf_get_srcdir)/../..")
	fx=$top/fixtures/nfs_oracle_test
	[ -x "$top/ubcreplay" ] || atf_fail "no $top/ubcreplay: run make"
	command -v python3 >/dev/null || atf_skip "python3 is not installed"
}

# Full-snaplen captures: every call equal, summary totals equal.
full() {
	top
	s=$1 others=$2
	atf_check -o save:calls.csv "$top/ubcreplay" nfs --calls \
	    -f 'ip or ip6' -r "$fx/$s.full.pcap"
	atf_check -o ignore python3 "$top/tests/nfs_oracle.py" calls \
	    calls.csv "$fx/$s.full.calls.csv" --full
	atf_check -o ignore "$top/ubcreplay" nfs -q -f 'ip or ip6' \
	    -o r.json -r "$fx/$s.full.pcap"
	# TShark counts the replies of portmap and MOUNT calls (programs
	# 100000, 100005) as replies without an NFS call; ubcreplay matches
	# them to their own calls. Checked with
	# tshark -Y 'rpc.msgtyp==1 && !nfs'.
	python3 - "$fx/$s.full.summary.json" "$others" >oracle.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["replies_without_call"] -= int(sys.argv[2])
json.dump(d, sys.stdout)
PY
	atf_check -o ignore python3 "$top/tests/nfs_oracle.py" summary \
	    r.json oracle.json
}

# Truncated captures: what is reported agrees with the full oracle, and at
# least as many WRITE and READ calls as the oracle found at that snaplen.
truncated() {
	top
	s=$1
	for snap in s512 s200; do
		atf_check -o save:calls.csv "$top/ubcreplay" nfs --calls \
		    -f 'ip or ip6' -r "$fx/$s.$snap.pcap"
		atf_check -o ignore python3 "$top/tests/nfs_oracle.py" calls \
		    calls.csv "$fx/$s.full.calls.csv" --truncated \
		    "$fx/$s.$snap.calls.csv"
	done
}

atf_test_case v3_small200_full
v3_small200_full_head() {
	atf_set descr "NFSv3, 200 small files: per call and summary"
}
v3_small200_full_body() {
	full v3_small200 1400
}

atf_test_case v4_pipeline48_full
v4_pipeline48_full_head() {
	atf_set descr "NFSv4.0, 48 writes and reads in flight: per call and summary"
}
v4_pipeline48_full_body() {
	full v4_pipeline48 0
}

atf_test_case truncated_captures
truncated_captures_head() {
	atf_set descr "snaplen 512 and 200: agrees with the full oracle"
}
truncated_captures_body() {
	for s in v3_write10m v3_small200 v3_32k_rw10m v4_small200 \
	    v4_pipeline48 v4_libnfs400_tiny; do
		truncated $s
	done
}

atf_test_case report_and_default_filter
report_and_default_filter_head() {
	atf_set descr "the text report and JSON with the default filter"
}
report_and_default_filter_body() {
	top
	atf_check -o save:out "$top/ubcreplay" nfs -o r.json \
	    -r "$fx/v4_pipeline48.full.pcap"
	atf_check -o match:'105 NFS calls, 105 replies' cat out
	atf_check -o match:'WRITE: 48 calls, 1719600 bytes requested' cat out
	atf_check -o match:'stable asked: unstable 48' cat out
	atf_check -o match:'COMMIT: 2 calls' cat out
	atf_check -o match:'0 truncated, 0 malformed' cat out
	atf_check -o save:again "$top/ubcreplay" report r.json
	atf_check cmp out again
}

atf_test_case bad_input
bad_input_head() {
	atf_set descr "unreadable captures and bad options say so and fail"
}
bad_input_body() {
	top
	atf_check -s exit:1 -e match:"cannot read capture 'nonexistent.pcap'" \
	    "$top/ubcreplay" nfs -r nonexistent.pcap -o r.json
	test ! -e r.json || atf_fail "a result was written for bad input"
	echo 'not a capture' >junk.pcap
	atf_check -s exit:1 -e match:"cannot read capture 'junk.pcap'" \
	    "$top/ubcreplay" nfs -r junk.pcap
	atf_check -s exit:1 -e match:"cannot compile filter 'port nonsense'" \
	    "$top/ubcreplay" nfs -f 'port nonsense' \
	    -r "$fx/v4_pipeline48.s200.pcap"
	atf_check -s exit:2 -e match:usage "$top/ubcreplay" nfs
	atf_check -s exit:2 -e match:usage "$top/ubcreplay" nfs -r a -I lo
}

atf_init_test_cases() {
	atf_add_test_case v3_small200_full
	atf_add_test_case v4_pipeline48_full
	atf_add_test_case truncated_captures
	atf_add_test_case report_and_default_filter
	atf_add_test_case bad_input
}
