#! /usr/bin/env atf-sh
# ktree_test.sh - a kernel tree as the kernel under test (`ubcreplay vm -k
# DIR`, vm/ktree.c) and contrib/vm-kbuild.sh, which gives a tree the
# guest's config and builds it.
#
# - Trees that are not, or are not built, or fail to build, or whose
#   kernel panics: exit 2, the reason, nothing left behind.
# - The project's UML patches (uml_patch_variants) on Debian's 6.1 and 6.12
#   UML code, the files they touch taken from the source tarballs: each
#   number's variant that fits is applied and recorded, one applied is
#   recognised, none fitting is an error that leaves the tree as it was.
# - The config, with the kernel's own kconfig (Debian's 6.1 source): a
#   .config without virtio or 9p gets them added and named; a must-have
#   whose dependencies are unmet is an error naming it.
# - Two trees of one release (Debian's 6.1 kernel laid out as built trees
#   in git work trees) are told apart in the labels, the file names and the
#   series, and the vm object records each tree's commit (checked against
#   git rev-parse) and state.
# - From source, end to end (from_source): Debian's 6.1 made into a small
#   history (tests/ktree_history.sh), built, gated and bisected. It needs
#   a build of the history's base in the kbuild cache; without one it says
#   SKIP and how to make it.
# - On the virtio disk (virtio_verdicts): the history's regression and
#   unrelated edit built beside the tests' UML kernel, which make check
#   builds cold, so it runs wherever the UML cases do. A patch to the
#   virtio-blk driver (virtio_blk_patch) gets the same verdict there as in
#   Debian's 6.1 under TCG with the patched module (the package's headers:
#   contrib/deps.sh).

. "$(atf_get_srcdir)/../../tests/lib.sh"

kbuild=$top/contrib/vm-kbuild.sh
VMOPTS="--mem 512 --cpus 1 --timeout 900"
# Where the from-source cases find Debian's source, its history and builds.
cache=${UBC_KBUILD_CACHE:-/var/cache/ubcreplay/kbuild}
src=${UBC_KTREE_SRC:-/var/cache/ubcreplay/src/linux-source-6.1}
tarball=/usr/src/linux-source-6.1.tar.xz

# The newest Debian 6.1 package under build/kernels in $deb61, or a skip
# (in the test's own shell: a skip in a command substitution is lost).
debian61()
{
	deb61=$(ls -d "$top"/build/kernels/linux-image-6.1.*-amd64 2>/dev/null |
	    sort -V | tail -1)
	[ -n "$deb61" ] || atf_skip "no 6.1 kernel under build/kernels (contrib/kernels.sh fetches them)"
}

# faketree DIR PKG: Debian's kernel PKG laid out as a tree built in place
# (what vm/ktree.c reads), its modules.dep as the tree's own, in a git work
# tree with one commit.
faketree()
{
	rel=$(ls "$2/lib/modules")
	mkdir -p "$1/arch/x86/boot" "$1/include/config"
	echo 'all:' >"$1/Makefile"
	echo 'mainmenu "fake"' >"$1/Kconfig"
	echo "$rel" >"$1/include/config/kernel.release"
	cp "$2/boot/vmlinuz-$rel" "$1/arch/x86/boot/bzImage"
	ln -s "$2/lib/modules/$rel/kernel" "$1/kernel"
	cp "$2/lib/modules/$rel/modules.builtin" "$2/lib/modules/$rel/modules.order" "$1/"
	touch -d '-1 hour' "$1/modules.order"
	cp "$2/lib/modules/$rel/modules.dep" "$1/"
	printf '/arch/\n/kernel\n/modules.*\n' >"$1/.gitignore"
	git -C "$1" init -q && git -C "$1" add -A &&
	    git -C "$1" -c user.name=t -c user.email=t@t commit -q -m "$1" ||
	    atf_fail "git in $1"
}

atf_test_case not_a_tree
not_a_tree_head()
{
	atf_set "descr" "a directory that is not a kernel tree: vm and vm-kbuild.sh exit 2 naming it, nothing left behind"
}
not_a_tree_body()
{
	use_tmp
	require_prog qemu-system-x86_64
	mkdir notatree
	echo 'all:' >notatree/Makefile
	bad "'notatree' is not a kernel tree" -k notatree -o out "$small"
	atf_check -s exit:2 -o empty -e match:"'notatree' is not a kernel source tree" \
	    "$kbuild" -O "$PWD/obj" notatree
	[ ! -e obj ] || atf_fail "vm-kbuild.sh made a build directory for a non-tree"
}

atf_test_case never_built
never_built_head()
{
	atf_set "descr" "a kernel tree, or an O= build directory, without a bzImage: exit 2, saying it is not built"
}
never_built_body()
{
	use_tmp
	require_prog qemu-system-x86_64
	mkdir -p src/arch/x86 obj
	echo 'all:' >src/Makefile
	echo 'mainmenu "fake"' >src/Kconfig
	bad "kernel tree 'src' is not built (no arch/x86/boot/bzImage)" -k src -o out "$small"
	# An O= directory: a Makefile and the link back to its source.
	echo 'all:' >obj/Makefile
	ln -s "$PWD/src" obj/source
	bad "kernel tree 'obj' is not built" -k obj -o out "$small"
	# A bzImage older than the tree's configuration.
	debian61
	faketree t "$deb61"
	echo 6.1.999 >t/include/config/kernel.release
	bad "configured for 6.1.999: rebuild it" -k t -o out "$small"
}

