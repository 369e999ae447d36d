#!/usr/bin/python3
# hl_interval.py A.json B.json LEVEL...: the change of write.mean_bytes
# from A's runs to B's (the runs of every boot, the device's bytes over its
# requests, as compare reduces them), as its interval by the definition
# docs/compare.md gives, independent of the C code: every pairwise log
# ratio, and the rank-sum test's null distribution counted by enumerating
# which ranks fall to A. Prints a line "LOW HIGH" in percent per level.
import itertools
import json
import math
import sys


def runs(path):
    doc = json.load(open(path))
    out = []
    for boot in [doc] + doc.get("boots", []):
        for r in boot["runs"]:
            w = [x["write"] for p in r["phases"] for x in p["devices"]]
            out.append(sum(x["bytes"] for x in w) // sum(x["ops"] for x in w))
    return out


a, b = runs(sys.argv[1]), runs(sys.argv[2])
na, nb = len(a), len(b)
d = sorted(math.log(y) - math.log(x) for x in a for y in b)
m = len(d)
cnt = [0] * (m + 1)
for c in itertools.combinations(range(na + nb), na):
    cnt[sum(c) - na * (na - 1) // 2] += 1
for level in (float(x) for x in sys.argv[3:]):
    k, below = 0, 0
    while k < m // 2 and (below + cnt[k]) / sum(cnt) <= (1 - level) / 2:
        below += cnt[k]
        k += 1
    if k == 0:
        sys.exit("no interval at %g from %d runs against %d" % (level, na, nb))
    print("%r %r" % tuple((math.exp(d[i]) - 1) * 100 for i in (k - 1, m - k)))
