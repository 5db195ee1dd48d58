"""LogFS keeps to its layers (fs/logfs/layers.txt), and the checker that
says so catches what it should.

Prints "test_layers: N passed, N failed, N skipped" for tests/run.sh.
"""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import layercheck  # noqa: E402

# the objects of the build under test (tests/run.sh sets FLASHLAB_LIB)
LIB = os.environ.get("FLASHLAB_LIB", os.path.join(ROOT, "build", "libflashlab.so"))
OBJDIR = os.path.join(os.path.dirname(LIB), "obj", "fs", "logfs")

TABLE = {"low.h": 0, "low.c": 0, "high.h": 1, "high.c": 1, "pub.h": -1, "all.h": None}
FILES = list(TABLE)


class Checker(unittest.TestCase):
    """The checker on made-up graphs: it must fail on each kind of breach."""

    def test_clean_graph_passes(self):
        inc = {"high.c": ["high.h", "low.h", "pub.h"], "low.c": ["low.h", "pub.h"]}
        self.assertEqual(layercheck.violations(TABLE, FILES, inc, {"high.c": {"low.c"}}), [])

    def test_upward_call_fails(self):
        bad = layercheck.violations(TABLE, FILES, {}, {"low.c": {"high.c"}})
        self.assertEqual(bad, ["low.c: calls into high.c, a layer above its own"])

    def test_upward_include_fails(self):
        bad = layercheck.violations(TABLE, FILES, {"low.c": ["high.h"]}, {})
        self.assertEqual(bad, ["low.c: includes high.h, a layer above its own"])

    def test_tests_header_fails(self):
        bad = layercheck.violations(TABLE, FILES, {"high.c": ["all.h"]}, {})
        self.assertEqual(bad, ["high.c: includes all.h, which is for tests only"])

    def test_unlisted_and_missing_files_fail(self):
        bad = layercheck.violations(TABLE, FILES[1:] + ["new.c"], {}, {})
        self.assertEqual(bad, ["new.c: not in the layer table",
                               "low.h: in the layer table but not in the folder"])

    def test_table_parses(self):
        table = layercheck.read_table(os.path.join(ROOT, "fs", "logfs", "layers.txt"))
        self.assertEqual(table["codec.c"], 0)
        self.assertLess(table["segfile.c"], table["tree.c"])
        self.assertLess(table["tree.c"], table["path.c"])
        self.assertLess(table["path.c"], table["super.c"])
        self.assertEqual(table["logfs.h"], -1)
        self.assertIsNone(table["lfs.h"])


NAMES = {"low.h": "low", "low.c": "low", "high.c": "high"}
DESIGN = """## Layers

    low      low.h      low.c         the low layer's file
    high                high.c        the high layer's file

## Next
"""


class Documents(unittest.TestCase):
    """The documents that repeat layers.txt, on made-up text."""

    def rows(self, text):
        return layercheck.read_design_table(text, {"low", "high"})

    def test_design_table_passes(self):
        self.assertEqual(layercheck.design_violations(NAMES, self.rows(DESIGN)), [])

    def test_design_table_missing_and_misplaced_fail(self):
        text = DESIGN.replace("    low      low.h      low.c", "    low      low.h       ")
        text = text.replace("high.c", "low.c ")
        bad = layercheck.design_violations(NAMES, self.rows(text))
        self.assertEqual(bad, ["design table: low.c under high, layers.txt says low",
                               "design table: high.c missing"])

    def test_design_table_unknown_file_fails(self):
        bad = layercheck.design_violations(NAMES, self.rows(DESIGN + "    extra.c  x\n"))
        self.assertEqual(bad, [])  # outside the section: not read
        text = DESIGN.replace("## Next", "                    new.c         new\n## Next")
        bad = layercheck.design_violations(NAMES, self.rows(text))
        self.assertEqual(bad, ["design table: new.c is not in layers.txt"])

    def test_trace_refs_are_read(self):
        text = "## One write\n`area.c: lfs_area_write` (storage) and\n`sim/ops.c`, (x)\n## Next\n`op.c`"
        self.assertEqual(layercheck.read_trace(text),
                         [("area.c", "lfs_area_write", "storage"), ("sim/ops.c", None, None)])

    def test_trace_checks_files_functions_layers(self):
        names = layercheck.layer_of(os.path.join(ROOT, "fs", "logfs", "layers.txt"))
        refs = [("area.c", "lfs_area_write", "storage"), ("sim/ops.c", "nand_program", None),
                ("nosuch.c", None, None), ("area.c", "nand_program", None),
                ("area.c", None, "ops"), ("sim/ops.c", None, "storage")]
        self.assertEqual(layercheck.trace_violations(names, refs, ROOT), [
            "write trace: nosuch.c: no such file",
            "write trace: area.c: no nand_program in it",
            "write trace: area.c is not in the ops layer",
            "write trace: sim/ops.c is not in the storage layer"])


class LogFS(unittest.TestCase):
    """The real sources and objects."""

    def test_layers_hold(self):
        if not os.path.isdir(OBJDIR):
            self.skipTest(f"{OBJDIR}: not built")
        self.assertEqual(layercheck.check(OBJDIR), [])

    def test_documents_agree(self):
        self.assertEqual(layercheck.check_docs(), [])

    def test_call_graph_is_read(self):
        if not os.path.isdir(OBJDIR):
            self.skipTest(f"{OBJDIR}: not built")
        calls = layercheck.read_calls(OBJDIR)
        # known edges: the commit writes the anchor; the ops end in a commit
        self.assertIn("anchor.c", calls["commit.c"])
        self.assertIn("commit.c", calls["op.c"])
        # the declared hook: storage reaches the tree only through pointers
        self.assertNotIn("tree.c", calls["segfile.c"])
        self.assertIn("tree.c", calls["super.c"])  # which installs them


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    bad = len(result.failures) + len(result.errors)
    print(f"test_layers: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, "
          f"{len(result.skipped)} skipped")
    sys.exit(1 if bad else 0)
