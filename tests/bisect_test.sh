#! /usr/bin/env atf-sh
# bisect_test.sh - contrib/vm-bisect.sh, the `git bisect run` step: what it
# tells git bisect for every outcome of the build and of `ubcreplay vm`
# (checked with a stand-in ubcreplay, no QEMU), that git bisect finds the
# first bad commit of a small history through it, and the same with the
# real `ubcreplay vm` booting two Debian kernels (build/kernels), where a
# commit's "build" names which one.

. "$(atf_get_srcdir)/../../tests/lib.sh"

step=$top/contrib/vm-bisect.sh

# A stand-in for ubcreplay: `vm -h` prints a usage of vm and exits $STUB_H
# (0), anything else writes
# its arguments, one a line, to $STUB_ARGS and exits $STUB_RC, or, with
# STUB_BAD set, 1 when the second kernel's file holds STUB_BAD and 0 when not.
mkstub()
{
	cat >stub <<'EOF'
#!/bin/sh
if [ "$1 $2" = "vm -h" ]; then
	echo "usage: ubcreplay vm -k kernel ..."
	exit "${STUB_H:-0}"
fi
printf '%s\n' "$@" >"${STUB_ARGS:-/dev/null}"
if [ -n "${STUB_BAD:-}" ]; then
	grep -qx "$STUB_BAD" "$5" && exit 1
	exit 0
fi
exit "${STUB_RC:-0}"
EOF
	chmod +x stub
	export UBCREPLAY=$PWD/stub
}

# mkhistory NAME...: a git tree in ./tree with one commit per NAME, each
# writing NAME to the file "kernel"; the commits' hashes in ./commits.
mkhistory()
{
	git init -q tree || atf_fail "git init"
	for k in "$@"; do
		echo "$k" >tree/kernel
		git -C tree add kernel
		git -C tree -c user.name=t -c user.email=t@t commit -q --allow-empty -m "$k" ||
		    atf_fail "git commit"
		git -C tree rev-parse HEAD >>commits
	done
}

atf_test_case verdicts
verdicts_head()
{
	atf_set descr "exit 0 good, 1 bad, anything else skip (125); a failed build or a missing kernel skip; a broken recipe stops the bisection (255)"
}
verdicts_body()
{
	require_prog git
	mkstub
	mkhistory one
	mkdir t
	export TMPDIR=$PWD/t
	echo base >base.img
	echo archive >a.tar
	echo this >tree/built.img
	export UBC_BISECT_BUILD='echo built.img' STUB_ARGS=$PWD/args
	export UBC_BISECT_BASE=$PWD/base.img UBC_BISECT_ARCHIVE=$PWD/a.tar
	for rc in 0:0 1:1 2:125 3:125 125:125 126:125 127:125 134:125 255:125; do
		STUB_RC=${rc%:*}
		export STUB_RC
		rm -f args
		(cd tree && "$step" -F write.mean_bytes:-20% -F flushes:+50% \
		    -- -t xfs -n 5) 2>err
		got=$?
		[ "$got" -eq "${rc#*:}" ] ||
		    atf_fail "ubcreplay vm exit $STUB_RC: step exits $got, not ${rc#*:}: $(cat err)"
	done
	# What ubcreplay vm was given: the base, the kernel just built (made
	# absolute), the gates in order, an output directory, the options,
	# the archive.
	printf '%s\n' vm -k "$PWD/base.img" -k "$PWD/tree/built.img" \
	    --fail-if write.mean_bytes:-20% --fail-if flushes:+50% -o OUT \
	    -t xfs -n 5 "$PWD/a.tar" >want
	sed '11s|.*|OUT|' args >got
	diff want got || atf_fail "ubcreplay vm got other arguments"
	# -o keeps each step's results and what vm printed.
	STUB_RC=1 UBC_BISECT_OUT=$PWD/keep sh -c "cd tree && '$step' -F x:+1%"
	[ $? -eq 1 ] || atf_fail "-o changed the verdict"
	c=$(git -C tree rev-parse --short HEAD)
	[ -d "keep/$c" ] && [ -f "keep/$c.log" ] || atf_fail "nothing kept in keep/$c"
	grep -qx "$PWD/keep/$c" args || atf_fail "vm not told -o keep/$c"

	# The build failed, or named no kernel: skip, and vm is not run.
	export STUB_RC=0
	for b in 'exit 2' 'echo nosuch.img' 'echo' 'echo built.img; false'; do
		rm -f args
		(cd tree && UBC_BISECT_BUILD=$b "$step" -F x:+1%) 2>err
		got=$?
		[ "$got" -eq 125 ] || atf_fail "build '$b': exit $got, not 125"
		[ -f args ] && atf_fail "build '$b': ubcreplay vm ran"
		grep -q 'skip' err || atf_fail "build '$b': no word of it: $(cat err)"
	done
	# The recipe is wrong: stop, naming what is missing.
	(cd tree && "$step") 2>err
	[ $? -eq 255 ] && grep -q 'no gate' err || atf_fail "no gate: $(cat err)"
	(cd tree && UBC_BISECT_BASE= "$step" -F x:+1%) 2>err
	[ $? -eq 255 ] && grep -q 'no base kernel' err || atf_fail "no base: $(cat err)"
	(cd tree && "$step" -b nosuch -F x:+1%) 2>err
	[ $? -eq 255 ] && grep -q "base kernel 'nosuch' does not exist" err ||
	    atf_fail "missing base: $(cat err)"
	(cd tree && "$step" -a nosuch.tar -F x:+1%) 2>err
	[ $? -eq 255 ] && grep -q "archive 'nosuch.tar' does not exist" err ||
	    atf_fail "missing archive: $(cat err)"
	(cd tree && STUB_H=2 "$step" -F x:+1%) 2>err
	[ $? -eq 255 ] && grep -q "vm' does not run" err ||
	    atf_fail "no ubcreplay vm: $(cat err)"
	(cd / && "$step" -F x:+1%) 2>err
	[ $? -eq 255 ] && grep -q "not in a git tree" err ||
	    atf_fail "outside a tree: $(cat err)"
	[ -z "$(ls -A t)" ] || atf_fail "left in TMPDIR: $(ls -A t)"
}

