#! /usr/bin/env atf-sh
# record_test.sh - `ubcreplay record` and the trace workload, against
# instruments that are not ubcreplay: strace -y for the write() calls a
# command made under the directory, find(1) for the tree a replay leaves,
# and hostile traces written by an independent encoder (tests/mkwtrace.py).

. "$(atf_get_srcdir)/../../tests/lib.sh"

# A workload of the shell's tools: files made by several processes,
# writes of several sizes, O_DIRECT, O_APPEND, fsync, renames, links,
# symbolic links, removals, a truncate, a directory removed, a chmod and a
# touch (attributes: only that they changed).
workload()
{
	mkdir -p w/sub w/gone
	echo hello >w/a
	dd if=/dev/urandom of=w/b bs=12345 count=3 2>/dev/null
	dd if=/dev/urandom of=w/direct bs=8k count=4 oflag=direct 2>/dev/null || \
	    dd if=/dev/urandom of=w/direct bs=8k count=4 2>/dev/null
	for i in 1 2 3; do echo "line $i" >>w/sub/log; done
	cat w/b >w/sub/copy
	sync w/sub/copy
	mv w/sub/copy w/sub/moved
	ln w/a w/hard
	ln -s ../a w/sub/sym
	truncate -s 100 w/b
	rm w/hard
	rmdir w/gone
	chmod 600 w/a
	touch w/b
}

# The sizes of write-like calls on files under DIR, one a line, sorted,
# from strace -y's annotated descriptors. strace runs with -s 0: data it
# prints could hold a '<' or '>' and be taken for a descriptor's path.
strace_writes()
{
	sed -n 's/^[0-9]* *\(write\|pwrite64\|writev\|pwritev\|copy_file_range\)(.*<\([^>]*\)>.* = \([0-9][0-9]*\)$/\2 \3/p' "$1" |
	    awk -v dir="$2/" 'index($1, dir) == 1 && $2 > 0 { print $2 }' | sort -n
}

trace_writes()
{
	"$ubc" record -d "$1" | awk '($3 == "write" || $3 == "copy_file_range") {
	    sub("done=", "", $10); if ($10 > 0) print $10 }' | sort -n
}

# Whether the replay's result (1) counts the write() calls, one size a
# line in 2, that the command (3) made: their number and their bytes.
same_app_layer()
{
	ops=$(json "$1" "d['runs'][0]['phases'][0]['app_write']['ops']")
	bytes=$(json "$1" "d['runs'][0]['phases'][0]['app_write']['bytes']")
	[ "$ops" -eq "$(wc -l <"$2")" ] || atf_fail "replay made $ops write() calls, $3 $(wc -l <"$2")"
	[ "$bytes" -eq "$(awk '{ s += $1 } END { print s }' "$2")" ] ||
	    atf_fail "replay wrote $bytes bytes, $3 $(awk '{ s += $1 } END { print s }' "$2")"
}

# same_tree FORMAT ORIG REPLAY WHAT: the two trees list alike under find's
# -printf FORMAT (names, types, sizes, and links or link counts), or the
# case fails saying the replay's tree differs from WHAT's.
same_tree()
{
	(cd "$2" && find . -printf "$1\n" | sort) >want
	(cd "$3" && find . -printf "$1\n" | sort) >got
	diff want got >&2 || atf_fail "the replay's tree differs from $4"
}

atf_test_case strace_agrees
strace_agrees_head()
{
	atf_set "descr" "record sees the write() calls strace -f -y sees under the directory, by size"
}
strace_agrees_body()
{
	require_prog strace
	mkdir src
	export -f workload 2>/dev/null || true
	(cd src && "$ubc" record -q -o ../w.trace.gz -- sh -c "$(type workload | sed 1d); workload") ||
	    atf_fail "record failed"
	rm -rf src && mkdir src
	(cd src && strace -f -y -qq -s 0 -e trace=write,pwrite64,writev,pwritev,copy_file_range \
	    -o ../strace.out sh -c "$(type workload | sed 1d); workload") || atf_fail "strace failed"
	strace_writes strace.out "$PWD/src" >want
	trace_writes w.trace.gz >got
	[ -s want ] || atf_fail "strace saw no writes"
	diff want got >&2 || atf_fail "the trace's write sizes differ from strace's"
	# The operations strace cannot be asked for by size: each is there.
	"$ubc" record -d w.trace.gz >dump
	for op in "rename .* w/sub/copy w/sub/moved" "link .* w/a w/hard" \
	    "symlink .* w/sub/sym ../a" "unlink .* w/hard" "rmdir .* w/gone" \
	    "fsync" "f?truncate .*off=100" "setattr .*flags=0x1 .* w/a" \
	    "setattr .*flags=0x4"; do
		grep -Eq " $op" dump || atf_fail "no '$op' in the trace"
	done
	grep ' open .* w/direct$' dump | grep -q 'flags=0x.[4-7].' ||
	    grep -q ' open .*flags=0x5[0-9a-f] .* w/direct$' dump ||
	    atf_fail "O_DIRECT not recorded: $(grep w/direct dump | head -1)"
	grep ' open .* w/sub/log$' dump | grep -q 'flags=0x2' ||
	    atf_fail "O_APPEND not recorded"
}

