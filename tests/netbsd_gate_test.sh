#! /usr/bin/env atf-sh
# netbsd_gate_test.sh - a patch to NetBSD's FFS, from its tree to the
# verdict: a git history on the bundled NetBSD source (a base, an unrelated
# change, one that makes genfs cluster at most a quarter of MAXPHYS, and
# another unrelated one), each commit built with contrib/rump-kbuild.sh
# and measured with ubcreplay; the gate must fail the regression, pass the
# unrelated change, and `git bisect run contrib/rump-bisect.sh` must name
# the regression.

. "$(atf_get_srcdir)/../../tests/lib.sh"

gate=write.mean_bytes:-10%

commit_all()
{
	git -C tree add -A &&
	    git -C tree -c user.name=t -c user.email=t@t commit -q -m "$1" ||
	    atf_fail "cannot commit '$1'"
}

# measure NAME: builds the tree as checked out and runs the job on a fresh
# copy of the image; the result is NAME.json.
measure()
{
	r=$(sh "$top/contrib/rump-kbuild.sh" -O "$PWD/obj" -s "$(dirname "$rump")" \
	    "$PWD/tree" 2>build.err) || atf_fail "the build failed: $(tail -5 build.err)"
	cp pristine.img run.img
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q --rump "$r" -n 5 \
	    -O log -o "$1.json" "$small" ffs:run.img
}

atf_test_case history
history_head()
{
	atf_set descr "a clustering regression in genfs fails the gate, an unrelated commit passes, bisect names it"
	atf_set timeout 900
}
history_body()
{
	plain_pass_only "its time is rump kernel builds; the rump runs under ASan: netbsd_test"
	[ -f "$rump/lib/librumpfs_ffs.so" ] || {
		[ -f "$bundle/SHA256SUMS" ] ||
		    atf_skip "no NetBSD bundle at $bundle: no rump kernel can be built"
		atf_fail "no rump kernel in $rump though the bundle is at $bundle: did make rump fail?"
	}
	require_prog git
	require_prog makefs
	src=$(sed -n 's/^src=//p' "$rump/ubcreplay-build")
	[ -d "$src" ] || atf_fail "the bundle's build names no tree: '$src'"
	# cp -a keeps the times that let the build start from the bundle's.
	cp -a "$src" tree || atf_fail "cannot copy $src"
	git -C tree init -q && commit_all base
	good=$(git -C tree rev-parse --short HEAD)
	echo "/* an unrelated change */" >>tree/sys/ufs/ffs/ffs_alloc.c
	commit_all unrelated
	other=$(git -C tree rev-parse --short HEAD)
	sed -i 's|^#define maxpages (MAXPHYS >> PAGE_SHIFT)$|#define maxpages ((MAXPHYS >> PAGE_SHIFT) / 4)|' \
	    tree/sys/miscfs/genfs/genfs_io.c
	git -C tree diff --quiet && atf_fail "the regression's line was not found"
	commit_all "genfs: cluster a quarter of MAXPHYS"
	bad=$(git -C tree rev-parse --short HEAD)
	echo "/* another unrelated change */" >>tree/sys/ufs/ffs/ffs_vfsops.c
	commit_all "another unrelated"
	head=$(git -C tree rev-parse --short HEAD)

	mkdir empty
	makefs -t ffs -o version=2,bsize=16384,fsize=2048 -f 4000 -s 128m \
	    pristine.img empty >/dev/null || atf_fail "makefs failed"
	for c in base:$good unrelated:$other regression:$bad; do
		git -C tree checkout -q "${c#*:}" || atf_fail "cannot check out $c"
		measure "${c%%:*}"
	done
	json base.json "d['label']" | grep -q "tree@$good" ||
	    atf_fail "the label does not name the tree and commit: $(json base.json "d['label']")"

	atf_check -s exit:0 -o save:unrelated.out -e ignore "$ubc" compare \
	    --fail-if "$gate" base.json unrelated.json
	atf_check -s exit:1 -o save:regression.out -e ignore "$ubc" compare \
	    --fail-if "$gate" unrelated.json regression.json
	cat regression.out

	git -C tree checkout -q "$head" &&
	    git -C tree bisect start "$head" "$good" >/dev/null ||
	    atf_fail "git bisect start failed"
	(cd tree && UBCREPLAY=$ubc git bisect run sh "$top/contrib/rump-bisect.sh" \
	    -b "$PWD/../base.json" -F "$gate" -a "$small" -i "$PWD/../pristine.img" \
	    -O "$PWD/../obj" -- -n 5 -O log) >bisect.out 2>&1
	cat bisect.out
	grep -q "^$bad[0-9a-f]* is the first bad commit" bisect.out ||
	    atf_fail "git bisect did not name $bad"
}

atf_init_test_cases()
{
	atf_add_test_case history
}
