#!/usr/bin/env python3
"""nfs_ack.py - checks that `ubcreplay nfs` follows what the server
acknowledged, against TShark's reading of the same NFSv3 capture.

  nfs_ack.py MINE.json CAPTURE.pdml [WRITTEN READ]

CAPTURE.pdml is `tshark -T pdml` of the capture. From it alone this script
works out, per file handle and in call order, the figures the result must
hold: WRITE and READ calls, bytes asked for and acknowledged (returned),
short replies, how many calls began where the previous call on the file
ended as its reply said (or as it asked, when it has no reply), and the
bytes written between COMMITs (acknowledged when the WRITE's reply came
before the COMMIT, else asked for). It also works the same figures out from
the requests alone and insists that they differ, so that the capture shows
what it is meant to. Prints both; exits 1 with the differences on stderr.

WRITTEN and READ, for a capture recorded now, are what the client is known
to have moved (the files' sizes on the export; the bytes it read back and
checked): the bytes acknowledged and returned that ubcreplay counts must
equal them. They also judge the oracle: where TShark's own sums differ from
them, TShark misread the capture (a segment it did not reassemble), that is
said, and its figures are not compared.
"""
import json
import sys
import xml.etree.ElementTree as ET

WRITE, READ, COMMIT = 7, 6, 21


def messages(path):
    """Yields (frame, fields) per RPC message, in capture order."""
    for _, pkt in ET.iterparse(path):
        if pkt.tag != "packet":
            continue
        frame = None
        msg = None
        for proto in pkt.findall("proto"):
            name = proto.get("name")
            if name == "frame":
                for f in proto.iter("field"):
                    if f.get("name") == "frame.number":
                        frame = int(f.get("show"))
            elif name == "rpc":
                if msg is not None:
                    yield frame, msg
                msg = {}
                for f in proto.iter("field"):
                    n = f.get("name")
                    if n in ("rpc.xid", "rpc.msgtyp") and n not in msg:
                        msg[n] = f.get("show")
            elif name == "nfs" and msg is not None:
                for f in proto.iter("field"):
                    n = f.get("name")
                    if n not in msg:
                        msg[n] = f.get("show")
        if msg is not None:
            yield frame, msg
        pkt.clear()


def load(path):
    """Calls of READ, WRITE, COMMIT in call order, each with its reply."""
    calls, byxid = [], {}
    for frame, m in messages(path):
        if "nfs.procedure_v3" not in m or "rpc.xid" not in m:
            continue
        proc = int(m["nfs.procedure_v3"])
        if proc not in (WRITE, READ, COMMIT):
            continue
        xid = m["rpc.xid"]
        if m["rpc.msgtyp"] == "0":
            if xid in byxid:
                continue  # a retransmission: the first call stands
            c = {"frame": frame, "proc": proc, "fh": m.get("nfs.fh.hash"),
                 "offset": int(m.get("nfs.offset3", "0"), 0),
                 "count": int(m.get("nfs.count3", "0"), 0),
                 "reply": None}
            byxid[xid] = c
            calls.append(c)
        elif xid in byxid and byxid[xid]["reply"] is None:
            st = int(m.get("nfs.status", "0"), 0)
            done = int(m["nfs.count3"], 0) if "nfs.count3" in m else None
            byxid[xid]["reply"] = {"frame": frame, "status": st,
                                   "done": done if st == 0 else 0}
    return calls


def bucket_min(v):
    return 0 if v == 0 else 1 << (v.bit_length() - 1)


