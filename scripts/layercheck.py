#!/usr/bin/env python3
"""Check that LogFS's sources keep to their layers (fs/logfs/layers.txt).

Reads the table, the #include "..." lines of every file in fs/logfs/, and
(with `nm`) which of the objects' undefined symbols another LogFS object
defines: the call graph.  Reports every file missing from the table or
listed but absent, every include of a header above the includer's layer,
and every call into a file above the caller's layer.

layers.txt is the one list of LogFS's files; two documents repeat parts
of it, and are checked against it: the file table of docs/logfs-design.md
("## Layers": each file under its layer's name), and the write trace of
docs/architecture.md ("## One write..."), where every `file.c` named
exists, every `file.c: function` is in that file, and a layer named in
parentheses after a file, `area.c` (storage), is its layer.

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


def read_layers(path):
    """[(layer, rank, [files])] in the table's order: layers ranked from 0;
    '=public' ranks -1 (any layer may include its files), '=tests' None
    (none may).  The layer's name is without its '='."""
    rank, layers, seen = 0, [], set()
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
                if fname in seen:
                    raise ValueError(f"{path}:{lineno}: {fname} listed twice")
                seen.add(fname)
            layers.append((name.lstrip("="), r, files.split()))
    return layers


def read_table(path):
    """{file: rank} (read_layers)."""
    return {f: r for _, r, files in read_layers(path) for f in files}


def layer_of(path):
    """{file: layer name} (read_layers)."""
    return {f: name for name, _, files in read_layers(path) for f in files}


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


# ---- the documents that repeat layers.txt ---------------------------------

FILE_RE = r"[A-Za-z_][\w]*\.[ch]"


def md_section(text, heading):
    """The text of the '## ' section whose title starts with heading."""
    m = re.search(r"^## " + re.escape(heading) + r".*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1) if m else ""


def read_design_table(text, layer_names):
    """[(file, layer)] from the indented table of design.md's "## Layers":
    columns apart by two spaces or more; a row that starts with a layer's
    name opens it, the rows below belong to it."""
    rows, layer = [], None
    for line in md_section(text, "Layers").splitlines():
        if not line.startswith("    "):
            continue
        cols = re.split(r"\s{2,}", line.strip())
        if cols[0] in layer_names:
            layer = cols[0]
        rows += [(c, layer) for c in cols if re.fullmatch(FILE_RE, c)]
    return rows


def design_violations(names, rows):
    """Problems of the design table rows against names ({file: layer})."""
    bad, seen = [], {}
    for fname, layer in rows:
        if fname in seen:
            bad.append(f"design table: {fname} listed twice")
        seen[fname] = layer
        if fname not in names:
            bad.append(f"design table: {fname} is not in layers.txt")
        elif names[fname] != layer:
            bad.append(f"design table: {fname} under {layer}, layers.txt says {names[fname]}")
    for fname in sorted(set(names) - set(seen)):
        bad.append(f"design table: {fname} missing")
    return bad


def read_trace(text):
    """[(path, function or None, layer or None)]: the `file.c` and
    `file.c: function` spans of architecture.md's write trace, each with
    the word in parentheses right after it, if any."""
    refs = []
    pat = r"`((?:[\w.-]+/)*" + FILE_RE + r")(?::\s*(\w+))?`(?:\s*\((\w+)\))?"
    for m in re.finditer(pat, md_section(text, "One write")):
        refs.append((m.group(1), m.group(2), m.group(3)))
    return refs


def trace_violations(names, refs, root):
    """Problems of the trace's refs: names is {file: layer} of LogFS, a
    bare file name is LogFS's, one with a folder is relative to root."""
    bad, layers = [], set(names.values())
    for path, func, layer in refs:
        full = os.path.join(root, path if "/" in path else os.path.join("fs", "logfs", path))
        base = os.path.basename(path)
        in_logfs = os.path.dirname(full) == os.path.join(root, "fs", "logfs")
        if not os.path.isfile(full):
            bad.append(f"write trace: {path}: no such file")
            continue
        if func:
            with open(full) as f:
                if not re.search(r"\b" + re.escape(func) + r"\s*\(", f.read()):
                    bad.append(f"write trace: {path}: no {func} in it")
        if layer in layers and (not in_logfs or names.get(base) != layer):
            bad.append(f"write trace: {path} is not in the {layer} layer")
    return bad


def check_docs(root=ROOT):
    """The design table and the write trace against layers.txt."""
    names = layer_of(os.path.join(root, "fs", "logfs", "layers.txt"))
    with open(os.path.join(root, "docs", "logfs-design.md")) as f:
        design = f.read()
    with open(os.path.join(root, "docs", "architecture.md")) as f:
        arch = f.read()
    rows = read_design_table(design, set(names.values()))
    return design_violations(names, rows) + trace_violations(names, read_trace(arch), root)


def logfs_problems(objdir):
    """Every LogFS problem, one line each, named from the repository root."""
    return [f"fs/logfs/{line}" for line in check(objdir)] + check_docs()


def main(argv):
    objdir = argv[1] if len(argv) > 1 else os.path.join(ROOT, "build", "obj", "fs", "logfs")
    if not os.path.isdir(objdir):
        print(f"layercheck: {objdir}: no objects (run make first)", file=sys.stderr)
        return 2
    bad = logfs_problems(objdir)
    for line in bad:
        print(line)
    print(f"layercheck: {len(bad)} violation(s)" if bad else "layercheck: the layers hold")
    return 1 if bad else 0


if __name__ == "__main__":
    import layercheck_top  # the top-level folders: their own module
    sys.exit(max(main(sys.argv), layercheck_top.main(sys.argv[:1])))
