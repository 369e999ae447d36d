#!/usr/bin/env python3
"""ffs_images.py - `make fuzz-ffs`: damaged FFS images into ubcreplay.

The NetBSD kernel that mounts an ffs:IMAGE target lives in a child process
of ubcreplay, because a damaged image may make it panic, and a panic aborts
its process. This feeds ubcreplay images of FFSv2 (made by makefs, with a
few files in them) with bytes changed where FFS keeps its metadata: the
superblock, the cylinder groups' headers and maps, the inodes. Each image
goes through a whole job of two runs. What is allowed:

  exit 0   the kernel coped
  exit 1   a run failed, and said why ("the NetBSD kernel panicked: ..."
           or the system call that failed); the job went on to its
           second run when the first panicked
  exit 2   refused before any run, naming the image; no result written

Anything else is a finding, kept under build/fuzz/ffs/: ubcreplay killed by
a signal (its own crash, or a sanitizer's report), a job that hangs, an
exit 2 that wrote a result, a process left behind.

    python3 fuzz/ffs_images.py [--seconds N] [--seed S] [--rump DIR] TOP
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import time

SBLOCK = 65536  # FFSv2's superblock


def base_image(work):
    src = os.path.join(work, "src")
    os.makedirs(os.path.join(src, "d"), exist_ok=True)
    for i in range(20):
        with open(os.path.join(src, "d" if i % 2 else "", "f%d" % i), "wb") as f:
            f.write(bytes([i]) * (1000 * i + 17))
    img = os.path.join(work, "base.img")
    subprocess.run(["makefs", "-t", "ffs", "-o",
                    "version=2,bsize=16384,fsize=2048", "-f", "2000",
                    "-s", "24m", img, src], check=True,
                   stdout=subprocess.DEVNULL)
    return img


def mutate(data, rng):
    """Some bytes changed where FFS's metadata is."""
    n = rng.choice([1, 1, 2, 4, 8, 32])
    size = len(data)
    for _ in range(n):
        where = rng.random()
        if where < 0.4:
            off = SBLOCK + rng.randrange(1376)  # the superblock's fields
        elif where < 0.8:
            # A cylinder group's header and maps: FFS puts the first at
            # the start of its group, after the boot area and superblock.
            off = rng.randrange(SBLOCK + 8192, min(size, 2 << 20))
        else:
            off = rng.randrange(size)
        if rng.random() < 0.5:
            data[off] ^= 1 << rng.randrange(8)
        else:
            data[off] = rng.choice([0, 0xff, rng.randrange(256)])


def leftovers(img):
    out = subprocess.run(["pgrep", "-f", "ubcreplay.*ffs:" + img],
                         stdout=subprocess.PIPE, text=True).stdout.split()
    for pid in out:
        subprocess.run(["kill", "-9", pid])
    return bool(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--rump", default=None)
    ap.add_argument("top")
    a = ap.parse_args()
    ubc = os.path.join(a.top, "ubcreplay")
    archive = os.path.join(a.top, "build/fixtures/small.tar.gz")
    work = os.path.join(a.top, "build/fuzz/ffs")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = random.Random(a.seed)
    base = bytearray(open(base_image(work), "rb").read())
    img = os.path.join(work, "img")
    res = os.path.join(work, "r.json")
    counts = {}
    findings = 0
    end = time.time() + a.seconds
    n = 0
    while time.time() < end:
        n += 1
        data = bytearray(base)
        mutate(data, rng)
        with open(img, "wb") as f:
            f.write(data)
        if os.path.exists(res):
            os.unlink(res)
        cmd = [ubc, "-q", "-n", "2", "-o", res, archive, "ffs:" + img]
        if a.rump:
            cmd[1:1] = ["--rump", a.rump]
        try:
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True,
                               timeout=120)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = "hang", ""
        if rc == 0:
            kind = "ok"
        elif rc == 1:
            kind = "panic" if "the NetBSD kernel panicked" in err else "failed"
            if kind == "panic" and not os.path.exists(res):
                kind = "panic-without-result"
        elif rc == 2 and not os.path.exists(res) and img in err:
            kind = "refused"
        else:
            kind = "finding"
        if leftovers(img):
            kind = "finding"
        counts[kind] = counts.get(kind, 0) + 1
        if kind in ("finding", "panic-without-result") or (
                kind == "panic" and counts[kind] == 1):
            keep = os.path.join(work, "%s-%d.img" % (kind, n))
            shutil.copy(img, keep)
            with open(keep + ".err", "w") as f:
                f.write("exit %s\n%s" % (rc, err))
            if kind != "panic":
                findings += 1
    print("ffs images: seed %d, %d jobs in %d s: %s" % (
        a.seed, n, a.seconds,
        ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    print("findings: %d (kept in %s)" % (findings, work))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
