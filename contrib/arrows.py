#!/usr/bin/env python3
"""arrows.py - `make lint`: the project's #include "..." arrows point one way.

Reads every C file in the module folders, resolves each quoted include to a
file of the project, and fails when the files, or the folders they sit in,
include each other in a circle. It also fails when a private header (what
a module's own files share: NAME_impl.h, and vm/vmconf.h, which the host
shares with the guest's init) is included by a file of another folder, or
by a public header of its own, through which it would leak. With -v it
prints the folder graph.
"""
import os
import re
import sys

FOLDERS = ["cmd", "job", "vm", "replay", "traces", "analysis", "model"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PRIVATE = {os.path.join("vm", "vmconf.h")}


def private(path):
    return path.endswith("_impl.h") or path in PRIVATE


def files(root):
    for folder in FOLDERS:
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for dirpath, _, names in os.walk(d):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def graph(root):
    edges = {}
    for f in files(root):
        with open(os.path.join(root, f), encoding="utf-8") as fp:
            text = fp.read()
        out = edges.setdefault(f, set())
        for inc in INCLUDE.findall(text):
            target = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if os.path.exists(os.path.join(root, target)):
                out.add(target)
    return edges


def leaks(edges):
    """(includer, header) pairs where a private header is used from outside."""
    for f in sorted(edges):
        for t in sorted(edges[f]):
            if not private(t):
                continue
            if f.split(os.sep)[0] != t.split(os.sep)[0]:
                yield f, t, "a file of another folder"
            elif f.endswith(".h") and not private(f):
                yield f, t, "a public header"


def cycle(edges):
    """A list of nodes forming a circle, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def main():
    verbose = "-v" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "-v"]
    root = args[0] if args else "."
    files_g = graph(root)
    folders_g = {}
    for f, targets in files_g.items():
        a = f.split(os.sep)[0]
        for t in targets:
            b = t.split(os.sep)[0]
            if a != b:
                folders_g.setdefault(a, set()).add(b)
            folders_g.setdefault(b, set())
    if verbose:
        for a in FOLDERS:
            if a in folders_g:
                print("%s -> %s" % (a, " ".join(sorted(folders_g[a])) or "-"))
    rc = 0
    for what, g in (("files", files_g), ("folders", folders_g)):
        c = cycle(g)
        if c:
            print("arrows: %s include each other: %s" % (what, " -> ".join(c)),
                  file=sys.stderr)
            rc = 1
    for f, t, who in leaks(files_g):
        print("arrows: %s is private to %s/, but %s includes it (%s)" %
              (t, t.split(os.sep)[0], f, who), file=sys.stderr)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
