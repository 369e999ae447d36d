#!/usr/bin/env python3
"""nfs_readplus.py - tests/nfs_readplus_test.sh's oracle: TShark's reading
of an NFSv4.2 capture's READ and READ_PLUS calls against ubcreplay's.

	nfs_readplus.py FIELDS CALLS.CSV RESULT.JSON

FIELDS is `tshark -T fields` output with, per NFS message, frame, xid,
message type, opcodes, offset4, count4, Read length and Content Type (all
occurrences). Per call (by xid) the offset, the count asked and the bytes
returned must equal ubcreplay's --calls lines, and the sums its result's
read object. The bytes a READ_PLUS returned are its data segments' lengths;
a capture with hole segments is refused, since this oracle does not count
them.
"""
import csv
import json
import sys

READ, READ_PLUS = "25", "68"


def tshark_reads(path):
    calls, replies = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            col = line.rstrip("\n").split("\t")
            col += [""] * (8 - len(col))
            _, xid, msgtyp, ops, offs, counts, lens, types = col[:8]
            ops = ops.split(",") if ops else []
            if READ not in ops and READ_PLUS not in ops:
                continue
            if ops.count(READ) + ops.count(READ_PLUS) != 1:
                sys.exit(f"xid {xid}: more than one read in a COMPOUND")
            if msgtyp == "0":
                if len(counts.split(",")) != 1 or len(offs.split(",")) != 1:
                    sys.exit(f"xid {xid}: not one offset and count")
                calls[xid] = (int(offs), int(counts))
            else:
                if "1" in types.split(","):
                    sys.exit(f"xid {xid}: a hole segment, not counted here")
                replies[xid] = sum(int(n) for n in lens.split(",") if n)
    return calls, replies


def main():
    calls, replies = tshark_reads(sys.argv[1])
    mine = {}
    with open(sys.argv[2], encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["op"] in ("READ", "READ_PLUS"):
                mine[r["xid"]] = (int(r["offset"]), int(r["count"]),
                                  int(r["reply_data_len"] or -1))
    if not calls:
        sys.exit("tshark found no READ or READ_PLUS call")
    bad = 0
    for xid, (off, count) in sorted(calls.items()):
        want = (off, count, replies.get(xid, -1))
        got = mine.get(xid)
        print(f"{xid} tshark {want} ubcreplay {got}")
        bad += got != want
    extra = set(mine) - set(calls)
    if extra:
        print(f"calls ubcreplay has and tshark not: {sorted(extra)}")
        bad += 1
    with open(sys.argv[3], encoding="utf-8") as f:
        rd = json.load(f)["runs"][0]["nfs"]["read"]
    sums = {"calls": len(calls),
            "bytes_requested": sum(c for _, c in calls.values()),
            "bytes_done": sum(replies.values())}
    for k, v in sums.items():
        print(f"{k}: tshark {v} ubcreplay {rd[k]}")
        bad += rd[k] != v
    sys.exit(1 if bad else 0)


main()
