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

# One cell: the small archive onto NFS, $runs runs (2 unless set); the
# result in out/. More arguments go to ubcreplay vm (after --accel tcg).
nfs_cell()
{
	server=$1 opts=$2
	shift 2
	"$ubc" vm -k "$kernel" --accel tcg "$@" -t nfs --nfs-server "$server" \
	    -O "$opts" -n "${runs:-2}" -o out "$small" >log 2>&1 ||
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
	i=0
	while [ $i -lt "${runs:-2}" ]; do
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
		i=$((i + 1))
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
	plain_pass_only "its time is guests; NFSv3 captured in a cell under ASan: ganesha_kvm_fallback"
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
	plain_pass_only "its time is guests; NFSv4.1 decoded under ASan: nfs_oracle_test and nfs_fuzz_test"
	require_guest knfsd
	nfs_cell knfsd vers=4.1
	check_layers knfsd
	# A fresh v4 server's grace period (90 s unless told) holds back the
	# first run's creates: it must be over before the job, not in run 1.
	jq -r '[.runs[] | .phases[] | select(.phase == "extract") |
	    .elapsed_ns] | "\(.[0]) \(.[1])"' "$result" >times
	read -r t1 t2 <times
	echo "extract: run 1 $t1 ns, run 2 $t2 ns"
	[ "$t1" -le $((3 * t2 + 10000000000)) ] ||
	    atf_fail "run 1's extraction took $t1 ns against run 2's $t2: the server's grace period fell in it"
}

atf_test_case ganesha_v3
ganesha_v3_head()
{
	atf_set descr "NFSv3 to ganesha on the host: wire and mountstats agree; the server is gone after"
	atf_set timeout 900
}
ganesha_v3_body()
{
	plain_pass_only "its time is guests; a ganesha cell, NFSv3 captured whole, under ASan: ganesha_kvm_fallback"
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
	plain_pass_only "its time is guests; a ganesha cell under ASan: ganesha_kvm_fallback, NFSv4.1 decoded: nfs_oracle_test and nfs_fuzz_test"
	require_guest ganesha
	nfs_cell ganesha vers=4.1
	check_layers ganesha
}

atf_test_case ganesha_kvm_fallback
ganesha_kvm_fallback_head()
{
	atf_set descr "a ganesha cell whose KVM attempt dies runs again under TCG with a fresh set-up and export"
	atf_set timeout 900
}
ganesha_kvm_fallback_body()
{
	require_guest ganesha
	fake_qemu kvm-death
	runs=1
	# --accel tcg first, then auto: the last one given is taken.
	nfs_cell ganesha vers=3 --accel auto --mem 512 --cpus 1
	[ "$(tr '\n' ' ' <qemu-starts)" = "kvm tcg " ] ||
	    atf_fail "QEMU's starts: $(tr '\n' ' ' <qemu-starts)"
	[ "$(jq -r .vm.accel "$result")" = tcg ] || atf_fail "not run under TCG"
	check_layers ganesha
	rm -rf out
	mkdir out
	check_nothing_left
}

# A ganesha of the test's own on the host's 127.0.0.1:2049, exporting
# ./side-export, with an rpcbind of its own unless one runs already; skips
# when port 2049 is taken.
side_ganesha()
{
	ss -ltnH 'sport = :2049' | grep -q . && atf_skip "port 2049 is taken on this host"
	mkdir -p side-export
	cat >side.conf <<EOF
NFS_CORE_PARAM {
	Bind_Addr = 127.0.0.1;
	NFS_Port = 2049;
	Protocols = 3, 4;
	Enable_NLM = false;
	Enable_RQUOTA = false;
	Enable_UDP = false;
}
NFSv4 { Graceless = true; RecoveryRoot = "$PWD/side-recovery"; }
EXPORT {
	Export_Id = 7; Path = "$PWD/side-export"; Pseudo = /side;
	Access_Type = RW; Squash = No_Root_Squash; Protocols = 3, 4;
	Transports = TCP; SecType = sys; FSAL { Name = VFS; }
}
EOF
	pgrep -x rpcbind >host-rpcbinds
	if ! ss -ltnH 'sport = :111' | grep -q .; then
		/usr/sbin/rpcbind -f -w >side-rpcbind.log 2>&1 &
		echo $! >side-rpcbind.pid
		echo $! >>host-rpcbinds
	fi
	await_listen 111 "the side rpcbind"
	/usr/bin/ganesha.nfsd -F -f "$PWD/side.conf" -L "$PWD/side.log" \
	    -p "$PWD/side.pid" -N NIV_EVENT &
	echo $! >side-ganesha.pid
	await_listen 2049 "the side ganesha"
}

# await_listen PORT WHAT: waits up to 30 s for a listener on the host's PORT.
await_listen()
{
	n=0
	until ss -ltnH "sport = :$1" | grep -q .; do
		n=$((n + 1))
		[ $n -lt 300 ] || atf_fail "$2 did not start: $(tail -3 side.log)"
		sleep 0.1
	done
}

side_stop()
{
	for d in ganesha rpcbind; do
		[ -f side-$d.pid ] && kill -9 "$(cat side-$d.pid)" 2>/dev/null
	done
	[ -f side-rpcbind.pid ] && rm -f /run/rpcbind.sock /run/rpcbind.lock
	return 0
}

