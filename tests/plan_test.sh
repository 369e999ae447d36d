#! /usr/bin/env atf-sh
# plan_test.sh - `ubcreplay vm --plan`, `--cell` and `--merge`: a vm
# invocation's cells as data, run apart and read back whole. Ids are checked
# against what the test knows on its own (sha256sum of the files a cell
# names, the count of kernels times filesystems), the CI forms are parsed
# by JSON and YAML readers, and a directory of results that is not one
# plan's whole is refused, naming what is wrong. A merge judges a local
# run's results as the local run did, by the rule the plan's merge job
# passes it.

. "$(atf_get_srcdir)/../../tests/lib.sh"

VMOPTS="--mem 512 --cpus 1 --timeout 900"

atf_test_case lines
lines_head()
{
	atf_set descr "--plan: one cell a line, ids from digests, the CI forms parse"
}
lines_body()
{
	require_prog python3
	kernel k1 6.1; kernel k2 6.12
	[ -f "$small" ] || atf_fail "missing $small"
	cp "$k1" copy-of-k1
	cp "$small" a.tar.gz
	atf_check -o save:p1 "$ubc" vm -k "$k1" -k "$k2" -t ext4 -t xfs --plan a.tar.gz
	atf_check -o save:p2 "$ubc" vm -k "$PWD/copy-of-k1" -k "$k2" -t ext4 -t xfs --plan a.tar.gz
	# The archive changed by one byte: every cell is another.
	printf x >>a.tar.gz
	atf_check -o save:p3 "$ubc" vm -k "$k1" -k "$k2" -t ext4 -t xfs --plan a.tar.gz
	atf_check -o save:gh "$ubc" vm -k "$k1" -k "$k2" -t ext4 -t xfs --plan=github "$small"
	atf_check -o save:gl "$ubc" vm -k "$k1" -k "$k2" -t ext4 -t xfs \
	    --fail-if write.mean_bytes:-10% --plan=gitlab "$small"
	atf_check -o save:p4 "$ubc" vm -k "$k1" -k "$k2" -t ext4 -t xfs --plan "$small"
	# The same kernel twice (to see the noise): two cells, two ids.
	atf_check -o save:p5 "$ubc" vm -k "$k1" -k "$k1" --plan "$small"
	python3 -c 'import json,sys; ids=[json.loads(l)["id"] for l in open("p5")]; sys.exit(len(set(ids)) != 2)' ||
	    atf_fail "the same kernel twice gives one id: $(cat p5)"
	python3 - p1 p2 p3 gh gl p4 "$(sha256sum "$k1" | cut -c1-64)" \
	    "$(sha256sum "$small" | cut -c1-64)" <<'EOF' || atf_fail "the plans are wrong (above)"
import json, sys, yaml
p1, p2, p3, gh, gl, p4 = (open(f).read() for f in sys.argv[1:7])
k1sha, arsha = sys.argv[7], sys.argv[8]
def cells(text):
    return [json.loads(l) for l in text.splitlines()]
a, b, c, d = cells(p1), cells(p2), cells(p3), cells(p4)
bad = []
if len(a) != 4:
    bad.append("%d cells for 2 kernels x 2 filesystems" % len(a))
ids = [x["id"] for x in a]
if len(set(ids)) != 4:
    bad.append("ids not unique: %s" % ids)
if [x["label"] for x in a] != ["%s %s" % (a[0]["kernel"]["release"], "ext4"),
                               "%s %s" % (a[0]["kernel"]["release"], "xfs"),
                               "%s %s" % (a[2]["kernel"]["release"], "ext4"),
                               "%s %s" % (a[2]["kernel"]["release"], "xfs")]:
    bad.append("labels %s" % [x["label"] for x in a])
if a[0]["kernel"]["sha256"] != k1sha:
    bad.append("kernel sha256 %s, sha256sum says %s" % (a[0]["kernel"]["sha256"], k1sha))
if d[0]["archive"]["sha256"] != arsha:
    bad.append("archive sha256 %s, sha256sum says %s" % (d[0]["archive"]["sha256"], arsha))
if ids != [x["id"] for x in b]:
    bad.append("the same kernel at another path changed the ids")
if set(ids) & set(x["id"] for x in c):
    bad.append("another archive kept ids")
if len(set(x["plan"] for x in a)) != 1 or a[0]["plan"] == c[0]["plan"]:
    bad.append("plan ids: %s against %s" % (a[0]["plan"], c[0]["plan"]))
m = json.loads(gh)
if [x["cell"] for x in m["include"]] != [x["id"] for x in d]:
    bad.append("the GitHub matrix's cells are not the plan's")
y = yaml.safe_load(gl)
if y["cell"]["parallel"]["matrix"][0]["UBC_CELL"] != [x["id"] for x in d]:
    bad.append("the GitLab matrix's cells are not the plan's")
if "--fail-if" not in y["merge"]["script"][0] or "--merge" not in y["merge"]["script"][0]:
    bad.append("the GitLab merge job: %r" % y["merge"]["script"])
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
EOF
}

