#!/usr/bin/python3
"""replication.py - where a cell's run-to-run spread lives: between the runs
of one boot, or between boots (Kalibera and Jones, "Rigorous benchmarking in
reasonable time", ISMM 2013: measure the variance at each level, repeat at
the level that carries it).

    bench/replication.py [-m METRIC] RESULT...

Each RESULT is one boot of a cell (a `ubcreplay vm` result), or a result
holding further boots of it ("boots", from -n MIN..MAX). Results are grouped
by label and archive. For each group and the metric (write.mean_bytes: the device's
bytes over its requests, per run), it prints the boots and runs, the grand
mean, the coefficient of variation of a single run within a boot and of a
boot's mean between boots (the variance components of a one-way random
effects model), and the share of the variance between boots (intra-class
correlation) with its 95% confidence interval: the F-test's (Searle,
"Linear models", 1971: exact for boots of equal runs, an approximation with
n0, the runs a boot weighted, when they differ), from scipy's F
distribution. Exit 1 when a group has fewer than two boots.
"""
import argparse
import json
import math
import os
import statistics
import sys

from scipy.stats import f as fdist


def metric(run, name):
    """A run's value of name, as ubcreplay compare reduces it."""
    if name == "elapsed":
        return sum(p["elapsed_ns"] for p in run["phases"] if p["phase"] != "remove")
    way, what = name.split(".")
    ops = sum(d[way]["ops"] for p in run["phases"] for d in p["devices"])
    nbytes = sum(d[way]["bytes"] for p in run["phases"] for d in p["devices"])
    return {"ops": ops, "bytes": nbytes,
            "mean_bytes": nbytes // ops if ops else 0}[what]


def boots(doc):
    yield doc
    yield from doc.get("boots", [])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-m", "--metric", default="write.mean_bytes")
    ap.add_argument("results", nargs="+")
    a = ap.parse_args()
    groups = {}
    for path in a.results:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for b in boots(doc):
            vals = [metric(r, a.metric) for r in b["runs"] if r["status"] == "ok"]
            if vals:
                arch = os.path.basename(doc.get("workload", {}).get("archive", ""))
                key = "%s, %s" % (doc.get("label", path), arch)
                groups.setdefault(key, []).append(vals)
    bad = 0
    print("%-44s %5s %5s %12s %9s %9s %6s %9s" % (
        "cell", "boots", "runs", "mean", "CV run", "CV boot", "ICC", "95% CI"))
    for label, g in groups.items():
        if len(g) < 2:
            print("%s: %d boot: the spread between boots needs two" % (label, len(g)),
                  file=sys.stderr)
            bad = 1
            continue
        k, n = len(g), sum(len(v) for v in g)
        n0 = (n - sum(len(v) ** 2 for v in g) / n) / (k - 1)
        means = [statistics.mean(v) for v in g]
        grand = statistics.mean(x for v in g for x in v)
        msb = sum(len(v) * (m - grand) ** 2 for v, m in zip(g, means)) / (k - 1)
        ssw = sum((x - m) ** 2 for v, m in zip(g, means) for x in v)
        msw = ssw / (n - k) if n > k else 0.0
        within = msw
        between = max(0.0, (msb - msw) / n0)
        icc = between / (between + within) if between + within > 0 else 0.0
        ci = "%4s-%-4s" % ("", "")
        if msw > 0 and n > k:
            fobs = msb / msw
            fl = fobs / fdist.ppf(0.975, k - 1, n - k)
            fu = fobs * fdist.ppf(0.975, n - k, k - 1)
            lo = min(1.0, max(0.0, (fl - 1) / (fl + n0 - 1)))
            hi = min(1.0, max(0.0, (fu - 1) / (fu + n0 - 1)))
            ci = "%.2f-%.2f" % (lo, hi)
        print("%-44s %5d %5d %12.1f %8.1f%% %8.1f%% %6.2f %9s" % (
            label[:44], k, n, grand,
            100 * math.sqrt(within) / grand, 100 * math.sqrt(between) / grand, icc,
            ci))
    return bad


if __name__ == "__main__":
    sys.exit(main())
