#!/usr/bin/env python3
"""arrows.py - `make lint`: the project's arrows point one way.

Reads every C file in the module folders, resolves each quoted include to a
file of the project, and fails when the files, or the folders they sit in,
include each other in a circle. It also fails when a private header (what
a module's own files share: NAME_impl.h, and vm/vmconf.h, which the host
shares with the guest's init) is included by a file of another folder, or
by a public header of its own, through which it would leak.

In every folder it also reads calls (files that share one header can call
each other unseen by includes, as the front end's vm files once did): a
file uses another when it names a function the other defines (a call, or
its address in a table), comments and strings left out. It fails when the
files of a folder use each other in a circle, two files calling each other
being the shortest. With -v it prints the folder graph and those calls.
"""
import os
import re
import sys

FOLDERS = ["cmd", "runner", "job", "vm", "replay", "traces", "analysis",
           "model"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PRIVATE = {os.path.join("vm", "vmconf.h")}
# A definition in the project's style: the return type on the line above,
# the name at the start of its own line; static ones are the file's own.
DEFINITION = re.compile(r"^([A-Za-z_]\w*)\(", re.M)
# A name, but not a tag: struct runner_cell_ops is no call.
IDENT = re.compile(r"(?<![\w.>])(?<!struct )(?<!union )(?<!enum )"
                   r"([A-Za-z_]\w*)")
NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'
                   r"'(?:\\.|[^'\\\n])*'", re.S)


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


def bare(text):
    """The C text without comments, strings and character constants."""
    return NOISE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def calls(root, folder):
    """file -> the files of folder whose functions it names."""
    defined, text = {}, {}
    d = os.path.join(root, folder)
    if not os.path.isdir(d):
        return {}
    for n in sorted(os.listdir(d)):
        if not n.endswith(".c"):
            continue
        f = os.path.join(folder, n)
        with open(os.path.join(root, f), encoding="utf-8") as fp:
            text[f] = bare(fp.read())
        lines = text[f].split("\n")
        for m in DEFINITION.finditer(text[f]):
            at = text[f].count("\n", 0, m.start())
            if at > 0 and not lines[at - 1].lstrip().startswith("static"):
                defined.setdefault(m.group(1), f)
    edges = {}
    for f, t in text.items():
        out = edges.setdefault(f, set())
        for name in IDENT.findall(t):
            g = defined.get(name)
            if g is not None and g != f:
                out.add(g)
    return edges


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
    for folder in FOLDERS:
        g = calls(root, folder)
        if verbose:
            for f in sorted(g):
                print("%s calls %s" % (f, " ".join(sorted(g[f])) or "-"))
        c = cycle(g)
        if c:
            print("arrows: files call each other: %s (one idea split in "
                  "two, or two layers missing a callback)" % " -> ".join(c),
                  file=sys.stderr)
            rc = 1
    for f, t, who in leaks(files_g):
        print("arrows: %s is private to %s/, but %s includes it (%s)" %
              (t, t.split(os.sep)[0], f, who), file=sys.stderr)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
