#! /usr/bin/env atf-sh
# vm_nfs_test.sh - the main job onto NFS mounts in a guest (ubcreplay vm -t
# nfs), under both server set-ups: the guest kernel's own knfsd over its
# loopback, and nfs-ganesha on the host through QEMU's user network. Each
# layer is checked against an instrument of its own: the WRITE bytes the
# server acknowledged on the wire against the archive's data bytes summed by
# bsdtar, the capture against the client's /proc/self/mountstats, and (knfsd)
# the exact probe on the server's disk against that disk's diskstats. Bad
# input: a server that is not there, an export that does not exist, a
# version the server refuses, each a clear error, exit 2, nothing left.
#
# The guest kernel: $UBC_VM_KERNEL, or the first Debian 6.1 package unpacked
# under build/kernels/ (boot/vmlinuz-*, lib/modules/*).

. "$(atf_get_srcdir)/../../tests/lib.sh"

# Skips unless QEMU, a kernel, the small fixture and the server exist.
require_guest()
{
	require_prog qemu-system-x86_64
	require_prog bsdtar
	require_prog jq
	[ -f "$small" ] || atf_skip "needs $small (make build/fixtures/small.tar.gz)"
	kernel=${UBC_VM_KERNEL:-}
	if [ -z "$kernel" ]; then
		for k in "$top"/build/kernels/*/boot/vmlinuz-6.1.*; do
			[ -f "$k" ] && { kernel=$k; break; }
		done
	fi
	[ -n "$kernel" ] && [ -f "$kernel" ] ||
	    atf_skip "needs a guest kernel: UBC_VM_KERNEL, or a Debian" \
	        "linux-image-6.1 package unpacked under build/kernels/"
	case $1 in
	knfsd)
		[ -x /usr/sbin/rpc.nfsd ] ||
		    atf_skip "needs nfs-kernel-server (contrib/deps.sh test)" ;;
	ganesha)
		require_root "ganesha serves the host's files"
		[ -x /usr/bin/ganesha.nfsd ] ||
		    atf_skip "needs nfs-ganesha (contrib/deps.sh test)" ;;
	esac
	mkdir -p tmp out
	export TMPDIR=$PWD/tmp
}

# One cell: the small archive onto NFS, 2 runs; the result in out/.
nfs_cell()
{
	server=$1 opts=$2
	"$ubc" vm -k "$kernel" --accel tcg -t nfs --nfs-server "$server" \
	    -O "$opts" -n 2 -o out "$small" >log 2>&1 ||
	    atf_fail "ubcreplay vm failed: $(tail -20 log)"
	result=$(ls out/*-nfs.json)
	[ -f "$result" ] || atf_fail "no RELEASE-nfs.json in out/: $(ls out)"
}

# The layers reconcile, run by run.
check_layers()
{
	server=$1
	data=$(bsdtar -tvf "$small" | awk '$1 ~ /^-/ {s += $5} END {print s}')
	[ "$data" -gt 0 ] || atf_fail "bsdtar read no data bytes"
	for i in 0 1; do
		run=".runs[$i]"
		acked=$(jq "$run.nfs.write.bytes_done" "$result")
		calls=$(jq "$run.nfs.write.calls" "$result")
		asked=$(jq "$run.nfs.write.bytes_requested" "$result")
		ms_ops=$(jq "$run.mountstats.WRITE.ops" "$result")
		ms_bytes=$(jq "$run.mountstats.server_write_bytes" "$result")
		echo "run $((i + 1)): archive $data, acked $acked in $calls WRITEs;" \
		    "mountstats $ms_bytes in $ms_ops"
		[ "$acked" -ge "$data" ] ||
		    atf_fail "run $((i + 1)): $acked bytes acknowledged < $data data bytes"
		[ "$calls" = "$ms_ops" ] ||
		    atf_fail "run $((i + 1)): $calls WRITEs captured, mountstats $ms_ops"
		[ "$asked" = "$ms_bytes" ] ||
		    atf_fail "run $((i + 1)): $asked bytes captured, mountstats $ms_bytes"
		[ "$(jq "$run.nfs.commit.calls" "$result")" = \
		    "$(jq "$run.mountstats.COMMIT.ops" "$result")" ] ||
		    atf_fail "run $((i + 1)): COMMITs differ from mountstats"
	done
	[ "$server" = knfsd ] || return 0
	# Every phase: the exact probe's requests on the server's disk are the
	# disk's own counters, exactly, and the extraction reached the disk.
	# diskstats counts an empty preflush write (ext4's bare cache flush when
	# knfsd's fsync finds the file's transaction already committed) as a
	# write of 0 bytes; the probe counts those apart, in empty_preflush.
	jq -e '.targets[0].devices[0] | .name == "vda" and .role == "watched"' \
	    "$result" >/dev/null || atf_fail "the server's disk is not watched"
	bad=$(jq '[.runs[].phases[].devices[] | select(.write.bytes !=
	    .diskstats.write_bytes or .write.ops + .empty_preflush !=
	    .diskstats.write_ops)] | length' "$result")
	[ "$bad" = 0 ] || atf_fail "$bad phases: the probe and diskstats differ:" \
	    "$(jq -c '[.runs[].phases[].devices[] | [.write.ops, .empty_preflush,
	    .write.bytes, .diskstats.write_ops, .diskstats.write_bytes]]' \
	    "$result")"
	disk=$(jq '.runs[0].phases[0].devices[0].write.bytes' "$result")
	[ "$disk" -ge "$data" ] ||
	    atf_fail "the server's disk took $disk bytes < $data data bytes"
}

# Nothing of the cell is left: no process, no temporary file.
check_nothing_left()
{
	sleep 1
	pgrep -f "$PWD/tmp" >/dev/null && atf_fail "a process of the cell is left: $(pgrep -af "$PWD/tmp")"
	[ -z "$(ls tmp)" ] || atf_fail "left in TMPDIR: $(ls tmp)"
	[ -z "$(ls out)" ] || atf_fail "a result of a failed cell: $(ls out)"
}

# A cell whose mount must fail: exit 2, the server and options named.
bad_cell()
{
	server=$1 opts=$2 want=$3
	shift 3
	atf_check -s exit:2 -o ignore -e save:err "$ubc" vm -k "$kernel" \
	    --accel tcg -t nfs --nfs-server "$server" -O "$opts" "$@" \
	    -n 1 -o out "$small"
	grep -q "NFS server $server, mount -o .*$opts" err ||
	    atf_fail "the error names no server or options: $(cat err)"
	grep -q "$want" err || atf_fail "the error does not say '$want': $(cat err)"
	check_nothing_left
}

atf_test_case knfsd_v3
knfsd_v3_head()
{
	atf_set descr "NFSv3 to the guest's own knfsd: wire, mountstats and the server's disk agree"
	atf_set timeout 900
}
knfsd_v3_body()
{
	require_guest knfsd
	nfs_cell knfsd vers=3
	check_layers knfsd
}

atf_test_case knfsd_v41
knfsd_v41_head()
{
	atf_set descr "NFSv4.1 to the guest's own knfsd: wire, mountstats and the server's disk agree"
	atf_set timeout 900
}
knfsd_v41_body()
{
	require_guest knfsd
	nfs_cell knfsd vers=4.1
	check_layers knfsd
}

atf_test_case ganesha_v3
ganesha_v3_head()
{
	atf_set descr "NFSv3 to ganesha on the host: wire and mountstats agree; the server is gone after"
	atf_set timeout 900
}
ganesha_v3_body()
{
	require_guest ganesha
	nfs_cell ganesha vers=3
	check_layers ganesha
	pgrep -f "$PWD/tmp" >/dev/null && atf_fail "ganesha is left running"
	return 0
}

atf_test_case ganesha_v41
ganesha_v41_head()
{
	atf_set descr "NFSv4.1 to ganesha on the host: wire and mountstats agree"
	atf_set timeout 900
}
ganesha_v41_body()
{
	require_guest ganesha
	nfs_cell ganesha vers=4.1
	check_layers ganesha
}

atf_test_case bad_unreachable
bad_unreachable_head()
{
	atf_set descr "a server that is not there: exit 2, server and options named, nothing left"
	atf_set timeout 300
}
bad_unreachable_body()
{
	require_guest knfsd
	# Nothing listens on port 1 of the guest's loopback.
	bad_cell knfsd vers=4.1,port=1 "cannot mount"
}

atf_test_case bad_export
bad_export_head()
{
	atf_set descr "an export that does not exist: exit 2, server and options named, nothing left"
	atf_set timeout 300
}
bad_export_body()
{
	require_guest knfsd
	bad_cell knfsd vers=3 "No such file or directory\|access denied" \
	    --nfs-path /no/such/export
}

atf_test_case bad_version
bad_version_head()
{
	atf_set descr "a version the server refuses: exit 2, server and options named, nothing left"
	atf_set timeout 300
}
bad_version_body()
{
	require_guest knfsd
	bad_cell knfsd vers=2 "cannot mount"
}

atf_init_test_cases()
{
	atf_add_test_case knfsd_v3
	atf_add_test_case knfsd_v41
	atf_add_test_case ganesha_v3
	atf_add_test_case ganesha_v41
	atf_add_test_case bad_unreachable
	atf_add_test_case bad_export
	atf_add_test_case bad_version
}
