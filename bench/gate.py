#!/usr/bin/python3
"""gate.py - could the gate's promise be wrong? Its error rates on real
noise, resampled by boot, under conditions that break the assumptions the
promise rests on (issue 42): `ubcreplay vm -n auto`'s rule (docs/compare.md,
"Runs until decided"), each look judged by the gate's own C functions
(bench/gate_judge.c: cmp_result_from_json, cmp_new, gate_judge from
build/libubc.a, as `ubcreplay compare` calls them).

    bench/gate.py [--judge BIN] [--trials N] [--limit PCT] [--seed S]
                  [--md] NAME=POOL...

A POOL is a directory of boots (bench/gate_pools.py's: boot-*.json and its
boots.tsv) or results joined by commas (each one boot, and its "boots").
A host's result (no "vm" object) counts each run as a boot of its own, and
so does every result with --by-run (the bench before issue 42 drew so). The
first POOL is the reference; the others are the same cell under another
load (or, for "same" alone, any other cell).

A side's runs are drawn by boot: boots with replacement, each one's runs in
the order they ran, until the look's count (vm boots again when a look
needs more runs than it has: the same structure); --per-boot M draws M
of each boot's runs at random instead, a design of M runs a boot judged
on the same pool. The looks are 5, 8, 12,
18, 20 runs a side, each at 99% (0.05 over 5), as `-n auto`. The gate is
write.mean_bytes:-PCT%. B's runs are scaled (their written bytes, each
device's mean recomputed) so that B's true change is the grade: 0 (A/A),
-PCT (exactly on the limit, where FAIL and PASS are both wrong) and -10%.
The true change is the pools' own: the gate's estimate over every run of
both pools (the Hodges-Lehmann median of all pairwise log ratios, which the
trials' estimates estimate). Conditions, for every pool Y after the first,
X:

  same Y        A and B from Y (the model the promise is proved on)
  unequal n X   A: 20 runs from X at every look (a stored baseline); B
                at the looks
  spread X/Y    A from X, B from Y centred on X (the unequal spreads of
                two loads, the true change still the grade)
  drift B X>Y   B's runs after the 10th from Y, scaled alike but not
                centred: the load changed halfway through B alone (a base
                stored before, or A and B run one after the other)
  drift AB X>Y  A's and B's runs after the 10th from Y: the load changed
                halfway through both (vm's A, B, A, B turns)

Under the drifts the true change is the grade against X; what the load
adds is what the gate should not be fooled by.

Seeds: numpy's SeedSequence(S) with spawn_key (condition, grade, trial,
side): every trial and each of its sides has a stream of its own (PCG64),
none shared across pools or grades. Every rate is printed with its Wilson
95% interval.
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

LOOKS = (5, 8, 12, 18, 20)
LEVEL = 1 - 0.05 / len(LOOKS)
HALF = 10
PER_BOOT = 0  # --per-boot: the runs a boot in the design judged; 0, all


def wilson(k, n, z=1.959964):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def rate(k, n):
    lo, hi = wilson(k, n)
    return "%d/%d = %.1f%% [%.1f, %.1f]" % (k, n, 100 * k / n, 100 * lo, 100 * hi)


def ok_runs(doc):
    return [r for r in doc["runs"] if r["status"] == "ok"]


def load_pool(spec, by_run=False):
    """(name, template, boots, note): boots are lists of runs; by_run
    makes each run a boot of its own."""
    name, _, path = spec.partition("=")
    if not path:
        name, path = os.path.basename(spec.rstrip("/")), spec
    files = (sorted(glob.glob(os.path.join(path, "boot-*.json")))
             if os.path.isdir(path) else path.split(","))
    boots, tmpl = [], None
    for f in files:
        with open(f, encoding="utf-8") as fp:
            doc = json.load(fp)
        for b in [doc] + doc.pop("boots", []):
            runs = ok_runs(b)
            if "vm" not in doc or by_run:
                boots += [[r] for r in runs]
            elif runs:
                boots.append(runs)
        tmpl = tmpl or doc
    note = ""
    tsv = os.path.join(path, "boots.tsv")
    if os.path.isdir(path) and os.path.exists(tsv):
        with open(tsv, encoding="ascii") as f:
            rows = [line.split("\t") for line in f if line.strip()]
        beside = [float(r[5]) for r in rows]
        load = [float(x) for r in rows for x in (r[3], r[4])]
        note = "; %s..%s; load %.1f-%.1f, %.2f-%.2f cores beside" % (
            rows[0][1][:13], rows[-1][1][9:13], min(load), max(load),
            min(beside), max(beside))
    return name, tmpl, boots, note


def mean_write(run):
    ops = sum(d["write"]["ops"] for p in run["phases"] for d in p["devices"])
    nbytes = sum(d["write"]["bytes"] for p in run["phases"] for d in p["devices"])
    return nbytes / ops if ops else 0.0


def stripped(run, k):
    """What the gate on write.mean_bytes reads of a run, B's bytes times k
    (checked against the whole run at the start: check_stripped)."""
    out = {"run": run["run"], "status": run["status"], "error": run.get("error"),
           "phases": []}
    for p in run["phases"]:
        devs = []
        for d in p["devices"]:
            ops, nbytes = d["write"]["ops"], int(d["write"]["bytes"] * k)
            devs.append({"device": d["device"], "write": {
                "ops": ops, "bytes": nbytes,
                "mean_bytes": nbytes // ops if ops else 0}})
        out["phases"].append({"phase": p["phase"], "status": p["status"],
                              "error": p.get("error"),
                              "elapsed_ns": p["elapsed_ns"], "devices": devs})
    return out


class Judge:
    """gate_judge on a set of pool files: one look a call."""

    def __init__(self, binary, limit, work, tmpl, pools):
        tmpl = json.loads(json.dumps(tmpl))
        tmpl.get("vm", {}).pop("judged", None)
        tmpl["runs"] = tmpl["runs"][:1]
        tpath = os.path.join(work, "template.json")
        with open(tpath, "w", encoding="utf-8") as f:
            json.dump(tmpl, f)
        paths = []
        for i, runs in enumerate(pools):
            paths.append(os.path.join(work, "pool%d.json" % i))
            with open(paths[-1], "w", encoding="utf-8") as f:
                json.dump({"runs": runs}, f)
        self.p = subprocess.Popen(
            [binary, "write.mean_bytes:-%g%%" % limit, tpath] + paths,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def look(self, a, b, level=LEVEL):
        """a, b: (pool, run) pairs. (outcome, estimate as a ratio)."""
        self.p.stdin.write("%r a %s b %s\n" % (
            level, " ".join("%d:%d" % x for x in a),
            " ".join("%d:%d" % x for x in b)))
        self.p.stdin.flush()
        w = self.p.stdout.readline().split()
        if not w:
            sys.exit("gate.py: the judge failed")
        return w[0], float(w[1])

    def close(self):
        self.p.stdin.close()
        self.p.wait()


class Pools:
    """Every (pool, scale) the trials draw from, as gate_judge's files."""

    def __init__(self):
        self.runs, self.index = [], {}

    def get(self, pool, k, full=False):
        key = (id(pool), k, full)
        if key not in self.index:
            self.index[key] = len(self.runs)
            self.runs.append([json.loads(json.dumps(r)) if full else stripped(r, k)
                              for b in pool for r in b])
        return self.index[key]