atf_test_case modules
modules_head()
{
	atf_set "descr" "a tree with modules and no modules.dep: one is made from modules.order and the modules' depends=, and a module the cell needs that the tree lacks is named"
}
modules_body()
{
	use_tmp
	require_prog qemu-system-x86_64
	require_prog git
	debian61
	faketree t "$deb61"
	rm t/kernel t/modules.dep t/modules.builtin
	: >t/modules.builtin
	# What modpost leaves: 6.1 names the .ko in modules.order.
	mkdir -p t/fs/a t/net/b t/lib/c
	printf 'fs/a/a.ko\nnet/b/b.ko\nlib/c/c-x.ko\n' >t/modules.order
	printf 'MODULE_INFO(depends, "b,c_x");\n' >t/fs/a/a.mod.c
	printf 'MODULE_INFO(depends, "");\n' >t/net/b/b.mod.c
	printf '#include <linux/module.h>\n' >t/lib/c/c-x.mod.c
	bad "has no module virtio_pci" -k t -o out "$small"
	printf 'fs/a/a.ko: net/b/b.ko lib/c/c-x.ko\nnet/b/b.ko:\nlib/c/c-x.ko:\n' >want
	diff want t/modules.dep || atf_fail "modules.dep"
	# A module modules.order names whose build is missing.
	rm t/modules.dep t/net/b/b.mod.c
	bad "module net/b/b.ko is in modules.order but has no .mod.c" -k t -o out "$small"
	[ ! -e t/modules.dep ] || atf_fail "a half-made modules.dep was left"
	[ -z "$(ls t | grep tmp)" ] || atf_fail "left in the tree: $(ls t)"
}

# fake_kconfig DIR: DIR made a kernel tree as far as vm-kbuild.sh's
# configuring goes (make tinyconfig or defconfig makes an empty .config,
# merge_config.sh appends the fragments, olddefconfig keeps them), without
# a build target.
fake_kconfig()
{
	mkdir -p "$1/scripts/kconfig"
	echo 'mainmenu "fake"' >"$1/Kconfig"
	cat >"$1/Makefile" <<EOF
tinyconfig defconfig:
	@mkdir -p \$(O) && : >\$(O)/.config
olddefconfig:
	@echo configured
EOF
	cat >"$1/scripts/kconfig/merge_config.sh" <<'EOF'
#!/bin/sh
# merge_config.sh -m -O DIR BASE FRAGMENT...: the fragments appended.
out=$3; shift 4
cat "$@" >>"$out/.config"
EOF
	chmod +x "$1/scripts/kconfig/merge_config.sh"
}

atf_test_case build_fails
build_fails_head()
{
	atf_set "descr" "vm-kbuild.sh on a tree whose build fails: exit 2 and the log's last lines, the compiler's error among them"
}
build_fails_body()
{
	# A tree whose make configures as kconfig would and then fails to
	# compile: what vm-kbuild.sh does with it is what is tested.
	fake_kconfig t
	cat >>t/Makefile <<EOF
bzImage:
	@echo '  CC      fs/ext4/inode.o'
	@echo 'fs/ext4/inode.c:42:1: error: expected ";" before "}" token'
	@exit 1
EOF
	atf_check -s exit:2 -o empty -e save:err "$kbuild" -O "$PWD/obj" t
	grep -q 'make bzImage (exit .*) failed' err || atf_fail "no word of the failure: $(cat err)"
	grep -q 'inode.c:42:1: error: expected' err || atf_fail "no compiler error: $(cat err)"
	[ ! -e obj/kbuild.time ] || atf_fail "a failed build left a build time"
	[ ! -e obj/.kbuild.rc ] || atf_fail "left obj/.kbuild.rc"
}