atf_test_case machine_labels
machine_labels_head()
{
	atf_set descr "--plan over machines: each cell's label names its own machine, as its result will"
}
machine_labels_body()
{
	require_prog python3
	kernel k1 6.1
	atf_check -o save:p "$ubc" vm -k "$k1" -t ext4 -t xfs --cpus 1,2 --plan "$small"
	atf_check -o save:gh "$ubc" vm -k "$k1" -t ext4 -t xfs --cpus 1,2 --plan=github "$small"
	python3 - p gh <<'EOF' || atf_fail "the labels are wrong (above)"
import json, sys
cells = [json.loads(l) for l in open(sys.argv[1])]
gh = json.load(open(sys.argv[2]))["include"]
bad = []
labels = [c["label"] for c in cells]
if len(cells) != 4 or len(set(labels)) != 4:
    bad.append("labels not one a cell: %s" % labels)
for c in cells:
    if not c["label"].endswith(" %dcpu" % c["cpus"]) or c["fstype"] not in c["label"]:
        bad.append("cell of %d vCPUs on %s labelled %r" % (c["cpus"], c["fstype"], c["label"]))
if [x["label"] for x in gh] != labels:
    bad.append("the GitHub matrix's labels: %s" % [x["label"] for x in gh])
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
EOF
}

atf_test_case ci_docs
ci_docs_head()
{
	atf_set descr "docs/ci.md's workflows parse, and the matrix they read is what --plan=github prints"
}
ci_docs_body()
{
	require_prog python3
	kernel k1 6.1
	atf_check -o save:gh "$ubc" vm -k "$k1" -t ext4 -t xfs --plan=github "$small"
	python3 - "$top/docs/ci.md" gh <<'EOF' || atf_fail "docs/ci.md (above)"
import json, re, sys, yaml
text = open(sys.argv[1]).read()
blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
bad = []
docs = []
for b in blocks:
    try:
        docs.append(yaml.safe_load(b))
    except yaml.YAMLError as e:
        bad.append("a yaml block does not parse: %s" % e)
flows = [d for d in docs if isinstance(d, dict) and "jobs" in d and
         "fromJSON" in json.dumps(d)]
if not flows:
    bad.append("no workflow reads a matrix with fromJSON")
for f in flows:
    steps = json.dumps(f["jobs"])
    for word in ("--plan=github", "--cell ${{ matrix.cell }}", "--merge"):
        if word not in steps:
            bad.append("the workflow does not run %s" % word)
    used = set(re.findall(r"matrix\.(\w+)", json.dumps(f["jobs"]["cell"])))
    inc = json.load(open(sys.argv[2]))["include"]
    for u in used:
        if any(u not in x for x in inc):
            bad.append("the workflow reads matrix.%s, which --plan=github lacks" % u)
if not any(isinstance(d, dict) and "trigger" in json.dumps(d) and
           "--plan=gitlab" in json.dumps(d) for d in docs):
    bad.append("no GitLab pipeline made with --plan=gitlab")
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
EOF
}

atf_test_case unknown_cell
unknown_cell_head()
{
	atf_set descr "--cell: an id this node's files do not make is refused, naming them by digest"
}
unknown_cell_body()
{
	kernel k1 6.1
	cp "$k1" k
	atf_check -o save:plan "$ubc" vm -k "$PWD/k" --plan -- dd if=/dev/vda of=/dev/null count=1
	id=$(sed 's/.*"id":"\([0-9a-f]*\)".*/\1/' plan)
	# The node's copy of the kernel differs from the planning node's.
	printf x >>k
	sha=$(sha256sum k | cut -c1-64)
	atf_check -s exit:2 -e save:err "$ubc" vm -k "$PWD/k" --cell "$id" \
	    -o out -- dd if=/dev/vda of=/dev/null count=1
	grep -q "cell '$id' is not a cell of this plan" err ||
	    atf_fail "no word of the cell: $(cat err)"
	grep -q "$sha" err || atf_fail "the node's kernel digest is not named: $(cat err)"
	[ ! -e out ] || atf_fail "an output directory was made"
}

