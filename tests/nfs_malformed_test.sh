#! /usr/bin/env atf-sh
# nfs_malformed_test.sh - hand-made input for the NFS decoder
# (fixtures/nfs_malformed_test, written by its make.py): captures with one
# thing wrong each, the same exchange over every link layer and IPv6, and
# the decoders the real captures do not reach (NFSv2 over UDP, an NFSv4.1
# COMPOUND with SEQUENCE, NFSv4.0 WRITEs acknowledged short; TShark reads
# these three without complaint).
# expected.json says what `ubcreplay nfs` must count.

check_case() {
	top=$(atf_config_get top "$(atf_get_srcdir)/../..")
	fx=$top/fixtures/nfs_malformed_test
	command -v python3 >/dev/null || atf_skip "python3 is not installed"
	# The link-layer variants carry IPv6 extension headers and VLAN
	# tags that BPF's port filter does not look through: no filter.
	case $1 in link_*) f='' ;; *) f='port 2049' ;; esac
	atf_check -o ignore "$top/ubcreplay" nfs -q -f "$f" -o r.json \
	    -r "$fx/$1.pcap"
	atf_check -o ignore python3 - r.json "$fx/expected.json" "$1" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))["runs"][0]["nfs"]
want = json.load(open(sys.argv[2]))[sys.argv[3]]
have = dict(n["loss"])
have.update(rpc_calls=n["rpc_calls"], rpc_replies=n["rpc_replies"])
for d in ("read", "write"):
    for k in ("calls", "bytes_requested", "bytes_done", "size_unknown",
              "short_replies", "followed", "sequential", "judged_by_reply",
              "judged_by_request"):
        have["%s_%s" % (d, k)] = n[d][k]
for k in ("unstable", "data_sync", "file_sync"):
    have["stable_" + k] = n["stable"][k]
    have["committed_" + k] = n["committed"][k]
for k in ("calls", "bytes_between", "writes_by_reply", "writes_by_request"):
    have["commit_" + k] = n["commit"][k]
for v in n["ops"].values():
    for name, count in v.items():
        have["op_" + name] = have.get("op_" + name, 0) + count
bad = ["%s: %r, want %r" % (k, have.get(k), v) for k, v in want.items()
       if have.get(k) != v]
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

cases="bad_record_mark length_past_end long_credential zero_length_fragment
    unknown_xid_reply fragments_out_of_order udp_truncated v2_udp
    v41_compound v4_short_write"
for l in ether_vlan sll sll2 null raw; do
	cases="$cases link_${l}_ipv4 link_${l}_ipv6"
done

for c in $cases; do
	eval "atf_test_case $c
${c}_head() { atf_set descr 'fixtures/nfs_malformed_test/$c.pcap'; }
${c}_body() { check_case $c; }"
done

atf_init_test_cases() {
	for c in $cases; do
		atf_add_test_case $c
	done
}
