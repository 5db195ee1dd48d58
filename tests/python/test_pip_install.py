"""The package installs offline into a virtual environment (`pip install
--no-build-isolation --no-index ./python`) with any python3 >= 3.9, even
one without setuptools' `wheel` (its build backend is the standard
library's), and the installed copy finds libflashlab.so and the flashlab
program from any directory (the paths recorded at install), or raises
FileNotFoundError naming where it looked.

Prints "test_pip_install: N passed, N failed, N skipped" for tests/run.sh.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "build", "libflashlab.so")
BIN = os.path.join(ROOT, "build", "flashlab")


def _builder():
    """A Python that can make a venv with pip in it (the package's build
    backend, python/flashlab_build.py, needs only the standard library:
    neither setuptools nor wheel).  This one, else Debian's, else None."""
    probe = "import venv, ensurepip"
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", probe],
                                                 capture_output=True).returncode == 0:
            return py
    return None


PY = _builder()


@unittest.skipUnless(PY, "no Python with setuptools, wheel and venv to build with")
class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="flashlab-install-")
        cls.venv = os.path.join(cls.tmp, "venv")
        # no --system-site-packages: a venv with nothing but pip (and
        # whatever setuptools ensurepip brings, without wheel) builds it
        subprocess.run([PY, "-m", "venv", cls.venv], check=True, capture_output=True,
                       timeout=300)
        cls.py = os.path.join(cls.venv, "bin", "python")
        cls.env = {k: v for k, v in os.environ.items()
                   if k not in ("PYTHONPATH", "FLASHLAB_LIB", "FLASHLAB_BIN", "PIP_INDEX_URL")}
        cls.env["PIP_NO_INDEX"] = "1"
        cls.env["PYTHONDONTWRITEBYTECODE"] = "1"
        # pip builds in the source tree: build it from a copy, so that the
        # repository gets no build/ or egg-info directories
        src = os.path.join(cls.tmp, "src", "python")
        shutil.copytree(os.path.join(ROOT, "python"), src,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        # the copy is not beside build/: say where the library and the program are
        env = dict(cls.env, FLASHLAB_LIB=LIB, FLASHLAB_BIN=BIN)
        cls.pip = subprocess.run([cls.py, "-m", "pip", "install", "--no-build-isolation",
                                  "--no-index", "--disable-pip-version-check", src],
                                 env=env, capture_output=True, text=True, timeout=600)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_py(self, code, **env):
        return subprocess.run([self.py, "-c", code], env=dict(self.env, **env), cwd=self.tmp,
                              capture_output=True, text=True, timeout=300)

    def test_installs_offline(self):
        self.assertEqual(self.pip.returncode, 0, self.pip.stdout + self.pip.stderr)

    def test_installed_copy_finds_the_library_from_anywhere(self):
        self.assertEqual(self.pip.returncode, 0, self.pip.stderr)
        p = self.run_py("import flashlab, flashlab._lib as l, os\n"
                        "print(os.path.dirname(flashlab.__file__))\n"
                        "print(l.lib_path())\n"
                        "with flashlab.Device.create(blocks=8, pages=4, page_size=512) as d:\n"
                        "    d.program(1, 0, b'x'); print(d.read(1, 0)[:1])\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        pkg, lib, data = p.stdout.split("\n")[:3]
        self.assertTrue(pkg.startswith(self.venv), pkg)  # the installed copy
        self.assertEqual(lib, LIB)                       # recorded at install
        self.assertEqual(data, "b'x'")

    def test_installed_copy_finds_the_program(self):
        """experiment.run() runs the program recorded at install, not one
        under site-packages."""
        self.assertEqual(self.pip.returncode, 0, self.pip.stderr)
        p = self.run_py("import flashlab.experiment as e\n"
                        "print(e.flashlab_bin()); print(e.available())\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        exe, avail = p.stdout.split("\n")[:2]
        self.assertEqual(exe, BIN)
        self.assertEqual(avail, "(True, '')")
        # with nothing recorded or built, `flashlab` on PATH
        d = os.path.join(self.tmp, "pathbin")
        os.makedirs(d, exist_ok=True)
        link = os.path.join(d, "flashlab")
        if not os.path.exists(link):
            os.symlink(BIN, link)
        p = self.run_py("import flashlab._install_paths as p, flashlab.experiment as e\n"
                        "p.BIN_PATH = None\n"
                        "print(e.flashlab_bin())\n", PATH=d + os.pathsep + "/usr/bin:/bin")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), link)

    def test_missing_library_is_a_file_not_found_error(self):
        self.assertEqual(self.pip.returncode, 0, self.pip.stderr)
        missing = os.path.join(self.tmp, "nowhere", "libflashlab.so")
        p = self.run_py("import flashlab\n"
                        "try:\n"
                        "    flashlab.Device.create(blocks=8, pages=4, page_size=512)\n"
                        "except FileNotFoundError as e:\n"
                        "    print('FileNotFoundError', e)\n", FLASHLAB_LIB=missing)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("FileNotFoundError", p.stdout)
        self.assertIn(missing, p.stdout)

    def test_the_error_lists_every_place_looked_in(self):
        import importlib
        sys.path.insert(0, os.path.join(ROOT, "python"))
        try:
            lib = importlib.import_module("flashlab._lib")
        finally:
            sys.path.pop(0)
        saved = os.environ.pop("FLASHLAB_LIB", None)
        try:
            cands = lib.lib_candidates()
        finally:
            if saved is not None:
                os.environ["FLASHLAB_LIB"] = saved
        self.assertIn(LIB, cands)
        self.assertIn("/usr/local/lib/libflashlab.so", cands)
        os.environ["FLASHLAB_LIB"] = "/nowhere/libflashlab.so"
        try:
            self.assertEqual(lib.lib_candidates(), ["/nowhere/libflashlab.so"])
        finally:
            if saved is None:
                del os.environ["FLASHLAB_LIB"]
            else:
                os.environ["FLASHLAB_LIB"] = saved


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    bad = len(result.failures) + len(result.errors)
    print(f"test_pip_install: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, "
          f"{len(result.skipped)} skipped")
    sys.exit(1 if bad else 0)
