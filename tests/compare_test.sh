#! /usr/bin/env atf-sh
# compare_test.sh - `ubcreplay compare` on the hand-made results of
# fixtures/compare_test (made by its make.py): verdicts, the CI gate's exit
# status, series, bad input, and the SVG; the p values and histogram shares
# it prints are checked against scipy and Python's own reading of the files.

. "$(atf_get_srcdir)/../../tests/lib.sh"

fx=$top/fixtures/compare_test

# verdict_line FILE METRIC: the table row of METRIC.
row()
{
	grep -E "^$2 " "$1" | head -n 1
}

atf_test_case significant
significant_head()
{
	atf_set descr "ext4 sync against default: the smaller writes are significant, unchanged metrics are not"
}
significant_body()
{
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    "$fx/default.json" "$fx/sync.json"
	row out write.mean_bytes | grep -q -- '-90\.8% \*$' ||
	    atf_fail "write.mean_bytes not a significant -90.8%: $(row out write.mean_bytes)"
	row out app.write.ops | grep -q -- '+0\.0%  $' ||
	    atf_fail "app.write.ops should be unchanged: $(row out app.write.ops)"
	grep -q 'EMD 1\.47 buckets (smaller); median 4K -> 4K: changed' out ||
	    atf_fail "the write histogram is not reported changed"
}

