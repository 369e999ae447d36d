#! /usr/bin/env atf-sh
# signals_test.sh - SIGINT, SIGTERM and SIGHUP at random moments of a job,
# sent to ubcreplay alone or to its whole process group (as a terminal's ^C
# is), 50 times per probe (20 under ASan): afterwards no run directory
# (unless --keep), no process left in its process group, no tracing
# instance of its own, no temporary result, and either no result file or a
# complete one.
#
# The moments come from a seeded generator (the run's number): a failure
# names the run, signal, target and delay, and repeats.
#
# Each case prints "signals PROBE: N runs, N signalled, N leftovers".

. "$(atf_get_srcdir)/../../tests/lib.sh"

# The sanitized pass sends the first 20 of the 50 (the same moments): under
# ASan each run is slower, and what it looks for, a bad access on the way
# out, is in each of them alike.
RUNS=50
asan_build && RUNS=20

# The tracing instances of process PID (named after it).
instances()
{
	ls /sys/kernel/tracing/instances 2>/dev/null | grep -E "^ubc.*[^0-9]$1\$"
}

# job PROBE [--keep]: the job under test, in the background: the tar job,
# or with JOB=dd a dd of the bigger archive in 4 KiB blocks. A background
# job of a shell without job control starts with SIGINT ignored, which a
# terminal's ^C never meets: a SIGINT sent before ubcreplay reached main()
# (loading its libraries takes a good part of a second on a busy machine)
# would be lost, and the capture would end unmarked. So it starts with
# SIGINT at its default, as a foreground job does.
job()
{
	p=$1
	shift
	if [ "$JOB" = nfs ]; then
		# A live capture on the loopback interface, one second long.
		env --default-signal=INT setsid "$ubc" nfs -q -I lo -t 1 -o r.json >out 2>err &
	elif [ "$JOB" = dd ]; then
		env --default-signal=INT setsid "$ubc" dd -q -n 3 -p "$p" -o r.json \
		    if="$top/build/fixtures/emacs-like.tar.gz" of=m/t/dd.out bs=4k >out 2>err &
	else
		env --default-signal=INT setsid "$ubc" -q -n 3 -p "$p" "$@" -o r.json "$small" m/t >out 2>err &
	fi
}

