#! /usr/bin/env atf-sh
# tar_test.sh - the main job end to end, on loop filesystems, against
# instruments that are not ubcreplay: the device's own counters taken by the
# test around the run, and bsdtar's extraction of the same archive.

. "$(atf_get_srcdir)/../../tests/lib.sh"

# Sums over the runs and what lay between them, from the result, as
# "write_ops write_bytes flushes".
totals()
{
	json "$1" "' '.join(str(sum(x[k][f] if f else x[k] for x in [dv for r in d['runs'] for p in r['phases'] for dv in p['devices']] + d['between_runs']['devices'])) for k, f in (('write','ops'),('write','bytes'),('flushes',None)))"
}

check_totals()
{
	mnt=$1
	opts=${2:-}
	mkloopfs "$mnt" 256 ext4 "$opts"
	dev=$loopdev
	before=$(devstat "$dev")
	atf_check -s exit:0 -o save:out -e ignore \
	    "$ubc" -p interval -n 3 -o "$PWD/$mnt.json" "$small" "$mnt"
	after=$(devstat "$dev")
	set -- $before
	w0=$5 s0=$7 f0=${16}
	set -- $after
	want="$(($5 - w0)) $((($7 - s0) * 512)) $((${16} - f0))"
	got=$(totals "$mnt.json")
	echo "$mnt: diskstats delta (writes bytes flushes): $want; result: $got"
	[ "$got" = "$want" ] || atf_fail "$mnt: result totals '$got' differ from the device's counters '$want'"
	# Three runs, three time lines in csh's format.
	n=$(grep -cE '^run [0-9]+ +[0-9]+\.[0-9]{3}u [0-9]+\.[0-9]{3}s [0-9:.]+ [0-9.]+% 0\+0k [0-9]+\+[0-9]+io [0-9]+pf\+[0-9]+w' out)
	[ "$n" -eq 3 ] || atf_fail "expected 3 time lines, found $n"
	grep -q 'interval means' out || atf_fail "the histogram does not say it holds interval means"
}

atf_test_case totals_default cleanup
totals_default_head()
{
	atf_set descr "ext4: the result's totals equal the loop device's diskstats delta"
}
totals_default_body()
{
	require_root "makes loop filesystems"
	check_totals def
}
totals_default_cleanup()
{
	cleanup_loops
}

atf_test_case totals_sync cleanup
totals_sync_head()
{
	atf_set descr "ext4 -o sync: totals equal diskstats, empty preflush writes included"
}
totals_sync_body()
{
	require_root "makes loop filesystems"
	check_totals syn sync
}
totals_sync_cleanup()
{
	cleanup_loops
}

atf_test_case sync_mount_smaller cleanup
sync_mount_smaller_head()
{
	atf_set descr "ext4 -o sync sends the device smaller writes than ext4 default"
}
sync_mount_smaller_body()
{
	require_root "makes loop filesystems"
	mkloopfs def 256 ext4
	mkloopfs syn 256 ext4 sync
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 2 -o def.json "$small" def
	atf_check -s exit:0 -o ignore -e ignore "$ubc" -q -n 2 -o syn.json "$small" syn
	expr="[v['write']['mean_bytes']['median'] for v in d['summary']['devices'].values()][0]"
	md=$(json def.json "$expr")
	ms=$(json syn.json "$expr")
	echo "mean write size: default $md bytes, -o sync $ms bytes"
	[ "$ms" -lt "$md" ] || atf_fail "-o sync mean write $ms is not below default $md"
	# The histograms differ too: sync has writes in buckets below 16 KiB.
	small_sync=$(json syn.json "sum(b['count'] for v in d['summary']['devices'].values() for b in v['size_hist']['write']['buckets'] if b['min_bytes'] < 16384)")
	[ "$small_sync" -gt 0 ] || atf_fail "-o sync shows no write below 16K"
}
sync_mount_smaller_cleanup()
{
	cleanup_loops
}

atf_test_case same_tree_as_bsdtar cleanup
same_tree_as_bsdtar_head()
{
	atf_set descr "with --keep, the extracted tree equals bsdtar's extraction"
}
same_tree_as_bsdtar_body()
{
	require_root "makes loop filesystems"
	require_prog bsdtar
	mkloopfs fs 256 ext4
	atf_check -s exit:0 -o ignore -e save:err "$ubc" -q --keep "$small" fs
	run=$(ls -d fs/ubcreplay-run.*)
	[ -d "$run" ] || atf_fail "--keep left no run directory"
	mkdir ref
	bsdtar -xf "$small" -C ref || atf_fail "bsdtar failed"
	diff -r ref "$run" || atf_fail "the trees differ"
	# Types, modes and modification times, not only contents (the top is
	# the run directory itself, made by ubcreplay: leave it out).
	(cd ref && find . -printf '%p %y %m %T@\n' | sort) >ref.lst
	(cd "$run" && find . -printf '%p %y %m %T@\n' | sort | sed '1s/.*/. /') >run.lst
	sed -i '1s/.*/. /' ref.lst
	diff ref.lst run.lst || atf_fail "types, modes or times differ"
}
same_tree_as_bsdtar_cleanup()
{
	cleanup_loops
}

atf_test_case report_again
report_again_head()
{
	atf_set descr "'report' renders a stored result exactly as the live run did"
}
report_again_body()
{
	mkdir d
	atf_check -s exit:0 -o save:live -e ignore "$ubc" -n 2 -o r.json "$small" d
	atf_check -s exit:0 -o save:again "$ubc" report r.json
	diff live again || atf_fail "report differs from the live output"
	# And the result is the same bytes when written again from itself.
	[ "$(json r.json "list(d)[0]")" = schema ] || atf_fail "schema is not the first key"
}

atf_test_case nodev_times_only
nodev_times_only_head()
{
	atf_set descr "a filesystem without a block device: said plainly, times only"
}
nodev_times_only_body()
{
	require_root "mounts a tmpfs"
	mkdir t
	mount -t tmpfs -o size=64m tmpfs t || atf_skip "cannot mount tmpfs"
	"$ubc" -n 1 -o r.json "$small" t >out 2>err
	rc=$?
	umount t
	[ $rc -eq 0 ] || atf_fail "exit $rc: $(cat err)"
	grep -q 'tmpfs filesystem .* has no block device' err || atf_fail "no plain statement: $(cat err)"
	[ "$(json r.json "d['probe']['name']")" = none ] || atf_fail "probe is not none"
	grep -qE '^run 1 ' out || atf_fail "no time line"
}

atf_init_test_cases()
{
	atf_add_test_case totals_default
	atf_add_test_case totals_sync
	atf_add_test_case sync_mount_smaller
	atf_add_test_case same_tree_as_bsdtar
	atf_add_test_case report_again
	atf_add_test_case nodev_times_only
}
