#! /usr/bin/env atf-sh
# badinput_test.sh - bad input is refused with a message that names it, exit
# status 1, no result file, and nothing changed outside the run directory
# (a canary file and a listing of the whole work directory, before and after).

. "$(atf_get_srcdir)/../../tests/lib.sh"

# Lists the work directory: every path, type, mode, size and time, but the
# test's own files and the times of the directories the test or the run
# directory, which comes and goes, touch.
listing()
{
	find . -mindepth 1 ! -name 'listing.*' ! -name err ! -name 'r.json*' \
	    ! -path ./d -printf '%p %y %m %s %T@\n' | sort
	find d -printf '%p %y %m\n' | sort
}

setup()
{
	mkdir d outside
	echo "do not touch" >outside/canary
	listing >listing.before
}

# refuse WHAT [ubcreplay arguments...]: the run fails, the message names WHAT.
refuse()
{
	what=$1
	shift
	atf_check -s exit:1 -o empty -e save:err "$ubc" -o r.json "$@"
	grep -qF -- "$what" err || atf_fail "message does not name '$what': $(cat err)"
	[ ! -e r.json ] || atf_fail "a result file was written"
	ls r.json.tmp.* >/dev/null 2>&1 && atf_fail "a temporary result was left"
	listing >listing.after
	diff listing.before listing.after || atf_fail "something outside changed"
	[ "$(cat outside/canary)" = "do not touch" ] || atf_fail "canary changed"
}

# mktar NAME SPEC...: a tar made by Python's tarfile, which writes what it
# is told, '..' and absolute names included. SPEC: f:NAME, l:NAME:TARGET.
mktar()
{
	out=$1
	shift
	/usr/bin/python3 - "$out" "$@" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w") as t:
    for spec in sys.argv[2:]:
        kind, name, *rest = spec.split(":", 2)
        ti = tarfile.TarInfo(name)
        if kind == "l":
            ti.type, ti.linkname = tarfile.SYMTYPE, rest[0]
            t.addfile(ti)
        else:
            data = b"escaped\n"
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
PY
}

atf_test_case missing_archive
missing_archive_body()
{
	setup
	refuse no-such.tar.gz no-such.tar.gz d
}

atf_test_case truncated_gzip
truncated_gzip_body()
{
	head -c 200000 "$small" >trunc.tar.gz
	setup
	refuse trunc.tar.gz trunc.tar.gz d
}

atf_test_case garbage
garbage_body()
{
	head -c 65536 /dev/urandom >garbage.tar
	setup
	refuse garbage.tar garbage.tar d
	# libarchive's reason, not strerror(EILSEQ) ("multibyte character").
	grep -q "Unrecognized archive format" err || atf_fail "message: $(cat err)"
}

atf_test_case dir_missing
dir_missing_body()
{
	setup
	refuse nodir "$small" nodir
}

atf_test_case dir_not_directory
dir_not_directory_body()
{
	echo x >afile
	setup
	refuse afile "$small" afile
}

atf_test_case dir_not_writable
dir_not_writable_body()
{
	setup
	if [ "$(id -u)" -eq 0 ]; then
		# Root writes anywhere: run as nobody against root's directory.
		require_prog setpriv
		chmod 755 d
		chmod o+x . "$top" 2>/dev/null
		atf_check -s exit:1 -o empty -e save:err setpriv --reuid=65534 \
		    --regid=65534 --clear-groups "$ubc" "$small" "$PWD/d"
		grep -q "not writable" err || atf_fail "message: $(cat err)"
		[ -z "$(ls d)" ] || atf_fail "something was made in d"
	else
		chmod 555 d
		listing >listing.before
		refuse "not writable" "$small" d
	fi
}

atf_test_case dotdot
dotdot_body()
{
	mktar evil.tar f:ok f:../escape
	setup
	refuse "../escape" evil.tar d
	[ ! -e escape ] || atf_fail "the entry escaped"
}

atf_test_case absolute
absolute_body()
{
	mktar evil.tar "f:$PWD/outside/abs-escape"
	setup
	refuse "$PWD/outside/abs-escape" evil.tar d
}

atf_test_case symlink_through
symlink_through_body()
{
	mktar evil.tar "l:lnk:$PWD/outside" f:lnk/pwned
	setup
	refuse "lnk/pwned" evil.tar d
	[ ! -e outside/pwned ] || atf_fail "a file was written through the link"
}

atf_test_case usage
usage_body()
{
	atf_check -s exit:2 -o empty -e match:"usage: ubcreplay" "$ubc"
	atf_check -s exit:2 -o empty -e match:"-n '0' is not a whole number" "$ubc" -n 0 a d
	atf_check -s exit:2 -o empty -e match:"not none, file or end" "$ubc" --fsync sometimes a d
	atf_check -s exit:2 -o empty -e match:"interval '5x'" "$ubc" -i 5x a d
	atf_check -s exit:0 -o match:"usage: ubcreplay" "$ubc" -h
}

atf_init_test_cases()
{
	atf_add_test_case missing_archive
	atf_add_test_case truncated_gzip
	atf_add_test_case garbage
	atf_add_test_case dir_missing
	atf_add_test_case dir_not_directory
	atf_add_test_case dir_not_writable
	atf_add_test_case dotdot
	atf_add_test_case absolute
	atf_add_test_case symlink_through
	atf_add_test_case usage
}