# umlsrc SERIES DIR: the files contrib/uml-patches touch, from Debian's
# linux-source-SERIES tarball, in DIR made a tree (fake_kconfig), or a skip.
umlsrc()
{
	t=/usr/src/linux-source-$1.tar.xz
	[ -f "$t" ] || atf_skip "no $t (apt-get install linux-source-$1)"
	# The files the patches change; not those one of them makes (a hunk
	# from line 0: the tarball has no such file), which a later one may
	# change (0005 the file 0004 makes).
	files=$(awk '/^\+\+\+ b\// { f = substr($2, 3) }
	    /^@@ / && f != "" { if ($2 == "-0,0") made[f] = 1; else seen[f] = 1; f = "" }
	    END { for (f in seen) if (!(f in made)) print f }' \
	    "$top"/contrib/uml-patches/*.patch | sort -u)
	mkdir -p "$2" && tar -xJf "$t" -C "$2" --strip-components=1 --occurrence \
	    $(printf "linux-source-$1/%s\n" $files) || atf_fail "cannot extract $files from $t"
	fake_kconfig "$2"
}

# recorded PATCH...: what kbuild.patches says when these were used.
recorded()
{
	for p; do
		echo "$p $(sha256sum <"$top/contrib/uml-patches/$p" | cut -d' ' -f1)"
	done
}

atf_test_case uml_patch_variants
uml_patch_variants_head()
{
	atf_set "descr" "vm-kbuild.sh -a um on Debian's 6.1 and 6.12 UML code: each patch number's variant that fits is applied and recorded in kbuild.patches, one already applied is recognised, and where none fits the error names the number and every variant, and the tree is left as it was"
}
uml_patch_variants_body()
{
	require_prog patch
	umlsrc 6.1 t61
	umlsrc 6.12 t612
	uml=$top/contrib/uml-patches
	for t in t61 t612; do
		case $t in
		t61) want="0001-xstate-host-size.patch 0002-ubd-time-travel-disk-model.patch 0003-rng-seed.patch 0004-cpu-charge.patch 0005-bio-yield.patch 0006-hz-choice.patch" ;;
		t612) want="0001-xstate-host-size-6.12.patch 0002-ubd-time-travel-disk-model-6.12.patch 0003-rng-seed.patch 0004-cpu-charge.patch 0005-bio-yield.patch 0006-hz-choice.patch" ;;
		esac
		atf_check -s exit:0 -o inline:"$PWD/o$t\n" -e save:err \
		    "$kbuild" -n -a um -O "$PWD/o$t" $t
		recorded $want >want
		diff want o$t/kbuild.patches || atf_fail "$t: kbuild.patches"
		for p in $want; do
			grep -qx "vm-kbuild.sh: $p: applied to $PWD/$t" err ||
			    atf_fail "$t: $p not applied: $(tr '\n' ' ' <err)"
		done
		grep -q 'ubd_model=' $t/arch/um/drivers/ubd_kern.c &&
		    grep -q 'xstate_buf' $t/arch/x86/um/os-Linux/registers.c &&
		    grep -q 'uml_seed=' $t/arch/um/os-Linux/util.c &&
		    grep -q 'uml_cpu=' $t/arch/um/kernel/cpu_charge.c &&
		    grep -q 'uml_bio_yield' $t/arch/um/kernel/cpu_charge.c &&
		    grep -q 'uml_cpu_bio_submit' $t/block/blk-core.c &&
		    grep -q 'source "kernel/Kconfig.hz"' $t/arch/um/Kconfig ||
		    atf_fail "$t: the tree lacks the patches' changes"
		[ -z "$(find $t -name '*.orig' -o -name '*.rej')" ] ||
		    atf_fail "$t: patch left $(find $t -name '*.orig' -o -name '*.rej')"
	done

	# Again: each is there already, and nothing changes.
	cp -a t612 t612.before
	atf_check -s exit:0 -o inline:"$PWD/ot612\n" -e save:err \
	    "$kbuild" -n -a um -O "$PWD/ot612" t612
	for p in $want; do
		grep -qx "vm-kbuild.sh: $p: already in $PWD/t612" err ||
		    atf_fail "$p not recognised: $(tr '\n' ' ' <err)"
	done
	diff want ot612/kbuild.patches || atf_fail "kbuild.patches after a second run"
	diff -r t612.before t612 || atf_fail "a second run changed the tree"

	# A 6.1 tree changed by hand in a line 0002's variants need: none fits,
	# and 0001, applied first, is reverted.
	set -- "$uml"/0002-*.patch
	[ $# -ge 2 ] || atf_fail "0002 has $# variants: $*"
	umlsrc 6.1 hand
	sed -i 's|^#include <linux/scatterlist.h>$|& /* by hand */|' \
	    hand/arch/um/drivers/ubd_kern.c
	grep -q 'by hand' hand/arch/um/drivers/ubd_kern.c || atf_fail "the change by hand"
	cp -a hand hand.before
	atf_check -s exit:2 -o empty -e save:err "$kbuild" -n -a um -O "$PWD/ohand" hand
	grep -qx "vm-kbuild.sh: 0001-xstate-host-size.patch: applied to $PWD/hand" err ||
	    atf_fail "0001 was not applied first: $(tr '\n' ' ' <err)"
	grep -q "uml-patches 0002: no variant fits '$PWD/hand'" err ||
	    atf_fail "the error does not name 0002 and the tree: $(tr '\n' ' ' <err)"
	tried=$(sed -n 's/.*; tried: //p' err)
	for p; do
		case " $tried " in
		*" ${p##*/} "*) ;;
		*) atf_fail "the error does not name ${p##*/}: $(tr '\n' ' ' <err)" ;;
		esac
	done
	diff -r hand.before hand || atf_fail "the tree was left changed"
	[ ! -e ohand/kbuild.patches ] || atf_fail "a failed run wrote kbuild.patches"
}

# kconfig_src: Debian's 6.1 source (extracted once, into the cache), or a skip.
kconfig_src()
{
	if [ ! -f "$src/Kconfig" ]; then
		[ -f "$tarball" ] || atf_skip "no kernel source ($src, $tarball: apt-get install linux-source-6.1)"
		mkdir -p "$src" && tar -xJf "$tarball" -C "$src" --strip-components=1 ||
		    atf_skip "cannot extract $tarball into $src"
	fi
	command -v flex >/dev/null && command -v bison >/dev/null ||
	    atf_skip "kconfig needs flex and bison"
}

