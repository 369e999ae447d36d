#!/usr/bin/python3
"""gate_pools.py - add boots of a `vm` cell, measured under a named load, to
a pool kept outside the clone, so that boots from several sessions add up
(issue 42): the noise bench/gate.py resamples and bench/replication.py
splits into between-boot and within-boot shares.

    bench/gate_pools.py [--ubc BIN] [-k KERNEL] [--archive A] [--runs 3]
                        [--boots N] [--pools DIR] [--quiet-max CORES] COND

COND is the load beside the guest, which this script makes itself:
  quiet   nothing: a boot counts as quiet only when the CPU time used
          beside it (all the host's busy time less this script's children)
          is below --quiet-max cores (0.3: on an idle host the guest's own
          disk I/O in the host's kernel threads shows as 0.07 to 0.24) and
          the 1-minute load average was below 0.5 before this script's
          first boot (its own boots keep it near 1 after); a boot that is
          not is filed under asis
  asis    nothing started; whatever else the host runs (recorded)
  hogs    two CPU hogs (`while :; do :; done`)
  kbuild  a Linux kernel build, make -j2 vmlinux of defconfig out of the
          tree in $UBC_KTREE_SRC (default /var/cache/ubcreplay/src/
          linux-source-6.1, tests/ktree_history.sh makes it), no ccache,
          cleaned and started again whenever it ends

Each boot is `ubcreplay vm -k KERNEL -n RUNS ARCHIVE`; its result goes to
POOLS/COND/CELL/boot-TIME-HOST-PID.json (CELL: the guest's kernel release
and the archive's name) and a line to POOLS/COND/CELL/boots.tsv: the file,
the UTC time, the seconds the boot took, the 1-minute load average before
and after, and the cores' worth of CPU time used beside the boot by
everything else (the load started here included). POOLS defaults to
$UBC_POOLS or /var/cache/ubcreplay/pools. Run it under `nice`: the hogs and
the build inherit the niceness, so they compete with the guest as equals.
"""
import argparse
import glob
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import json

HZ = os.sysconf("SC_CLK_TCK")


def busy_seconds():
    """The host's busy CPU time so far (all cores; not idle nor iowait)."""
    with open("/proc/stat", encoding="ascii") as f:
        w = [int(x) for x in f.readline().split()[1:]]
    return (sum(w[:8]) - w[3] - w[4]) / HZ


def children_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def load1():
    with open("/proc/loadavg", encoding="ascii") as f:
        return float(f.read().split()[0])


def start_load(cond, work):
    """The processes making COND's load, each in a session of its own."""
    procs = []
    if cond == "hogs":
        for _ in range(2):
            procs.append(subprocess.Popen(["sh", "-c", "while :; do :; done"],
                                          start_new_session=True))
    elif cond == "kbuild":
        src = os.environ.get("UBC_KTREE_SRC",
                             "/var/cache/ubcreplay/src/linux-source-6.1")
        if not os.path.isfile(os.path.join(src, "Makefile")):
            sys.exit("gate_pools: no kernel tree at %s (UBC_KTREE_SRC)" % src)
        out = os.path.join(work, "kb")
        env = dict(os.environ, PATH="/usr/bin:/bin", CCACHE_DISABLE="1")
        script = ('make -s -C "$1" O="$2" defconfig >/dev/null 2>&1; '
                  'while :; do make -s -j2 -C "$1" O="$2" vmlinux >/dev/null 2>&1; '
                  'make -s -C "$1" O="$2" clean >/dev/null 2>&1; done')
        procs.append(subprocess.Popen(["sh", "-c", script, "kbuild", src, out],
                                      env=env, start_new_session=True))
        time.sleep(20)  # past defconfig, into the compiles
    return procs


def stop_load(procs):
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        p.wait()


def cell_arguments(ap, top):
    """The cell's options, as the bench's vm scripts take them: --ubc, -k
    (the fetched 6.1 kernel by default) and --archive (the small one)."""
    kernels = sorted(glob.glob(os.path.join(
        top, "build/kernels/linux-image-6.1.0*/boot/vmlinuz-*")))
    ap.add_argument("--ubc", default=os.path.join(top, "ubcreplay"))
    ap.add_argument("-k", "--kernel", default=kernels[0] if kernels else None)
    ap.add_argument("--archive",
                    default=os.path.join(top, "build/fixtures/small.tar.gz"))


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    cell_arguments(ap, top)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--boots", type=int, default=3)
    ap.add_argument("--pools", default=os.environ.get(
        "UBC_POOLS", "/var/cache/ubcreplay/pools"))
    ap.add_argument("--quiet-max", type=float, default=0.3)
    ap.add_argument("cond", choices=("quiet", "asis", "hogs", "kbuild"))
    a = ap.parse_args()
    if not a.kernel:
        sys.exit("gate_pools: no kernel (make kernels, or -k)")
    arch = os.path.basename(a.archive).split(".tar")[0]
    work = tempfile.mkdtemp(prefix="ubcreplay-pools.")
    procs = []
    idle_before = load1() < 0.5
    try:
        procs = start_load(a.cond, work)
        for i in range(a.boots):
            out = os.path.join(work, "b%d" % i)
            l0, b0, c0, t0 = load1(), busy_seconds(), children_seconds(), time.time()
            r = subprocess.run([a.ubc, "vm", "-k", a.kernel, "-n", str(a.runs),
                                "-o", out, a.archive],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, check=False)
            secs = time.time() - t0
            beside = (busy_seconds() - b0 - (children_seconds() - c0)) / secs
            l1 = load1()
            got = glob.glob(os.path.join(out, "*.json"))
            if r.returncode != 0 or len(got) != 1:
                print("gate_pools: boot %d failed (exit %d): %s" % (
                    i + 1, r.returncode, r.stderr.strip()[-300:]), file=sys.stderr)
                continue
            with open(got[0], encoding="utf-8") as f:
                rel = json.load(f)["vm"]["kernel_release"]
            cond = a.cond
            if cond == "quiet" and (beside >= a.quiet_max or not idle_before):
                cond = "asis"
            cell = os.path.join(a.pools, cond, "%s-%s" % (rel, arch))
            os.makedirs(cell, exist_ok=True)
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t0))
            name = "boot-%s-%s-%d.json" % (stamp, socket.gethostname(), os.getpid())
            shutil.copy(got[0], os.path.join(cell, name + ".tmp"))
            os.rename(os.path.join(cell, name + ".tmp"), os.path.join(cell, name))
            line = "%s\t%s\t%.1f\t%.2f\t%.2f\t%.2f\n" % (
                name, stamp, secs, l0, l1, max(0.0, beside))
            with open(os.path.join(cell, "boots.tsv"), "a", encoding="ascii") as f:
                f.write(line)
            print("%s %s/%s: %.0f s, load %.2f-%.2f, %.2f cores beside" % (
                a.cond if cond == a.cond else a.cond + " (filed as asis)",
                cond, os.path.basename(cell), secs, l0, l1, beside))
    finally:
        stop_load(procs)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
