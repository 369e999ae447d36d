#! /usr/bin/env atf-sh
# hostile_test.sh - hostile archives (tests/mkhostile.py: '..', absolute
# names, symlinks and hard links out, device nodes, FIFOs, set-id bits, long
# names and deep nesting, duplicates, a size larger than the data, a
# decompression bomb; in tar, pax, cpio and zip) are refused or contained.
#
# Refused: exit 1, the message names the entry, no result file. Contained:
# the run succeeds and what it leaves with --keep holds no device node and
# no set-id file. Both: nothing outside the run directory created or
# changed (canaries, and a listing of the whole work directory with types,
# modes, sizes, link counts, owners and both times, before and after), and
# the run directory gone after a run without --keep.
#
# Each case prints "hostile CLASS: N archives tried, N escapes" (docs/hardening.md).

. "$(atf_get_srcdir)/../../tests/lib.sh"

mkhostile=$top/tests/mkhostile.py

# Everything in the work directory but the target, the archives and the
# test's own files: a link made to a canary changes its link count and
# ctime, a mode or time set through a link changes the outside directory.
listing()
{
	find . -mindepth 1 \( -path ./d -o -path ./arch -o -path ./mnt \) -prune \
	    -o ! -name 'listing.*' ! -name err ! -name out ! -name 'r.json*' \
	    ! -name loops ! -name '*.img' -printf '%p %y %m %s %n %U %G %T@ %C@\n' | sort
}

setup()
{
	mkdir -p d outside/sub
	chmod 755 outside
	echo "do not touch" >outside/canary
	echo "nor this" >outside/sub/canary
	ln -s canary outside/canary-link
	listing >listing.before
	tried=0 escapes=0
}

escape()
{
	escapes=$((escapes + 1))
	echo "ESCAPE: $*" >&2
	failures="$failures
$*"
}

# check_outside FILE: nothing outside changed, the target holds nothing.
check_outside()
{
	listing >listing.after
	if ! diff listing.before listing.after >&2; then
		escape "$1: something outside the run directory changed"
		listing >listing.before
	fi
	[ "$(cat outside/canary)" = "do not touch" ] || escape "$1: canary changed"
	[ "$(cat outside/sub/canary)" = "nor this" ] || escape "$1: sub/canary changed"
}

# try FILE EXPECT NAME [TARGET]: one archive, without then with --keep.
try()
{
	file=$1 expect=$2 name=$3 tgt=${4:-d}
	tried=$((tried + 1))
	rm -f r.json
	# A low descriptor limit: deep trees must not need one per level.
	(ulimit -n 256; exec "$ubc" -q -p interval -o r.json "arch/$file" "$tgt") >out 2>err
	rc=$?
	case $expect in
	refuse)
		[ $rc -eq 1 ] || escape "$file: exit $rc, not 1: $(cat err)"
		grep -qF -- "$name" err || escape "$file: the message does not name '$name': $(cat err)"
		[ ! -e r.json ] || escape "$file: a result file was written"
		;;
	contain)
		[ $rc -eq 0 ] || escape "$file: exit $rc: $(cat err)"
		[ "$(json r.json "d['status']" 2>/dev/null)" = ok ] || escape "$file: result not ok"
		;;
	esac
	# No control character but the line ends reaches the terminal.
	LC_ALL=C tr -d '\n' <err | LC_ALL=C grep -q '[[:cntrl:]]' &&
	    escape "$file: the message carries control characters"
	[ -z "$(ls -A "$tgt")" ] || escape "$file: the run directory was left: $(ls -A "$tgt")"
	check_outside "$file"
	# Again with --keep: what it leaves must be safe to leave.
	"$ubc" -q -p interval --keep "arch/$file" "$tgt" >out 2>err
	rc=$?
	[ $rc -eq "$( [ "$expect" = refuse ] && echo 1 || echo 0)" ] ||
	    escape "$file --keep: exit $rc: $(cat err)"
	bad=$(find "$tgt" \( -type b -o -type c -o \( ! -type d -perm /6000 \) \) -print)
	[ -z "$bad" ] || escape "$file --keep: left unsafe files: $bad"
	check_outside "$file --keep"
	rm -rf "${tgt:?}"/ubcreplay-run.*
}

# hostile CLASS: every archive of one class.
hostile()
{
	require_prog /usr/bin/python3
	setup
	failures=
	/usr/bin/python3 "$mkhostile" arch "$PWD/outside" "$1" ||
	    atf_fail "mkhostile.py failed"
	while read -r file expect name; do
		try "$file" "$expect" "$name"
	done <arch/MANIFEST
	echo "hostile $1: $tried archives tried, $escapes escapes"
	[ "$tried" -gt 0 ] || atf_fail "no archive tried"
	[ "$escapes" -eq 0 ] || atf_fail "$escapes escapes:$failures"
}

for c in dotdot absolute symlink hardlink device fifo setid longname \
    duplicate ctrlname oversize; do
	eval "atf_test_case $c
${c}_head() { atf_set descr 'hostile archives: $c, in every format that has it'; }
${c}_body() { hostile $c; }"
done

atf_test_case result_file
result_file_head()
{
	atf_set descr "a result file with escape sequences in its strings and keys: report and compare print none"
}
result_file_body()
{
	/usr/bin/python3 - "$top/fixtures/compare_test/default.json" evil.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = "evil\x1b]2;owned\x07label"
d["runs"][0]["status"] = "failed"
d["runs"][0]["error"] = "boom\x1b[2J\r\n"
d["targets"][0]["path"] = "/mnt/\x1b[31mred"
for run in d["runs"]:
    for ph in run["phases"]:
        for dev in ph["devices"]:
            dev["device"] += "\x1b[5m"
d["workload"]["archive\x1b[6n"] = "x"
json.dump(d, open(sys.argv[2], "w"))
PY
	[ -s evil.json ] || atf_fail "cannot make evil.json"
	for cmd in "report evil.json" "compare evil.json evil.json" "compare -a evil.json"; do
		$ubc $cmd >out 2>&1
		rc=$?
		[ $rc -le 2 ] || atf_fail "ubcreplay $cmd: exit $rc"
		grep -q . out || atf_fail "ubcreplay $cmd printed nothing"
		LC_ALL=C tr -d '\n' <out | LC_ALL=C grep -q '[[:cntrl:]]' &&
		    atf_fail "ubcreplay $cmd printed control characters: $(cat -v out | head -5)"
	done
	echo "hostile result_file: 3 commands tried, 0 escapes"
}

atf_test_case bomb cleanup
bomb_head()
{
	atf_set descr "a decompression bomb on a 32 MB filesystem: ENOSPC named, nothing left"
}
bomb_body()
{
	require_root "makes a loop filesystem"
	require_prog /usr/bin/python3
	mkloopfs mnt 32 ext4
	setup
	failures=
	/usr/bin/python3 "$mkhostile" arch "$PWD/outside" bomb || atf_fail "mkhostile.py failed"
	mkdir mnt/t
	while read -r file expect name; do
		try "$file" "$expect" "$name" mnt/t
	done <arch/MANIFEST
	grep -q "No space left on device" err || atf_fail "not ENOSPC: $(cat err)"
	echo "hostile bomb: $tried archives tried, $escapes escapes"
	[ "$escapes" -eq 0 ] || atf_fail "$escapes escapes:$failures"
}
bomb_cleanup()
{
	cleanup_loops
}

atf_init_test_cases()
{
	for c in dotdot absolute symlink hardlink device fifo setid longname \
	    duplicate ctrlname oversize bomb result_file; do
		atf_add_test_case $c
	done
}
