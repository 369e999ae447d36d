#!/usr/bin/env python3
"""mkwtrace.py - hostile workload traces for tests/record_test.sh, written
independently of model/wtrace.c from docs/workload-trace.md: each is one
thing a trace must not be able to do, as a real trace would carry it.

    mkwtrace.py DIR     writes DIR/NAME.trace for each case below
"""
import os
import sys

OPS = {"end": 0, "open": 1, "close": 2, "read": 3, "write": 4, "fsync": 5,
       "rename": 11, "link": 12, "symlink": 13, "unlink": 14, "mkdir": 15}
O_WRITE, O_CREAT = 0x002, 0x004


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def zigzag(v):
    return (v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1


def rec(op, h=0, h2=0, flags=0, off=0, off2=0, asked=0, done=0, path=b"",
        path2=b"", thread=0, dt=0):
    out = bytes([OPS[op]]) + varint(thread) + varint(dt)
    for v in (h, h2, flags, off, off2, asked):
        out += varint(v)
    out += varint(zigzag(done))
    for p in (path, path2):
        out += varint(len(p)) + p
    return out


def trace(recs, end=True, version=1):
    body = b"".join(recs)
    if end:
        body += rec("end", asked=len(recs))
    return b"ubcwtrc\n" + varint(version) + body


def create(path, size):
    return [rec("open", h=1, flags=O_WRITE | O_CREAT, path=path),
            rec("write", h=1, asked=size, done=size), rec("close", h=1)]


CASES = {
    # name: (bytes, what the error must say)
    "dotdot": (trace(create(b"a/../../escaped", 10)), "'..'"),
    "absolute": (trace(create(b"/tmp/escaped", 10)), "absolute"),
    "dotdot_rename": (trace(create(b"a", 10) + [
        rec("rename", path=b"a", path2=b"../escaped")]), "'..'"),
    "symlink_out": (trace([rec("symlink", path=b"s", path2=b"../../outside")]
                          + create(b"s/x", 10)), "points outside"),
    "symlink_abs": (trace([rec("symlink", path=b"s", path2=b"/etc")]),
                    "points outside"),
    "giant_write": (trace([rec("open", h=1, flags=O_WRITE | O_CREAT,
                               path=b"big"),
                           rec("write", h=1, asked=1 << 40, done=1 << 40)]),
                    "larger than"),
    "giant_offset": (trace([rec("open", h=1, flags=O_WRITE | O_CREAT,
                                path=b"big"),
                            rec("write", h=1, off=1 << 50, asked=1, done=1)]),
                     "offset"),
    "truncated": (trace(create(b"a", 10))[:-7], "truncated"),
    "no_end": (trace(create(b"a", 10), end=False), "no end record"),
    "bad_handle": (trace([rec("write", h=7, asked=1, done=1)]),
                   "never opened"),
    "version": (trace(create(b"a", 10), version=99), "version 99"),
    "long_path": (trace(create(b"a" * 5000, 10)), "longer"),
    # Threads are numbered from 0 in order of first appearance: a replay
    # starts a thread for each, so a number out of that order is refused.
    "thread_skipped": (trace([rec("mkdir", path=b"a"),
                              rec("mkdir", path=b"b", thread=2)]),
                       "thread numbered out of order"),
    "thread_huge": (trace([rec("mkdir", path=b"a", thread=1 << 40)]),
                    "thread number too large"),
}

if __name__ == "__main__":
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    for name, (data, _) in CASES.items():
        with open(os.path.join(d, name + ".trace"), "wb") as f:
            f.write(data)
    with open(os.path.join(d, "EXPECT"), "w") as f:
        for name, (_, want) in CASES.items():
            f.write("%s\t%s\n" % (name, want))
