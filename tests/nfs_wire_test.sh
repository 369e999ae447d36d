#! /usr/bin/env atf-sh
# nfs_wire_test.sh - the main job with --nfs-iface: a run's result holds the
# NFS traffic that crossed the interface while it ran. The traffic is a real
# capture (fixtures/nfs_oracle_test) sent onto lo by tcpreplay while the run
# is going on; the run's share must equal what `ubcreplay nfs -r` reads from
# the same file, call for call and byte for byte.

. "$(atf_get_srcdir)/../../tests/lib.sh"

pcap=$top/fixtures/nfs_oracle_test/v3_small200.full.pcap
emacs=$top/build/fixtures/emacs-like.tar.gz

atf_test_case run_share
run_share_head()
{
	atf_set descr "a run's wire view equals the offline decode of the traffic sent during it"
	atf_set timeout 300
}
run_share_body()
{
	lock_lo
	require_root "captures on lo"
	require_prog tcpreplay
	mkdir d
	atf_check -s exit:0 -o ignore "$ubc" nfs -q -r "$pcap" -o off.json
	# --fsync file makes the run last a second or more, long enough for
	# the replay (a few milliseconds at top speed) to fall inside it.
	"$ubc" -n 1 -p interval --fsync file --nfs-iface lo -o r.json \
	    "$emacs" d >out 2>err &
	pid=$!
	i=0
	while ! ls d/ubcreplay-run.* >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 500 ] && { kill $pid; atf_fail "the run did not start"; }
		sleep 0.01
	done
	tcpreplay -q -i lo --topspeed "$pcap" >/dev/null 2>&1 ||
	    { kill $pid; atf_fail "tcpreplay failed"; }
	wait $pid || atf_fail "ubcreplay failed: $(cat err)"
	/usr/bin/python3 - off.json r.json <<'PY' || atf_fail "the run's wire view differs from the offline decode"
import json, sys
off = json.load(open(sys.argv[1]))["runs"][0]["nfs"]
run = json.load(open(sys.argv[2]))["runs"][0]["nfs"]
def same(path, a, b):
    if isinstance(a, dict):
        for k in a:
            if k in ("latency_hist", "loss"):   # timing differs on replay
                continue
            same(path + "." + k, a[k], b.get(k))
    elif a != b:
        print("%s: offline %r, run %r" % (path, a, b))
        same.bad = True
same.bad = False
for k in ("rpc_calls", "rpc_replies", "read", "write", "stable", "committed", "commit"):
    same(k, off[k], run[k])
print("write calls: offline %d, run %d" % (off["write"]["calls"], run["write"]["calls"]))
sys.exit(1 if same.bad else 0)
PY
	grep -q "on the wire" out || atf_fail "the text report shows no wire view"
}

atf_test_case bad_interface
bad_interface_body()
{
	require_root "opens interfaces for capture"
	mkdir d
	atf_check -s exit:1 -o empty -e match:"cannot capture on 'nosuchif0'" \
	    "$ubc" --nfs-iface nosuchif0 -o r.json "$small" d
	[ ! -e r.json ] || atf_fail "a result was written"
	[ -z "$(ls d)" ] || atf_fail "a run directory was left"
}

atf_test_case needs_privileges
needs_privileges_body()
{
	mkdir d
	chmod 777 d
	if [ "$(id -u)" -eq 0 ]; then
		require_prog setpriv
		chmod o+x . "$top" 2>/dev/null
		set -- setpriv --reuid=65534 --regid=65534 --clear-groups
	else
		set --
	fi
	atf_check -s exit:1 -o empty -e match:"cannot capture on 'lo'" \
	    "$@" "$ubc" --nfs-iface lo "$small" "$PWD/d"
	[ -z "$(ls d)" ] || atf_fail "a run directory was left"
}

atf_init_test_cases()
{
	atf_add_test_case run_share
	atf_add_test_case bad_interface
	atf_add_test_case needs_privileges
}