atf_test_case config
config_head()
{
	atf_set "descr" "with the kernel's own kconfig: a .config without virtio and 9p gets them added and named; a must-have whose dependencies are unmet is an error naming it"
	atf_set "timeout" "1800"
}
config_body()
{
	plain_pass_only "vm-kbuild.sh and the kernel's kconfig: no ubcreplay code"
	kconfig_src
	make -s -C "$src" O="$PWD/o" CC="ccache gcc" tinyconfig >/dev/null 2>&1 ||
	    atf_fail "make tinyconfig"
	for c in CONFIG_VIRTIO_BLK CONFIG_9P_FS CONFIG_NET_9P_VIRTIO; do
		grep -q "^$c=y" o/.config && atf_fail "tinyconfig has $c already"
	done
	atf_check -s exit:0 -o inline:"$PWD/o\n" -e save:err "$kbuild" -n -O o "$src"
	grep -q '^vm-kbuild.sh: adding to .*/o/.config:.* CONFIG_VIRTIO_BLK .*CONFIG_9P_FS' err ||
	    atf_fail "the additions not named: $(cat err)"
	grep -v '^#' "$top/contrib/guest.config" | grep = | while read -r want; do
		grep -qx "$want" o/.config || echo "$want"
	done >lacking
	[ ! -s lacking ] || atf_fail "still lacking: $(cat lacking)"
	# tinyconfig's own choice, not a must-have, is kept.
	grep -qx 'CONFIG_KERNEL_XZ=y' o/.config || atf_fail "the tree's .config was not kept"

	# NFSD depends on FSNOTIFY, which only INOTIFY_USER (and the like)
	# selects: without it olddefconfig drops NFSD.
	grep -v '^CONFIG_INOTIFY_USER=' "$top/contrib/guest.config" >frag
	# The same build directory without its .config: kconfig's own
	# programs are built already.
	cp -a o o2 && rm o2/.config
	UBC_KBUILD_CONFIG=$PWD/frag atf_check -s exit:2 -o empty -e save:err \
	    "$kbuild" -n -O "$PWD/o2" "$src"
	grep -q 'olddefconfig dropped what a guest needs.*CONFIG_NFSD=y' err ||
	    atf_fail "the unmet must-have not named: $(cat err)"
}

atf_test_case two_trees
two_trees_head()
{
	atf_set "descr" "two built trees of one release: told apart in labels, file names and series; the vm object has each tree, its commit and state"
	atf_set "timeout" "900"
}
two_trees_body()
{
	use_tmp
	require_prog qemu-system-x86_64
	require_prog git
	[ -f "$small" ] || atf_fail "missing $small"
	debian61
	faketree base "$deb61"
	faketree patched "$deb61"
	echo change >>patched/Kconfig
	rel=$(cat base/include/config/kernel.release)
	cb=$(git -C base rev-parse HEAD)
	cp=$(git -C patched rev-parse HEAD)
	nb="$rel base@$(echo "$cb" | cut -c1-7)"
	np="$rel patched@$(echo "$cp" | cut -c1-7)-dirty"
	atf_check -s exit:0 -o save:series -e save:err \
	    "$ubc" vm $VMOPTS -n 1 -k base -k patched -o res "$small"
	for n in "$nb" "$np"; do
		f=res/$(echo "$n" | tr ' ' -)-ext4.json
		[ -f "$f" ] || atf_fail "no $f: $(ls res)"
		grep -q "  [AB]  $n ext4" series || atf_fail "the series lacks '$n ext4': $(cat series)"
		grep -q "ubcreplay vm: $n ext4: done" err || atf_fail "progress lacks '$n': $(cat err)"
	done
	json "res/$(echo "$nb" | tr ' ' -)-ext4.json" \
	    "d['label'], d['vm']['tree']['commit'], d['vm']['tree']['dirty'], d['vm']['tree']['path'], d['vm']['kernel_release']" >got
	echo "$nb ext4 $cb False $PWD/base $rel" >want
	diff want got || atf_fail "the base's vm object"
	json "res/$(echo "$np" | tr ' ' -)-ext4.json" \
	    "d['vm']['tree']['commit'], d['vm']['tree']['dirty']" >got
	echo "$cp True" >want
	diff want got || atf_fail "the patched tree's vm object"
	no_leftovers
}

atf_test_case dirty_long_status
dirty_long_status_head()
{
	atf_set "descr" "a tree with more changed files than git's status fits in one read is named -dirty every time, as git says it is"
}
dirty_long_status_body()
{
	require_prog qemu-system-x86_64
	require_prog git
	[ -f "$small" ] || atf_fail "missing $small"
	debian61
	faketree tree "$deb61"
	mkdir tree/many
	for i in $(seq 400); do echo a >"tree/many/a-file-with-a-long-name-$i"; done
	git -C tree add many && git -C tree -c user.name=t -c user.email=t@t \
	    commit -q -m many || atf_fail "git commit"
	for i in $(seq 400); do echo b >>"tree/many/a-file-with-a-long-name-$i"; done
	n=$(git -C tree status --porcelain --untracked-files=no | wc -c)
	[ "$n" -gt 8192 ] || atf_fail "git's status is only $n bytes"
	# Cut short, git's status could die writing to a closed pipe, and
	# the tree read as no git tree at all, some of the times.
	for i in $(seq 10); do
		atf_check -o save:plan "$ubc" vm -k tree --plan "$small"
		grep -q '"label":"[^"]* tree@[0-9a-f]*-dirty ext4"' plan ||
		    atf_fail "try $i: not named dirty: $(cat plan)"
	done
}

