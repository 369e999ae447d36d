#!/usr/bin/env python3
"""attrib_check.py - attribution (model/layout.h) held against what does not
share its code: the result's own totals, the trace of the same run, and the
filesystem's own tools (debugfs and dumpe2fs, xfs_db).

  attrib_check.py sums RESULT
      every attributed phase's classes add up, in requests and bytes, to
      the exact view's totals on the device it names
  attrib_check.py replay RESULT TRACE LAYOUT
      each phase's transfers, read from the trace and split by the layout
      that `ubcreplay layout` printed, give the result's classes exactly
  attrib_check.py sample TRACE LAYOUT BLOCKSIZE N SEED
      N blocks the run wrote, drawn at random, with the layout's class:
      "BLOCK CLASS" lines
  attrib_check.py debugfs IMAGE SAMPLE
  attrib_check.py xfsdb IMAGE SAMPLE BLOCKSIZE
      each sampled block classified by the filesystem's own tool; every
      disagreement printed, exit 1 when there is one
  attrib_check.py links IMAGE LAYOUT BLOCKSIZE PATH...
      each long symbolic link's target blocks, as debugfs finds them by
      the link's path in the image, are data in the layout; exit 1 when
      one is not, or when a path has no block of its own
  attrib_check.py writes STRACE IMAGE
      the pwrite64 calls strace -f -y saw on IMAGE, as "OFFSET LENGTH"
      lines: the kernel's, every process's but the first (ubcreplay,
      which made the copy before the kernel's child)
  attrib_check.py wsample WRITES LAYOUT BLOCKSIZE N SEED
      as sample, from such lines
  attrib_check.py agree SAMPLE MAP BLOCKSIZE
      each sampled block has the class another decoder's MAP gives it
      ("OFFSET LENGTH CLASS" lines; what they leave out is unknown)
"""
import bisect
import json
import os
import random
import re
import subprocess
import sys

CLASSES = ["data", "dir", "inode", "alloc", "map", "journal", "free",
           "unknown"]


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def load_layout(path):
    ext = []
    for line in open(path):
        if line.startswith("#"):
            continue
        off, length, cls = line.split()
        ext.append((int(off), int(length), cls))
    ext.sort()
    return ext


class Layout:
    def __init__(self, path):
        self.ext = load_layout(path)
        self.starts = [e[0] for e in self.ext]

    def split(self, off, length):
        """Bytes of [off, off+length) per class; uncovered is unknown."""
        by = dict.fromkeys(CLASSES, 0)
        end = off + length
        at = off
        i = max(bisect.bisect_right(self.starts, off) - 1, 0)
        while i < len(self.ext) and at < end:
            s, n, c = self.ext[i]
            if s + n <= at:
                i += 1
                continue
            if s >= end:
                break
            lo = max(s, at)
            hi = min(s + n, end)
            by["unknown"] += lo - at
            by[c] += hi - lo
            at = hi
            i += 1
        by["unknown"] += end - at
        return by

    def at(self, off):
        by = self.split(off, 1)
        return [c for c in CLASSES if by[c]][0]


def trace_phases(path):
    """The fs device's issued data requests of each phase, by label."""
    fsdev = None
    phases = {}
    cur = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("result "):
                break
            w = line.split()
            if not w:
                continue
            if w[0] == "device" and w[3] == "fs" and fsdev is None:
                fsdev = w[1]
            elif w[0] == "I" and w[2] == fsdev and int(w[6]) > 0:
                op = w[3].lstrip("F")[:1]
                if op in "RW":
                    cur.append(("read" if op == "R" else "write",
                                int(w[4]) * 512, int(w[6])))
            elif w[0] == "M":
                label = " ".join(w[3:])
                phases.setdefault(label, []).extend(cur)
                cur = []
    return phases


def attributed(doc):
    for run in doc["runs"]:
        for ph in run["phases"]:
            a = ph.get("attribution")
            if a is None or "error" in a:
                continue
            yield run, ph, a


