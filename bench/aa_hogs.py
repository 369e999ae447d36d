#!/usr/bin/python3
"""aa_hogs.py - a kernel judged against itself while the host's load changes
halfway (issue 42): how often does `ubcreplay vm -n auto` FAIL a gate that
nothing crossed? Each trial is one A/A comparison in QEMU guests,

    ubcreplay vm -k K -k K -n auto --fail-if GATE [--boot-runs M] ARCHIVE

with two CPU hogs (`while :; do :; done`, at the trial's niceness) started
halfway through its first look: at half the time the shortest of this
ledger's trials took (a trial decided at its first look; 30 s before any),
and kept until it ends. A trial that ended before its hogs started is kept
in the ledger but not counted. FAIL is wrong (a false alarm), PASS right,
UNDECIDED what the noise allowed.

    bench/aa_hogs.py [--ubc BIN] [-k KERNEL] [--archive A] [--gate G]
                     [--boot-runs M] [--until N | --trials N] [--ledger DIR]
                     [--report]

Trials add up across sessions in a ledger outside the clone (--ledger,
$UBC_AA or /var/cache/ubcreplay/aa): IDENT/trials.tsv, a line a trial (the
exit status and verdict, the gate's interval, the runs a side, the seconds,
when the hogs started, the load before and after, UTC). IDENT hashes what
decides a trial: the C sources and GNUmakefile as the tree holds them, this
script, the kernel and the archive (their SHA-256), QEMU's version, the
gate and --boot-runs; a change to any of them starts a new count. The
report prints the wrong FAILs with their Wilson 95% interval against the
promise, 2.5%.
"""
import argparse
import hashlib
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gate import wilson  # noqa: E402
from gate_pools import cell_arguments, load1  # noqa: E402

PROMISE = 0.025
FIRST_HALF = 30.0


