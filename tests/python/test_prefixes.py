"""Every symbol the static library exports starts with its folder's module
prefix, so that a program can link flashlab beside another C library
(littlefs, Dhara, ...) without a clash (issue #28 item 6).

PREFIXES below is the one table of the allowed prefixes; the folders are the
Makefile's LIB_DIRS.  A folder without a row fails too.

Prints "test_prefixes: N passed, N failed, N skipped" for tests/run.sh.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("FLASHLAB_LIB", os.path.join(ROOT, "build", "libflashlab.so"))
BUILD = os.path.dirname(LIB)

# folder -> the prefixes its exported symbols may start with
PREFIXES = {
    "sim": ("nand_", "sim_", "flashlab_"),  # flashlab_crc32*: the library-wide CRC
    "gc": ("gc_", "gcp_"),
    "blk": ("blk_", "ftl_", "inplace_"),
    "fs": ("fs_", "fsapi_"),
    "fs/logfs": ("logfs_", "lfs_", "fsapi_"),  # fsapi_<kind>: the file system's ops table
    "fs/jffs2": ("jffs_", "fsapi_"),
    "fs/blockfs": ("blockfs_", "bf_", "fsapi_"),
    "fs/ftl": ("ftlfs_", "fsapi_"),
    "fsck": ("fsck_", "fk_"),
    "analysis": ("results_", "plot_", "wear_", "gc_model_", "gc_harness_", "wa_steady_"),
    "workloads": ("wl_", "workload_"),
    "workloads/trace": ("trace_",),
    "workloads/experiment": ("exp_", "experiment_", "ydoc_"),
    "experiment": ("exp_", "experiment_", "ydoc_"),  # workloads/experiment, moved
    "api": ("flashlab_",),
}


def lib_dirs():
    with open(os.path.join(ROOT, "Makefile")) as f:
        text = f.read().replace("\\\n", " ")
    return re.search(r"^LIB_DIRS\s*:=\s*(.*)$", text, re.M).group(1).split()


def defined_symbols(path):
    """The global symbols an object file or archive defines."""
    out = subprocess.run(["nm", "-g", "--defined-only", path], capture_output=True,
                         text=True, check=True).stdout
    return {parts[-1] for parts in (l.split() for l in out.splitlines()) if len(parts) == 3}


def symbols_by_folder(build, dirs):
    """{folder: {symbol: object}}, from the objects the archive is made of
    (an archive names its members without their folder); one nm for all."""
    objs = {}
    for d in dirs:
        objdir = os.path.join(build, "obj", d)
        for name in sorted(os.listdir(objdir)) if os.path.isdir(objdir) else []:
            if name.endswith(".o"):
                objs[os.path.join(objdir, name)] = (d, name)
    if not objs:
        return {}
    out = subprocess.run(["nm", "-A", "-g", "--defined-only", *objs], capture_output=True,
                         text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        path, _, rest = line.rpartition(".o:")
        parts = rest.split()
        if path and len(parts) == 3:
            d, name = objs[path + ".o"]
            found.setdefault(d, {})[parts[2]] = name
    return found


def violations(table, found):
    bad = []
    for folder, syms in sorted(found.items()):
        if folder not in table:
            bad.append(f"{folder}/: no row in the prefix table")
            continue
        for sym, obj in sorted(syms.items()):
            if not sym.startswith(table[folder]):
                bad.append(f"{folder}/{obj}: {sym} does not start with "
                           f"{' '.join(table[folder])}")
    return bad


def check(build, dirs):
    """The violations of the archive in BUILD, plus archive symbols no
    object accounts for."""
    found = symbols_by_folder(build, dirs)
    attributed = {s for syms in found.values() for s in syms}
    stray = defined_symbols(os.path.join(build, "libflashlab.a")) - attributed
    return violations(PREFIXES, found) + [f"{s}: in the archive, in no object of LIB_DIRS"
                                          for s in sorted(stray)]


class Checker(unittest.TestCase):
    """The checker itself: it must fail on what it is there to catch."""

    def test_prefixed_passes(self):
        self.assertEqual(violations(PREFIXES, {"sim": {"nand_read": "ops.o"}}), [])

    def test_unprefixed_fails(self):
        bad = violations(PREFIXES, {"sim": {"unprefixed_init": "store.o", "nand_read": "ops.o"}})
        self.assertEqual(bad, ["sim/store.o: unprefixed_init does not start with nand_ sim_ flashlab_"])

    def test_other_folders_prefix_fails(self):
        self.assertEqual(len(violations(PREFIXES, {"gc": {"lfs_gc": "gc.o"}})), 1)

    def test_unknown_folder_fails(self):
        self.assertEqual(violations(PREFIXES, {"newdir": {"x_y": "a.o"}}),
                         ["newdir/: no row in the prefix table"])

    def test_planted_symbol_fails(self):
        """nm end to end: an archive with one unprefixed symbol planted."""
        cc = os.environ.get("CC", "cc")
        if not shutil.which(cc):
            self.skipTest(f"{cc}: not found")
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "obj", "sim"))
            src = os.path.join(tmp, "planted.c")
            with open(src, "w") as f:
                f.write("int nand_fine(void) { return 0; }\n"
                        "int unprefixed_init(void) { return 1; }\n"
                        "static int helper(void) { return 2; }\n"
                        "int sim_uses(void) { return helper(); }\n")
            obj = os.path.join(tmp, "obj", "sim", "planted.o")
            subprocess.run([cc, "-c", src, "-o", obj], check=True)
            subprocess.run(["ar", "rcs", os.path.join(tmp, "libflashlab.a"), obj], check=True)
            self.assertEqual(check(tmp, ["sim"]),
                             ["sim/planted.o: unprefixed_init does not start with nand_ sim_ flashlab_"])


class Library(unittest.TestCase):
    def test_table_covers_lib_dirs(self):
        self.assertEqual([d for d in lib_dirs() if d not in PREFIXES], [])

    def test_every_export_prefixed(self):
        if not os.path.exists(os.path.join(BUILD, "libflashlab.a")):
            self.skipTest(f"{BUILD}/libflashlab.a: not built")
        self.assertEqual(check(BUILD, lib_dirs()), [])


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    bad = len(result.failures) + len(result.errors)
    print(f"test_prefixes: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, "
          f"{len(result.skipped)} skipped")
    sys.exit(1 if bad else 0)
