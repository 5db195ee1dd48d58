"""The worked examples in python/examples/ run and print what they say.

Prints "test_examples: N passed, N failed, N skipped" for tests/run.sh.
"""
import os
import re
import subprocess
import sys
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


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    bad = len(result.failures) + len(result.errors)
    print(f"test_examples: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, "
          f"{len(result.skipped)} skipped")
    sys.exit(1 if bad else 0)
