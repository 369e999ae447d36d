#!/usr/bin/env python3
"""ffs_images.py - `make fuzz-ffs`: damaged FFS images into ubcreplay.

The NetBSD kernel that mounts an ffs:IMAGE target lives in a child process
of ubcreplay, because a damaged image may make it panic or crash. This
feeds ubcreplay images of FFSv2 with bytes changed in one region of FFS's
metadata, found from the image itself:

  superblock  the real one, found by its magic where FFS looks for it
              (0, 8 KiB, 64 KiB, 256 KiB: Debian's makefs puts FFSv2's at
              8 KiB, NetBSD's newfs at 64 KiB); its 1,376 bytes
  cg0         cylinder group 0's block (header, maps, cluster summary)
  cg          another cylinder group's block
  inodes      the inodes in use in cylinder group 0 (the root, the files)
  journal     the WAPBL journal's first blocks (its header, and the
              records the kernel reads to replay it); these jobs mount
              with -O log
  any         anywhere in the image

The base image is made by makefs (FFSv2, 16 KiB blocks, 32 cylinder groups
of 1 MiB) with files in it, then mounted once by ubcreplay with -O log and
--keep, so that it holds an extracted tree and a journal. Each job extracts
a small archive of 40 files (two of them into an indirect block). Each image goes
through a whole job of -n runs (3 by default). What is allowed:

  exit 0   the kernel coped
  exit 1   a run failed and said why; every run a kernel's death ended
           names the panic, the signal or the memory limit, and the job
           went on to the next run; a result was written
  exit 2   refused before any run, naming the image; no result written

Anything else is a finding, kept under build/fuzz/ffs/: ubcreplay killed by
a signal (its own crash, or a sanitizer's report), a job that hangs, an
exit 2 that wrote a result, a death not named, a process or an image copy
left behind.

    python3 fuzz/ffs_images.py [--seconds N | --count N] [--seed S]
        [--region R] [--runs N] [--rump DIR] TOP

It prints one line per region: jobs, seconds a job, and what became of
them.
"""
import argparse
import glob
import io
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time

FS_UFS2_MAGIC = 0x19540119
FS_UFS1_MAGIC = 0x011954
SBLOCKSEARCH = (0, 8192, 65536, 262144)
SBLOCKSIZE = 1376  # struct fs, up to fs_magic
# How a run that a kernel's death ended says so.
NAMED = ("the NetBSD kernel panicked", "killed by signal",
         "ran out of memory", "exited with status")
REGIONS = ("superblock", "cg0", "cg", "inodes", "journal", "any")

# struct fs (sys/ufs/ffs/fs.h): byte offsets of what the fuzzer reads.
OFF = {"cblkno": 12, "iblkno": 16, "dblkno": 20, "ncg": 44, "bsize": 48,
       "fsize": 52, "cgsize": 160, "ipg": 184, "fpg": 188,
       "journal_location": 865, "journallocs": 872, "magic": 1372}


def superblock(data):
    """(offset, fields) of the superblock, found by its magic."""
    for off in SBLOCKSEARCH:
        if off + SBLOCKSIZE > len(data):
            break
        magic = struct.unpack_from("<i", data, off + OFF["magic"])[0]
        if magic in (FS_UFS2_MAGIC, FS_UFS1_MAGIC):
            f = {k: struct.unpack_from("<i", data, off + o)[0]
                 for k, o in OFF.items() if k not in
                 ("journal_location", "journallocs")}
            f["journal_location"] = data[off + OFF["journal_location"]]
            f["journallocs"] = struct.unpack_from(
                "<4q", data, off + OFF["journallocs"])
            f["v2"] = magic == FS_UFS2_MAGIC
            return off, f
    raise SystemExit("no FFS superblock in the base image")


def regions(data):
    """Each region's (start, length) in bytes, from the superblock."""
    sb, f = superblock(data)
    fsize = f["fsize"]
    r = {"superblock": [(sb, SBLOCKSIZE)], "any": [(0, len(data))]}
    # FFSv2 puts no cylinder offset: group c starts at c * fpg fragments.
    r["cg0"] = [(f["cblkno"] * fsize, f["cgsize"])]
    r["cg"] = [((c * f["fpg"] + f["cblkno"]) * fsize, f["cgsize"])
               for c in range(1, f["ncg"])]
    # The inodes in use: the first ones of group 0 (256 bytes each in
    # FFSv2), up to what makefs and the extraction gave out.
    r["inodes"] = [(f["iblkno"] * fsize, 256 * 400)]
    # The journal in the filesystem (UFS_WAPBL_JOURNALLOC_IN_FILESYSTEM):
    # its address in DEV_BSIZE units, then count blocks of blksize.
    if f["journal_location"] == 2:
        addr, count, blksize, _ = f["journallocs"]
        r["journal"] = [(addr * 512, min(count * blksize, 256 * 1024))]
    return r, sb, f