atf_test_case built_commit
built_commit_head()
{
	atf_set "descr" "a tree is named by the commit vm-kbuild.sh recorded when it built the bzImage, not by the source's HEAD since; a bzImage built after the record by other means goes by HEAD"
}
built_commit_body()
{
	require_prog qemu-system-x86_64
	require_prog git
	[ -f "$small" ] || atf_fail "missing $small"
	debian61
	faketree tree "$deb61"
	built=$(git -C tree rev-parse HEAD)
	echo b >tree/later && git -C tree add later &&
	    git -C tree -c user.name=t -c user.email=t@t commit -q -m later ||
	    atf_fail "git commit"
	head=$(git -C tree rev-parse --short=7 HEAD)
	echo "$built dirty" >tree/kbuild.commit
	atf_check -o save:plan "$ubc" vm -k tree --plan "$small"
	grep -q "\"label\":\"[^\"]* tree@$(echo "$built" | cut -c1-7)-dirty ext4\"" plan ||
	    atf_fail "not named by the recorded build: $(cat plan)"
	touch -d '+1 minute' tree/arch/x86/boot/bzImage
	atf_check -o save:plan "$ubc" vm -k tree --plan "$small"
	grep -q "\"label\":\"[^\"]* tree@$head ext4\"" plan ||
	    atf_fail "a newer bzImage not named by HEAD $head: $(cat plan)"
	# A record that is not one is not taken.
	echo "not a commit" >tree/kbuild.commit
	touch -d '+2 minutes' tree/kbuild.commit
	atf_check -o save:plan "$ubc" vm -k tree --plan "$small"
	grep -q "\"label\":\"[^\"]* tree@$head ext4\"" plan ||
	    atf_fail "a bad record was taken: $(cat plan)"
}

atf_test_case panic
panic_head()
{
	atf_set "descr" "a tree whose kernel panics: exit 2, the panic named, nothing left behind"
	atf_set "timeout" "600"
}
panic_body()
{
	use_tmp
	require_prog qemu-system-x86_64
	require_prog git
	debian61
	faketree t "$deb61"
	# A dynamic program cannot run as the initramfs's /init.
	export UBCREPLAY_VM_INIT=/bin/true
	bad "Kernel panic" $VMOPTS -k t -o out "$small"
}

# The build directory of the history's base, from the cache.
base_build=$cache/ktree-base

