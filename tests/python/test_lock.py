#!/usr/bin/env python3
"""The image lock through the Python API (docs/simulator.md, "The image
lock"): Device.open(path, write=True) holds IMAGE.lock until close(); a
second writer -- another session, the CLI -- is refused naming it, a
reader is not.  Prints "test_lock: N passed, N failed, N skipped".
"""
import os
import subprocess
import sys
import tempfile
import unittest

_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
if os.path.join(_ROOT, "python") not in sys.path:
    sys.path.insert(0, os.path.join(_ROOT, "python"))
from flashlab import Device, NandError, _lib  # noqa: E402
from flashlab.experiment import flashlab_bin  # noqa: E402

# another process: a second writer through the library
SECOND = """
import sys
from flashlab import Device, NandError
try:
    Device.open(sys.argv[1], write=True, holder="second").close()
except NandError as e:
    print(e.code, str(e)); sys.exit(3)
"""
# another process: open to read, then save (no lock of its own)
SAVER = """
import sys
from flashlab import Device, NandError
try:
    with Device.open(sys.argv[1]) as d:
        d.save(sys.argv[1])
except NandError as e:
    print(e.code); sys.exit(3)
"""


def run(code, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(_ROOT, "python"))
    return subprocess.run([sys.executable, "-c", code] + list(args), env=env,
                          capture_output=True, text=True, timeout=120)


class TestLock(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="flashlab-lock-")
        self.img = os.path.join(self._tmp.name, "dev.img")
        with Device.create(blocks=64, pages=16, page_size=2048, oob_size=64, seed=3,
                           rber=None) as d:
            d.save(self.img)

    def tearDown(self):
        self._tmp.cleanup()

    def test_a_second_writer_is_refused_naming_the_first(self):
        want = "%s is in use by flashlab Python session (pid %d)" % (self.img, os.getpid())
        with Device.open(self.img, write=True) as d:
            self.assertTrue(os.path.exists(self.img + ".lock"))
            r = run(SECOND, self.img)
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertIn(str(_lib.NAND_E_LOCKED), r.stdout)
            self.assertIn(want, r.stdout)
            r = run(SAVER, self.img)
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertEqual(r.stdout.strip(), str(_lib.NAND_E_LOCKED))
            d.program(5, 0, b"mine")
            d.sync(self.img)  # the holder itself writes
        r = run(SECOND, self.img)  # released by close()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with Device.open(self.img) as d:
            self.assertEqual(d.read(5, 0)[:4], b"mine")

    def test_the_cli_is_refused_too(self):
        exe = flashlab_bin()
        if not os.access(exe, os.X_OK):
            self.skipTest("no flashlab binary at %s" % exe)
        with Device.open(self.img, write=True, holder="my session"):
            r = subprocess.run([exe, "sim", "corrupt", self.img, "age", "--hours", "1"],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 1)
            self.assertIn("flashlab sim corrupt: %s is in use by my session (pid %d)"
                          % (self.img, os.getpid()), r.stderr)
            r = subprocess.run([exe, "sim", "info", self.img], capture_output=True,
                               text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("warning: %s is in use by my session" % self.img, r.stderr)

    def test_a_missing_image_is_an_error_and_leaves_no_lock(self):
        missing = os.path.join(self._tmp.name, "missing.img")
        with self.assertRaises(NandError) as cm:
            Device.open(missing, write=True)
        self.assertEqual(cm.exception.code, _lib.NAND_E_IO)
        self.assertFalse(os.path.exists(missing + ".lock"))


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    bad = len(result.failures) + len(result.errors)
    print(f"test_lock: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, "
          f"{len(result.skipped)} skipped")
    sys.exit(1 if bad else 0)
