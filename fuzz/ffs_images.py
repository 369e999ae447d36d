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

Counts add up across sessions in a ledger kept outside the clone, one
directory a code identity (--ledger, /var/cache/ubcreplay/fuzz by
default): IDENT/REGION.tsv has a line an image (its seed, what became of
it, why, the seconds its job took, and when, UTC), IDENT/base.img and
IDENT/fuzz.tar are the base image and the archive every image of that
identity was made from, so that a seed gives its image again (--make),
and IDENT/findings/ keeps the findings' images. Jobs on one identity, in
any session or on any machine with the same rump build, go into one
count; --until N runs each region until its ledger holds N images.

The identity is a hash of what decides an image's outcome, and of
nothing else, so that a change to the docs or the tests does not start a
new count (contrib/soak.sh hashes every tracked file but docs/ and the
README; here less, on purpose):
  - the sources of the main job in the ubcreplay binary (cmd/ job/
    replay/ traces/ model/ analysis/; vm/, runner/ and cmd/vm*.c are
    linked in too, but only `ubcreplay vm` calls them, never a job on an
    image, and cmd/usage.c is the usage text) and
    GNUmakefile, as the working tree holds them (a change not committed
    is a new identity), and build/.flags (a sanitized build is another);
  - this script: the mutations, the base image, the archive, the judge;
  - the rump kernel's bundle: its build record (ubcreplay-build) and the
    hash of each library it loads;
  - makefs, which makes the base image.

Where the time goes: each job boots four NetBSD kernels (the trial and
three runs), each on a fresh copy of the image, and NetBSD's sync ends
in cache flushes that the copy's file turns into fsync on the host. On a
disk shared with other work those fsyncs were most of a job (3.1-3.8 s
a job against 1.1 s with the copies on tmpfs, load 11, 2026-12-05), so
the copies and the images go to tmpfs (/dev/shm) when there is one; the
kernel sees the same bytes either way. Each image is the base with a few
bytes changed in place (the worker's sparse copy of the base, patched
and restored), not 32 MiB written again, and -j N jobs run at once.

    python3 fuzz/ffs_images.py [--seconds N | --count N | --until N]
        [-j N] [--seed S] [--region R] [--runs N] [--rump DIR]
        [--ledger DIR] TOP
    python3 fuzz/ffs_images.py --report [--ident ID] [--ledger DIR] TOP
    python3 fuzz/ffs_images.py --make SEED --region R [--ident ID] TOP OUT

It prints one line per region: images, images a second, and what became
of them; --report prints each region's counts from the ledger.
"""
import argparse
import concurrent.futures
import fnmatch
import glob
import hashlib
import io
import json
import os
import random
import shutil
import signal
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
    # The inodes in use in group 0 (256 bytes each in FFSv2): those of
    # its ipg whose mode is not zero, one extent each, so that every
    # change falls on an inode the kernel reads.
    first = f["iblkno"] * fsize
    r["inodes"] = [(first + 256 * i, 256) for i in range(f["ipg"])
                   if data[first + 256 * i:first + 256 * i + 2] != b"\0\0"]
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


def mutate(base, where, rng):
    """Some bytes changed in one of the region's extents: {offset: byte}."""
    ch = {}
    start, length = rng.choice(where)
    length = max(1, min(length, len(base) - start))
    for _ in range(rng.choice([1, 1, 2, 4, 8, 32])):
        off = start + rng.randrange(length)
        how = rng.random()
        if how < 0.4:
            ch[off] = ch.get(off, base[off]) ^ (1 << rng.randrange(8))
        elif how < 0.7:
            ch[off] = rng.choice([0, 0xff, rng.randrange(256)])
        elif off + 4 <= len(base):
            # A whole 32-bit field, aligned, set to an edge.
            off &= ~3
            v = struct.pack("<I", rng.choice(
                [0, 1, 0x7fffffff, 0x80000000, 0xffffffff,
                 rng.randrange(1 << 32)]))
            for i in range(4):
                ch[off + i] = v[i]
    return ch


