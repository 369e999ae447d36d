#!/usr/bin/python3
"""gate.py - the gate's error rates on real run-to-run noise: trials of
`ubcreplay vm -n auto`'s rule (docs/compare.md, "Runs until decided"),
each judged by `ubcreplay compare` itself.

    bench/gate.py [--ubc BIN] [--trials N] [--limit PCT] POOL...

A POOL is a result, or results joined by commas (the boots of one cell),
whose successful runs are the noise of one cell, measured for real: a
host's loop ext4, a guest's disk. A trial
draws A's runs and B's runs from the pool (with replacement), B's written
bytes scaled by 1 - grade so that B's mean write is grade lower, and
judges --fail-if write.mean_bytes:-PCT% at each look of -n auto (5, 8, 12,
18, 20 runs a side, each at the 99% level) until it is decided. The grades:
0 (A/A: a kernel against itself), the limit itself, 10% and 25%.

Per pool (with its runs and their coefficient of variation of the mean
write) and grade it prints FAIL, UNDECIDED and PASS counts and the median
runs a side a trial used. A false alarm is a FAIL at grade 0; a miss is a
PASS at a grade beyond the limit. The shift is applied to real runs, so the
noise is real; that the patch moves every run alike is the model.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

LOOKS = (5, 8, 12, 18, 20)


def pool_runs(paths):
    runs = []
    for path in paths.split(","):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for b in [doc] + doc.get("boots", []):
            runs += [r for r in b["runs"] if r["status"] == "ok"]
    doc.pop("boots", None)
    return doc, runs


def mean_write(run):
    ops = sum(d["write"]["ops"] for p in run["phases"] for d in p["devices"])
    nbytes = sum(d["write"]["bytes"] for p in run["phases"] for d in p["devices"])
    return nbytes / ops if ops else 0


def scaled(run, k):
    run = json.loads(json.dumps(run))
    for p in run["phases"]:
        for d in p["devices"]:
            w = d["write"]
            w["bytes"] = int(w["bytes"] * k)
            w["mean_bytes"] = w["bytes"] // w["ops"] if w["ops"] else 0
    return run


def judge(ubc, work, doc, a, b, limit):
    for name, runs in (("a", a), ("b", b)):
        doc["runs"] = runs
        with open(os.path.join(work, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(doc, f)
    out = os.path.join(work, "c.json")
    subprocess.run([ubc, "compare", "--alpha", str(0.05 / len(LOOKS)),
                    "--json", out, "--fail-if", "write.mean_bytes:-%g%%" % limit,
                    os.path.join(work, "a.json"), os.path.join(work, "b.json")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    with open(out, encoding="utf-8") as f:
        return json.load(f)["gates"][0]["outcome"]


def trial(ubc, work, doc, runs, grade, limit, rng):
    a, b = [], []
    for n in LOOKS:
        while len(a) < n:
            a.append(rng.choice(runs))
            b.append(scaled(rng.choice(runs), 1 - grade))
        outcome = judge(ubc, work, doc, a, b, limit)
        if outcome != "UNDECIDED":
            break
    return outcome, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ubc", default="ubcreplay")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--limit", type=float, default=5.0)
    ap.add_argument("pools", nargs="+")
    a = ap.parse_args()
    grades = (0.0, a.limit / 100, 0.10, 0.25)
    print("gate write.mean_bytes:-%g%%, -n auto (looks at %s runs a side), %d "
          "trials a grade" % (a.limit, ", ".join(map(str, LOOKS)), a.trials))
    print("%-44s %6s %5s %9s %5s %11s" % ("pool (runs, CV)", "grade", "FAIL",
                                          "UNDECIDED", "PASS", "runs a side"))
    with tempfile.TemporaryDirectory(prefix="ubcreplay-gate.") as work:
        for path in a.pools:
            doc, runs = pool_runs(path)
            if len(runs) < 5:
                print("%s: %d runs, too few for a pool" % (path, len(runs)),
                      file=sys.stderr)
                return 1
            mean = [mean_write(r) for r in runs]
            name = "%s (%d, CV %.1f%%)" % (
                doc.get("label", path), len(runs),
                100 * statistics.stdev(mean) / statistics.mean(mean))
            for g in grades:
                rng = random.Random(1000 * g + len(runs))
                got = [trial(a.ubc, work, doc, runs, g, a.limit, rng)
                       for _ in range(a.trials)]
                count = {o: sum(1 for x, _ in got if x == o)
                         for o in ("FAIL", "UNDECIDED", "PASS")}
                print("%-44s %5.0f%% %5d %9d %5d %11g" % (
                    name[:44], 100 * g, count["FAIL"], count["UNDECIDED"],
                    count["PASS"], statistics.median(n for _, n in got)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