atf_test_case from_source
from_source_head()
{
	atf_set "descr" "Debian's 6.1 as a history: base against the ext4 regression fails the gate naming it, against an unrelated change and against itself rebuilt passes; git bisect run names the regression, reusing the base's results"
	atf_set "timeout" "7200"
}
from_source_body()
{
	use_tmp
	plain_pass_only "its time is kernel builds and TCG guests; vm's tree naming, gates and bisect under ASan: the other ktree_test cases, vm_test and bisect_test"
	require_prog qemu-system-x86_64
	require_prog git
	[ -f "$small" ] || atf_fail "missing $small"
	# Before anything costly: without the base's build there is nothing
	# to do in a suite's time.
	if [ ! -f "$base_build/arch/x86/boot/bzImage" ] &&
	    [ -z "${UBC_KTREE_BUILD:-}" ]; then
		atf_skip "no build of the base in $base_build (a cold build took 32 min here on 2 cores under load: UBC_KTREE_BUILD=1 builds it here, or: git -C $src checkout base && $kbuild -O $base_build $src)"
	fi
	kconfig_src
	sh "$top/tests/ktree_history.sh" "$tarball" "$src" >hist.log 2>&1 ||
	    atf_fail "the history: $(tail -n 3 hist.log | tr '\n' ' ')"
	# build COMMIT NAME: the commit built in its own directory, the
	# others seeded from the base's build; prints the directory.
	build()
	{
		git -C "$src" checkout -q "$1" || atf_fail "checkout $1"
		seed=
		[ "$2" = base ] || seed="-s $base_build"
		"$kbuild" -O "$cache/ktree-$2" $seed "$src" 2>"build-$2.err" ||
		    atf_fail "building $1: $(tail -n 5 "build-$2.err" | tr '\n' ' ')"
		# A seeded build compiles what its commit changed, not the
		# kernel again (a copy whose objtool records named the seed
		# rebuilt objtool and then every object).
		n=$(grep -c '^  CC  ' "$cache/ktree-$2/kbuild.log")
		[ "$2" = base ] || [ "$n" -lt 100 ] ||
		    atf_fail "building $1 beside the base compiled $n files"
	}
	b=$(build base base)
	r=$(build regress regress)
	u=$(build unrelated unrelated)
	# The base linked a second time, in a directory of its own seeded
	# from the base's build and kept for the next run: init/version.o made
	# again, so vmlinux carries a new build number and time, a kernel of
	# other bytes from one source. (Built from nothing, it was a second
	# cold build of the kernel, more than CI's hour can hold.)
	git -C "$src" checkout -q base
	"$kbuild" -O "$cache/ktree-base2" -s "$b" "$src" >/dev/null 2>build-base2.err &&
	    rm -f "$cache/ktree-base2/init/version.o" &&
	    b2=$("$kbuild" -O "$cache/ktree-base2" "$src" 2>>build-base2.err) ||
	    atf_fail "rebuilding the base: $(tail -n 5 build-base2.err | tr '\n' ' ')"
	cmp -s "$b/arch/x86/boot/bzImage" "$b2/arch/x86/boot/bzImage" &&
	    atf_fail "the rebuilt base is the same file"
	git -C "$src" checkout -q base

	# The limit halfway between no change and the regression's (-74%):
	# on this kernel's single vCPU under TCG the small archive's mean
	# write varies by about 20% from run to run, so an unchanged kernel
	# against -10% stays undecided for hundreds of runs (docs/vm-machine.md,
	# "Verdicts on the ktree history"); against -40%, 5 runs decide both.
	limit=write.mean_bytes:-40%
	gate="--fail-if $limit"
	atf_check -s exit:1 -o save:reg -e ignore \
	    "$ubc" vm $VMOPTS -n auto $gate -k "$b" -k "$r" -o res-reg "$small"
	grep -q 'write.mean_bytes.*-[0-9.]*%.*p' reg ||
	    atf_fail "the verdict does not name the metric, change and p: $(tail -n 20 reg | tr '\n' ' ')"
	# The two that should pass in one invocation, each judged against the
	# base, measured once; -n auto boots more of every cell until both
	# gates are decided (it stops at the first failure, so the regression
	# is not among them).
	atf_check -s exit:0 -o save:same -e ignore \
	    "$ubc" vm $VMOPTS -n auto $gate -k "$b" -k "$u" -k "$b2" -o res "$small"
	# verdict WORD NAME COMMIT FILE: the gate's line for the tree NAME,
	# built at COMMIT, says WORD in FILE.
	verdict()
	{
		grep "^  $1 $limit: .* in res[^ ]*/[^ ]*-ktree-$2@$(git -C "$src" rev-parse --short=7 "$3")-" "$4" |
		    grep -q "against res[^ ]*/[^ ]*-ktree-base@" ||
		    atf_fail "ktree-$2 is not $1 against the base: $(grep -A5 '^Gates' "$4" | tr '\n' ' ')"
	}
	verdict FAIL regress regress reg
	verdict PASS unrelated unrelated same
	verdict PASS base2 base same
	# git bisect run: every step builds incrementally in one directory;
	# the base is measured once. Ten runs a step: a step's kernel is
	# judged against the base's runs as they are (no runs added until
	# decided), and five a side left an unchanged kernel's interval
	# reaching past -40% now and then, skipping the step and leaving
	# the bisection unable to name the commit.
	rm -rf "$cache/ktree-bisect" bres
	w=$PWD
	(cd "$src" && git bisect start unrelated2 base &&
	    UBC_BISECT_BUILD="'$kbuild' -O '$cache/ktree-bisect' -s '$base_build' ." \
	    UBCREPLAY=$ubc git bisect run "$top/contrib/vm-bisect.sh" -b "$b" \
	    -F $limit -a "$small" -R "$w/bres" -o "$w/steps" \
	    -- $VMOPTS -n 10) >bisect.out 2>bisect.err
	rc=$?
	(cd "$src" && git bisect reset base) >/dev/null 2>&1
	[ -z "$(git -C "$src" status --porcelain --ignored)" ] ||
	    atf_fail "left in the source tree: $(git -C "$src" status --porcelain --ignored | head -3 | tr '\n' ' ')"
	[ $rc -eq 0 ] || atf_fail "git bisect run: $(tail -n 5 bisect.err | tr '\n' ' ')"
	grep -q "^$(git -C "$src" rev-parse regress) is the first bad commit" bisect.out ||
	    atf_fail "bisect did not name the regression: $(tail -n 5 bisect.out | tr '\n' ' ')"
	[ "$(grep -c 'the base measured once' bisect.err)" -eq 1 ] ||
	    atf_fail "the base was not measured exactly once: $(grep base bisect.err | tr '\n' ' ')"
	no_leftovers
	# What the closing note and the docs quote (kyua report --verbose
	# --results-filter passed shows it).
	for f in build-base.err build-regress.err build-unrelated.err build-base2.err; do
		grep 'built ' "$f" | sed "s/^/$f: /"
	done
	for f in reg same; do
		echo "== $f" && cat "$f"
	done
	echo "== git bisect run" && grep -v '^vm-bisect.sh:   ' bisect.err &&
	    grep 'first bad commit' bisect.out
}

# The history built as UML kernels, from the cache (contrib/vm-kbuild.sh -a
# um: a tree of its own, since the project's UML patches change it).
uml_builds=$cache/ktree-um

