#!/usr/bin/env python3
"""nfs_oracle.py - compare `ubcreplay nfs --calls` and its JSON result with
an independent oracle (TShark's reading of the same capture).

  nfs_oracle.py calls MINE.csv ORACLE.csv [--full | --truncated SNAP.csv]
  nfs_oracle.py summary MINE.json ORACLE.summary.json

calls --full: every call (or NFSv4 operation) of the oracle is reported,
with equal xid, operation, offset, requested count, stable, reply status,
reply count and bytes read, and nothing more is reported.
calls --truncated SNAP.csv: ORACLE.csv is the full-capture oracle; every
call reported agrees with it (joined on client port, xid and operation
index) where both know a field, and at least as many WRITE and READ calls are reported as SNAP.csv
(the oracle at that snaplen) has.
Exits 1 with the differences on stderr.
"""
import csv
import json
import sys

# Fields compared wherever the oracle has a value.
FIELDS = ["op", "offset", "count", "stable", "write_data_len", "reply_status",
          "reply_count", "reply_data_len", "reply_committed", "reply_eof"]
# Fields that must be empty in ours when the oracle's is (full captures).
CORE = ["offset", "count", "stable", "reply_status", "reply_count"]


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def key(r):
    return (r["client_port"], r["xid"].lower(), r["op_index"])


def index(rs, what):
    out = {}
    for r in rs:
        k = key(r)
        if k in out:
            sys.exit("%s: call %s reported twice" % (what, k))
        out[k] = r
    return out


def agree(mine, ref, strict):
    bad = []
    for f in FIELDS:
        if ref[f] not in ("", "None") and mine[f] != ref[f] and \
                (strict or mine[f] != ""):
            bad.append("%s ours %r oracle %r" % (f, mine[f], ref[f]))
        elif strict and f in CORE and ref[f] == "" and mine[f] != "":
            bad.append("%s ours %r oracle empty" % (f, mine[f]))
    return bad


def calls(argv):
    mine = index(rows(argv[0]), argv[0])
    oracle = index(rows(argv[1]), argv[1])
    errors = []
    if argv[2] == "--full":
        for k in sorted(set(oracle) - set(mine)):
            errors.append("missing %s %s" % (k, oracle[k]["op"]))
        for k in sorted(set(mine) - set(oracle)):
            errors.append("extra %s %s" % (k, mine[k]["op"]))
        for k in sorted(set(mine) & set(oracle)):
            for b in agree(mine[k], oracle[k], True):
                errors.append("%s: %s" % (k, b))
    else:
        snap = rows(argv[3])
        for k in sorted(mine):
            if k not in oracle:
                errors.append("reported %s %s, not in the full oracle" %
                              (k, mine[k]["op"]))
                continue
            for b in agree(mine[k], oracle[k], False):
                errors.append("%s: %s" % (k, b))
        for op in ("WRITE", "READ"):
            ours = sum(1 for r in mine.values() if r["op"] == op)
            theirs = sum(1 for r in snap if r["op"] == op)
            print("%s: %d recovered, oracle at this snaplen %d, full %d" %
                  (op, ours, theirs,
                   sum(1 for r in oracle.values() if r["op"] == op)))
            if ours < theirs:
                errors.append("%s: %d recovered, fewer than the oracle's %d"
                              % (op, ours, theirs))
    for e in errors[:40]:
        print(e, file=sys.stderr)
    print("%d calls compared, %d differences" % (len(mine), len(errors)))
    return 1 if errors else 0


def hist_from_oracle(h):
    return {int(k.split("-")[0]): v for k, v in h.items()}


def hist_from_ours(h):
    return {b["min_bytes"]: b["count"] for b in h["buckets"]}


def summary(argv):
    doc = json.load(open(argv[0]))
    ref = json.load(open(argv[1]))
    n = doc["runs"][0]["nfs"]
    ops = {}
    for v in n["ops"].values():
        for name, c in v.items():
            ops[name] = ops.get(name, 0) + c
    ours = {
        "nfs_calls": n["rpc_calls"],
        "replies_without_call": n["loss"]["replies_without_call"],
        "calls_without_reply": n["loss"]["calls_without_reply"],
        "READ_calls": n["read"]["calls"],
        "WRITE_calls": n["write"]["calls"],
        "COMMIT_calls": n["commit"]["calls"],
        "WRITE_count_unknown": n["write"]["size_unknown"],
        "WRITE_size_log2_hist": hist_from_ours(n["write"]["size_hist"]),
        "WRITE_bytes_requested": n["write"]["bytes_requested"],
        "WRITE_bytes_acked": n["write"]["bytes_done"],
        "WRITE_stable_hist": {str(i): n["stable"][s] for i, s in
                              enumerate(["unstable", "data_sync",
                                         "file_sync"]) if n["stable"][s]},
        "READ_bytes_requested": n["read"]["bytes_requested"],
        "READ_bytes_returned": n["read"]["bytes_done"],
        "versions": n["versions"],
        "ops": ops,
    }
    theirs = dict(ref)
    theirs["WRITE_size_log2_hist"] = hist_from_oracle(
        ref["WRITE_size_log2_hist"])
    errors = 0
    for k, v in ours.items():
        if theirs.get(k) != v:
            print("%s: ours %r oracle %r" % (k, v, theirs.get(k)),
                  file=sys.stderr)
            errors += 1
    print("%d summary keys compared, %d differences" % (len(ours), errors))
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "calls":
        sys.exit(calls(sys.argv[2:]))
    if len(sys.argv) == 4 and sys.argv[1] == "summary":
        sys.exit(summary(sys.argv[2:]))
    sys.exit(__doc__)
