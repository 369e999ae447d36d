#!/usr/bin/python3
"""at_run.py - injects a fault into a running ubcreplay, at a chosen moment.

    at_run.py DIR N MIN COMMAND

Watches DIR for run directories (ubcreplay-run.*). Once the N-th one seen
holds at least MIN entries (so its extraction is under way), runs COMMAND
with the shell, RUN set to that run directory, and exits with its status.
Gives up with status 3 after 60 seconds. Used by tests/faults_test.sh, in
the background of the run it disturbs.
"""
import os
import subprocess
import sys
import time


def entries(path, stop):
    n = 0
    for _, dirs, files in os.walk(path):
        n += len(dirs) + len(files)
        if n >= stop:
            break
    return n


def main():
    top, nth, least, cmd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    seen = []
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            names = sorted(os.listdir(top))
        except OSError:
            names = []
        for name in names:
            path = os.path.join(top, name)
            if name.startswith("ubcreplay-run.") and path not in seen:
                seen.append(path)
        if len(seen) >= nth and entries(seen[nth - 1], least) >= least:
            env = dict(os.environ, RUN=seen[nth - 1])
            sys.exit(subprocess.call(cmd, shell=True, env=env))
        time.sleep(0.002)
    sys.exit(3)


if __name__ == "__main__":
    main()
