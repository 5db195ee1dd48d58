#!/usr/bin/env python3
"""Check that the top-level folders keep to their layers (issue #28).

The source of truth is SEES below: which folders each top folder may use.
The Makefile's INC.<folder> include paths must give each folder exactly
those folders (the check reads them and says where they differ), so the
compiler and this check cannot drift apart.

Fails on
  - an upward include: a #include "..." in folder A that resolves (against
    A's own directory, then every -I directory of the Makefile) only to
    folders A may not see;
  - an upward call: an undefined symbol of an object of build/obj/A/ that
    an object of a folder A may not see defines (`nm`);
  - a Makefile INC.<folder> that gives other folders than SEES;
  - a row of docs/architecture.md's folder table that says otherwise;
  - python/flashlab importing anything but the standard library and itself
    (it only loads the library).

    python3 scripts/layercheck_top.py [ROOT [OBJDIR]]   (default: this tree, ROOT/build/obj)

Exit status 0 when clean, 1 with one line per violation.
"""
import ast
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Each folder and the folders directly below it; a folder sees those and,
# through them, everything below.  Folders that do not exist (yet) are
# skipped: blk is the block layer the FTL will add.
SEES = {
    "sim": [],
    "gc": ["sim"],
    "blk": ["gc"],
    "fs": ["blk"],
    "workloads": ["fs"],
    "analysis": ["gc"],
    "experiment": ["workloads", "analysis"],
    "api": ["experiment"],
    "fsck": ["sim"],
    "cli": ["api", "fsck"],
    "python": ["api", "fsck"],  # ctypes: only the library
    "tests": ["cli", "python"],
    "bench": ["cli"],
    "fuzz": ["cli"],
}
# These may use anything (each other too): their includes and calls go
# unchecked; their INC lines must still give every library folder.
FREE = ("tests", "bench", "fuzz")
C_FOLDERS = [f for f in SEES if f != "python"]


def closure(folder):
    """The folders folder may use: itself and everything below it."""
    seen, todo = {folder}, [folder]
    while todo:
        for below in SEES[todo.pop()]:
            if below not in seen:
                seen.add(below)
                todo.append(below)
    return seen


def top_of(path, root):
    """The top folder of path (absolute, or relative to root)."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    return rel.split(os.sep, 1)[0]


def read_inc(root):
    """{folder: [-I directories]} from the Makefile's INC.<folder> lines."""
    raw = {}
    with open(os.path.join(root, "Makefile")) as f:
        for line in f:
            m = re.match(r"^INC\.(\w+)\s*:?=\s*(.*?)\s*(#.*)?$", line)
            if m:
                raw[m.group(1)] = m.group(2)

    def expand(name, depth=0):
        if depth > 20:
            raise ValueError(f"Makefile: INC.{name} refers to itself")
        out = []
        for word in raw.get(name, "").split():
            ref = re.fullmatch(r"\$\(INC\.(\w+)\)", word)
            if ref:
                out += expand(ref.group(1), depth + 1)
            elif word.startswith("-I"):
                out.append(word[2:])
        return out
    return {name: expand(name) for name in raw}


def makefile_violations(root, inc):
    """Where INC.<folder> gives other (existing) folders than SEES."""
    bad = []
    present = {f for f in SEES if os.path.isdir(os.path.join(root, f))}
    for folder in C_FOLDERS:
        if folder not in present:
            continue
        if folder not in inc:
            bad.append(f"Makefile: no INC.{folder} for {folder}/")
            continue
        got = {d.split("/", 1)[0] for d in inc[folder]} & present
        want = closure(folder) & present - {"python"}
        for extra in sorted(got - want):
            bad.append(f"Makefile: INC.{folder} has {extra}/, which {folder}/ may not see")
        for missing in sorted(want - got):
            bad.append(f"Makefile: INC.{folder} lacks {missing}/, which {folder}/ sees")
    return bad


def sources(root, folder):
    """Every .c and .h below root/folder (relative to root)."""
    out = []
    for d, dirs, files in os.walk(os.path.join(root, folder)):
        dirs.sort()
        for fname in sorted(files):
            if fname.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(d, fname), root))
    return out


def include_violations(root, inc):
    """Includes that resolve only to folders the includer may not see."""
    dirs = []
    for paths in inc.values():
        dirs += [d for d in paths if d not in dirs]
    bad = []
    for folder in C_FOLDERS:
        if folder in FREE:
            continue
        allowed = closure(folder)
        for src in sources(root, folder):
            with open(os.path.join(root, src), errors="replace") as f:
                names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)
            for name in names:
                local = os.path.join(root, os.path.dirname(src), name)
                if os.path.exists(local):
                    found = {top_of(local, root)}
                else:
                    found = {top_of(os.path.join(root, d, name), root) for d in dirs
                             if os.path.exists(os.path.join(root, d, name))}
                if found and not found & allowed:
                    where = ", ".join(f"{t}/" for t in sorted(found))
                    bad.append(f"{src}: includes {name} from {where}, which {folder}/ may not see")
    return bad