def small_archive(work):
    """What each job extracts: 40 files in 4 directories, two of them
    past 12 blocks (into an indirect block), so that a run takes about a
    third of a second."""
    path = os.path.join(work, "fuzz.tar")
    rng = random.Random(0)
    with tarfile.open(path, "w") as t:
        for k in range(40):
            size = 300000 if k in (7, 29) else rng.randrange(20000)
            i = tarfile.TarInfo("d%d/f%02d" % (k % 4, k))
            i.size = size
            t.addfile(i, io.BytesIO(bytes([k]) * size))
    return path


def base_image(ubc, archive, work, rump):
    src = os.path.join(work, "src")
    os.makedirs(os.path.join(src, "d"), exist_ok=True)
    for i in range(20):
        with open(os.path.join(src, "d" if i % 2 else "", "f%d" % i),
                  "wb") as f:
            f.write(bytes([i]) * (1000 * i + 17))
    made = os.path.join(work, "made.img")
    subprocess.run(["makefs", "-t", "ffs", "-o",
                    "version=2,bsize=16384,fsize=2048,maxbpcg=512",
                    "-f", "2000", "-s", "32m", made, src], check=True,
                   stdout=subprocess.DEVNULL)
    # One run with the journal, kept: an extracted tree and a journal.
    tmp = tempfile.mkdtemp(dir=work)
    cmd = [ubc, "-q", "-n", "1", "--keep", "-O", "log", "-o",
           os.path.join(tmp, "r.json"), archive, "ffs:" + made]
    if rump:
        cmd[1:1] = ["--rump", rump]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, TMPDIR=tmp))
    kept = glob.glob(os.path.join(tmp, "ubcreplay-ffs.*.kept.img"))
    if len(kept) != 1:
        raise SystemExit("the base image's journal run kept %d copies" %
                         len(kept))
    img = os.path.join(work, "base.img")
    shutil.move(kept[0], img)
    shutil.rmtree(tmp)
    return img


def mutate(data, where, rng):
    """Some bytes changed in one of the region's extents."""
    start, length = rng.choice(where)
    length = max(1, min(length, len(data) - start))
    for _ in range(rng.choice([1, 1, 2, 4, 8, 32])):
        off = start + rng.randrange(length)
        how = rng.random()
        if how < 0.4:
            data[off] ^= 1 << rng.randrange(8)
        elif how < 0.7:
            data[off] = rng.choice([0, 0xff, rng.randrange(256)])
        elif off + 4 <= len(data):
            # A whole 32-bit field, aligned, set to an edge.
            off &= ~3
            struct.pack_into("<I", data, off, rng.choice(
                [0, 1, 0x7fffffff, 0x80000000, 0xffffffff,
                 rng.randrange(1 << 32)]))


def ours(img):
    """ubcreplay's processes whose command line names img."""
    out = subprocess.run(["pgrep", "-f", "ffs:" + img],
                         stdout=subprocess.PIPE, text=True).stdout.split()
    return [p for p in out if int(p) != os.getpid()]


def judge(rc, err, res, runs):
    """What became of a job: a kind, and a finding's reason or None."""
    if rc == "hang":
        return "finding", "hang"
    if rc == 2:
        if os.path.exists(res):
            return "finding", "exit 2 with a result"
        if "image '" not in err:
            return "finding", "a refusal that does not name the image"
        return "refused", None
    if rc not in (0, 1):
        return "finding", "exit %s" % rc
    if not os.path.exists(res):
        # Run 1 failed, not by a death: bad input, nothing measured.
        if rc == 1 and "run 1 failed: " in err and not any(
                n in err for n in NAMED):
            return "failed", None
        return "finding", "exit %d without a result" % rc
    try:
        doc = json.load(open(res))
    except ValueError:
        return "finding", "an unreadable result"
    got = doc.get("runs", [])
    if len(got) != runs:
        return "finding", "%d runs of %d in the result" % (len(got), runs)
    if rc == 0:
        return "ok", None
    deaths = [r.get("error", "") for r in got if r.get("status") != "ok"]
    if not deaths:
        return "finding", "exit 1 with every run ok"
    died = [d for d in deaths if any(n in d for n in NAMED)]
    if died:
        return ("died", None)
    return "failed", None