def figures(calls, by_reply):
    """The result's figures; by_reply 0 works them out from requests."""
    out = {}
    for name, proc in (("write", WRITE), ("read", READ)):
        mine = [c for c in calls if c["proc"] == proc]
        x = {"calls": len(mine),
             "bytes_requested": sum(c["count"] for c in mine),
             "bytes_done": sum(c["reply"]["done"] or 0 for c in mine
                               if c["reply"] and c["reply"]["status"] == 0),
             "short_replies": sum(1 for c in mine if c["reply"] and
                                  c["reply"]["status"] == 0 and
                                  c["reply"]["done"] is not None and
                                  c["reply"]["done"] < c["count"]),
             "sequential": 0, "followed": 0,
             "judged_by_reply": 0, "judged_by_request": 0}
        last = {}
        for c in mine:
            p = last.get(c["fh"])
            if p is not None:
                r = p["reply"]
                known = by_reply and r is not None and r["done"] is not None
                end = p["offset"] + (r["done"] if known else p["count"])
                x["followed"] += 1
                x["sequential"] += c["offset"] == end
                x["judged_by_reply" if known else "judged_by_request"] += 1
            last[c["fh"]] = c
        out[name] = x
    since, between = {}, []
    n_reply = n_request = 0
    for c in calls:
        if c["proc"] == WRITE:
            since.setdefault(c["fh"], []).append(c)
            continue
        if c["proc"] != COMMIT:
            continue
        total = 0
        for w in since.pop(c["fh"], []):
            r = w["reply"]
            if by_reply and r is not None and r["done"] is not None and \
                    r["frame"] < c["frame"]:
                total += r["done"]
                n_reply += 1
            else:
                total += w["count"]
                n_request += 1
        between.append(total)
    hist = {}
    for v in between:
        hist[bucket_min(v)] = hist.get(bucket_min(v), 0) + 1
    out["commit"] = {"calls": len(between), "bytes_between": sum(between),
                     "bytes_between_hist": sorted(hist.items()),
                     "writes_by_reply": n_reply,
                     "writes_by_request": n_request}
    return out


def ours(nfs):
    out = {}
    for name in ("write", "read"):
        out[name] = {k: nfs[name][k] for k in
                     ("calls", "bytes_requested", "bytes_done",
                      "short_replies", "sequential", "followed",
                      "judged_by_reply", "judged_by_request")}
    c = nfs["commit"]
    out["commit"] = {
        "calls": c["calls"], "bytes_between": c["bytes_between"],
        "bytes_between_hist": sorted((b["min_bytes"], b["count"])
                                     for b in c["bytes_between_hist"]
                                     ["buckets"]),
        "writes_by_reply": c["writes_by_reply"],
        "writes_by_request": c["writes_by_request"]}
    return out


def against_known(got, want, known, bad):
    """Checks ubcreplay's acknowledged and returned bytes against what the
    client moved; True when TShark's sums agree with it too."""
    whole = True
    for part, n in zip(("write", "read"), known):
        print("%s.bytes_done: ubcreplay %d tshark %d, the client moved %d" %
              (part, got[part]["bytes_done"], want[part]["bytes_done"], n))
        if got[part]["bytes_done"] != n:
            bad.append("%s.bytes_done: ubcreplay %d, but the client moved %d"
                       % (part, got[part]["bytes_done"], n))
        whole = whole and want[part]["bytes_done"] == n
    if not whole:
        print("tshark misread this capture (its sums are not what the "
              "client moved): its figures are not compared")
    return whole


def against_tshark(got, want, naive, bad):
    """Checks every figure of ubcreplay's against TShark's reading, and
    that the capture shows what it is kept for."""
    for part in ("write", "read", "commit"):
        for k in want[part]:
            print("%s.%s: ubcreplay %s tshark %s (by request alone %s)" %
                  (part, k, got[part][k], want[part][k], naive[part][k]))
            if got[part][k] != want[part][k]:
                bad.append("%s.%s: ubcreplay %r, tshark %r" %
                           (part, k, got[part][k], want[part][k]))
    w, n = want["write"], naive["write"]
    if w["short_replies"] == 0 or w["bytes_done"] >= w["bytes_requested"]:
        bad.append("no WRITE was acknowledged short")
    if w["sequential"] == n["sequential"] or \
            want["commit"]["bytes_between"] == naive["commit"]["bytes_between"]:
        bad.append("acknowledged and requested bytes tell the same story")


def main(argv):
    nfs = json.load(open(argv[0]))["runs"][0]["nfs"]
    calls = load(argv[1])
    want, naive, got = figures(calls, 1), figures(calls, 0), ours(nfs)
    bad = ["the capture is not whole: loss %s = %d" % (k, v)
           for k, v in nfs["loss"].items() if v and k in
           ("pcap_drops", "truncated", "malformed", "calls_without_reply",
            "replies_without_call", "bytes_skipped", "resyncs")]
    known = [int(a) for a in argv[2:4]]
    if known and not against_known(got, want, known, bad):
        if got["write"]["short_replies"] == 0:
            bad.append("ubcreplay saw no WRITE acknowledged short")
    else:
        against_tshark(got, want, naive, bad)
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