def image(seed, region, base, where):
    """An image's changes and its -O log, from its seed alone."""
    rng = random.Random(seed)
    ch = mutate(base, where[region], rng)
    return ch, region == "journal" or rng.random() < 0.25


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
    # A run that failed, not by a death, ends the job: the result has the
    # runs up to it. A kernel's death does not end it.
    last = got[-1] if got else {}
    if len(got) > runs or (len(got) < runs and (
            last.get("status") == "ok" or
            any(n in last.get("error", "") for n in NAMED))):
        return "finding", "%d runs of %d in the result" % (len(got), runs)
    # The image is a copy each run, deleted with the run: nothing of it
    # can be left behind, and saying so would be wrong.
    if "left behind" in err:
        return "finding", "a deleted copy said to be left behind"
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
REASONS = (("its superblock is damaged", "geometry"), ("panicked", "panic"), ("killed by signal", "signal"),
           ("ran out of memory", "memory"), ("had not finished", "time"),
           ("cannot mount it", "mount"), ("mounts it but cannot", "steps"))


def reason(err):
    return next((r for m, r in REASONS if m in err), "other")


# What decides an image's outcome (the header says why these).
SOURCES = ("cmd", "job", "replay", "traces", "model", "analysis",
           "GNUmakefile", "fuzz/ffs_images.py")
# In cmd/ but reached only from `ubcreplay vm`, like vm/ and runner/,
# and the usage text, printed only on a usage error (never by a job here).
NOT_SOURCES = ("cmd/vm.c", "cmd/vm_*.c", "cmd/vm_*.h", "cmd/usage.c")
RUMP_DEFAULT = "/var/cache/ubcreplay/rump/bundle/rump"


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def identity(top, rump):
    try:
        files = subprocess.run(
            ["git", "-C", top, "ls-files", "-co", "--exclude-standard",
             "--"] + list(SOURCES), check=True, stdout=subprocess.PIPE,
            text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, n), top)
                 for src in SOURCES
                 for d, _, names in os.walk(os.path.join(top, src))
                 for n in names]
        files += [f for f in SOURCES if os.path.isfile(os.path.join(top, f))]
    h = hashlib.sha256()
    ubc = os.path.join(top, "ubcreplay")
    files = [f for f in files
             if not any(fnmatch.fnmatch(f, x) for x in NOT_SOURCES)]
    for f in sorted(set(files)):
        path = os.path.join(top, f)
        if os.path.isfile(path):
            h.update(("%s %s\n" % (f, sha(path))).encode())
            # The identity is the sources': the program must be theirs.
            if f.endswith((".c", ".h")) and os.path.exists(ubc) and \
                    os.path.getmtime(path) > os.path.getmtime(ubc):
                raise SystemExit("%s is newer than ubcreplay: make it "
                                 "first" % f)
    extra = [os.path.join(top, "build/.flags"),
             os.path.join(rump, "ubcreplay-build"),
             shutil.which("makefs") or "/nonexistent/makefs"]
    extra += sorted(glob.glob(os.path.join(rump, "lib", "*.so*")))
    for path in extra:
        if os.path.isfile(path):
            h.update(("%s %s\n" % (os.path.basename(path),
                                   sha(path))).encode())
    return h.hexdigest()[:12]