# What a refusal or a death said, for the figures: the first that matches.
REASONS = (("panicked", "panic"), ("killed by signal", "signal"),
           ("ran out of memory", "memory"), ("had not finished", "time"),
           ("cannot mount it", "mount"), ("mounts it but cannot", "steps"))


def reason(err):
    return next((r for m, r in REASONS if m in err), "other")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--count", type=int, default=0,
                    help="jobs for each region (instead of --seconds)")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--region", action="append", choices=REGIONS)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rump", default=None)
    ap.add_argument("top")
    a = ap.parse_args()
    ubc = os.path.join(a.top, "ubcreplay")
    work = os.path.join(a.top, "build/fuzz/ffs")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    archive = small_archive(work)
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp)
    base = bytearray(open(base_image(ubc, archive, work, a.rump),
                          "rb").read())
    where, sb, f = regions(base)
    print("ffs images: superblock at %d (FFSv%d), %d cylinder groups, "
          "journal %s" % (sb, 2 if f["v2"] else 1, f["ncg"],
                          where["journal"][0] if "journal" in where
                          else "none"))
    img = os.path.join(work, "img")
    res = os.path.join(work, "r.json")
    findings = 0
    for region in a.region or ["superblock", "cg0", "inodes", "journal"]:
        if region not in where or not where[region]:
            print("%s: no such region in the base image" % region)
            continue
        rng = random.Random("%d %s" % (a.seed, region))
        counts = {}
        why_count = {}
        n = 0
        t0 = time.time()
        end = t0 + a.seconds
        while (n < a.count) if a.count else (time.time() < end):
            n += 1
            data = bytearray(base)
            mutate(data, where[region], rng)
            with open(img, "wb") as fp:
                fp.write(data)
            if os.path.exists(res):
                os.unlink(res)
            cmd = [ubc, "-q", "-n", str(a.runs), "-o", res, archive,
                   "ffs:" + img]
            if region == "journal" or rng.random() < 0.25:
                cmd[1:1] = ["-O", "log"]
            if a.rump:
                cmd[1:1] = ["--rump", a.rump]
            try:
                p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True,
                                   timeout=120,
                                   env=dict(os.environ, TMPDIR=tmp))
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired as e:
                rc = "hang"
                err = e.stderr.decode() if e.stderr else ""
            kind, why = judge(rc, err, res, a.runs)
            left = ours(img)
            if left:
                for pid in left:
                    subprocess.run(["kill", "-9", pid])
                kind, why = "finding", "processes left: %s" % " ".join(left)
            copies = os.listdir(tmp)
            if copies:
                for c in copies:
                    os.unlink(os.path.join(tmp, c))
                kind, why = "finding", "left in TMPDIR: %s" % " ".join(copies)
            counts[kind] = counts.get(kind, 0) + 1
            if kind in ("refused", "died"):
                k = "%s: %s" % (kind, reason(err))
                why_count[k] = why_count.get(k, 0) + 1
            if kind == "finding" or counts[kind] == 1:
                keep = os.path.join(work, "%s-%s-%d.img" % (region, kind, n))
                shutil.copy(img, keep)
                with open(keep + ".err", "w") as fp:
                    fp.write("%s\nexit %s\n%s" % (" ".join(cmd), rc, err))
                if kind == "finding":
                    findings += 1
                    print("finding: %s %d: %s (%s)" % (region, n, why, keep),
                          flush=True)
        secs = time.time() - t0
        print("%s: seed %d, %d jobs of %d runs in %.0f s (%.2f s a job): "
              "%s" % (region, a.seed, n, a.runs, secs, secs / max(n, 1),
                      ", ".join("%s %d" % kv for kv in sorted(counts.items()))),
              flush=True)
        print("  %s" % ", ".join("%s %d" % kv for kv in
                                 sorted(why_count.items())), flush=True)
    print("findings: %d (kept in %s)" % (findings, work))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