def cmd_sums(path):
    doc = json.load(open(path))
    n = 0
    for run, ph, a in attributed(doc):
        dev = [d for d in ph["devices"] if d["device"] == a["device"]][0]
        for k in ("read", "write"):
            cls = a[k]["classes"]
            ops = sum(v["ops"] for v in cls.values())
            byt = sum(v["bytes"] for v in cls.values())
            if (ops, byt) != (dev[k]["ops"], dev[k]["bytes"]):
                fail("run %d %s %s: classes %d requests %d bytes, exact "
                     "view %d requests %d bytes" %
                     (run["run"], ph["phase"], k, ops, byt,
                      dev[k]["ops"], dev[k]["bytes"]))
        n += 1
    if n == 0:
        fail("%s: no attributed phase" % path)
    print("%d phases: the classes add up to the exact view" % n)


def cmd_replay(result, trace, layout):
    doc = json.load(open(result))
    lay = Layout(layout)
    phases = trace_phases(trace)
    n = 0
    for run, ph, a in attributed(doc):
        label = "run %d %s" % (run["run"], ph["phase"])
        want = {k: {c: [0, 0] for c in CLASSES} for k in ("read", "write")}
        for k, off, length in phases.get(label, []):
            by = lay.split(off, length)
            top = max(CLASSES, key=lambda c: (by[c], -CLASSES.index(c)))
            want[k][top][0] += 1
            for c in CLASSES:
                want[k][c][1] += by[c]
        for k in ("read", "write"):
            for c in CLASSES:
                got = a[k]["classes"][c]
                if [got["ops"], got["bytes"]] != want[k][c]:
                    fail("%s %s %s: result %d requests %d bytes, the "
                         "trace split by the layout %d requests %d bytes" %
                         (label, k, c, got["ops"], got["bytes"],
                          want[k][c][0], want[k][c][1]))
        n += 1
    print("%d phases: the trace split by the layout gives the result" % n)


def written(trace):
    """The writes of the runs' phases but the removal."""
    for label, xs in trace_phases(trace).items():
        if not label.startswith("run ") or label.endswith(" remove"):
            continue
        for k, off, length in xs:
            if k == "write":
                yield off, length


def read_writes(path):
    for line in open(path):
        off, length = line.split()
        yield int(off), int(length)