atf_test_case p_against_scipy
p_against_scipy_head()
{
	atf_set descr "the median's change and the p printed for write.mean_bytes and elapsed equal scipy's on the runs read from the files"
}
p_against_scipy_body()
{
	/usr/bin/python3 -c 'import scipy.stats' 2>/dev/null ||
	    atf_skip "needs /usr/bin/python3 with scipy (python3-scipy)"
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    "$fx/default.json" "$fx/sync.json"
	# Python reduces the runs its own way and asks scipy.
	cat >ref.py <<'EOF'
import json, sys
from scipy.stats import mannwhitneyu
def runs(path, metric):
    out = []
    for r in json.load(open(path))["runs"]:
        if r["status"] != "ok":
            continue
        if metric == "elapsed":
            out.append(sum(p["elapsed_ns"] for p in r["phases"] if p["phase"] != "remove"))
        else:
            ops = sum(d["write"]["ops"] for p in r["phases"] for d in p["devices"])
            b = sum(d["write"]["bytes"] for p in r["phases"] for d in p["devices"])
            out.append(b // ops)
    return out
for m in ("elapsed", "write.mean_bytes"):
    a, b = runs(sys.argv[1], m), runs(sys.argv[2], m)
    med = lambda v: sorted(v)[(len(v) - 1) // 2]
    p = mannwhitneyu(a, b, alternative="two-sided").pvalue
    print("%s %+.1f%% %.3g p %.4f" % (m, (med(b) / med(a) - 1) * 100, med(b) / med(a), p))
EOF
	/usr/bin/python3 ref.py "$fx/default.json" "$fx/sync.json" >want ||
	    atf_fail "ref.py failed"
	while read -r m chg _ _ p; do
		row out "$m" | grep -qF -- " $chg " ||
		    atf_fail "$m: ubcreplay '$(row out "$m")', python change $chg"
		line=$(grep -E "^  $m +" out | head -n 1)
		echo "$line" | grep -qF -- "p $p" ||
		    atf_fail "$m: ubcreplay '$line', scipy p $p"
	done <want
}

atf_test_case gate_fails
gate_fails_head()
{
	atf_set descr "--fail-if write.mean_bytes:-20% exits 1 and names the metric"
}
gate_fails_body()
{
	atf_check -s exit:1 -o save:out -e match:'a gate failed' "$ubc" compare \
	    --fail-if write.mean_bytes:-20% --fail-if app.write.ops:+1% \
	    "$fx/default.json" "$fx/sync.json"
	grep -q '^  FAIL write.mean_bytes:-20%: write.mean_bytes -90.8% \[-91.2, -90.6\] in ' out ||
	    atf_fail "the failure is not listed with its interval"
	# Every run wrote as often: the interval is the point +0.0%.
	grep -q '^  PASS app.write.ops:+1%: app.write.ops +0.0% \[+0.0, +0.0\]' out ||
	    atf_fail "an unchanged metric does not pass"
	grep -q '^  1 failed, 0 undecided, 1 passed$' out ||
	    atf_fail "no count of the outcomes"
}

atf_test_case gate_passes
gate_passes_head()
{
	atf_set descr "gates that are not crossed, or not crossed significantly, exit 0"
}
gate_passes_body()
{
	# The same configuration again.
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    --fail-if write.mean_bytes:-20% --fail-if elapsed:+10% \
	    "$fx/default.json" "$fx/default2.json"
	grep -q '^  0 failed, 0 undecided, 2 passed$' out ||
	    atf_fail "the gates are not reported passed"
	# The wrong direction, and a limit beyond the change.
	atf_check -s exit:0 -o ignore -e empty "$ubc" compare \
	    --fail-if write.mean_bytes:+20% --fail-if elapsed:+500% \
	    --baseline "$fx/default.json" "$fx/sync.json"
	# With --baseline the first file given is compared, not the baseline.
	atf_check -s exit:1 -o ignore -e ignore "$ubc" compare \
	    --baseline "$fx/default.json" --fail-if elapsed:+10% "$fx/sync.json"
}

# noisy IN OUT TIMES F1 F2 ...: IN with the written bytes of run i scaled by
# Fi, so that write.mean_bytes moves by that factor in that run, and its
# runs repeated TIMES times.
noisy()
{
	/usr/bin/python3 - "$@" <<'EOF' || atf_fail "cannot write $2"
import json, sys
src, dst, times = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(open(src))
for run, k in zip(d["runs"], [float(x) for x in sys.argv[4:]]):
    for p in run["phases"]:
        for dev in p["devices"]:
            w = dev["write"]
            w["bytes"] = int(w["bytes"] * k)
            w["mean_bytes"] = w["bytes"] // max(1, w["ops"])
d["runs"] = d["runs"] * times
json.dump(d, open(dst, "w"))
EOF
}

# fall15 TIMES A B: A and B from default.json, B's mean write 15% below
# A's in noise of about 15%, each run repeated TIMES times.
fall15()
{
	noisy "$fx/default.json" "$2" "$1" 1.0 0.8 1.2 0.95 1.1
	noisy "$fx/default.json" "$3" "$1" 0.85 0.68 1.02 0.81 0.94
}

atf_test_case gate_undecided
gate_undecided_head()
{
	atf_set descr "a fall beyond the limit that the runs cannot separate from their noise is UNDECIDED (exit 3), never PASS; more runs decide it"
}
gate_undecided_body()
{
	# A 15% fall against a -10% gate, in noise of about 15%.
	fall15 1 a.json b.json
	atf_check -s exit:3 -o save:out -e match:'undecided' "$ubc" compare \
	    --fail-if write.mean_bytes:-10% a.json b.json
	grep -Eq '^  UNDECIDED write.mean_bytes:-10%: write.mean_bytes -1[0-9]\.[0-9]% \[-[0-9.]+, \+[0-9.]+\] in b.json against a.json: the interval holds the limit; about [0-9]+ runs a side would likely decide it \(5 against 5 now\)$' out ||
	    atf_fail "not undecided with its interval: $(grep -A2 '^Gates' out)"
	grep -q '^  0 failed, 1 undecided, 0 passed$' out ||
	    atf_fail "no count of the outcomes"
	# The old rule passes it: the change is not significant.
	atf_check -s exit:0 -o save:old -e empty "$ubc" compare \
	    --gate-rule significance --fail-if write.mean_bytes:-10% a.json b.json
	grep -q '^  PASS write.mean_bytes:-10%' old ||
	    atf_fail "the old rule does not pass it"
	# The same runs, as many times over as it said would decide: FAIL.
	n=$(sed -n 's/.*: the interval holds the limit; about \([0-9]*\) runs a side.*/\1/p' out)
	[ -n "$n" ] || atf_fail "no count of runs that would decide"
	fall15 $(((n + 4) / 5)) an.json bn.json
	atf_check -s exit:1 -o save:more -e match:'a gate failed' "$ubc" \
	    compare --fail-if write.mean_bytes:-10% an.json bn.json
	grep -q '^  FAIL write.mean_bytes:-10%' more ||
	    atf_fail "$n runs a side do not decide: $(grep -A2 '^Gates' more)"
}

atf_test_case gate_json
gate_json_head()
{
	atf_set descr "--json: every gate's outcome and interval, recomputed by Python from the runs in the files; --svg draws them; a bad path writes nothing"
}
gate_json_body()
{
	fall15 1 a.json b.json
	atf_check -s exit:1 -o ignore -e ignore "$ubc" compare --json c.json \
	    --svg c.svg --fail-if write.mean_bytes:-10% \
	    --fail-if write.mean_bytes:+40% --fail-if elapsed:+1% \
	    a.json b.json "$fx/sync.json"
	# Python reduces the runs, takes every pairwise ratio, counts the
	# rank test's null distribution by enumeration and judges anew.
	/usr/bin/python3 - c.json a.json b.json "$fx/sync.json" <<'EOF' ||
import itertools, json, math, sys
doc = json.load(open(sys.argv[1]))
def runs(path, metric):
    out = []
    for r in json.load(open(path))["runs"]:
        if metric == "elapsed":
            out.append(sum(p["elapsed_ns"] for p in r["phases"] if p["phase"] != "remove"))
        else:
            ops = sum(d["write"]["ops"] for p in r["phases"] for d in p["devices"])
            out.append(sum(d["write"]["bytes"] for p in r["phases"] for d in p["devices"]) // ops)
    return out
def change(a, b):
    d = sorted(math.log(y) - math.log(x) for x in a for y in b)
    m = len(d)
    cnt = [0] * (m + 1)
    for c in itertools.combinations(range(len(a) + len(b)), len(a)):
        cnt[sum(c) - len(a) * (len(a) - 1) // 2] += 1
    k, below = 0, 0
    while k < m // 2 and (below + cnt[k]) / sum(cnt) <= 0.025:
        below += cnt[k]; k += 1
    pct = lambda x: (math.exp(x) - 1) * 100
    return pct((d[(m - 1) // 2] + d[m // 2]) / 2), pct(d[k - 1]), pct(d[m - k])
status = 0
for g in doc["gates"]:
    a = runs(sys.argv[2], g["metric"])
    b = runs(sys.argv[2 + g["result"]], g["metric"])
    est, lo, hi = change(a, b)
    got = g["estimate_pct"], *g["interval_pct"]
    if any(abs(x - y) > 1e-6 * max(1, abs(y)) for x, y in zip(got, (est, lo, hi))):
        sys.exit("%s on %d: %s, Python %s" % (g["spec"], g["result"], got, (est, lo, hi)))
    lim = g["direction"] * g["limit_pct"]
    lo, hi = (lo, hi) if g["direction"] > 0 else (-hi, -lo)
    want = "FAIL" if lo > abs(lim) else "PASS" if hi < abs(lim) else "UNDECIDED"
    if g["outcome"] != want:
        sys.exit("%s on %d: %s, Python %s" % (g["spec"], g["result"], g["outcome"], want))
    if (want == "UNDECIDED") != (g["runs_to_decide"] is not None):
        sys.exit("%s on %d: runs_to_decide %s" % (g["spec"], g["result"], g["runs_to_decide"]))
    status = 1 if want == "FAIL" else status or (3 if want == "UNDECIDED" else 0)
if len(doc["gates"]) != 6 or doc["status"] != status:
    sys.exit("%d gates, status %d, want 6 and %d" % (len(doc["gates"]), doc["status"], status))
print(" ".join(g["outcome"] for g in doc["gates"]))
EOF
	    atf_fail "the JSON's gates are not what the runs give"
	for o in FAIL PASS UNDECIDED; do
		grep -q "write.mean_bytes:.* [BC]: $o</text>" c.svg ||
		    atf_fail "the SVG draws no $o gate"
	done
	atf_check -s exit:2 -o empty -e match:"nodir/c.json" "$ubc" compare \
	    --json nodir/c.json a.json b.json
	[ ! -e nodir ] || atf_fail "a bad --json path left something"
}

# seeded OUT SEEDS F1 F2 ...: default.json's first run as one boot a seed
# (as a seeded machine's result holds them: the first boot the document,
# the others in "boots", each with "vm" "seed"), its written bytes scaled
# by Fi in seed i's run. SEEDS "1" numbers them from 1, "none" leaves the
# seeds out, "shift" numbers them from 2.
seeded()
{
	/usr/bin/python3 - "$fx/default.json" "$@" <<'EOF' || atf_fail "cannot write $1"
import copy, json, sys
src, dst, how = sys.argv[1:4]
d = json.load(open(src))
boots = []
for i, k in enumerate(float(x) for x in sys.argv[4:]):
    b = copy.deepcopy(d)
    run = b["runs"][0]
    for p in run["phases"]:
        for dev in p["devices"]:
            w = dev["write"]
            w["bytes"] = int(w["bytes"] * k)
            w["mean_bytes"] = w["bytes"] // max(1, w["ops"])
    b["runs"] = [run]
    b["vm"] = {"accel": "tcg", "cpus": 1, "mem_mib": 512, "queues": 1,
               "kernel_release": "6.1.0-57-amd64", "parallel_guests": 1}
    if how != "none":
        b["vm"]["seed"] = i + (2 if how == "shift" else 1)
    boots.append(b)
doc = boots[0]
doc["boots"] = boots[1:]
json.dump(doc, open(dst, "w"))
EOF
}

atf_test_case paired
paired_head()
{
	atf_set descr "runs on the same seeds are compared as pairs: a 3% fall hidden in a seed-to-seed spread of 25% PASSes a -10% gate paired (signed-rank interval, recomputed by Python), is UNDECIDED unpaired"
}
paired_body()
{
	# Each seed moves both sides alike; B is 3% lower, give or take 0.5%.
	f="1.0 1.25 0.8 1.15 0.75 1.3 0.9 1.05"
	b="0.97 1.2187 0.7736 1.1178 0.7283 1.2584 0.8748 1.0201"
	seeded a.json 1 $f
	seeded b.json 1 $b
	atf_check -s exit:0 -o save:out -e ignore "$ubc" compare --json c.json \
	    --fail-if write.mean_bytes:-10% a.json b.json
	grep -q '^  PASS write.mean_bytes:-10%' out ||
	    atf_fail "not a PASS paired: $(grep -A2 '^Gates' out)"
	grep -Eq '^  write.mean_bytes .*\(exact, paired\)' out ||
	    atf_fail "the change is not said to be paired"
	/usr/bin/python3 - c.json a.json b.json <<'EOF' ||
import itertools, json, math, sys
doc = json.load(open(sys.argv[1]))
def runs(path):
    d = json.load(open(path))
    out = {}
    for b in [d] + d.get("boots", []):
        for r in b["runs"]:
            ops = sum(x["write"]["ops"] for p in r["phases"] for x in p["devices"])
            out[b["vm"]["seed"]] = sum(x["write"]["bytes"] for p in r["phases"] for x in p["devices"]) // ops
    return out
a, b = runs(sys.argv[2]), runs(sys.argv[3])
d = [math.log(b[s]) - math.log(a[s]) for s in sorted(a)]
n = len(d)
w = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
m = len(w)
cnt = [0] * (m + 1)
for s in itertools.product((0, 1), repeat=n):
    cnt[sum(r + 1 for r in range(n) if s[r])] += 1
k, below = 0, 0
while k < m / 2 and (below + cnt[k]) / 2 ** n <= 0.025:
    below += cnt[k]; k += 1
pct = lambda x: (math.exp(x) - 1) * 100
want = pct((w[(m - 1) // 2] + w[m // 2]) / 2), pct(w[k - 1]), pct(w[m - k])
g = doc["gates"][0]
got = g["estimate_pct"], *g["interval_pct"]
if g["pairs"] != n or any(abs(x - y) > 1e-6 * max(1, abs(y)) for x, y in zip(got, want)):
    sys.exit("paired gate %s over %d pairs, Python %s over %d" % (got, g["pairs"], want, n))
EOF
	    atf_fail "the paired change is not what the runs give"
	# The same runs without seeds, or on other seeds: independent sets.
	for how in none shift; do
		seeded bu.json $how $b
		atf_check -s exit:3 -o save:u -e ignore "$ubc" compare \
		    --fail-if write.mean_bytes:-10% a.json bu.json
		grep -q '^  UNDECIDED write.mean_bytes:-10%' u ||
		    atf_fail "$how: not undecided unpaired: $(grep -A2 '^Gates' u)"
		! grep -q 'paired' u || atf_fail "$how: said to be paired"
	done
	# Five pairs cannot bound a 95% interval: undecided, in pairs.
	seeded a5.json 1 1.0 1.25 0.8 1.15 0.75
	seeded b5.json 1 0.97 1.2187 0.7736 1.1178 0.7283
	atf_check -s exit:3 -e ignore \
	    -o match:'5 pairs of runs on the same seeds are too few' \
	    "$ubc" compare --fail-if write.mean_bytes:-10% a5.json b5.json
}

atf_test_case too_few_runs
too_few_runs_head()
{
	atf_set descr "3 runs against 3 cannot be tested: the report says so, a gate on it is undecided (exit 3) and says how many runs would do"
}
too_few_runs_body()
{
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    "$fx/three_runs.json" "$fx/three_runs.json"
	grep -q 'too few runs to test: 3 against 3 runs cannot give p below 0.1' out ||
	    atf_fail "no 'too few runs' verdict"
	row out elapsed | grep -q '?$' || atf_fail "elapsed not marked '?'"
	atf_check -s exit:3 -o save:out -e match:'undecided' "$ubc" compare \
	    --fail-if elapsed:+10% "$fx/three_runs.json" "$fx/three_runs.json"
	grep -q '^  UNDECIDED elapsed:+10%: elapsed +0.0% \[-inf, +inf\] .*: 3 runs against 3 are too few for an interval; about 4 a side would likely decide it$' out ||
	    atf_fail "the undecided gate does not say why: $(grep UNDECIDED out)"
	# The old rule calls it an input error.
	atf_check -s exit:2 -o empty -e match:'too few to test' "$ubc" compare \
	    --gate-rule significance --fail-if elapsed:+10% \
	    "$fx/three_runs.json" "$fx/three_runs.json"
}

atf_test_case series
series_head()
{
	atf_set descr "three results: the series table with ratios to the first and the previous"
}
series_body()
{
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    "$fx/default.json" "$fx/slower.json" "$fx/sync.json"
	grep -Eq '^  ext4 default +1\.20 s +1\.00 +- +67\.3K$' out ||
	    atf_fail "first series row wrong"
	grep -Eq '^  ext4 slower +1\.77 s +1\.48 +1\.48 +66\.9K$' out ||
	    atf_fail "second series row wrong"
	grep -Eq '^  ext4 sync +3\.85 s +3\.20 +2\.17 +6\.2K$' out ||
	    atf_fail "third series row wrong"
}

atf_test_case many
many_head()
{
	atf_set descr "six results: by default the series leads and every line fits 80 columns; -a and a wide COLUMNS keep the table; the gates' exit statuses do not change"
}
many_body()
{
	# Named as a user names them, in the current directory.
	for f in default default2 slower sync three_runs failed_some; do
		cp "$fx/$f.json" . || atf_fail "cannot copy $f.json"
	done
	set -- default.json default2.json slower.json sync.json \
	    three_runs.json failed_some.json
	atf_check -s exit:0 -o save:out -e empty env -u COLUMNS "$ubc" \
	    compare "$@"
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' out)
	[ "$w" -le 80 ] || atf_fail "the longest line is $w columns: $(awk 'length($0) > 80' out)"
	[ "$(wc -l <out)" -gt 50 ] || atf_fail "the report is cut short"
	grep -q '^metric ' out && atf_fail "the wide table is printed by default"
	# The series leads: it comes before the first verdict.
	s=$(grep -n '^Series (medians):' out | cut -d: -f1)
	v=$(grep -n ' against A ext4 default:$' out | head -n 1 | cut -d: -f1)
	[ -n "$s" ] && [ -n "$v" ] && [ "$s" -lt "$v" ] ||
	    atf_fail "the series does not lead (series line '$s', verdicts line '$v')"
	grep -Eq '^  ext4 sync +3\.85 s +3\.20 +2\.17 +6\.2K$' out ||
	    atf_fail "the sync row of the series is wrong"
	grep -q 'columns wide: -a prints it' out ||
	    atf_fail "the report does not say where the table went"
	grep -q 'EMD 1\.47 buckets (smaller); median 4K -> 4K: changed' out ||
	    atf_fail "the write histogram verdict is missing"

	# -a: the table, over 200 columns, and the series after it.
	atf_check -s exit:0 -o save:all -e empty env -u COLUMNS "$ubc" \
	    compare -a "$@"
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' all)
	[ "$w" -gt 200 ] || atf_fail "-a: the table is $w columns, not the wide one"
	row all elapsed | grep -q -- '+220\.5% \*' ||
	    atf_fail "-a: no sync column in the elapsed row: $(row all elapsed)"
	grep -q '^Series (medians):' all || atf_fail "-a: no series"
	# A page as wide as the table: the table without -a.
	atf_check -s exit:0 -o save:wide -e empty env COLUMNS=300 "$ubc" \
	    compare "$@"
	grep -q '^metric ' wide || atf_fail "COLUMNS=300: no table"

	# The gates judge the same whatever the page's width.
	for cols in 80 300; do
		atf_check -s exit:1 -o save:g$cols -e match:'a gate failed' \
		    env COLUMNS=$cols "$ubc" compare \
		    --fail-if elapsed:+100% "$@"
		atf_check -s exit:0 -o save:p$cols -e empty \
		    env COLUMNS=$cols "$ubc" compare \
		    --fail-if elapsed:+500% "$@"
		sed -n '/^Gates/,$p' g$cols >gates$cols
		sed -n '/^Gates/,$p' p$cols >>gates$cols
	done
	atf_check -s exit:0 -o empty -e empty cmp gates80 gates300
	# Three runs against five bound an interval; against three, none.
	atf_check -s exit:3 -o save:few -e match:'undecided' "$ubc" \
	    compare --baseline three_runs.json --fail-if elapsed:+10% "$@"
	grep -q '^  PASS elapsed:+10%: elapsed -67.8% \[-69.1, -67.3\] in default.json against three_runs.json$' few ||
	    atf_fail "three runs against five do not decide"
	grep -q '^  UNDECIDED elapsed:+10%: .* in three_runs.json against three_runs.json: 3 runs against 3 are too few' few ||
	    atf_fail "three runs against three are not undecided"
}

atf_test_case warnings
warnings_head()
{
	atf_set descr "failed runs and a different device are warned about, the rest compared"
}
warnings_body()
{
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    "$fx/default.json" "$fx/failed_some.json"
	grep -q "warning: '.*failed_some.json': 2 of 7 runs failed; comparing the 5 that succeeded" out ||
	    atf_fail "no warning for the failed runs"
	grep -q "warning: different devices: '.*failed_some.json' on loop8, the baseline on loop7" out ||
	    atf_fail "no warning for the device"
}

# bad WHAT FILE: compare refuses FILE with a message naming it and WHAT.
bad()
{
	atf_check -s exit:2 -o empty -e save:err "$ubc" compare \
	    "$fx/default.json" "$2"
	grep -qF -- "$2" err || atf_fail "message does not name $2: $(cat err)"
	grep -qF -- "$1" err || atf_fail "message does not say '$1': $(cat err)"
}

atf_test_case bad_input
bad_input_head()
{
	atf_set descr "missing, not a result, truncated, zero runs, no ok run, newer schema: exit 2, clear message"
}
bad_input_body()
{
	bad "No such file or directory" "$fx/missing.json"
	bad "is not a ubcreplay result" "$fx/not_result.json"
	bad "not valid JSON" "$fx/truncated.json"
	bad "has no runs to compare" "$fx/zero_runs.json"
	bad "has no successful run" "$fx/all_failed.json"
	bad "has schema 2, newer than this ubcreplay reads (1)" "$fx/schema2.json"
	bad "not valid JSON" "$fx/make.py"
	atf_check -s exit:2 -o empty -e match:'needs two results' "$ubc" \
	    compare "$fx/default.json"
	atf_check -s exit:2 -o empty -e match:"bad --fail-if 'elapsed:10%'" \
	    "$ubc" compare --fail-if elapsed:10% "$fx/default.json" \
	    "$fx/sync.json"
	atf_check -s exit:2 -o empty -e match:"no metric 'nosuch'" "$ubc" \
	    compare --fail-if nosuch:+1% "$fx/default.json" "$fx/sync.json"
	atf_check -s exit:2 -o empty -e match:"alpha" "$ubc" compare \
	    --alpha 2 "$fx/default.json" "$fx/sync.json"
	# An SVG that cannot be written: nothing printed, nothing left.
	atf_check -s exit:2 -o empty -e match:"cannot create" "$ubc" compare \
	    --svg nodir/x.svg "$fx/default.json" "$fx/sync.json"
}

atf_test_case svg
svg_head()
{
	atf_set descr "the SVG is well formed, renders to PNG, and its bars carry the shares in the files"
}
svg_body()
{
	require_prog rsvg-convert
	atf_check -s exit:0 -o ignore -e empty "$ubc" compare --svg c.svg \
	    "$fx/default.json" "$fx/slower.json" "$fx/sync.json"
	ls c.svg.tmp.* >/dev/null 2>&1 && atf_fail "a temporary file was left"
	atf_check -s exit:0 -o empty -e empty rsvg-convert -o c.png c.svg
	/usr/bin/python3 - "$fx" <<'EOF' || atf_fail "the SVG does not match the files"
import json, struct, sys, xml.etree.ElementTree as ET
fx = sys.argv[1]
png = open("c.png", "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", png[16:24])
assert w == 880 and 600 < h < 3000, (w, h)
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in ET.parse("c.svg").iter(ns + "title")]
# The device-write shares, from the files.
def label(b):
    v = 0 if b == 0 else 1 << (b - 1)
    for u in ("", "K", "M", "G"):
        if v < 1024:
            return "%d%s" % (v, u)
        v //= 1024
want = []
for i, f in enumerate(("default", "slower", "sync")):
    counts = {}
    for r in json.load(open("%s/%s.json" % (fx, f)))["runs"]:
        for p in r["phases"]:
            for d in p["devices"]:
                for b in d["write"]["size_hist"]["buckets"]:
                    k = b["min_bytes"].bit_length()
                    counts[k] = counts.get(k, 0) + b["count"]
    total = sum(counts.values())
    want += ["%s %s: %.1f%%" % ("ABC"[i], label(k), 100.0 * c / total)
             for k, c in sorted(counts.items()) if c]
missing = [t for t in want if t not in titles]
assert not missing, missing
runs = [t for t in titles if t.startswith("run ")]
assert len(runs) == 15, len(runs)
EOF
}

atf_test_case report_svg
report_svg_head()
{
	atf_set descr "report --svg draws one stored result; an unwritable file leaves no report"
}
report_svg_body()
{
	require_prog rsvg-convert
	atf_check -s exit:0 -o save:out -e empty "$ubc" report --svg r.svg \
	    "$fx/sync.json"
	grep -q 'ext4 sync' out || atf_fail "no text report"
	atf_check -s exit:0 -o empty -e empty rsvg-convert -o r.png r.svg
	grep -q '<title>A 4K: 79.7%</title>' r.svg ||
	    atf_fail "the 4K share of device writes (79.7%) is not drawn"
	[ "$(grep -c '<title>run ' r.svg)" -eq 5 ] || atf_fail "not 5 runs drawn"
	atf_check -s exit:1 -o empty -e match:"cannot create 'nodir/r.svg'" \
	    "$ubc" report --svg nodir/r.svg "$fx/sync.json"
}

atf_test_case nfs
nfs_head()
{
	atf_set descr "NFS results: the wire figures that exist are compared, one run a side is too few to test"
}
nfs_body()
{
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    "$fx/nfs_32k.json" "$fx/nfs_small.json"
	row out nfs.write.mean_bytes | grep -q -- '32.0K  = .*20.9K  = .*-34.7% ?$' ||
	    atf_fail "nfs.write.mean_bytes row wrong: $(row out nfs.write.mean_bytes)"
	row out nfs.commit.calls | grep -q '+19900.0% ?$' ||
	    atf_fail "nfs.commit.calls row wrong"
	grep -q 'median 32K -> 16K: changed' out ||
	    atf_fail "the NFS WRITE sizes are not reported changed"
	grep -q '^elapsed ' out && atf_fail "a time row for a capture"
	atf_check -s exit:3 -o save:gate -e match:'undecided' "$ubc" compare \
	    --fail-if nfs.write.mean_bytes:-10% "$fx/nfs_32k.json" \
	    "$fx/nfs_small.json"
	grep -q '^  UNDECIDED nfs.write.mean_bytes:-10%: nfs.write.mean_bytes -34.7% \[-inf, +inf\]' gate ||
	    atf_fail "one capture against one is not undecided: $(grep -A1 Gates gate)"
}

atf_test_case odd_values
odd_values_head()
{
	atf_set descr "a result with wrong types, out-of-range numbers and an empty device name is read without harm"
}
odd_values_body()
{
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    "$fx/default.json" "$fx/odd.json"
	grep -q "1 of 5 runs failed" out || atf_fail "the run that is not a run is not counted failed"
	grep -q 'too few runs to test for some metrics: 5 against 2' out ||
	    atf_fail "metrics missing from some runs are not told apart"
}

# withvm IN OUT ACCEL [PARALLEL]: the real result IN (fixtures/compare_test/
# host_*.json, written by `ubcreplay -n 5 -o` on a loop ext4) as if measured
# in a guest: a "vm" object as `ubcreplay vm` writes it, added to OUT.
withvm()
{
	/usr/bin/python3 - "$@" <<'EOF' || atf_fail "cannot write $2"
import json, sys
src, dst, accel = sys.argv[1:4]
par = int(sys.argv[4]) if len(sys.argv) > 4 else 1
d = json.load(open(src))
d["vm"] = {"kernel": "/k/vmlinuz-6.1.0-57-amd64", "kernel_sha256": "0" * 64,
           "kernel_release": "6.1.0-57-amd64", "cmdline": "console=ttyS0",
           "accel": accel, "cpus": 2, "mem_mib": 512,
           "qemu_version": "7.2.17", "boot_ns": 4700000000,
           "parallel_guests": par,
           "image": {"fstype": "ext4", "mkfs_options": "",
                     "mount_options": "", "size_bytes": 1 << 30}}
json.dump(d, open(dst, "w"))
EOF
}

# gate_same GATE A B A2 B2: the gate judges the guest results A2 B2 as it
# judges the host results A B they were made from: same exit, same lines.
# Prints the exit status.
gate_same()
{
	"$ubc" compare --fail-if "$1" "$2" "$3" >host.out 2>host.err
	want=$?
	[ "$want" -eq 0 ] || [ "$want" -eq 1 ] || [ "$want" -eq 3 ] ||
	    atf_fail "$1 on the host results exits $want: $(cat host.err)"
	"$ubc" compare --fail-if "$1" "$4" "$5" >vm.out 2>vm.err
	got=$?
	[ "$got" -eq "$want" ] ||
	    atf_fail "$1: the host results exit $want, the guests' $got: $(cat vm.err)"
	grep -E '^  (FAIL|PASS|UNDECIDED) ' host.out | sed "s|$2|A|;s|$3|B|" >h
	grep -E '^  (FAIL|PASS|UNDECIDED) ' vm.out | sed "s|$4|A|;s|$5|B|" >v
	[ -s h ] || atf_fail "$1: no verdict printed"
	cmp -s h v || atf_fail "$1: the host results say '$(cat h)', the guests '$(cat v)'"
	echo "$want"
}

# judged IN OUT RULE LEVEL LOOKS...: IN with the record `ubcreplay vm`
# writes of how it judged the runs ("vm" "judged"), added to OUT.
judged()
{
	/usr/bin/python3 - "$@" <<'EOF' || atf_fail "cannot write $2"
import json, sys
src, dst, rule, level = sys.argv[1:5]
d = json.load(open(src))
d["vm"]["judged"] = {"rule": rule, "level": float(level),
                     "looks": [int(x) for x in sys.argv[5:]]}
json.dump(d, open(dst, "w"))
EOF
}

atf_test_case vm_judged
vm_judged_head()
{
	atf_set descr "results vm judged at 99% over its 5 looks are judged by compare at 99%, and it says so: on real runs whose change (write.mean_bytes, sync against default) FAILs a gate at 95% and is UNDECIDED at 99%, both intervals recomputed by Python from the runs; a looser --alpha is refused, a stricter one taken; the strictest record wins; vm's rule is followed; a record this reader does not know is refused"
}
vm_judged_body()
{
	withvm "$fx/host_default.json" def.json tcg
	withvm "$fx/host_sync.json" sync.json tcg
	# The 95% and 99% intervals by their definition (every pairwise ratio,
	# the rank-sum distribution enumerated), and a limit between their
	# upper ends: the runs show a fall beyond it at 95%, not at 99%.
	/usr/bin/python3 "$top/tests/hl_interval.py" def.json sync.json 0.95 0.99 >iv ||
	    atf_fail "Python cannot read the runs"
	/usr/bin/python3 - iv >limits <<'EOF' || atf_fail "no limit between the intervals: $(cat iv)"
import sys
(lo95, hi95), (lo99, hi99) = [map(float, l.split()) for l in open(sys.argv[1])]
limit = -(hi95 + hi99) / 2
assert hi95 < -limit < hi99, (hi95, hi99)
print("%.2f [%+.1f, %+.1f] [%+.1f, %+.1f]" % (limit, lo95, hi95, lo99, hi99))
EOF
	read -r limit i95a i95b i99a i99b <limits
	gate=write.mean_bytes:-$limit%
	# Not judged: compare's own 95%, a FAIL.
	atf_check -s exit:1 -o save:out95 -e ignore "$ubc" compare \
	    --fail-if "$gate" def.json sync.json
	grep -qF -- "FAIL $gate: write.mean_bytes -89.0% $i95a $i95b in sync.json" out95 ||
	    atf_fail "not a FAIL at 95% $i95a $i95b: $(grep -A1 '^Gates' out95)"
	# Judged by vm -n auto: 99% over 5 looks, UNDECIDED, and said.
	judged def.json jdef.json interval 0.99 5 8 12 18 20
	judged sync.json jsync.json interval 0.99 5 8 12 18 20
	atf_check -s exit:3 -o save:out99 -e ignore "$ubc" compare --json c.json \
	    --fail-if "$gate" jdef.json jsync.json
	grep -qF -- "UNDECIDED $gate: write.mean_bytes -89.0% $i99a $i99b in jsync.json" out99 ||
	    atf_fail "not UNDECIDED at 99% $i99a $i99b: $(grep -A1 '^Gates' out99)"
	grep -qF "Judged as ubcreplay vm judged these runs: looks at 5, 8, 12, 18, 20 runs a cell, each at 99% (0.05 spread over the 5), by the interval rule." out99 ||
	    atf_fail "compare does not say how it judged: $(cat out99)"
	grep -qF "Gates (--fail-if: the change's 99% interval" out99 ||
	    atf_fail "the gates are not at 99%"
	[ "$(/usr/bin/python3 -c 'import json; print(json.load(open("c.json"))["level"])')" = 0.99 ] ||
	    atf_fail "the JSON's level is not 0.99"
	# --alpha: looser refused (it would spend the budget again),
	# stricter taken.
	atf_check -s exit:2 -o empty -e match:"--alpha 0.05 judges at 95%, but ubcreplay vm judged these runs at 99% over 5 looks" \
	    "$ubc" compare --alpha 0.05 --fail-if "$gate" jdef.json jsync.json
	atf_check -s exit:3 -o match:"99% interval" -e ignore "$ubc" compare \
	    --alpha 0.01 --fail-if "$gate" jdef.json jsync.json
	# Records that differ: the strictest.
	judged def.json j975.json interval 0.975 5 7
	atf_check -s exit:3 -o match:"each at 99% \\(0.05 spread over the 5\\)" \
	    -e ignore "$ubc" compare --fail-if "$gate" j975.json jsync.json
	# A fixed -n judged by the old rule: compare judges by it too.
	judged def.json sdef.json significance 0.95 5
	judged sync.json ssync.json significance 0.95 5
	atf_check -s exit:1 -o save:outs -e ignore "$ubc" compare \
	    --fail-if "$gate" sdef.json ssync.json
	grep -qF "Judged as ubcreplay vm judged these runs: at 95%, by the significance rule." outs &&
	    grep -qF "by the old rule" outs ||
	    atf_fail "vm's rule not followed: $(cat outs)"
	# A record this reader cannot read is refused.
	judged def.json bad.json interval 1.5 5
	atf_check -s exit:2 -o empty -e match:"says how it was judged" \
	    "$ubc" compare --fail-if "$gate" bad.json jsync.json
}

atf_test_case vm_tcg
vm_tcg_head()
{
	atf_set descr "TCG against TCG: a time gate is refused (exit 2, naming the results and accelerators), size gates are judged as on the host"
}
vm_tcg_body()
{
	withvm "$fx/host_default.json" def.json tcg
	withvm "$fx/host_default2.json" def2.json tcg
	withvm "$fx/host_sync.json" sync.json tcg
	for g in elapsed:+10% user:+10% sys:-5% extract.elapsed:+10% \
	    sync.sys:+1%; do
		atf_check -s exit:2 -o empty -e save:err "$ubc" compare \
		    --fail-if write.mean_bytes:-20% --fail-if "$g" def.json \
		    sync.json
		grep -qF "'def.json' (tcg), 'sync.json' (tcg) are not comparable: TCG times are emulated" err ||
		    atf_fail "$g: the refusal does not name the results and accelerators: $(cat err)"
	done
	# Sizes: the data decide, as they do between the host results.
	v=$(gate_same write.mean_bytes:-20% "$fx/host_default.json" \
	    "$fx/host_sync.json" def.json sync.json) || exit 1
	[ "$v" = 1 ] || atf_fail "sync's smaller writes do not fail the size gate"
	v=$(gate_same write.mean_bytes:-20% "$fx/host_default.json" \
	    "$fx/host_default2.json" def.json def2.json) || exit 1
	[ "$v" = 0 ] || atf_fail "the same configuration fails the size gate"
	gate_same flushes:+50% "$fx/host_default.json" "$fx/host_sync.json" \
	    def.json sync.json >/dev/null || exit 1
}

atf_test_case vm_kvm
vm_kvm_head()
{
	atf_set descr "KVM against KVM: time gates are judged as on the host; KVM against the host, or guests run in parallel: refused"
}
vm_kvm_body()
{
	withvm "$fx/host_default.json" def.json kvm
	withvm "$fx/host_default2.json" def2.json kvm
	withvm "$fx/host_sync.json" sync.json kvm
	withvm "$fx/host_sync.json" par.json kvm 2
	v=$(gate_same elapsed:+10% "$fx/host_default.json" \
	    "$fx/host_sync.json" def.json sync.json) || exit 1
	[ "$v" = 1 ] || atf_fail "sync's longer extraction does not fail the time gate"
	v=$(gate_same elapsed:+10% "$fx/host_default.json" \
	    "$fx/host_default2.json" def.json def2.json) || exit 1
	[ "$v" = 0 ] || atf_fail "the same configuration fails the time gate"
	atf_check -s exit:2 -o empty -e save:err "$ubc" compare \
	    --fail-if elapsed:+10% def.json "$fx/host_sync.json"
	grep -qF "'def.json' (kvm), '$fx/host_sync.json' (bare metal, accel none) are not comparable: the accelerators differ" err ||
	    atf_fail "kvm against the host: $(cat err)"
	atf_check -s exit:2 -o empty -e save:err "$ubc" compare \
	    --fail-if elapsed:+10% def.json par.json
	grep -qF "'par.json' (kvm, parallel guests) are not comparable: guests run in parallel" err ||
	    atf_fail "parallel guests: $(cat err)"
	# A size gate with parallel guests is judged.
	atf_check -s exit:1 -o ignore -e ignore "$ubc" compare \
	    --fail-if write.mean_bytes:-20% def.json par.json
}

atf_test_case vm_text
vm_text_head()
{
	atf_set descr "report and compare say which guest ran a result and mark emulated times in the table and the series"
}
vm_text_body()
{
	withvm "$fx/host_default.json" def.json tcg
	withvm "$fx/host_sync.json" sync.json tcg 2
	withvm "$fx/host_default2.json" kvm.json kvm
	atf_check -s exit:0 -o save:r -e empty "$ubc" report sync.json
	grep -qx 'vm       kernel 6.1.0-57-amd64, accel tcg, 2 cpus, 512 MiB, booted in 4.70 s' r ||
	    atf_fail "no vm line: $(grep '^vm' r)"
	grep -q 'the elapsed times are emulated (tcg): not comparable with KVM or bare metal' r ||
	    atf_fail "no word that the times are emulated"
	grep -q '2 guests ran in parallel: their times are not comparable' r ||
	    atf_fail "no word of the parallel guests"
	atf_check -s exit:0 -o save:r -e empty "$ubc" report kvm.json
	grep -q 'emulated\|parallel' r && atf_fail "a KVM result called emulated"
	atf_check -s exit:0 -o save:r -e empty "$ubc" report \
	    "$fx/host_default.json"
	grep -q '^vm ' r && atf_fail "a vm line for a result from the host"

	# Wide enough that the table of three results is printed.
	atf_check -s exit:0 -o save:out -e empty env COLUMNS=300 "$ubc" \
	    compare kvm.json def.json sync.json
	row out elapsed | grep -q ' emulated .* emulated$' ||
	    atf_fail "elapsed not marked emulated: $(row out elapsed)"
	row out write.mean_bytes | grep -q '%' ||
	    atf_fail "a size row lost its change: $(row out write.mean_bytes)"
	grep -q '^  times not compared: emulated (TCG)$' out ||
	    atf_fail "the verdicts compare emulated times"
	# Under TCG the series leads with sizes; the machine shows once, and
	# the accelerator, which differs, in the labels.
	grep -q '^  machine: 2cpu, 512M, 2q, realtime; differs in accel (in the labels)$' out ||
	    atf_fail "series: no machine line: $(grep -A2 '^Series' out)"
	grep -Eq '^  ext4 default again kvm +[0-9.]+K +1\.00 +[0-9.]+ m?s +6\.1\.0-57-amd64 +kvm$' out ||
	    atf_fail "series: first row wrong: $(grep -A3 '^Series' out)"
	grep -Eq '^  ext4 sync tcg +[0-9.]+K +0\.[0-9]+ +[0-9.]+ m?s +6\.1\.0-57-amd64 +tcg \(emulated times\)$' out ||
	    atf_fail "series: the emulated row is not marked"
	grep -q "guest kernel 6.1.0-57-amd64, accel tcg, parallel guests" out ||
	    atf_fail "the results list does not name the guest"
	atf_check -s exit:0 -o ignore -e empty "$ubc" compare --svg c.svg \
	    kvm.json def.json
	grep -q 'seconds: emulated (TCG), not comparable<' c.svg ||
	    atf_fail "the picture does not mark the times emulated"
	# Between host results nothing of this shows.
	atf_check -s exit:0 -o save:out -e empty "$ubc" compare \
	    "$fx/host_default.json" "$fx/host_default2.json" "$fx/host_sync.json"
	grep -q 'emulated\|n/c\|guest kernel\|accel' out &&
	    atf_fail "host results marked as guests'"
	atf_check -s exit:0 -o ignore -e empty "$ubc" compare --svg h.svg \
	    "$fx/host_default.json" "$fx/host_sync.json"
	grep -q 'seconds<' h.svg || atf_fail "the picture's time title changed"
	return 0
}

atf_test_case vm_bad
vm_bad_head()
{
	atf_set descr "a vm object with no known accelerator is refused, naming the file"
}
vm_bad_body()
{
	withvm "$fx/host_default.json" x.json qemu
	bad 'has a "vm" object without a known accel (kvm or tcg)' x.json
	/usr/bin/python3 -c 'import json; d = json.load(open("x.json")); d["vm"] = "tcg"; json.dump(d, open("y.json", "w"))'
	bad 'has a "vm" object without a known accel' y.json
}

atf_test_case vm_machines
vm_machines_head()
{
	atf_set descr "a size gate across guests' machines (vCPUs, queues, QEMU against UML, the virtio disk's model, the scheduler's features) is refused naming both and what differs; on one machine the data decide"
}
vm_machines_body()
{
	withvm "$fx/host_default.json" a.json tcg
	withvm "$fx/host_default2.json" b.json tcg
	# machine FILE KEY=VALUE...: the vm object of FILE changed (JSON values).
	machine()
	{
		f=$1
		shift
		/usr/bin/python3 - "$f" "$@" <<'EOF2' || atf_fail "cannot change $f"
import json, sys
d = json.load(open(sys.argv[1]))
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    d["vm"][k] = json.loads(v)
json.dump(d, open(sys.argv[1], "w"))
EOF2
	}
	# refused WHAT A B: the gate across A and B is refused, naming WHAT.
	refused()
	{
		atf_check -s exit:2 -o empty -e save:err "$ubc" compare \
		    --fail-if write.mean_bytes:-20% "$2" "$3"
		grep -qF "cannot judge sizes across machines: the guests' machines differ in $1: '$2'" err ||
		    atf_fail "$2 against $3: the refusal does not name $1: $(cat err)"
	}
	v=$(gate_same write.mean_bytes:-20% "$fx/host_default.json" \
	    "$fx/host_default2.json" a.json b.json) || exit 1
	[ "$v" = 0 ] || atf_fail "one machine: the gate is not judged as on the host"
	cp b.json cpus.json && machine cpus.json cpus=1 queues=2
	refused vCPUs a.json cpus.json
	cp b.json q.json && machine q.json queues=1
	refused "virtio-blk queues" a.json q.json
	cp b.json uml.json && machine uml.json 'machine="uml"' 'accel="uml"'
	refused "machine kind (QEMU, UML)" a.json uml.json
	# Memory alone is not refused: it moved the sizes less than the noise.
	cp b.json mem.json && machine mem.json mem_mib=1024
	atf_check -s exit:0 -o ignore -e ignore "$ubc" compare \
	    --fail-if write.mean_bytes:-20% a.json mem.json
	# UML's virtio disk: its model's values and the guest's scheduler
	# features are the machine's; where the model was read from is not,
	# nor is ubd's model (the seed's).
	model='{"kind": "virtio", "latency_ns": 50000, "ns_per_kib": 500, "flush_ns": 100000, "irq_ns": 4000000, "depth": 128, "seg_max": 254, "size_max": 0, "blk_size": 512, "num_queues": 1, "file": ""}'
	uml='machine="uml" accel="uml" cpus=1 queues=1 disk="virtio"'
	cp a.json va.json && machine va.json $uml "disk_model=$model" \
	    'sched_features="NO_WAKEUP_PREEMPTION"'
	cp b.json vb.json && machine vb.json $uml \
	    "disk_model=$(echo "$model" | sed 's/"file": ""/"file": "\/x\/vdisk.model"/')" \
	    'sched_features="NO_WAKEUP_PREEMPTION"'
	atf_check -s exit:0 -o ignore -e ignore "$ubc" compare \
	    --fail-if write.mean_bytes:-20% va.json vb.json
	cp vb.json irq.json && machine irq.json \
	    "disk_model=$(echo "$model" | sed 's/"irq_ns": 4000000, //')"
	refused "the virtio disk's model" va.json irq.json
	cp vb.json sched.json && machine sched.json 'sched_features=""'
	refused "the CPU scheduler's features" va.json sched.json
	grep -qF "(sched:NO_WAKEUP_PREEMPTION), 'sched.json' (sched:default)" err ||
	    atf_fail "the features are not named: $(cat err)"
	cp va.json ua.json && machine ua.json 'disk="ubd"' \
	    'disk_model={"base_ns": 100000, "ns_per_kib": 50}'
	cp vb.json ub.json && machine ub.json 'disk="ubd"' \
	    'disk_model={"base_ns": 100100, "ns_per_kib": 50}'
	atf_check -s exit:0 -o ignore -e ignore "$ubc" compare \
	    --fail-if write.mean_bytes:-20% ua.json ub.json
}

atf_init_test_cases()
{
	atf_add_test_case significant
	atf_add_test_case p_against_scipy
	atf_add_test_case gate_fails
	atf_add_test_case gate_passes
	atf_add_test_case gate_undecided
	atf_add_test_case gate_json
	atf_add_test_case too_few_runs
	atf_add_test_case paired
	atf_add_test_case series
	atf_add_test_case many
	atf_add_test_case warnings
	atf_add_test_case bad_input
	atf_add_test_case svg
	atf_add_test_case report_svg
	atf_add_test_case nfs
	atf_add_test_case odd_values
	atf_add_test_case vm_judged
	atf_add_test_case vm_tcg
	atf_add_test_case vm_kvm
	atf_add_test_case vm_text
	atf_add_test_case vm_bad
	atf_add_test_case vm_machines
}