atf_test_case history
history_head()
{
	atf_set descr "git bisect run through the step names the first commit whose kernel fails the gate, past a commit that does not build"
}
history_body()
{
	require_prog git
	mkstub
	echo good >kA
	echo bad >kB
	echo archive >a.tar
	# The 5th commit (index 4) is the first whose kernel is bad.
	mkhistory kA kA broken kA kB kB kB
	export UBC_BISECT_BUILD="k=\$(cat kernel); [ \$k != broken ] && echo $PWD/\$k"
	export STUB_BAD=bad UBC_BISECT_BASE=$PWD/kA UBC_BISECT_ARCHIVE=$PWD/a.tar
	first=$(sed -n 5p commits)
	(cd tree && git bisect start "$(sed -n 7p ../commits)" "$(sed -n 1p ../commits)" &&
	    git bisect run "$step" -F write.mean_bytes:-10%) >out 2>err ||
	    atf_fail "git bisect run failed: $(cat out err | tr "\n" " ")"
	grep -q "^$first is the first bad commit" out ||
	    atf_fail "bisect did not name $first: $(tail -n 3 out | tr "\n" " ")"
}

atf_test_case reuse
reuse_head()
{
	atf_set descr "-R: the base measured once over a whole bisection, each step booting only its own kernel and judged by compare against the stored base; a changed base is measured again"
}
reuse_body()
{
	require_prog git
	# vm writes the kernel's file as its result and logs the kernel;
	# compare fails when the last result says bad.
	cat >stub <<'EOF'
#!/bin/sh
case "$1 $2" in
"vm -h") echo "usage: ubcreplay vm -k kernel ..."; exit 0 ;;
"vm -k")
	[ "$4" = -o ] || exit 2
	echo "$3" >>"$STUB_LOG"
	mkdir -p "$5" && cp "$3" "$5/r.json" ;;
compare*)
	for last; do :; done
	grep -qx bad "$last" && exit 1 ;;
*) exit 2 ;;
esac
exit 0
EOF
	chmod +x stub
	export UBCREPLAY=$PWD/stub STUB_LOG=$PWD/log
	echo good >kA
	echo bad >kB
	echo archive >a.tar
	mkhistory kA kA kA kA kB kB kB kB
	export UBC_BISECT_BUILD="echo $PWD/\$(cat kernel)"
	first=$(sed -n 5p commits)
	(cd tree && git bisect start "$(sed -n 8p ../commits)" "$(sed -n 1p ../commits)" &&
	    git bisect run "$step" -b "$PWD/../kA" -F write.mean_bytes:-10% \
	    -a "$PWD/../a.tar" -R "$PWD/../base") >out 2>err ||
	    atf_fail "git bisect run failed: $(cat out err | tr "\n" " ")"
	grep -q "^$first is the first bad commit" out ||
	    atf_fail "bisect did not name $first: $(tail -n 3 out | tr "\n" " ")"
	steps=$(grep -c 'ubcreplay vm exited' err)
	# Each step's kernel once, and the base (named as -b gave it) once.
	[ "$(grep -cx "$PWD/tree/../kA" log)" -eq 1 ] && [ "$(wc -l <log)" -eq $((steps + 1)) ] ||
	    atf_fail "vm runs: $(cat log | tr "\n" " ") over $steps steps"
	[ "$(grep -c 'the base measured once' err)" -eq 1 ] ||
	    atf_fail "not one base measurement: $(cat err)"
	# Another base: measured again.
	(cd tree && git bisect reset >/dev/null 2>&1 && "$step" -b "$PWD/../kB" -F x:-10% \
	    -a "$PWD/../a.tar" -R "$PWD/../base") 2>err2
	grep -q 'the base measured once' err2 || atf_fail "a new base was not measured: $(cat err2)"
}