atf_test_case uml_verdicts
uml_verdicts_head()
{
	atf_set "descr" "the history as UML kernels, seeded and paired (6 pairs, the fewest the signed-rank test bounds a 95% interval with): base against the ext4 regression fails write.mean_bytes:-5% with the change itself as its interval, against the unrelated change passes with +0.0%"
	atf_set "timeout" "600"
}
uml_verdicts_body()
{
	use_tmp
	# ASan's shadow memory does not fit a UML guest's address space.
	asan_build &&
	    atf_skip "ubcreplay is built with ASan, which cannot run in a UML guest"
	for c in base regress unrelated; do
		[ -x "$uml_builds-$c/linux" ] && continue
		atf_skip "no UML build of the history's $c in $uml_builds-$c (about 16 min cold on 2 cores, then 40 s each): sh tests/ktree_history.sh $tarball T && for c in regress base unrelated; do git -C T checkout \$c && contrib/vm-kbuild.sh -a um -O $uml_builds-\$c \$([ \$c = regress ] || echo -s $uml_builds-regress) T; done"
	done
	[ -f "$small" ] || atf_fail "missing $small"
	gate="--fail-if write.mean_bytes:-5%"
	atf_check -s exit:1 -o save:reg -e ignore "$ubc" vm -n 6 $gate \
	    -k "$uml_builds-base" -k "$uml_builds-regress" -o r "$small"
	grep -Eq '^  FAIL write.mean_bytes:-5%: write.mean_bytes -[0-9.]+% \[(-[0-9.]+), \1\]' reg ||
	    atf_fail "the regression is not a FAIL with a point interval: $(grep -A1 Gates reg | tr '\n' ' ')"
	grep -q 'write.mean_bytes .*paired' reg ||
	    atf_fail "the runs were not paired by seed"
	atf_check -s exit:0 -o save:unrel -e ignore "$ubc" vm -n 6 $gate \
	    -k "$uml_builds-base" -k "$uml_builds-unrelated" -o u "$small"
	grep -q '^  PASS write.mean_bytes:-5%: write.mean_bytes +0.0% \[+0.0, +0.0\]' unrel ||
	    atf_fail "the unrelated change does not pass unchanged: $(grep -A1 Gates unrel | tr '\n' ' ')"
	no_leftovers
}

# The tests' UML kernel (contrib/uml.sh's, which `make check` builds) in
# $seed and the tree it was built from in $tree, or a
# skip; and what an overlay of that tree needs.
uml_seed()
{
	asan_build &&
	    atf_skip "ubcreplay is built with ASan, which cannot run in a UML guest"
	l=$(sh "$top/contrib/uml.sh" -n 2>uml.why) ||
	    atf_skip "$(sed 's/^uml.sh: //' uml.why)"
	seed=$(dirname "$l")
	tree=$(readlink "$seed/source") && [ -f "$tree/Makefile" ] ||
	    atf_skip "the tree $seed was built from is gone"
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
	    atf_skip "this kernel has no overlay filesystem"
	require_prog unshare
	[ -f "$small" ] || atf_fail "missing $small"
}

# overlay_build NAME EDIT: the seed's kernel with the shell command EDIT
# run in an overlay of its tree, built in ./NAME (contrib/uml-overlay.sh:
# the edited files in NAME.overlay/upper, the tree never written).
overlay_build()
{
	sh "$top/contrib/uml-overlay.sh" "$seed" "$1" "$2" \
	    >"build-$1.out" 2>"build-$1.err" ||
	    atf_fail "building $1 beside $seed: $(tail -n 3 "build-$1.err" | tr '\n' ' ')"
}

# gate_fail FILE KERNEL: in $change, the change a FAIL of
# write.mean_bytes:-5% gives KERNEL's result in vm's output FILE, as
# "CHANGE LOW HIGH" (no signs), or a failure.
gate_fail()
{
	change=$(sed -n "s/^  FAIL write.mean_bytes:-5%: write.mean_bytes -\([0-9.]*\)% \[-\([0-9.]*\), -\([0-9.]*\)\] in .*$2.*/\1 \2 \3/p" "$1")
	[ -n "$change" ] ||
	    atf_fail "$2 is not a FAIL: $(grep -A3 Gates "$1" | tr '\n' ' ')"
}