atf_test_case ganesha_parallel cleanup
ganesha_parallel_head()
{
	atf_set descr "two ganesha cells side by side, twice, beside a third ganesha on 2049, in a TMPDIR with a blank and a quote: each its own server, nothing left"
	atf_set timeout 1800
}
ganesha_parallel_body()
{
	plain_pass_only "its time is guests; a ganesha cell under ASan: ganesha_kvm_fallback"
	require_guest ganesha
	k2=
	for k in "$top"/build/kernels/*/boot/vmlinuz-6.12.*; do
		[ -f "$k" ] && { k2=$k; break; }
	done
	[ -n "$k2" ] || atf_skip "needs a Debian linux-image-6.12 package under build/kernels/"
	tmp="$PWD/tmp/a b'c"
	mkdir -p "$tmp"
	export TMPDIR="$tmp"
	# The side server takes the host's 2049, as the live NFS tests do.
	lock_lo
	side_ganesha
	for round in 1 2; do
		rm -rf out
		"$ubc" vm -k "$kernel" -k "$k2" -j 2 --accel tcg --mem 512 \
		    --cpus 1 -t nfs --nfs-server ganesha -O vers=4.1 -n 1 \
		    -o "$PWD/out" "$small" >log 2>&1 ||
		    atf_fail "round $round: ubcreplay vm failed: $(tail -20 log)"
		[ "$(ls out/*-nfs.json | wc -l)" = 2 ] ||
		    atf_fail "round $round: not two results: $(ls out)"
		for result in out/*-nfs.json; do
			[ "$(jq .vm.parallel_guests "$result")" = 2 ] ||
			    atf_fail "$result: parallel_guests $(jq .vm.parallel_guests "$result")"
			runs=1 check_layers ganesha
		done
		# The side server served no cell, and runs on.
		[ -z "$(ls -A side-export)" ] ||
		    atf_fail "a cell wrote to the side ganesha: $(ls side-export)"
		kill -0 "$(cat side-ganesha.pid)" || atf_fail "round $round: the side ganesha died"
		for p in $(cat host-rpcbinds); do
			kill -0 $p || atf_fail "round $round: the host's rpcbind $p died"
		done
		ss -ltnH 'sport = :2049' | grep -q . ||
		    atf_fail "round $round: nothing listens on 2049 any more"
		# Nothing of the cells is left.
		sleep 1
		g=$(pgrep -x ganesha.nfsd | grep -vx "$(cat side-ganesha.pid)")
		r=$(pgrep -x rpcbind | grep -vxF -f host-rpcbinds)
		[ -z "$g$r" ] || atf_fail "round $round: left running: $(ps -o pid,args -p "$g $r")"
		pgrep -f "$PWD/(tmp|out)" >/dev/null &&
		    atf_fail "round $round: left running: $(pgrep -af "$PWD/(tmp|out)")"
		[ -z "$(ls -A "$tmp")" ] || atf_fail "left in TMPDIR: $(ls -A "$tmp")"
	done
}
ganesha_parallel_cleanup()
{
	side_stop
}

atf_test_case ganesha_sigint
ganesha_sigint_head()
{
	atf_set descr "SIGINT while ganesha starts: acted on at once, nothing left, death by the signal"
	atf_set timeout 300
}
ganesha_sigint_body()
{
	require_guest ganesha
	"$ubc" vm -k "$kernel" --accel tcg -t nfs --nfs-server ganesha \
	    -O vers=3 -n 1 -o out "$small" >log 2>&1 &
	pid=$!
	n=0
	# Its pid file, written early in its start, well before it listens.
	until g=$(cat tmp/*/ganesha.pid 2>/dev/null) && [ -n "$g" ]; do
		n=$((n + 1))
		[ $n -lt 6000 ] || atf_fail "ganesha never started: $(cat log)"
		sleep 0.01
	done
	# A ganesha that does not come up: ubcreplay would wait 20 s for it
	# before it looked at the signal again.
	kill -STOP $g
	t0=$(date +%s)
	kill -INT $pid
	wait $pid
	rc=$?
	t=$(($(date +%s) - t0))
	[ $rc -eq 130 ] || atf_fail "exit $rc, not 130: $(cat log)"
	[ $t -lt 15 ] || atf_fail "$t s from SIGINT to the exit: the signal waited for ganesha"
	check_nothing_left
}

atf_test_case ganesha_needs_root
ganesha_needs_root_head()
{
	atf_set descr "without root, a ganesha cell is refused with the reason"
}
ganesha_needs_root_body()
{
	require_guest ganesha
	require_prog setpriv
	atf_check -s exit:2 -o ignore -e save:err setpriv --reuid=65534 \
	    --regid=65534 --clear-groups "$ubc" vm -k "$kernel" -t nfs \
	    --nfs-server ganesha -O vers=3 -n 1 -o out "$small"
	grep -q "NFS server ganesha needs root" err || atf_fail "$(cat err)"
}

atf_test_case bad_unreachable
bad_unreachable_head()
{
	atf_set descr "a server that is not there: exit 2, server and options named, nothing left"
	atf_set timeout 300
}
bad_unreachable_body()
{
	plain_pass_only "its time is guests; a cell whose mount fails, under ASan: bad_export"
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
	plain_pass_only "its time is guests; a cell whose mount fails, under ASan: bad_export"
	require_guest knfsd
	bad_cell knfsd vers=2 "cannot mount"
}

atf_init_test_cases()
{
	atf_add_test_case knfsd_v3
	atf_add_test_case knfsd_v41
	atf_add_test_case ganesha_v3
	atf_add_test_case ganesha_v41
	atf_add_test_case ganesha_kvm_fallback
	atf_add_test_case ganesha_parallel
	atf_add_test_case ganesha_sigint
	atf_add_test_case ganesha_needs_root
	atf_add_test_case bad_unreachable
	atf_add_test_case bad_export
	atf_add_test_case bad_version
}