atf_test_case real
real_head()
{
	atf_set descr "with ubcreplay vm and two Debian kernels: a size gate that tells them apart, and git bisect names the commit that switches to the second"
	atf_set timeout 3600
}
real_body()
{
	plain_pass_only "its time is two Debian kernels' guests; the bisect code under ASan: vm_test:bisect and the other bisect_test cases"
	# Where the ktree history's base is built, ktree_test:from_source runs
	# this script under git bisect run on real kernel builds and guests:
	# this case, the same over two packages, would only add its minutes.
	[ -f "${UBC_KBUILD_CACHE:-/var/cache/ubcreplay/kbuild}/ktree-base/arch/x86/boot/bzImage" ] &&
	    atf_skip "ktree_test:from_source runs vm-bisect.sh on real builds here (the ktree history's base is built)"
	require_prog git
	require_prog qemu-system-x86_64
	"$ubc" vm -h 2>&1 | grep -q 'ubcreplay vm ' ||
	    atf_skip "this ubcreplay has no vm command ('ubcreplay vm -h' does not show its usage)"
	[ -f "$small" ] || atf_skip "no $small (make build/fixtures/small.tar.gz)"
	sh "$top/contrib/kernels.sh" >kernels 2>kerr ||
	    atf_skip "no kernels (make kernels): $(tail -n 1 kerr)"
	kA=$(sed -n 1p kernels)
	kB=$(sed -n 2p kernels)
	# A size gate the two kernels cross: measured here, the first of these
	# that compare fails, so that the verdict is the data's. Eight runs a
	# side: the gate fails only when the change's whole interval is beyond
	# the limit, which five noisy runs once left undecided for all of them.
	# One vCPU: with two, the 6.1 and 6.12 guests' writes differ too little
	# for five runs to tell (docs/vm-machine.md's series is on one vCPU too).
	vmopts="--cpus 1 --mem 512"
	"$ubc" vm -n 8 $vmopts -j 2 -k "$kA" -k "$kB" -o calib "$small" >calib.out 2>&1 ||
	    atf_fail "ubcreplay vm on $kA and $kB: $(tail -n 5 calib.out)"
	/usr/bin/python3 - "$kA" "$kB" <<'EOF' >pair || atf_fail "calib: $(cat pair)"
import json, os, sys
found = {}
for d, _, files in os.walk("calib"):
    for f in files:
        if f.endswith(".json"):
            try:
                j = json.load(open(os.path.join(d, f)))
            except ValueError:
                continue
            k = j.get("vm", {}).get("kernel")
            for i, want in enumerate(sys.argv[1:3]):
                if k and os.path.realpath(k) == os.path.realpath(want):
                    found[i] = os.path.join(d, f)
print(found.get(0, "none"), found.get(1, "none"))
EOF
	read -r rA rB <pair
	[ -f "$rA" ] && [ -f "$rB" ] || atf_fail "no result per kernel in calib/: $(find calib)"
	gate=
	for g in write.mean_bytes:-10% write.mean_bytes:+10% write.ops:+10% \
	    write.ops:-10% flushes:+10% flushes:-10% write.bytes:+10% \
	    write.bytes:-10%; do
		if "$ubc" compare --fail-if "$g" "$rA" "$rB" >/dev/null 2>&1; then
			:
		elif [ $? -eq 1 ]; then
			gate=$g
			break
		fi
	done
	[ -n "$gate" ] ||
	    atf_skip "no size gate tells $kA from $kB on this archive"
	echo "gate: $gate" >&2

	mkhistory A A A B B
	export UBCREPLAY="$ubc"
	export UBC_BISECT_BUILD="case \$(cat kernel) in A) echo $kA;; B) echo $kB;; esac"
	first=$(sed -n 4p commits)
	(cd tree && git bisect start "$(sed -n 5p ../commits)" "$(sed -n 1p ../commits)" &&
	    git bisect run "$step" -b "$kA" -F "$gate" -a "$small" -o "$PWD/../steps" \
	    -- -n auto $vmopts) >out 2>err ||
	    atf_fail "git bisect run failed: $( (cat out; tail -n 20 err) | tr "\n" " ")"
	cat err >&2
	grep -q "^$first is the first bad commit" out ||
	    atf_fail "bisect did not name $first: $(tail -n 3 out | tr "\n" " ")"
}

atf_init_test_cases()
{
	atf_add_test_case verdicts
	atf_add_test_case history
	atf_add_test_case reuse
	atf_add_test_case real
}
