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
correlation). Exit 1 when a group has fewer than two boots.
"""
import argparse
import json
import math
import os
import statistics
import sys


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
    print("%-44s %5s %5s %12s %9s %9s %6s" % (
        "cell", "boots", "runs", "mean", "CV run", "CV boot", "ICC"))
    for label, g in groups.items():
        if len(g) < 2:
            print("%s: %d boot: the spread between boots needs two" % (label, len(g)),
                  file=sys.stderr)
            bad = 1
            continue
        r = statistics.mean(len(v) for v in g)
        means = [statistics.mean(v) for v in g]
        grand = statistics.mean(means)
        within = statistics.mean(statistics.variance(v) for v in g if len(v) > 1)
        between = max(0.0, statistics.variance(means) - within / r)
        icc = between / (between + within) if between + within > 0 else 0.0
        print("%-44s %5d %5d %12.1f %8.1f%% %8.1f%% %6.2f" % (
            label[:44], len(g), sum(len(v) for v in g), grand,
            100 * math.sqrt(within) / grand, 100 * math.sqrt(between) / grand, icc))
    return bad


if __name__ == "__main__":
    sys.exit(main())