def fast_dir(work):
    """Where the images and the kernels' copies go: tmpfs if there is."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        return tempfile.mkdtemp(prefix="ubcreplay-fuzz.", dir="/dev/shm")
    return tempfile.mkdtemp(prefix="slots.", dir=work)


class Slot:
    """One worker's image (the base, sparse, patched in place), result
    and TMPDIR."""

    def __init__(self, fast, k, base_path):
        self.dir = os.path.join(fast, "w%d" % k)
        self.tmp = os.path.join(self.dir, "tmp")
        os.makedirs(self.tmp)
        self.img = os.path.join(self.dir, "img")
        self.res = os.path.join(self.dir, "r.json")
        subprocess.run(["cp", "--sparse=always", base_path, self.img],
                       check=True)
        self.fd = os.open(self.img, os.O_RDWR)

    def patch(self, ch, base=None):
        for off, b in ch.items():
            os.pwrite(self.fd, bytes([b if base is None else base[off]]),
                      off)


def job(slot, ubc, archive, a, region, seed, base, where):
    """One image through a whole job: (kind, why, seconds, err, cmd)."""
    ch, log = image(seed, region, base, where)
    slot.patch(ch)
    if os.path.exists(slot.res):
        os.unlink(slot.res)
    cmd = [ubc, "-q", "-n", str(a.runs), "-o", slot.res, archive,
           "ffs:" + slot.img]
    if log:
        cmd[1:1] = ["-O", "log"]
    if a.rump:
        cmd[1:1] = ["--rump", a.rump]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=120,
                           env=dict(os.environ, TMPDIR=slot.tmp))
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "hang"
        err = e.stderr.decode() if e.stderr else ""
    secs = time.time() - t0
    kind, why = judge(rc, err, slot.res, a.runs)
    left = ours(slot.img)
    if left:
        for pid in left:
            subprocess.run(["kill", "-9", pid])
        kind, why = "finding", "processes left: %s" % " ".join(left)
    copies = os.listdir(slot.tmp)
    if copies:
        for c in copies:
            os.unlink(os.path.join(slot.tmp, c))
        kind, why = "finding", "left in TMPDIR: %s" % " ".join(copies)
    if kind in ("refused", "died"):
        why = reason(err)
    if kind == "finding":
        keep = os.path.join(a.identdir, "findings",
                            "%s-%d.img" % (region, seed))
        os.makedirs(os.path.dirname(keep), exist_ok=True)
        shutil.copy(slot.img, keep)
        with open(keep + ".err", "w") as fp:
            fp.write("%s\nexit %s\n%s" % (" ".join(cmd), rc, err))
    slot.patch(ch, base)
    return kind, why or "", secs


def ledger_read(identdir, region):
    """{seed: (kind, why, seconds, when)}: a seed seen twice counts once."""
    rows = {}
    try:
        with open(os.path.join(identdir, region + ".tsv")) as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                if len(p) >= 5 and not line.startswith("#"):
                    rows.setdefault(p[0], (p[1], p[2], float(p[3]), p[4]))
    except FileNotFoundError:
        pass
    return rows


def report(identdir, ident):
    """Each region's counts from the ledger, as a Markdown table."""
    print("identity %s (%s)" % (ident, identdir))
    print()
    print("| region | images | s a job | ok | refused before the first run "
          "| a run's kernel died (named) | run 1 failed, not by a death "
          "| findings | from | to |")
    print("|---|---:|---:|---:|---|---|---:|---:|---|---|")
    bad = []
    for region in REGIONS:
        rows = ledger_read(identdir, region)
        if not rows:
            continue
        kinds, whys = {}, {}
        for seed, (kind, why, secs, when) in rows.items():
            kinds[kind] = kinds.get(kind, 0) + 1
            if why:
                whys.setdefault(kind, {})
                whys[kind][why] = whys[kind].get(why, 0) + 1
            if kind == "finding":
                bad.append((region, seed, why))

        def cell(kind):
            n = kinds.get(kind, 0)
            w = whys.get(kind)
            return "%d (%s)" % (n, ", ".join(
                "%s %d" % kv for kv in sorted(w.items()))) if w and \
                kind != "finding" else "%d" % n
        whens = sorted(r[3] for r in rows.values())
        print("| %s | %d | %.2f | %d | %s | %s | %d | %d | %s | %s |" % (
            region, len(rows),
            sum(r[2] for r in rows.values()) / len(rows),
            kinds.get("ok", 0), cell("refused"), cell("died"),
            kinds.get("failed", 0), kinds.get("finding", 0),
            whens[0][:16].replace("T", " "),
            whens[-1][:16].replace("T", " ")))
    print()
    for region, seed, why in bad:
        print("violation: %s seed %s: %s (%s)" % (
            region, seed, why, os.path.join(identdir, "findings",
                                            "%s-%s.img" % (region, seed))))
    print("violations: %d" % len(bad))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--count", type=int, default=0,
                    help="images for each region (instead of --seconds)")
    ap.add_argument("--until", type=int, default=0,
                    help="until each region's ledger holds this many")
    ap.add_argument("-j", type=int, default=1, dest="jobs")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--region", action="append", choices=REGIONS)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rump", default=None)
    ap.add_argument("--ledger", default="/var/cache/ubcreplay/fuzz")
    ap.add_argument("--ident", default=None,
                    help="another identity's ledger (--report, --make)")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--make", type=int, default=None, metavar="SEED")
    ap.add_argument("top")
    ap.add_argument("out", nargs="?")
    a = ap.parse_args()
    # A stop waits for the jobs running, then removes the work (finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    top = os.path.abspath(a.top)
    ident = a.ident or identity(top, a.rump or RUMP_DEFAULT)
    a.identdir = os.path.join(a.ledger, ident)
    if a.report:
        return report(a.identdir, ident)
    ubc = os.path.join(top, "ubcreplay")
    work = os.path.join(top, "build/fuzz/ffs")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.makedirs(a.identdir, exist_ok=True)
    # The base and the archive of this identity, made once.
    archive = os.path.join(a.identdir, "fuzz.tar")
    base_path = os.path.join(a.identdir, "base.img")
    if not os.path.exists(base_path):
        if a.make is not None or a.ident:
            raise SystemExit("no base image in %s" % a.identdir)
        small_archive(work)
        shutil.move(os.path.join(work, "fuzz.tar"), archive)
        made = base_image(ubc, archive, work, a.rump)
        subprocess.run(["cp", "--sparse=always", made, base_path + ".new"],
                       check=True)
        os.rename(base_path + ".new", base_path)
    base = open(base_path, "rb").read()
    where, sb, f = regions(base)
    if a.make is not None:
        region = (a.region or ["superblock"])[0]
        ch, log = image(a.make, region, base, where)
        data = bytearray(base)
        for off, b in ch.items():
            data[off] = b
        with open(a.out, "wb") as fp:
            fp.write(data)
        print("%s: %d bytes changed%s" % (a.out, len(ch),
                                          "; its job had -O log" if log
                                          else ""))
        return 0
    print("ffs images: identity %s, superblock at %d (FFSv%d), %d cylinder "
          "groups, journal %s; ledger %s" % (
              ident, sb, 2 if f["v2"] else 1, f["ncg"],
              where["journal"][0] if "journal" in where else "none",
              a.identdir), flush=True)
    fast = fast_dir(work)
    slots = [Slot(fast, k, base_path) for k in range(a.jobs)]
    seeder = random.Random(a.seed if a.seed is not None
                           else int.from_bytes(os.urandom(8), "little"))
    findings = 0
    try:
        for region in a.region or ["superblock", "cg0", "inodes",
                                   "journal"]:
            if region not in where or not where[region]:
                print("%s: no such region in the base image" % region)
                continue
            ledger = open(os.path.join(a.identdir, region + ".tsv"), "a")
            have = len(ledger_read(a.identdir, region))
            counts, n = {}, 0
            t0 = time.time()
            end = t0 + a.seconds

            def more():
                if a.until:
                    return have + n < a.until
                if a.count:
                    return n < a.count
                return time.time() < end
            with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
                free, running = list(slots), {}
                while running or (free and more()):
                    while free and more():
                        slot, seed = free.pop(), seeder.getrandbits(63)
                        n += 1
                        running[ex.submit(job, slot, ubc, archive, a, region,
                                          seed, base, where)] = (slot, seed)
                    done, _ = concurrent.futures.wait(
                        running,
                        return_when=concurrent.futures.FIRST_COMPLETED)
                    for fut in done:
                        slot, seed = running.pop(fut)
                        free.append(slot)
                        kind, why, secs = fut.result()
                        counts[kind] = counts.get(kind, 0) + 1
                        # One write a line, appended: sessions may share it.
                        ledger.write("%d\t%s\t%s\t%.2f\t%s\n" % (
                            seed, kind, why, secs,
                            time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                          time.gmtime())))
                        ledger.flush()
                        if kind == "finding":
                            findings += 1
                            print("finding: %s seed %d: %s" % (
                                region, seed, why), flush=True)
            ledger.close()
            secs = time.time() - t0
            print("%s: %d images of %d runs in %.0f s, -j %d: %.2f images "
                  "a second; %s; the ledger holds %d" % (
                      region, n, a.runs, secs, a.jobs, n / max(secs, 1e-9),
                      ", ".join("%s %d" % kv for kv in sorted(
                          counts.items())),
                      len(ledger_read(a.identdir, region))), flush=True)
    finally:
        for slot in slots:
            os.close(slot.fd)
        shutil.rmtree(fast, ignore_errors=True)
    print("findings: %d (kept in %s)" % (findings,
                                        os.path.join(a.identdir, "findings")))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
