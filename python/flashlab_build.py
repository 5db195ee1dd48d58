"""The package's build backend (PEP 517), in the standard library alone, so
that `pip install --no-build-isolation ./python` works offline with any
python3 >= 3.9: no setuptools and no wheel package needed (setuptools <
70.1 without `wheel` fails with "invalid command 'bdist_wheel'", as a
python3 that is not Debian's, with no python3-wheel, does).

The wheel holds flashlab/*.py and flashlab/_install_paths.py, written here:
where libflashlab.so and the flashlab program were at install time
(LIB_PATH, BIN_PATH: $FLASHLAB_LIB / $FLASHLAB_BIN when set, else the
repository's build/ beside this file, else None), so that the installed
package finds both from any directory.  Name, version, summary and
requires-python come from pyproject.toml's [project] table.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "flashlab"


def _project():
    """{name, version, description, requires-python} from pyproject.toml
    (a simple reader: tomllib is Python 3.11+)."""
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    table = re.search(r"^\[project\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S).group(1)
    meta = dict(re.findall(r'^([A-Za-z-]+)\s*=\s*"([^"]*)"\s*$', table, re.M))
    for key in ("name", "version"):
        if key not in meta:
            raise ValueError("pyproject.toml: [project] has no %s" % key)
    return meta


def _recorded(env, name):
    """$env when set, else build/NAME of the repository, else None."""
    if os.environ.get(env):
        return os.path.abspath(os.environ[env])
    built = os.path.normpath(os.path.join(HERE, "..", "build", name))
    return built if os.path.exists(built) else None


def _files():
    """(archive name, bytes) of the package's files."""
    src = os.path.join(HERE, PACKAGE)
    out = []
    for name in sorted(os.listdir(src)):
        if name.endswith(".py") and name != "_install_paths.py":
            with open(os.path.join(src, name), "rb") as f:
                out.append(("%s/%s" % (PACKAGE, name), f.read()))
    paths = ('"""Written by python/flashlab_build.py at install: where the library\n'
             'and the program were."""\n'
             "LIB_PATH = %r\nBIN_PATH = %r\n" % (_recorded("FLASHLAB_LIB", "libflashlab.so"),
                                                 _recorded("FLASHLAB_BIN", "flashlab")))
    out.append(("%s/_install_paths.py" % PACKAGE, paths.encode()))
    return out


def _metadata(meta):
    lines = ["Metadata-Version: 2.1", "Name: %s" % meta["name"], "Version: %s" % meta["version"]]
    if meta.get("description"):
        lines.append("Summary: %s" % meta["description"])
    if meta.get("requires-python"):
        lines.append("Requires-Python: %s" % meta["requires-python"])
    return ("\n".join(lines) + "\n").encode()


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _dist_info(meta):
    return "%s-%s.dist-info" % (meta["name"], meta["version"])


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    meta = _project()
    d = os.path.join(metadata_directory, _dist_info(meta))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "wb") as f:
        f.write(_metadata(meta))
    return _dist_info(meta)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    meta = _project()
    info = _dist_info(meta)
    files = _files() + [
        ("%s/METADATA" % info, _metadata(meta)),
        ("%s/WHEEL" % info, b"Wheel-Version: 1.0\nGenerator: flashlab_build\n"
                            b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
        ("%s/top_level.txt" % info, ("%s\n" % PACKAGE).encode()),
    ]
    record = [_record_line(n, d) for n, d in files] + ["%s/RECORD,," % info]
    files.append(("%s/RECORD" % info, ("\n".join(record) + "\n").encode()))
    name = "%s-%s-py3-none-any.whl" % (meta["name"], meta["version"])
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            z.writestr(zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0)), d)
    return name


def build_sdist(sdist_directory, config_settings=None):
    meta = _project()
    base = "%s-%s" % (meta["name"], meta["version"])
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ["pyproject.toml", "flashlab_build.py", "README.md"] + [
                n for n, _ in _files() if not n.endswith("_install_paths.py")]:
            path = os.path.join(HERE, rel)
            if os.path.exists(path):
                t.add(path, arcname="%s/%s" % (base, rel))
        pkg_info = _metadata(meta)
        ti = tarfile.TarInfo("%s/PKG-INFO" % base)
        ti.size = len(pkg_info)
        t.addfile(ti, io.BytesIO(pkg_info))
    return name