def draw(rng, pool, pidx, n):
    """n runs of pool by boot: [(pool index, run index)]; with PER_BOOT,
    that many of each boot's runs, drawn at random, in the order they
    ran."""
    starts, s = [], 0
    for b in pool:
        starts.append(s)
        s += len(b)
    out = []
    while len(out) < n:
        i = int(rng.integers(len(pool)))
        js = range(len(pool[i]))
        if 0 < PER_BOOT < len(pool[i]):
            js = sorted(rng.choice(len(pool[i]), PER_BOOT, replace=False))
        out += [(pidx, starts[i] + int(j)) for j in js]
    return out[:n]


def side(rng, first, second, n):
    """n runs: from first (pool, index) and, after HALF, from second."""
    if second is None or n <= HALF:
        return draw(rng, first[0], first[1], n)
    return draw(rng, first[0], first[1], HALF) + draw(rng, second[0], second[1],
                                                     n - HALF)


def trial(judge, rng_a, rng_b, cond):
    a_all = side(rng_a, cond["a"], cond.get("a2"), LOOKS[-1])
    b_all = side(rng_b, cond["b"], cond.get("b2"), LOOKS[-1])
    for n in LOOKS:
        a = a_all if cond.get("fixed_a") else a_all[:n]
        outcome, _ = judge.look(a, b_all[:n])
        if outcome != "UNDECIDED":
            break
    return outcome, n