atf_test_case empty_cell
empty_cell_head()
{
	atf_set descr "--cell: an empty item in the list (1,,2 or a comma alone) is refused naming the argument, not skipped"
}
empty_cell_body()
{
	kernel k1 6.1
	atf_check -o save:plan "$ubc" vm -k "$k1" --plan -- dd if=/dev/vda of=/dev/null count=1
	id=$(sed 's/.*"id":"\([0-9a-f]*\)".*/\1/' plan)
	# Skipped, ',' would be no cell at all, that is every cell of the plan.
	for list in "$id,,$id" "," "" ",$id" "$id,"; do
		atf_check -s exit:2 -e save:err "$ubc" vm -k "$k1" --cell "$list" \
		    -o out -- dd if=/dev/vda of=/dev/null count=1
		grep -qF -- "--cell '$list': an empty item in the list of cell ids" err ||
		    atf_fail "--cell '$list': $(cat err)"
		[ ! -e out ] || atf_fail "--cell '$list' made an output directory"
	done
}

atf_test_case merge cleanup
merge_head()
{
	atf_set descr "--cell run apart, --merge reads them whole; two plans or a missing cell are refused"
	atf_set timeout 1800
	atf_set require.user root
}
merge_body()
{
	plain_pass_only "its time is guests; --merge's judging under ASan: runner_test:merge_whole_or_refused"
	require_prog qemu-system-x86_64
	kernel k1 6.1; kernel k2 6.12
	mkdir -p tmp
	export TMPDIR=$PWD/tmp
	job="dd -n 4 if=/dev/vda of=/dev/null bs=64k count=64"
	atf_check -o save:plan "$ubc" vm -k "$k1" -k "$k2" $VMOPTS --plan -- $job
	for id in $(sed 's/.*"id":"\([0-9a-f]*\)".*/\1/' plan); do
		atf_check -o ignore -e ignore "$ubc" vm -k "$k1" -k "$k2" $VMOPTS \
		    --cell "$id" -o cells -- $job
	done
	atf_check -o save:series -e ignore "$ubc" vm --merge cells \
	    --fail-if read.bytes:+1%
	grep -q "^  0 failed, 0 undecided, 1 passed$" series || atf_fail "the gates did not pass: $(cat series)"
	# The same, with the arguments: the plan they make must be the results'.
	atf_check -o ignore -e ignore "$ubc" vm --merge cells -k "$k1" -k "$k2" \
	    $VMOPTS -- $job
	atf_check -s exit:2 -e save:err1 "$ubc" vm --merge cells -k "$k1" \
	    $VMOPTS -- $job
	grep -q "not of plan" err1 || atf_fail "another plan's arguments: $(cat err1)"
	# One cell missing.
	mkdir half && cp cells/6.1.0-* half/
	miss=$(sed -n 2p plan | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
	atf_check -s exit:2 -e save:err2 "$ubc" vm --merge half
	grep -q "misses 1 of the 2 cells .*$miss" err2 ||
	    atf_fail "the missing cell is not named: $(cat err2)"
	# A cell of another plan (another job) among them.
	atf_check -o save:plan2 "$ubc" vm -k "$k1" $VMOPTS --plan -- dd -n 1 \
	    if=/dev/vda of=/dev/null bs=4k count=8
	other=$(sed 's/.*"plan":"\([0-9a-f]*\)".*/\1/' plan2)
	atf_check -o ignore -e ignore "$ubc" vm -k "$k1" $VMOPTS \
	    --cell "$(sed 's/.*"id":"\([0-9a-f]*\)".*/\1/' plan2)" -o cells2 \
	    -- dd -n 1 if=/dev/vda of=/dev/null bs=4k count=8
	mkdir mixed && cp cells/* mixed/ && cp cells2/*.json mixed/other.json
	atf_check -s exit:2 -e save:err3 "$ubc" vm --merge mixed
	grep -q "more than one plan.*$other" err3 ||
	    atf_fail "the two plans are not named: $(cat err3)"
	# A cell twice.
	cp cells/6.1.0-*.json cells/again.json
	atf_check -s exit:2 -e save:err4 "$ubc" vm --merge cells
	grep -q "twice" err4 || atf_fail "a cell twice: $(cat err4)"
	[ -z "$(ls -A tmp)" ] || atf_fail "left behind: $(ls -A tmp)"
}
merge_cleanup()
{
	pkill -9 -f "qemu-system.*$PWD/tmp" 2>/dev/null
	true
}

atf_test_case merge_verdict cleanup
merge_verdict_head()
{
	atf_set descr "--merge, as the plan's merge job runs it, judges a local run's results as the local run did, by the rule the plan passes it"
	atf_set timeout 1800
	atf_set require.user root
}
merge_verdict_body()
{
	plain_pass_only "its time is guests; --merge's judging under ASan: runner_test:merge_whole_or_refused, and the local run's in vm_test"
	require_prog qemu-system-x86_64
	require_prog python3
	kernel k1 6.1; kernel k2 6.12
	mkdir -p tmp bin
	export TMPDIR=$PWD/tmp
	job="dd -n 4 if=/dev/vda of=/dev/null bs=64k count=64"
	# Every kernel reads the same bytes: read.bytes:+0% sits on its limit,
	# undecided by the interval rule (exit 3), passed by the old one (exit
	# 0), so which rule judged shows in the verdicts.
	gates="--fail-if read.bytes:+0% --fail-if read.mean_bytes:+5% --fail-if read.ops:-5%"
	# The local run's results are a whole plan's: -o keeps them.
	"$ubc" vm -k "$k1" -k "$k2" $VMOPTS $gates -o local -- $job \
	    >local.out 2>local.err
	l=$?
	case $l in
	0|1|3)	;;
	*)	cat local.err; atf_fail "the local run: exit $l (above)" ;;
	esac
	grep -q "^Gates (--fail-if: the change's 95% interval" local.out ||
	    { cat local.out; atf_fail "the local run judged no gates (above)"; }
	"$ubc" vm --merge local $gates >merged.out 2>merged.err
	m=$?
	[ "$m" = "$l" ] || atf_fail "exit $l from the local run, $m from the merge"
	diff local.out merged.out ||
	    atf_fail "the merge's series and verdicts are not the local run's (above)"
	# The merge job as --plan=gitlab writes it, with the old rule: the
	# rule reaches it, and it judges as compare does by that rule.
	atf_check -o save:gl "$ubc" vm -k "$k1" -k "$k2" $VMOPTS $gates \
	    --gate-rule significance --plan=gitlab -- $job
	python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["merge"]["script"][0])' \
	    gl >merge.sh || { cat gl; atf_fail "the GitLab plan does not parse (above)"; }
	grep -q "'--gate-rule' 'significance'" merge.sh ||
	    atf_fail "the merge job lacks the rule: $(cat merge.sh)"
	ln -s "$ubc" bin/ubcreplay
	ln -s local results
	PATH=$PWD/bin:$PATH sh merge.sh >sig.out 2>sig.err
	s=$?
	"$ubc" compare --gate-rule significance $gates results/6.1.0-*.json \
	    results/6.12.*.json >cmp.out 2>cmp.err
	c=$?
	cat sig.err cmp.err
	[ "$s" = "$c" ] || atf_fail "exit $s from the merge job, $c from compare"
	sed -n '/^Gates/,$p' sig.out >sig.gates
	sed -n '/^Gates/,$p' cmp.out >cmp.gates
	grep -q "by the old rule" sig.gates ||
	    { cat sig.out; atf_fail "the merge job did not judge by the old rule (above)"; }
	diff cmp.gates sig.gates ||
	    atf_fail "the merge job's verdicts are not compare's (above)"
	[ "$s" != "$l" ] ||
	    atf_fail "exit $s by either rule: the rule does not show in the verdicts"
	[ -z "$(ls -A tmp)" ] || atf_fail "left behind: $(ls -A tmp)"
}
merge_verdict_cleanup()
{
	pkill -9 -f "qemu-system.*$PWD/tmp" 2>/dev/null
	true
}

atf_init_test_cases()
{
	atf_add_test_case lines
	atf_add_test_case machine_labels
	atf_add_test_case ci_docs
	atf_add_test_case unknown_cell
	atf_add_test_case empty_cell
	atf_add_test_case merge
	atf_add_test_case merge_verdict
}
