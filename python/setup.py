"""Install hook for pyproject.toml: records at install time where
libflashlab.so is, in flashlab/_install_paths.py (LIB_PATH), so that the
installed package finds the library from any directory: $FLASHLAB_LIB
when set, else the repository's build/libflashlab.so beside this file.
The package looks there after $FLASHLAB_LIB (flashlab/_lib.py)."""
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _lib_at_install():
    env = os.environ.get("FLASHLAB_LIB")
    if env:
        return os.path.abspath(env)
    built = os.path.normpath(os.path.join(HERE, "..", "build", "libflashlab.so"))
    return built if os.path.exists(built) else None


class BuildPyRecordingLib(build_py):
    def run(self):
        super().run()
        out = os.path.join(self.build_lib, "flashlab", "_install_paths.py")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as f:
            f.write('"""Written by setup.py at install: where libflashlab.so was."""\n')
            f.write("LIB_PATH = %r\n" % _lib_at_install())


setup(cmdclass={"build_py": BuildPyRecordingLib})