atf_test_case replay_tree
replay_tree_head()
{
	atf_set "descr" "a replay leaves the tree the command left: names, types, sizes, links; bytes not zeros"
}
replay_tree_body()
{
	mkdir src d
	(cd src && "$ubc" record -q -o ../w.trace -- sh -c "$(type workload | sed 1d); workload") ||
	    atf_fail "record failed"
	"$ubc" -q -p none --keep w.trace d 2>err || atf_fail "replay failed: $(cat err)"
	run=$(ls -d d/ubcreplay-run.*)
	same_tree '%p %y %s %l %n' src "$run" "the command's"
	# Written bytes are not zeros (nor a copy of what was recorded).
	[ "$(tr -d '\000' <"$run/w/sub/moved" | wc -c)" -gt 30000 ] ||
	    atf_fail "the replay wrote zeros"
	cmp -s src/w/sub/moved "$run/w/sub/moved" && atf_fail "the data was recorded"
	true
}

atf_test_case git_tree
git_tree_head()
{
	atf_set "descr" "git clone's replay (lock files, renames, legacy unlink and symlink calls) leaves the tree git left"
}
git_tree_body()
{
	require_prog git
	mkdir -p src d r
	(cd src && git init -q && for i in 1 2 3 4 5; do seq $((i * 1000)) >f$i; done &&
	    ln -s f1 link && git add -A && git -c user.name=t -c user.email=t@t commit -qm t) ||
	    atf_fail "cannot make the repository"
	"$ubc" record -q -o g.trace -C d -- git clone -q --no-hardlinks "$PWD/src" d/repo ||
	    atf_fail "record failed"
	"$ubc" -q -p none --keep g.trace r 2>err || atf_fail "replay failed: $(cat err)"
	same_tree '%p %y %s %l' d r/ubcreplay-run.* "git's"
}

atf_test_case setup_files
setup_files_head()
{
	atf_set "descr" "files the command read but did not make are made before the run, as large as read"
}
setup_files_body()
{
	mkdir -p src/in src/empty d
	head -c 300000 /dev/urandom >src/in/data
	(cd src && "$ubc" record -q -o ../r.trace -- sh -c 'cat in/data >out; rm in/data; echo y >empty/new') ||
	    atf_fail "record failed"
	"$ubc" -q -p none --keep -o r.json r.trace d 2>err || atf_fail "replay failed: $(cat err)"
	run=$(ls -d d/ubcreplay-run.*)
	[ "$(stat -c %s "$run/out")" -eq 300000 ] || atf_fail "out is not 300000 bytes"
	[ ! -e "$run/in/data" ] || atf_fail "in/data was not removed by the replay"
	[ "$(stat -c %s "$run/empty/new")" -eq 2 ] || atf_fail "empty/new was not made in the directory found in place"
}

atf_test_case bsdtar_app_layer
bsdtar_app_layer_head()
{
	atf_set "descr" "bsdtar -x's replay makes the write() calls strace saw bsdtar make: count and bytes"
}
bsdtar_app_layer_body()
{
	require_prog bsdtar
	require_prog strace
	mkdir x y d
	"$ubc" record -q -o b.trace.gz -C x -- bsdtar -xf "$small" -C x || atf_fail "record failed"
	strace -f -y -qq -s 0 -e trace=write,pwrite64,writev -o strace.out bsdtar -xf "$small" -C y ||
	    atf_fail "strace failed"
	strace_writes strace.out "$PWD/y" >want
	"$ubc" -q -p none -o r.json b.trace.gz d 2>err || atf_fail "replay failed: $(cat err)"
	same_app_layer r.json want bsdtar
}

