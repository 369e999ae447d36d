#!/usr/bin/python3
# summary_check.py - checks a ubcreplay result's summary against its runs,
# computed here from the runs the result holds (docs/json.md): for every
# phase its times, for every device its counts summed over a run's phases,
# as median (the lower middle), min and max over the runs that were ok, and
# the size histograms merged over them. Used by manyruns_test.sh.
#
#   summary_check.py RESULT.json
#
# Prints what differs; exits 1 when anything does.
import json
import sys


def spread(v):
    s = sorted(v)
    return {"median": s[(len(s) - 1) // 2], "min": s[0], "max": s[-1]}


def main():
    d = json.load(open(sys.argv[1]))
    ok = [r for r in d["runs"] if r["status"] == "ok"]
    s = d["summary"]
    bad = []
    if s["runs_ok"] != len(ok):
        bad.append("runs_ok %d, not %d" % (s["runs_ok"], len(ok)))
    for i, ph in enumerate(ok[0]["phases"] if ok else []):
        for k in ("elapsed_ns", "user_ns", "sys_ns"):
            want = spread([r["phases"][i][k] for r in ok])
            if s["phases"][ph["phase"]][k] != want:
                bad.append("phase %s %s" % (ph["phase"], k))
    for di, name in enumerate(s["devices"]):
        dev = s["devices"][name]

        def total(r, get):
            return sum(get(p["devices"][di]) for p in r["phases"])

        for dr in ("read", "write"):
            ops = [total(r, lambda x: x[dr]["ops"]) for r in ok]
            byt = [total(r, lambda x: x[dr]["bytes"]) for r in ok]
            mean = [b // o if o else 0 for b, o in zip(byt, ops)]
            for k, v in (("ops", ops), ("bytes", byt), ("mean_bytes", mean)):
                if dev[dr][k] != spread(v):
                    bad.append("%s %s %s" % (name, dr, k))
            hist = {}
            for r in ok:
                for p in r["phases"]:
                    for b in p["devices"][di][dr]["size_hist"]["buckets"]:
                        hist[b["min_bytes"]] = hist.get(b["min_bytes"], 0) + b["count"]
            got = {b["min_bytes"]: b["count"] for b in dev["size_hist"][dr]["buckets"]}
            if got != hist:
                bad.append("%s %s size_hist" % (name, dr))
        if dev["flushes"] != spread([total(r, lambda x: x["flushes"]) for r in ok]):
            bad.append("%s flushes" % name)
        if "bios" in dev["write"]:
            for where, k in (("write", "bios"), ("write", "seq_ops")):
                want = spread([total(r, lambda x: x[where][k]) for r in ok])
                if dev[where][k] != want:
                    bad.append("%s %s %s" % (name, where, k))
            for k in ("empty_preflush", "lost_events"):
                if dev[k] != spread([total(r, lambda x: x[k]) for r in ok]):
                    bad.append("%s %s" % (name, k))
    for b in bad:
        print("summary differs from the runs: " + b)
    print("summary of %d runs checked" % len(ok))
    return 1 if bad else 0


sys.exit(main())