def cv_within(boots):
    vals = [[mean_write(r) for r in b] for b in boots if len(b) > 1]
    if not vals:
        allv = [mean_write(b[0]) for b in boots]
        return 100 * statistics.stdev(allv) / statistics.mean(allv)
    grand = statistics.mean(x for v in vals for x in v)
    return 100 * math.sqrt(statistics.mean(statistics.variance(v) for v in vals)) / grand


def check_stripped(judge_bin, limit, work, tmpl, pool, rng):
    """The stripped runs judge as the whole ones, on random looks."""
    ps = Pools()
    s1, s95 = ps.get(pool, 1.0), ps.get(pool, 0.95)
    f1, f95 = ps.get(pool, 1.0, True), ps.get(pool, 0.95, True)
    for r in ps.runs[f95]:
        for p in r["phases"]:
            for d in p["devices"]:
                w = d["write"]
                w["bytes"] = int(w["bytes"] * 0.95)
                w["mean_bytes"] = w["bytes"] // w["ops"] if w["ops"] else 0
    j = Judge(judge_bin, limit, work, tmpl, ps.runs)
    for n in (5, 12, 20):
        a = [i for _, i in draw(rng, pool, 0, n)]
        b = [i for _, i in draw(rng, pool, 0, n)]
        got = j.look([(s1, i) for i in a], [(s95, i) for i in b])
        want = j.look([(f1, i) for i in a], [(f95, i) for i in b])
        if got != want:
            sys.exit("gate.py: stripped runs judge %s, whole ones %s" % (got, want))
    j.close()


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", default=os.path.join(top, "build/bench/gate_judge"))
    ap.add_argument("--trials", type=int, default=int(os.environ.get("TRIALS", 200)))
    ap.add_argument("--limit", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--only", default="", help="conditions: same,unequal,spread,driftB,driftAB")
    ap.add_argument("--md", action="store_true", help="a markdown table")
    ap.add_argument("--by-run", action="store_true",
                    help="draw runs, not boots (each run a boot of its own)")
    ap.add_argument("--per-boot", type=int, default=0, metavar="M",
                    help="M runs of each boot drawn (at random): a design "
                    "of M runs a boot")
    ap.add_argument("pools", nargs="+")
    a = ap.parse_args()
    global PER_BOOT
    PER_BOOT = a.per_boot
    pools = [load_pool(p, a.by_run) for p in a.pools]
    for name, _, boots, _ in pools:
        if sum(len(b) for b in boots) < 5 or len(boots) < 2:
            sys.exit("gate.py: %s: %d boots, too few for a pool" % (name, len(boots)))
    only = set(a.only.split(",")) if a.only else None
    grades = (0.0, a.limit / 100, 0.10)
    print("gate write.mean_bytes:-%g%%, -n auto (looks at %s runs a side, each at "
          "%g%%), %d trials a grade, seed %d" % (
              a.limit, ", ".join(map(str, LOOKS)), 100 * LEVEL, a.trials, a.seed))
    for name, _, boots, note in pools:
        print("pool %s: %d boots, %d runs, CV of a run in a boot %.1f%%%s" % (
            name, len(boots), sum(len(b) for b in boots), cv_within(boots), note))
    xname, tmpl, x, _ = pools[0]
    conds = []
    with tempfile.TemporaryDirectory(prefix="ubcreplay-gate.") as work:
        check_stripped(a.judge, a.limit, work, tmpl, x,
                       np.random.default_rng(np.random.SeedSequence(a.seed, spawn_key=(999,))))
        # The true change between two pools: the gate's estimate over all
        # of their runs (each boot weighs by its runs).
        cal = Judge(a.judge, a.limit, work, tmpl,
                    [[stripped(r, 1.0) for b in p[2] for r in b] for p in pools])
        est = {}
        for i, (yname, _, y, _) in enumerate(pools[1:], 1):
            ax = [(0, j) for j in range(sum(len(b) for b in x))]
            by = [(i, j) for j in range(sum(len(b) for b in y))]
            est[yname] = cal.look(ax, by, 0.95)[1]
        cal.close()
        ps = Pools()
        for yname, _, y, _ in pools:
            conds.append(("same", "same %s" % yname, lambda k, y=y: {
                "a": (y, ps.get(y, 1.0)), "b": (y, ps.get(y, k))}))
        conds.append(("unequal", "unequal n %s" % xname, lambda k: {
            "a": (x, ps.get(x, 1.0)), "b": (x, ps.get(x, k)), "fixed_a": True}))
        for yname, _, y, _ in pools[1:]:
            e = est[yname]
            conds.append(("spread", "spread %s/%s (B centred %+.1f%%)" % (
                xname, yname, 100 * (1 / e - 1)), lambda k, y=y, e=e: {
                    "a": (x, ps.get(x, 1.0)), "b": (y, ps.get(y, k / e))}))
            conds.append(("driftB", "drift B %s>%s (%+.1f%%)" % (
                xname, yname, 100 * (e - 1)), lambda k, y=y: {
                    "a": (x, ps.get(x, 1.0)), "b": (x, ps.get(x, k)),
                    "b2": (y, ps.get(y, k))}))
            conds.append(("driftAB", "drift AB %s>%s" % (xname, yname),
                          lambda k, y=y: {
                              "a": (x, ps.get(x, 1.0)), "a2": (y, ps.get(y, 1.0)),
                              "b": (x, ps.get(x, k)), "b2": (y, ps.get(y, k))}))
        conds = [c for c in conds if only is None or c[0] in only]
        plans = [[mk(1 - g) for g in grades] for _, _, mk in conds]
        judge = Judge(a.judge, a.limit, work, tmpl, ps.runs)
        if a.md:
            print("\n| condition | A/A: FAIL | at the limit: FAIL | at the limit: PASS "
                  "| -10%: FAIL | -10%: FAIL by 8 runs | -10%: runs a side "
                  "(median) | -10%: PASS |\n|---|---|---|---|---|---|---|---|")
        else:
            print("\n%-44s %-9s %-30s %-30s %s" % ("condition", "grade", "FAIL",
                                                   "PASS", "runs a side (median)"))
        for ci, ((_, label, _), plan) in enumerate(zip(conds, plans)):
            res = []
            for gi, cond in enumerate(plan):
                got = []
                for t in range(a.trials):
                    ra, rb = (np.random.default_rng(np.random.SeedSequence(
                        a.seed, spawn_key=(ci, gi, t, s))) for s in (0, 1))
                    got.append(trial(judge, ra, rb, cond))
                res.append(got)
                if not a.md:
                    n = len(got)
                    print("%-44s %-9s %-30s %-30s %g" % (
                        label[:44], "%g%%" % (-100 * grades[gi]),
                        rate(sum(o == "FAIL" for o, _ in got), n),
                        rate(sum(o == "PASS" for o, _ in got), n),
                        statistics.median(k for _, k in got)), flush=True)
            if a.md:
                n = a.trials
                aa, lim, ten = res
                print("| %s | %s | %s | %s | %s | %s | %g | %s |" % (
                    label, rate(sum(o == "FAIL" for o, _ in aa), n),
                    rate(sum(o == "FAIL" for o, _ in lim), n),
                    rate(sum(o == "PASS" for o, _ in lim), n),
                    rate(sum(o == "FAIL" for o, _ in ten), n),
                    rate(sum(o == "FAIL" and k <= 8 for o, k in ten), n),
                    statistics.median(k for _, k in ten),
                    rate(sum(o == "PASS" for o, _ in ten), n)), flush=True)
        judge.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