atf_test_case make_threads
make_threads_head()
{
	atf_set "descr" "make -j2's trace replays in threads, with the write() calls strace saw make's compilers make: count and bytes"
}
make_threads_body()
{
	require_prog make
	require_prog cc
	require_prog strace
	mkdir -p src d
	for i in 1 2 3 4 5 6 7 8; do
		printf 'int f%d(int x) { return x * %d + %d; }\n' $i $i $i >src/f$i.c
	done
	echo 'int main(void) { return 0; }' >src/main.c
	printf 'O = main.o f1.o f2.o f3.o f4.o f5.o f6.o f7.o f8.o\nprog: $(O)\n\tcc -o prog $(O)\n%%.o: %%.c\n\tcc -pipe -c -o $@ $<\n' >src/Makefile
	cp -a src orig
	"$ubc" record -q -o m.trace.gz -C src -- make -s -j2 -C src || atf_fail "record failed"
	# A file per process (-ff): -f alone splits calls of processes that
	# run at once into lines the pattern cannot read.
	mkdir st
	strace -ff -y -qq -s 0 -e trace=write,pwrite64,writev,pwritev -o st/s make -s -j2 -C orig ||
	    atf_fail "strace failed"
	cat st/s.* >strace.out
	strace_writes strace.out "$PWD/orig" >want
	threads=$("$ubc" record -d m.trace.gz | awk '{ print $1 }' | sort -u | wc -l)
	[ "$threads" -gt 4 ] || atf_fail "the trace has $threads threads, not one per compiler"
	# LeakSanitizer (the sanitized suite) cannot run under ptrace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    strace -f -qq -e trace=pwrite64,write -o replay.out \
	    "$ubc" -q -p none -o r.json m.trace.gz d 2>err || atf_fail "replay failed: $(cat err)"
	same_app_layer r.json want make
	# Threads replay as threads: the writes come from several tasks.
	tasks=$(awk '$2 ~ /^pwrite64\(/ { print $1 }' replay.out | sort -u | wc -l)
	[ "$tasks" -gt 1 ] || atf_fail "the replay wrote from $tasks task(s)"
}