def cmd_sample(writes, layout, bs, n, seed):
    lay = Layout(layout)
    blocks = set()
    for off, length in writes:
        blocks.update(range(off // bs, (off + length - 1) // bs + 1))
    blocks = sorted(blocks)
    rng = random.Random(seed)
    pick = sorted(rng.sample(blocks, min(n, len(blocks))))
    print("# %d of %d written blocks, seed %d" % (len(pick), len(blocks),
                                                  seed))
    for b in pick:
        print(b, lay.at(b * bs))


def cmd_writes(strace, image):
    """PID pwrite64(FD</path>, "..."..., LEN, OFF) = DONE, on image."""
    pat = re.compile(
        r'^(\d+) +pwrite64\(\d+<([^>]*)>, .*, (\d+), (\d+)\) = (\d+)')
    image = os.path.realpath(image)
    first = None
    for line in open(strace):
        m = pat.search(line)
        if first is None and line.split()[:1]:
            first = line.split()[0]
        if (m and m.group(1) != first and m.group(2) == image and
                int(m.group(5)) > 0):
            print(m.group(4), m.group(5))


def cmd_agree(sample, mapfile, bs):
    other = []
    for line in open(mapfile):
        w = line.split()
        if len(w) == 3 and w[0].isdigit() and w[1].isdigit():
            other.append((int(w[0]), int(w[1]), w[2]))
    other.sort()
    starts = [e[0] for e in other]
    picks = read_sample(sample)
    bad = 0
    for b, cls in picks:
        i = bisect.bisect_right(starts, b * bs) - 1
        want = "unknown"
        if i >= 0 and other[i][0] + other[i][1] > b * bs:
            want = other[i][2]
        if cls != want:
            print("block %d: attribution says %s, the other decoder %s" %
                  (b, cls, want))
            bad += 1
    print("%d blocks: %d agree with %s" % (len(picks), len(picks) - bad,
                                          mapfile))
    sys.exit(1 if bad else 0)


def read_sample(path):
    out = []
    for line in open(path):
        if not line.startswith("#"):
            b, c = line.split()
            out.append((int(b), c))
    return out


def run(argv, stdin=None):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (argv[0], p.returncode, p.stderr))
    return p.stdout


def debugfs(image, cmds):
    return run(["debugfs", "-f", "-", image], stdin="\n".join(cmds) + "\n")


def range_list(text):
    """'0-12' or '5' blocks."""
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def ext_groups(image):
    """Blocks dumpe2fs names: (lo, hi, class) of each group's metadata."""
    out = run(["dumpe2fs", image])
    spans = []
    pats = [(r"(?:Primary|Backup) superblock at (\d+)", "alloc"),
            (r"Group descriptors at (\d+-\d+)", "alloc"),
            (r"Reserved GDT blocks at (\d+-\d+)", "alloc"),
            (r"Block bitmap at (\d+)", "alloc"),
            (r"Inode bitmap at (\d+)", "alloc"),
            (r"Inode table at (\d+-\d+)", "inode")]
    for pat, cls in pats:
        for m in re.finditer(pat, out):
            lo, hi = range_list(m.group(1))
            spans.append((lo, hi, cls))
    first = int(re.search(r"First inode:\s+(\d+)", out).group(1))
    journal = re.search(r"Journal inode:\s+(\d+)", out)
    return spans, first, int(journal.group(1)) if journal else 0


def cmd_debugfs(image, sample):
    picks = read_sample(sample)
    spans, first, journal = ext_groups(image)
    owner = {}
    out = debugfs(image, ["icheck " + " ".join(str(b) for b, _ in picks)])
    for line in out.splitlines():
        m = re.match(r"^(\d+)\s+(\d+)$", line.strip())
        if m:
            owner[int(m.group(1))] = int(m.group(2))
    # Each owner's type and its map's own blocks (ETB, IND, DIND, TIND).
    info = {}
    inos = sorted(set(owner.values()))
    out = debugfs(image, ["stat <%d>" % i for i in inos])
    for i, chunk in zip(inos, re.split(r"\nInode: ", "\n" + out)[1:]):
        typ = re.search(r"Type: (\w+)", chunk).group(1)
        meta = set()
        for m in re.finditer(r"\((?:ETB\d+|IND|DIND|TIND)\):(\d+)", chunk):
            meta.add(int(m.group(1)))
        info[i] = (typ, meta)
    unowned = [b for b, _ in picks if b not in owner]
    inuse = {}
    if unowned:
        out = debugfs(image, ["testb %d" % b for b in unowned])
        for m in re.finditer(r"Block (\d+) (marked in use|not in use)", out):
            inuse[int(m.group(1))] = m.group(2) == "marked in use"
    bad = links = 0
    for b, cls in picks:
        if b in owner:
            i = owner[b]
            typ, meta = info[i]
            if i == journal:
                want = "journal"
            elif i < first and i != 2:
                want = "alloc"
            elif b in meta:
                want = "map"
            else:
                want = "dir" if typ == "directory" else "data"
                links += typ == "symlink"
        elif not inuse.get(b, True):
            want = "free"
        else:
            want = next((c for lo, hi, c in spans if lo <= b <= hi),
                        "map or unknown")
        if cls != want and not (want == "map or unknown"
                                and cls in ("map", "unknown")):
            print("block %d: attribution says %s, debugfs %s" %
                  (b, cls, want))
            bad += 1
    print("%d blocks: %d agree with debugfs (%d a symbolic link's target)"
          % (len(picks), len(picks) - bad, links))
    sys.exit(1 if bad else 0)


def cmd_links(image, layout, bs, paths):
    lay = Layout(layout)
    out = debugfs(image, ["blocks /" + p.lstrip("/") for p in paths])
    # debugfs echoes each command before its answer.
    answers = re.split(r"^debugfs: blocks .*$", out, flags=re.M)[1:]
    bad = 0
    for p, ans in zip(paths, answers):
        blocks = [int(b) for b in ans.split() if b.isdigit()]
        wrong = [b for b in blocks if lay.split(b * bs, bs)["data"] != bs]
        if not blocks:
            print("%s: no block of its own in the image" % p)
        for b in wrong:
            print("%s: block %d is %s in the layout, debugfs says its target"
                  % (p, b, ", ".join("%s %d" % (c, n) for c, n in
                                      lay.split(b * bs, bs).items() if n)))
        bad += not blocks or bool(wrong)
    if len(answers) != len(paths):
        fail("debugfs answered %d of %d paths" % (len(answers), len(paths)))
    print("%d links: %d with every target block data" % (len(paths),
                                                        len(paths) - bad))
    sys.exit(1 if bad else 0)


XFS_CLASS = {
    "data": "data", "sym": "data", "rldata": "data", "cowdata": "data",
    "dir": "dir", "inode": "inode", "log": "journal",
    "sb": "alloc", "agf": "alloc", "agfl": "alloc", "agi": "alloc",
    "btbno": "alloc", "btcnt": "alloc", "btino": "alloc",
    "btfino": "alloc", "btrmap": "alloc", "btrefc": "alloc",
    "freelist": "alloc",
    "btbmapa": "map", "btbmapd": "map", "attr": "map",
    "free1": "free", "free2": "free",
}


def cmd_xfsdb(image, sample, bs):
    picks = read_sample(sample)
    args = ["xfs_db", "-r", "-c", "blockget -n"]
    for b, _ in picks:
        args += ["-c", "daddr %d" % (b * bs // 512), "-c", "blockuse"]
    out = run(args + [image])
    types = re.findall(r"^block \d+ \([\d/]+\) type (\w+)", out, re.M)
    if len(types) != len(picks):
        fail("xfs_db gave %d answers for %d blocks:\n%s" %
             (len(types), len(picks), out[:2000]))
    bad = 0
    for (b, cls), typ in zip(picks, types):
        want = XFS_CLASS.get(typ, "unknown")
        if cls != want:
            print("block %d: attribution says %s, xfs_db %s (%s)" %
                  (b, cls, want, typ))
            bad += 1
    print("%d blocks: %d agree with xfs_db" % (len(picks), len(picks) - bad))
    sys.exit(1 if bad else 0)


def main():
    a = sys.argv[1:]
    if a[:1] == ["sums"]:
        cmd_sums(a[1])
    elif a[:1] == ["replay"]:
        cmd_replay(a[1], a[2], a[3])
    elif a[:1] == ["sample"]:
        cmd_sample(written(a[1]), a[2], int(a[3]), int(a[4]), int(a[5]))
    elif a[:1] == ["wsample"]:
        cmd_sample(read_writes(a[1]), a[2], int(a[3]), int(a[4]),
                   int(a[5]))
    elif a[:1] == ["writes"]:
        cmd_writes(a[1], a[2])
    elif a[:1] == ["agree"]:
        cmd_agree(a[1], a[2], int(a[3]))
    elif a[:1] == ["debugfs"]:
        cmd_debugfs(a[1], a[2])
    elif a[:1] == ["links"]:
        cmd_links(a[1], a[2], int(a[3]), a[4:])
    elif a[:1] == ["xfsdb"]:
        cmd_xfsdb(a[1], a[2], int(a[3]))
    else:
        fail(__doc__)


main()