def sha(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def identity(top, a):
    files = subprocess.run(["git", "-C", top, "ls-files", "-co",
                            "--exclude-standard", "--", "*.c", "*.h",
                            "GNUmakefile"], check=True, text=True,
                           stdout=subprocess.PIPE).stdout.split()
    h = hashlib.sha256()
    for f in sorted(set(files)):
        p = os.path.join(top, f)
        if os.path.isfile(p):
            h.update(("%s %s\n" % (f, sha(p))).encode())
    qemu = subprocess.run(["qemu-system-x86_64", "--version"], text=True,
                          stdout=subprocess.PIPE, check=False).stdout
    for part in (sha(os.path.abspath(__file__)), sha(a.kernel),
                 sha(a.archive), qemu.splitlines()[0] if qemu else "no qemu",
                 a.gate, str(a.boot_runs)):
        h.update((part + "\n").encode())
    return h.hexdigest()[:12]


def rows(ledger):
    if not os.path.exists(ledger):
        return []
    with open(ledger, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def judged(every):
    """The trials the gate judged after the hogs started: a guest that
    failed (ERROR) says nothing about the gate, and a trial that ended
    before the hogs nothing about them."""
    return [r for r in every if float(r[5]) >= 0 and
            r[1] in ("PASS", "UNDECIDED", "FAIL")]


def report(ident, ledger, a):
    every = rows(ledger)
    got = [r for r in every if float(r[5]) >= 0]
    verdicts = [r[1] for r in got]
    n = len(judged(every))
    fails = verdicts.count("FAIL")
    lo, hi = wilson(fails, n)
    print("identity %s: %s against itself, gate %s, --boot-runs %d; hogs "
          "started halfway through the first look; %d trials ended before "
          "them (not counted)" % (ident, os.path.basename(a.kernel), a.gate,
                                  a.boot_runs, len(every) - len(got)))
    if not got:
        print("no trials yet")
        return
    secs = [float(r[4]) for r in got]
    frac = [float(r[5]) / float(r[4]) for r in got if float(r[4]) > 0]
    print("%d trials: PASS %d, UNDECIDED %d, FAIL %d, other %d (a guest "
          "that failed: not counted); %.0f s a trial (median), the hogs "
          "from %.2f to %.2f of it" % (
              len(got), verdicts.count("PASS"), verdicts.count("UNDECIDED"),
              fails, len(got) - n, statistics.median(secs), min(frac),
              max(frac)))
    if n == 0:
        return
    print("wrong FAILs %d/%d = %.1f%% [%.1f, %.1f] (Wilson 95%%); the promise "
          "%.1f%%: %s" % (fails, n, 100.0 * fails / n, 100 * lo, 100 * hi,
                          100 * PROMISE,
                          "kept" if hi <= PROMISE else
                          "broken" if lo > PROMISE else
                          "not told apart yet"))


def trial(a, work, half):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [a.ubc, "vm", "-k", a.kernel, "-k", a.kernel, "-n", "auto",
           "--fail-if", a.gate, "--boot-runs", str(a.boot_runs), "-o", out,
           a.archive]
    l0, t0 = load1(), time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    hogs, started = [], -1.0
    try:
        try:
            p.wait(timeout=half)
        except subprocess.TimeoutExpired:
            started = time.time() - t0
            hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
                    for _ in range(2)]
        so, se = p.communicate()
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        if p.poll() is None:
            # Stopped: vm ends its guests and removes its files on SIGTERM.
            p.terminate()
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    secs = time.time() - t0
    verdict = {0: "PASS", 1: "FAIL", 3: "UNDECIDED"}.get(p.returncode, "ERROR")
    m = re.search(r"^\s*[A-Z]+ %s: (\S+ \S+ \[[^]]*\])" % re.escape(a.gate),
                  so, re.M)
    runs = re.findall(r"(\d+) runs a cell", se)
    tail = se.strip().splitlines()
    why = m.group(1) if m else tail[-1] if tail else ""
    return [str(p.returncode), verdict, why[:200].replace("\t", " "),
            runs[-1] if runs else "", "%.1f" % secs, "%.1f" % started,
            "%.2f" % l0, "%.2f" % load1(),
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())]


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    cell_arguments(ap, top)
    ap.add_argument("--gate", default="write.mean_bytes:-5%")
    ap.add_argument("--boot-runs", type=int, default=3)
    ap.add_argument("--trials", type=int, default=0)
    ap.add_argument("--until", type=int, default=0,
                    help="until the ledger holds this many trials that "
                    "met the hogs and ended in a verdict")
    ap.add_argument("--ledger", default=os.environ.get(
        "UBC_AA", "/var/cache/ubcreplay/aa"))
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    if not a.kernel or not os.path.isfile(a.kernel):
        sys.exit("aa_hogs: no kernel (make kernels, or -k): %s" % a.kernel)
    if not os.path.isfile(a.archive):
        sys.exit("aa_hogs: no archive '%s'" % a.archive)
    ident = identity(top, a)
    d = os.path.join(a.ledger, ident)
    ledger = os.path.join(d, "trials.tsv")
    if a.report:
        report(ident, ledger, a)
        return
    os.makedirs(d, exist_ok=True)
    # A stop ends the trial's guests and hogs (finally), its line unwritten.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    work = tempfile.mkdtemp(prefix="ubcreplay-aa.")
    try:
        done = 0
        while (done < a.trials if a.trials else
               len(judged(rows(ledger))) < a.until):
            past = [float(r[4]) for r in rows(ledger)]
            half = min(past) / 2 if past else FIRST_HALF
            line = trial(a, work, half)
            with open(ledger, "a", encoding="utf-8") as f:
                f.write("\t".join(line) + "\n")
            done += 1
            print("trial %d: %s in %s s, hogs from %s s: %s" % (
                len(rows(ledger)), line[1], line[4], line[5], line[2]),
                flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(ident, ledger, a)


if __name__ == "__main__":
    main()
