#!/usr/bin/env python3
"""Check that LogFS's sources keep to their layers (fs/logfs/layers.txt).

Reads the table, the #include "..." lines of every file in fs/logfs/, and
(with `nm`) which of the objects' undefined symbols another LogFS object
defines: the call graph.  Reports every file missing from the table or
listed but absent, every include of a header above the includer's layer,
and every call into a file above the caller's layer.

    python3 scripts/layercheck.py [OBJDIR]     (default build/obj/fs/logfs)

Then runs scripts/layercheck_top.py, the check of the top-level folders.

Exit status 0 when clean, 1 with one line per violation.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "fs", "logfs")


def read_table(path):
    """{file: rank}: layers ranked in order; '=public' files rank -1 (any
    layer may include them), '=tests' files rank None (none may)."""
    rank, table = 0, {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, sep, files = line.partition(":")
            if not sep:
                raise ValueError(f"{path}:{lineno}: expected 'layer: files...'")
            if name == "=public":
                r = -1
            elif name == "=tests":
                r = None
            else:
                r, rank = rank, rank + 1
            for fname in files.split():
                if fname in table:
                    raise ValueError(f"{path}:{lineno}: {fname} listed twice")
                table[fname] = r
    return table


def read_includes(srcdir):
    """{file: [included file in srcdir]} for every .c and .h of srcdir."""
    out = {}
    for fname in sorted(os.listdir(srcdir)):
        if not fname.endswith((".c", ".h")):
            continue
        with open(os.path.join(srcdir, fname)) as f:
            inc = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)
        out[fname] = [i for i in inc if os.path.exists(os.path.join(srcdir, i))]
    return out


def read_calls(objdir):
    """{file.c: {file.c it calls or references}} from nm of objdir/*.o."""
    defined, undefined = {}, {}
    for obj in sorted(os.listdir(objdir)):
        if not obj.endswith(".o"):
            continue
        src = obj[:-2] + ".c"
        out = subprocess.run(["nm", os.path.join(objdir, obj)], capture_output=True,
                             text=True, check=True).stdout
        undefined[src] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined[src].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRC":
                defined[parts[2]] = src
    return {src: {defined[s] for s in syms if s in defined and defined[s] != src}
            for src, syms in undefined.items()}


def violations(table, files, includes, calls):
    """The list of problems, one line each (empty: the layers hold)."""
    bad = []
    for fname in sorted(set(files) - set(table)):
        bad.append(f"{fname}: not in the layer table")
    for fname in sorted(set(table) - set(files)):
        bad.append(f"{fname}: in the layer table but not in the folder")
    rank = table.get
    for user, incs in sorted(includes.items()):
        for inc in incs:
            r_user, r_inc = rank(user), rank(inc)
            if r_inc is None and r_user is not None:
                bad.append(f"{user}: includes {inc}, which is for tests only")
            elif r_user is not None and r_inc is not None and r_inc > r_user:
                bad.append(f"{user}: includes {inc}, a layer above its own")
    for user, callees in sorted(calls.items()):
        for callee in sorted(callees):
            r_user, r_callee = rank(user), rank(callee)
            if r_user is not None and r_callee is not None and r_callee > r_user:
                bad.append(f"{user}: calls into {callee}, a layer above its own")
    return bad


def check(objdir):
    table = read_table(os.path.join(SRC, "layers.txt"))
    files = [f for f in os.listdir(SRC) if f.endswith((".c", ".h"))]
    return violations(table, files, read_includes(SRC), read_calls(objdir))


def main(argv):
    objdir = argv[1] if len(argv) > 1 else os.path.join(ROOT, "build", "obj", "fs", "logfs")
    if not os.path.isdir(objdir):
        print(f"layercheck: {objdir}: no objects (run make first)", file=sys.stderr)
        return 2
    bad = check(objdir)
    for line in bad:
        print(f"fs/logfs/{line}")
    print(f"layercheck: {len(bad)} violation(s)" if bad else "layercheck: the layers hold")
    return 1 if bad else 0


if __name__ == "__main__":
    import layercheck_top  # the top-level folders: their own module
    sys.exit(max(main(sys.argv), layercheck_top.main(sys.argv[:1])))