# signals PROBE: the 50 runs against probe PROBE.
signals()
{
	probe=$1
	if [ "$probe" = exact ]; then
		require_root "the exact probe uses tracefs"
		require_tracefs
	fi
	if [ "$(id -u)" -eq 0 ]; then
		mkloopfs m 128 ext4
	else
		mkdir m
	fi
	mkdir m/t
	# The moments spread over one whole job, however fast this machine:
	# the shortest of three, since one slowed by other work on the machine
	# would put most moments after the job's end.
	span=
	for k in 1 2 3; do
		t0=$(date +%s%N)
		job "$probe"
		wait $! || atf_fail "the job fails without a signal: $(cat err)"
		ms=$((($(date +%s%N) - t0) / 1000000))
		[ -z "$span" ] || [ "$ms" -lt "$span" ] && span=$ms
		rm -f r.json m/t/dd.out
	done
	echo "one job: $span ms"
	signalled=0 leftovers=0 failures=
	i=0
	while [ $i -lt $RUNS ]; do
		i=$((i + 1))
		set -- INT TERM HUP
		shift $((i % 3))
		sig=$1
		to=process
		[ $((i % 2)) -eq 0 ] && to=group
		keep=
		[ $((i % 5)) -eq 0 ] && keep=--keep
		delay=$(awk -v s="$i" -v ms="$span" 'BEGIN { srand(s); printf "%.3f", rand() * ms * 1.1 / 1000 }')
		what="run $i: SIG$sig to the $to after ${delay}s${keep:+ with --keep}"
		rm -f r.json
		job "$probe" $keep
		pid=$!
		sleep "$delay"
		if [ $to = group ]; then
			kill -s "$sig" -- "-$pid" 2>/dev/null
		else
			kill -s "$sig" "$pid" 2>/dev/null
		fi
		wait $pid
		rc=$?
		[ $rc -gt 128 ] && signalled=$((signalled + 1))
		# A job that ended before its signal took less than the delay:
		# the machine got faster since the span was measured (other work
		# on it ended), and the moments after this one shrink with it.
		if [ "$JOB" != nfs ] && [ $rc -eq 0 ]; then
			ms=$(awk -v d="$delay" 'BEGIN { printf "%d", d * 1000 }')
			[ "$ms" -ge "$span" ] || span=$ms
		fi
		# A capture ends on SIGINT and SIGTERM with its result: exit 0.
		[ "$JOB" = nfs ] && [ $rc -eq 0 ] && [ -e r.json ] &&
		    [ "$(json r.json "d['workload']['interrupted']")" = True ] &&
		    signalled=$((signalled + 1))
		left=
		# A run finished before the signal is a complete result; a
		# capture stopped by SIGINT or SIGTERM is one marked interrupted.
		if [ -e r.json ]; then
			st=$(json r.json "d['status'] + ' ' + str(d['summary']['runs_ok']) + ' ' + str(d['workload'].get('interrupted', ''))" 2>/dev/null)
			case $JOB:$st in
			nfs:"ok 1 True"|nfs:"ok 1 False"|:"ok 3 "|dd:"ok 3 ") ;;
			*) left="$left result '$st' after exit $rc;" ;;
			esac
			[ "$JOB" != nfs ] || [ $rc -ne 0 ] || [ $sig = HUP ] ||
			    [ "$st" = "ok 1 True" ] || [ "$delay" \> 1 ] ||
			    left="$left capture stopped by SIG$sig not marked interrupted;"
		fi
		[ $rc -eq 0 ] || [ $rc -gt 128 ] || left="$left exit $rc: $(cat err);"
		ls r.json.tmp.* >/dev/null 2>&1 && left="$left a temporary result;"
		rm -f m/t/dd.out
		if [ -n "$keep" ]; then
			rm -rf m/t/ubcreplay-run.*
		elif [ -n "$(ls -A m/t)" ]; then
			left="$left run directory $(ls -A m/t);"
			rm -rf m/t/ubcreplay-run.*
		fi
		p=$(pgrep -g "$pid" | tr '\n' ' ')
		[ -z "$p" ] || left="$left processes $p;"
		t=$(instances $pid | tr '\n' ' ')
		[ -z "$t" ] || left="$left tracing instances $t;"
		if [ -n "$left" ]; then
			leftovers=$((leftovers + 1))
			failures="$failures
$what:$left"
		fi
	done
	echo "signals ${JOB:-tar} $probe: $RUNS runs, $signalled signalled, $leftovers leftovers"
	[ $leftovers -eq 0 ] || atf_fail "$leftovers runs left something:$failures"
	# Most signals must have landed inside the job, or this proves little.
	[ $signalled -ge $((RUNS / 2)) ] || atf_fail "only $signalled of $RUNS runs were interrupted"
}

atf_test_case interval cleanup
interval_head()
{
	atf_set descr "50 signals at random moments, interval probe: nothing left"
	atf_set timeout 600
}
interval_body()
{
	signals interval
}
interval_cleanup()
{
	cleanup_loops
}

atf_test_case exact cleanup
exact_head()
{
	atf_set descr "50 signals at random moments, exact probe: no tracing instance left"
	atf_set timeout 600
}
exact_body()
{
	signals exact
}
exact_cleanup()
{
	cleanup_loops
}

atf_test_case dd cleanup
dd_head()
{
	atf_set descr "50 signals at random moments in ubcreplay dd, interval probe"
	atf_set timeout 600
}
dd_body()
{
	JOB=dd signals interval
}
dd_cleanup()
{
	cleanup_loops
}

atf_test_case dd_exact cleanup
dd_exact_head()
{
	atf_set descr "50 signals at random moments in ubcreplay dd, exact probe"
	atf_set timeout 600
}
dd_exact_body()
{
	JOB=dd signals exact
}
dd_exact_cleanup()
{
	cleanup_loops
}

atf_test_case nfs cleanup
nfs_head()
{
	atf_set descr "50 signals at random moments in a live ubcreplay nfs capture"
	atf_set timeout 600
}
nfs_body()
{
	require_root "captures on the loopback interface"
	JOB=nfs signals interval
}
nfs_cleanup()
{
	cleanup_loops
}

atf_init_test_cases()
{
	atf_add_test_case nfs
	atf_add_test_case interval
	atf_add_test_case exact
	atf_add_test_case dd
	atf_add_test_case dd_exact
}