def read_symbols(objdir, root=ROOT):
    """({symbol: defining top folder}, {object: (folder, undefined symbols)})
    from one `nm -A` over every object below objdir whose source is still in
    root (a build tree keeps the objects of moved or deleted files)."""
    objs = []
    for d, dirs, files in os.walk(objdir):
        dirs.sort()
        objs += [os.path.join(d, f) for f in sorted(files) if f.endswith(".o") and
                 os.path.exists(os.path.join(root, os.path.relpath(d, objdir), f[:-2] + ".c"))]
    defined, undefined = {}, {}
    if not objs:
        return defined, undefined
    out = subprocess.run(["nm", "-A"] + objs, capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        obj, _, rest = line.partition(".o:")  # "DIR/x.o:ADDR T name"
        obj += ".o"
        parts = rest.split()
        folder = os.path.relpath(obj, objdir).split(os.sep, 1)[0]
        if len(parts) == 2 and parts[0] == "U":
            undefined.setdefault(obj, (folder, set()))[1].add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCVW":
            defined.setdefault(parts[2], folder)
    return defined, undefined


def call_violations(objdir, root=ROOT):
    """Objects that use a symbol defined in a folder theirs may not see."""
    defined, undefined = read_symbols(objdir, root)
    bad = []
    for obj, (folder, syms) in sorted(undefined.items()):
        if folder not in SEES or folder in FREE:
            continue
        allowed = closure(folder)
        rel = os.path.relpath(obj, objdir)
        for sym in sorted(syms):
            owner = defined.get(sym)
            if owner and owner not in allowed:
                bad.append(f"{rel}: calls {sym} of {owner}/, which {folder}/ may not see")
    return bad


def python_violations(root):
    """python/flashlab imports only the standard library and itself."""
    pkg = os.path.join(root, "python", "flashlab")
    if not os.path.isdir(pkg):
        return []
    std = set(getattr(sys, "stdlib_module_names", ())) | {"ctypes", "os", "sys"}
    bad = []
    for fname in sorted(os.listdir(pkg)):
        if not fname.endswith(".py"):
            continue
        with open(os.path.join(pkg, fname)) as f:
            tree = ast.parse(f.read(), fname)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                mods = [node.module or ""]
            else:
                continue
            for mod in mods:
                if mod.split(".")[0] not in std | {"flashlab"}:
                    bad.append(f"python/flashlab/{fname}: imports {mod}: "
                               "the package only loads the library")
    return bad


def doc_violations(root):
    """docs/architecture.md's folder table against SEES: each row's "may
    include" column names exactly the folders below it (a third copy of
    the order, so it is checked)."""
    path = os.path.join(root, "docs", "architecture.md")
    if not os.path.exists(path):
        return []
    bad, rows, on = [], 0, False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            on = line.startswith("| folder | may include") or (on and line.startswith("|"))
            cols = line.split("|") if on else []
            m = re.match(r"\s*`(\w+)/`", cols[1]) if len(cols) > 3 else None
            # rows in words ("all of the above", "everything") are not lists
            if not m or m.group(1) not in SEES or (not re.search(r"`\w+/`", cols[2]) and
                                                    "itself" not in cols[2]):
                continue
            rows += 1
            folder = m.group(1)
            said = set(re.findall(r"`(\w+)/`", cols[2]))
            want = closure(folder) - {folder}
            if said != want:
                bad.append(f"docs/architecture.md:{n}: {folder}/ may include "
                           f"{', '.join(sorted(want)) or 'only itself'}, the table says "
                           f"{', '.join(sorted(said)) or 'only itself'}")
    if not rows:
        bad.append("docs/architecture.md: no folder table found")
    return bad


def check(root=ROOT, objdir=None):
    """Every violation, one line each (empty: the layers hold)."""
    objdir = objdir or os.path.join(root, "build", "obj")
    inc = read_inc(root)
    bad = makefile_violations(root, inc) + include_violations(root, inc)
    if os.path.isdir(objdir):
        bad += call_violations(objdir, root)
    return bad + python_violations(root) + doc_violations(root)


def main(argv):
    root = argv[1] if len(argv) > 1 else ROOT
    objdir = argv[2] if len(argv) > 2 else os.path.join(root, "build", "obj")
    if not os.path.isdir(objdir):
        print(f"layercheck_top: {objdir}: no objects (run make first)", file=sys.stderr)
        return 2
    bad = check(root, objdir)
    for line in bad:
        print(line)
    print(f"layercheck_top: {len(bad)} violation(s)" if bad
          else "layercheck_top: the top-level layers hold")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