atf_test_case ordered_across_threads
ordered_across_threads_head()
{
	atf_set "descr" "operations of different threads on one file stay in their order: write, then rename, then append"
}
ordered_across_threads_body()
{
	mkdir src d
	# Each command is a process of its own, each a thread of the trace.
	(cd src && "$ubc" record -q -o ../o.trace -- sh -c '
	    for i in $(seq 24); do head -c $((i * 1000)) /dev/urandom >f$i & done; wait
	    for i in $(seq 24); do mv f$i g$i & done; wait
	    for i in $(seq 24); do echo tail >>g$i & done; wait
	    for i in $(seq 24); do ln g$i h$i & done; wait
	    for i in $(seq 12); do rm g$i & done; wait') || atf_fail "record failed"
	"$ubc" -q -p none --keep o.trace d 2>err || atf_fail "replay failed: $(cat err)"
	same_tree '%p %y %s %n' src d/ubcreplay-run.* "the command's"
}

atf_test_case timing
timing_head()
{
	atf_set "descr" "--timing keeps a thread's recorded gap: a write made a second after the start is not replayed sooner"
}
timing_body()
{
	mkdir src d
	(cd src && "$ubc" record -q -o ../t.trace -- sh -c '(sleep 1; echo b >b) & echo a >a; wait') ||
	    atf_fail "record failed"
	"$ubc" -q -p none --timing -o r.json t.trace d 2>err || atf_fail "replay failed: $(cat err)"
	ns=$(json r.json "d['runs'][0]['phases'][0]['elapsed_ns']")
	[ "$ns" -ge 1000000000 ] || atf_fail "replayed in $ns ns, sooner than the recorded second"
}

atf_test_case timing_stop
timing_stop_head()
{
	atf_set "descr" "--timing: a replay that fails ends then, not when a thread sleeping out a recorded gap of 30 s wakes"
}
timing_stop_body()
{
	# Thread 0 writes through a handle opened read-only: done when
	# recorded, EBADF in the replay. Thread 1's mkdir comes 30 s later.
	python3 - "$top/tests" <<'EOF2' || atf_fail "cannot write the trace"
import sys
sys.path.insert(0, sys.argv[1])
from mkwtrace import rec, trace
open("gap.trace", "wb").write(trace([
    rec("open", h=1, flags=0, path=b"p"),
    rec("write", h=1, asked=10, done=10),
    rec("mkdir", path=b"c", thread=1, dt=30 * 10**9)]))
EOF2
	mkdir d
	start=$(date +%s)
	"$ubc" -q -p none --timing gap.trace d 2>err && atf_fail "the replay did not fail"
	took=$(($(date +%s) - start))
	grep -q 'record 2 (write).*failed in the replay' err ||
	    atf_fail "not the failure expected: $(cat err)"
	echo "failed after $took s"
	[ "$took" -lt 20 ] || atf_fail "the failed replay ended after $took s, when the sleeping thread woke"
	[ -z "$(ls -A d)" ] || atf_fail "left in the target: $(ls -A d)"
}

atf_test_case hostile
hostile_head()
{
	atf_set "descr" "hostile traces ('..', absolute paths, symlinks out, giant sizes, truncation) are refused, nothing written"
}
hostile_body()
{
	python3 "$top/tests/mkwtrace.py" h || atf_fail "mkwtrace.py failed"
	mkdir d outside
	echo canary >outside/canary
	find . -path ./d -prune -o -print | sort >before
	n=0
	while IFS="$(printf '\t')" read -r name want; do
		n=$((n + 1))
		"$ubc" -q -p none -o r.json "h/$name.trace" d >out 2>err
		rc=$?
		[ $rc -eq 1 ] || atf_fail "$name: exit $rc, not 1"
		grep -qF -- "$want" err || atf_fail "$name: message lacks '$want': $(cat err)"
		grep -qF -- "h/$name.trace" err || atf_fail "$name: message does not name the trace"
		[ ! -e r.json ] || atf_fail "$name: a result was written"
		[ -z "$(ls d)" ] || atf_fail "$name: left $(ls d) in the target"
	done <h/EXPECT
	find . -path ./d -prune -o -print | grep -v -e "^./r.json$" -e "^./out$" -e "^./err$" -e "^./after$" -e "^./before$" | sort >after
	grep -v -e "^./out$" -e "^./err$" -e "^./before$" before | diff - after >&2 || atf_fail "something changed outside"
	[ "$(cat outside/canary)" = canary ] || atf_fail "canary changed"
	echo "hostile traces: $n tried, 0 escapes"
}

atf_test_case bad_usage
bad_usage_head()
{
	atf_set "descr" "record without a command is a usage error; a command that fails gives its status"
}
bad_usage_body()
{
	atf_check -s exit:2 -e match:"expected a command" "$ubc" record
	atf_check -s exit:3 -e ignore "$ubc" record -o t.trace -- sh -c 'exit 3'
	atf_check -s exit:1 -e match:"no-such-program" "$ubc" record -o u.trace -- no-such-program
	[ ! -e u.trace ] || atf_fail "a trace was left for a command that never ran"
}

atf_test_case terminated
terminated_head()
{
	atf_set "descr" "a SIGTERM to the recorder goes to the command; the trace of what it did is written, no temporary file left"
}
terminated_body()
{
	atf_check -s exit:143 -e ignore "$ubc" record -o t.trace -- \
	    sh -c 'echo x >f; kill -TERM $PPID; sleep 30; echo never >g'
	"$ubc" record -d t.trace >dump || atf_fail "the trace cannot be read"
	grep -q ' write .*done=2$' dump || atf_fail "the write before the signal is not in the trace"
	[ ! -e g ] || atf_fail "the command was not stopped"
	[ -z "$(ls | grep tmp)" ] || atf_fail "a temporary file was left: $(ls)"
}

atf_init_test_cases()
{
	atf_add_test_case terminated
	atf_add_test_case strace_agrees
	atf_add_test_case replay_tree
	atf_add_test_case git_tree
	atf_add_test_case setup_files
	atf_add_test_case bsdtar_app_layer
	atf_add_test_case hostile
	atf_add_test_case make_threads
	atf_add_test_case ordered_across_threads
	atf_add_test_case timing
	atf_add_test_case timing_stop
	atf_add_test_case bad_usage
}