# The history's edits built beside the tests' UML kernel and judged on the
# virtio disk.
atf_test_case virtio_verdicts
virtio_verdicts_head()
{
	atf_set "descr" "the history's regression and unrelated edit, built beside the tests' UML kernel and judged on the virtio disk with 6 runs paired by seed and place in the boot (2 boots of 3): the regression FAILs write.mean_bytes:-5%, its interval within 10 points of what TCG measured (-73.8%, docs/vm-machine.md), the unrelated edit PASSes at +0.0%"
	atf_set "require.user" "root"
	atf_set "timeout" "900"
}
virtio_verdicts_body()
{
	use_tmp
	uml_seed
	for c in regress unrelated; do
		overlay_build $c "sh '$top/tests/ktree_history.sh' -e $c ."
	done
	grep -q EXT4_IO_MAX_VECS regress.overlay/upper/fs/ext4/page-io.c &&
	    grep -q '(as given)' unrelated.overlay/upper/init/main.c ||
	    atf_fail "the edits are not in their overlays"
	! grep -q EXT4_IO_MAX_VECS "$tree/fs/ext4/page-io.c" &&
	    ! grep -q '(as given)' "$tree/init/main.c" ||
	    atf_fail "the seed's tree $tree was written"
	atf_check -s exit:1 -o save:verdicts -e ignore "$ubc" vm -j 2 -n 6 --disk virtio \
	    --fail-if write.mean_bytes:-5% -k "$seed" -k "$PWD/regress" \
	    -k "$PWD/unrelated" -o r "$small"
	gate_fail verdicts regress
	set -- $change
	# Boots of 3 runs: the first and later runs of a boot differ, and
	# the interval spans them; all of it within 10 points of TCG's.
	awk -v c="$1" -v a="$2" -v b="$3" 'BEGIN { exit !(c >= 63.8 && c <= 83.8 &&
	    a >= 63.8 && a <= 83.8 && b >= 63.8 && b <= 83.8) }' ||
	    atf_fail "the regression moved the mean write by -$1% [-$2, -$3], more than 10 points from TCG's -73.8%"
	grep -q '^  PASS write.mean_bytes:-5%: write.mean_bytes +0.0% \[+0.0, +0.0\] in .*unrelated' verdicts ||
	    atf_fail "the unrelated edit does not pass unchanged: $(grep -A3 Gates verdicts | tr '\n' ' ')"
	grep -q 'write.mean_bytes .*paired' verdicts ||
	    atf_fail "the runs were not paired by seed"
	no_leftovers
	echo "regression: -$1%" && grep -A4 '^Gates' verdicts
}

# A patch to the virtio-blk driver itself, judged on both machines that run
# it: Debian's 6.1 kernel under TCG with the patched module in place of its
# own (built against the package's headers), and the tests' UML kernel with
# the same patch on the virtio disk.
vblk_edit="sed -i 's/^\tblk_queue_max_hw_sectors(q, -1U);/\tblk_queue_max_hw_sectors(q, 64);/' drivers/block/virtio_blk.c && grep -q 'max_hw_sectors(q, 64);' drivers/block/virtio_blk.c"

atf_test_case virtio_blk_patch
virtio_blk_patch_head()
{
	atf_set "descr" "a patch to drivers/block/virtio_blk.c that caps a request at 32 KiB: Debian's 6.1 under TCG with the patched module and the tests' UML kernel on the virtio disk with the same patch both FAIL write.mean_bytes:-5%"
	atf_set "require.user" "root"
	atf_set "timeout" "900"
}
virtio_blk_patch_body()
{
	use_tmp
	uml_seed
	require_prog qemu-system-x86_64
	debian61
	rel=$(ls "$deb61/lib/modules")
	ver=$(make -s -C "$tree" kernelversion)
	zcat "$deb61/usr/share/doc/linux-image-$rel/changelog.gz" | head -n 1 |
	    grep -q "($ver+" ||
	    atf_skip "$deb61 is not built from $ver, the version of $tree"
	mod=kernel/drivers/block/virtio_blk.ko
	[ -f "$deb61/lib/modules/$rel/$mod" ] ||
	    atf_skip "virtio_blk is not a module in $rel"
	# TCG: the module from the tree, patched, built against the headers.
	mkdir -p m/drivers/block
	cp "$tree/drivers/block/virtio_blk.c" m/drivers/block/
	(cd m && eval "$vblk_edit") || atf_fail "the patch did not apply"
	echo 'obj-m := virtio_blk.o' >m/drivers/block/Kbuild
	sh "$top/contrib/deb-module.sh" "$deb61" m drivers/block "$PWD/pkg" \
	    >mod.out 2>mod.err
	case $? in
	0) ;;
	3) atf_skip "$(sed 's/^deb-module.sh: //' mod.err) (contrib/deps.sh test installs linux-headers-amd64)" ;;
	*) atf_fail "the package with the patched module: $(cat mod.err)" ;;
	esac
	atf_check -s exit:1 -o save:tcg -e ignore "$ubc" vm -n auto \
	    --fail-if write.mean_bytes:-5% -k "$deb61/boot/vmlinuz-$rel" \
	    -k "$(cat mod.out)" -o t "$small"
	gate_fail tcg "$rel-ext4-2"
	t=${change%% *}
	cmp -s "$deb61/lib/modules/$rel/$mod" "$PWD/pkg/lib/modules/$rel/$mod" &&
	    atf_fail "the package's own module was changed"
	# UML: the same patch in an overlay of the seed's tree.
	overlay_build vblk "$vblk_edit"
	atf_check -s exit:1 -o save:uml -e ignore "$ubc" vm -j 2 -n 6 --disk virtio \
	    --fail-if write.mean_bytes:-5% -k "$seed" -k "$PWD/vblk" -o u "$small"
	gate_fail uml vblk
	no_leftovers
	echo "TCG: -$t%, UML on virtio: -${change%% *}%"
}

atf_init_test_cases()
{
	atf_add_test_case not_a_tree
	atf_add_test_case never_built
	atf_add_test_case modules
	atf_add_test_case build_fails
	atf_add_test_case uml_patch_variants
	atf_add_test_case config
	atf_add_test_case two_trees
	atf_add_test_case dirty_long_status
	atf_add_test_case built_commit
	atf_add_test_case panic
	atf_add_test_case from_source
	atf_add_test_case uml_verdicts
	atf_add_test_case virtio_verdicts
	atf_add_test_case virtio_blk_patch
}
