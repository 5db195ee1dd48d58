"""The worked examples in python/examples/ run and print what they say; so
does python/README.md's pandas example, on a small sweep (its query alone
when pandas is not installed: that test is then skipped).

Prints "test_examples: N passed, N failed, N skipped" for tests/run.sh.
"""
import os
import re
import importlib.util
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Examples(unittest.TestCase):
    def test_compare_policies(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        out = subprocess.run([sys.executable, "python/examples/compare_policies.py", "--quick"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = dict(re.findall(r"^(\S+)\s+(\d+\.\d+)\s+\d+\s+[\d.]+ ms$", out.stdout, re.M))
        for policy in ("greedy", "cost-benefit", "cat", "fifo", "random", "window", "d-choices"):
            self.assertIn(policy, rows, out.stdout)
            self.assertGreater(float(rows[policy]), 1.0)
        runs = re.findall(r"^  (\S+)\s+WA (\d+\.\d+)$", out.stdout, re.M)
        self.assertEqual(sorted(p for p, _ in runs), ["cost-benefit", "fifo", "greedy"], out.stdout)


def readme_pandas_example():
    """The python block under "### With pandas" in python/README.md."""
    with open(os.path.join(ROOT, "python", "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("### With pandas"):]
    m = re.search(r"```python\n(.*?)```", section, re.S)
    return m.group(1)


class PandasExample(unittest.TestCase):
    """python/README.md's pandas.read_sql example on a results database of
    2 policies x 2 utilisations x 2 seeds, made here with `flashlab run`
    long enough for every run to settle (so each has a wa_steady)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        exp = os.path.join(cls.tmp.name, "tiny.yaml")
        with open(exp, "w") as f:
            f.write(f"""name: tiny
device: {{file: {ROOT}/configs/devices/test-64m.yaml, blocks_per_plane: 128}}
fs: {{reserve: 4, dirty: 64K, wear_leveling: static}}
workload: {{kind: uniform, utilisation: 0.5}}
stop: {{device_fills: 4}}
seeds: [1, 2]
sweep:
  fs.gc_policy: [greedy, fifo]
  workload.utilisation: [0.4, 0.6]
""")
        cls.db = os.path.join(cls.tmp.name, "demo.db")
        fl = os.environ.get("FLASHLAB_BIN") or os.path.join(ROOT, "build", "flashlab")
        out = subprocess.run([fl, "run", exp, "-j", "2", "-o", cls.db], capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        code = readme_pandas_example()
        assert "results/demo.db" in code, code
        cls.code = code.replace("results/demo.db", cls.db)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_query(self):
        """The example's SQL, without pandas: a row per complete run."""
        sql = re.search(r'pd\.read_sql\("""(.*?)"""', self.code, re.S).group(1)
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        rows = con.execute(sql).fetchall()
        con.close()
        self.assertEqual(len(rows), 8)
        self.assertEqual(sorted({(r[0], r[2]) for r in rows}),
                         [("fifo", 0.4), ("fifo", 0.6), ("greedy", 0.4), ("greedy", 0.6)])
        for policy, wl, target, u, seed, wa_steady, wa in rows:
            self.assertIn(seed, (1, 2))
            self.assertEqual(wl, "static")
            self.assertAlmostEqual(u, target, delta=0.01)
            self.assertIsNotNone(wa_steady)
            self.assertGreaterEqual(wa_steady, 1.0)
            self.assertGreaterEqual(wa, 1.0)

    @unittest.skipUnless(importlib.util.find_spec("pandas"), "pandas is not installed")
    def test_with_pandas(self):
        """The whole example: the seeds' mean, sd and count per setting."""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))  # where pandas was found
        out = subprocess.run([sys.executable, "-c", self.code], cwd=self.tmp.name, env=env,
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        for word in ("mean", "std", "count", "greedy", "fifo"):
            self.assertIn(word, out.stdout)
        got = re.findall(r"(0\.[46])\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+)$", out.stdout, re.M)
        # the reference: each setting's seeds, averaged here
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        want = []
        for policy in ("fifo", "greedy"):      # groupby's order
            for target in (0.4, 0.6):
                was = [r[0] for r in con.execute(
                    "SELECT wa_steady FROM final WHERE gc_policy = ? AND "
                    "json_extract(params, '$.workload.utilisation') = ?", (policy, target))]
                want.append((target, statistics.mean(was), statistics.stdev(was), len(was)))
        con.close()
        self.assertEqual(len(got), len(want), out.stdout)
        for g, w in zip(got, want):   # printed to 3 decimals
            self.assertEqual((float(g[0]), int(g[3])), (w[0], w[3]), out.stdout)
            self.assertAlmostEqual(float(g[1]), w[1], delta=0.0006, msg=out.stdout)
            self.assertAlmostEqual(float(g[2]), w[2], delta=0.0006, msg=out.stdout)

if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    bad = len(result.failures) + len(result.errors)
    print(f"test_examples: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, "
          f"{len(result.skipped)} skipped")
    sys.exit(1 if bad else 0)
