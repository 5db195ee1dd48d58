"""The top-level folders keep to their layers (scripts/layercheck_top.py),
and the check fails on each kind of breach planted in a copy of the tree.

Prints "test_layers_top: N passed, N failed, N skipped" for tests/run.sh.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import layercheck_top as top  # noqa: E402

# the objects of the build under test (tests/run.sh sets FLASHLAB_LIB)
LIB = os.environ.get("FLASHLAB_LIB", os.path.join(ROOT, "build", "libflashlab.so"))
OBJDIR = os.path.join(os.path.dirname(LIB), "obj")


def first_c(root, folder):
    """A .c file directly in root/folder, relative to root."""
    name = sorted(f for f in os.listdir(os.path.join(root, folder)) if f.endswith(".c"))[0]
    return os.path.join(folder, name)


class Planted(unittest.TestCase):
    """A copy of the sources (and of the objects, for calls), one breach at
    a time: the check must name it."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="layers_top.")
        keep = lambda d, names: [n for n in names if not n.endswith((".c", ".h", ".py"))
                                 and not os.path.isdir(os.path.join(d, n))]
        for folder in top.SEES:
            if os.path.isdir(os.path.join(ROOT, folder)):
                shutil.copytree(os.path.join(ROOT, folder), os.path.join(cls.tmp, folder),
                                ignore=keep)
        shutil.copy(os.path.join(ROOT, "Makefile"), cls.tmp)
        os.mkdir(os.path.join(cls.tmp, "docs"))
        shutil.copy(os.path.join(ROOT, "docs", "architecture.md"), os.path.join(cls.tmp, "docs"))
        cls.empty = os.path.join(cls.tmp, "no-objects")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def plant(self, rel, text):
        """Append text to rel of the copy until the test ends."""
        path = os.path.join(self.tmp, rel)
        with open(path) as f:
            old = f.read()
        self.addCleanup(lambda: open(path, "w").write(old))
        with open(path, "w") as f:
            f.write(old + text)

    def expect(self, words, objdir=None):
        bad = top.check(self.tmp, objdir or self.empty)
        self.assertTrue(bad, "the check passed a planted breach")
        self.assertTrue(any(all(w in line for w in words) for line in bad), bad)

    def test_copy_is_clean(self):
        self.assertEqual(top.check(self.tmp, self.empty), [])

    def test_upward_include(self):
        self.plant(first_c(self.tmp, "gc"), '#include "fsapi.h"\n')
        self.expect(["gc/", "fsapi.h", "fs/"])

    def test_analysis_includes_fs(self):
        self.plant(first_c(self.tmp, "analysis"), '#include "logfs/logfs.h"\n')
        self.expect(["analysis/", "logfs/logfs.h", "fs/"])

    def test_fsck_includes_fs(self):
        self.plant(first_c(self.tmp, "fsck"), '#include "fsapi.h"\n')
        self.expect(["fsck/", "fsapi.h", "fs/"])

    def test_workloads_include_experiment(self):
        self.plant(first_c(self.tmp, "workloads"), '#include "experiment.h"\n')
        self.expect(["workloads/", "experiment.h", "experiment/"])

    def test_upward_call(self):
        if not os.path.isdir(OBJDIR):
            self.skipTest(f"{OBJDIR}: not built")
        objs = os.path.join(self.tmp, "obj")
        shutil.copytree(OBJDIR, objs, ignore=shutil.ignore_patterns("*.d"))
        self.addCleanup(shutil.rmtree, objs)
        src = os.path.join(self.tmp, "gc", "planted.c")
        with open(src, "w") as f:
            f.write("const void *fsapi_find(const char *name);\n"
                    "const void *gc_planted(void) { return fsapi_find(\"logfs\"); }\n")
        self.addCleanup(os.remove, src)
        subprocess.run(["cc", "-c", src, "-o", os.path.join(objs, "gc", "planted.o")],
                       check=True)
        self.expect(["gc/planted.o", "fsapi_find", "fs/"], objs)

    def test_makefile_drift(self):
        path = os.path.join(self.tmp, "Makefile")
        with open(path) as f:
            old = f.read()
        self.addCleanup(lambda: open(path, "w").write(old))
        with open(path, "w") as f:
            f.write(old.replace("INC.analysis  := $(INC.gc)", "INC.analysis  := $(INC.fs)"))
        self.expect(["INC.analysis", "fs/"])

    def test_doc_table_drift(self):
        path = os.path.join(self.tmp, "docs", "architecture.md")
        with open(path) as f:
            old = f.read()
        self.addCleanup(lambda: open(path, "w").write(old))
        with open(path, "w") as f:
            f.write(old.replace("| `analysis/` | `sim/`, `gc/` |", "| `analysis/` | `sim/` |"))
        self.expect(["docs/architecture.md", "analysis/ may include gc, sim"])

    def test_python_imports(self):
        self.plant(os.path.join("python", "flashlab", "fs.py"), "import layercheck\n")
        self.expect(["python/flashlab/fs.py", "layercheck"])


class RealTree(unittest.TestCase):
    """The real sources, Makefile and objects."""

    def test_layers_hold(self):
        self.assertEqual(top.check(ROOT, OBJDIR), [])

    def test_table_is_the_order(self):
        self.assertEqual(top.closure("fsck"), {"fsck", "sim"})
        self.assertEqual(top.closure("analysis"), {"analysis", "gc", "sim"})
        self.assertIn("analysis", top.closure("experiment"))
        self.assertLess(top.closure("fs"), top.closure("workloads"))
        self.assertIn("blk", top.closure("fs"))
        self.assertNotIn("fsck", top.closure("api"))

    def test_calls_are_read(self):
        if not os.path.isdir(OBJDIR):
            self.skipTest(f"{OBJDIR}: not built")
        defined, undefined = top.read_symbols(OBJDIR)
        self.assertEqual(defined.get("nand_program"), "sim")
        self.assertEqual(defined.get("exp_runner_run"), "experiment")
        uses = {sym for folder, syms in undefined.values() if folder == "cli" for sym in syms}
        self.assertIn("exp_runner_run", uses)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    bad = len(result.failures) + len(result.errors)
    print(f"test_layers_top: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, "
          f"{len(result.skipped)} skipped")
    sys.exit(1 if bad else 0)
