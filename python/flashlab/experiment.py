"""Running an experiment YAML with the `flashlab run` CLI.

    from flashlab.experiment import run
    from flashlab.results import Results
    db = run("configs/experiments/wa.yaml", db="/tmp/wa.db", jobs=2)
    with Results(db) as r:
        ...

This module only builds the command line `flashlab run EXPERIMENT.yaml
[-o DB] [-j N]` and runs it; the experiment format and the runner are the
CLI's.  The binary is $FLASHLAB_BIN, else build/flashlab of the repository
this package sits in, else the one recorded when the package was installed
(flashlab/_install_paths.py), else `flashlab` on $PATH.
"""

import os
import re
import shutil
import subprocess

__all__ = ["run", "available", "flashlab_bin", "bin_candidates", "ExperimentError"]

_REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class ExperimentError(RuntimeError):
    """`flashlab run` failed; returncode, stdout and stderr say how."""

    def __init__(self, message, returncode=None, stdout="", stderr=""):
        super().__init__(message)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def _recorded_bin():
    """The program's path recorded at install, or None."""
    try:
        from . import _install_paths  # written by flashlab_build.py at install
    except ImportError:
        return None
    return getattr(_install_paths, "BIN_PATH", None) or None


def bin_candidates():
    """Where flashlab_bin() looks, in order: $FLASHLAB_BIN alone when set;
    else build/flashlab of the repository this package sits in (a source
    checkout), the path recorded at install, and `flashlab` on $PATH."""
    env = os.environ.get("FLASHLAB_BIN")
    if env:
        return [os.path.abspath(env)]
    cands = [os.path.join(_REPO, "build", "flashlab")]
    for c in (_recorded_bin(), shutil.which("flashlab")):
        if c and c not in cands:
            cands.append(c)
    return cands


def flashlab_bin():
    """The first of bin_candidates() that is an executable file (the first
    candidate when none is, so that the error names it)."""
    cands = bin_candidates()
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return cands[0]


def available():
    """(True, "") when `flashlab run --help` succeeds, else (False, why)."""
    exe = flashlab_bin()
    if not os.access(exe, os.X_OK):
        return False, ("flashlab not found or not executable (looked in: %s); run `make`, "
                       "or set FLASHLAB_BIN" % ", ".join(bin_candidates()))
    try:
        p = subprocess.run([exe, "run", "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return False, "%s run --help: %s" % (exe, e)
    if p.returncode != 0:
        why = (p.stderr or p.stdout).strip().splitlines()
        return False, "`flashlab run --help` exited %d%s" % (
            p.returncode, ": " + why[0] if why else "")
    return True, ""


_NAME = re.compile(r"""^name:[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s#]+))""", re.M)


def default_db(experiment_yaml):
    """results/NAME.db under the current directory, as the CLI's default:
    NAME is the experiment's top-level `name:` (read with a regular
    expression, not a YAML parser), else the file's stem."""
    path = os.fspath(experiment_yaml)
    name = None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            m = _NAME.search(f.read(1 << 20))
        if m:
            name = next(g for g in m.groups() if g)
    except OSError:
        pass
    if not name or "/" in name:
        name = os.path.splitext(os.path.basename(path))[0]
    return os.path.join("results", name + ".db")


def run(experiment_yaml, db=None, jobs=None, extra_args=(), timeout=None, quiet=True):
    """Run `flashlab run EXPERIMENT.yaml -o DB [-j N]` and return DB's path.

    db defaults to default_db(experiment_yaml), results/NAME.db like the
    CLI (its directory is made);
    -o is always passed, so the path returned is the one the CLI wrote.
    quiet=True captures the CLI's output (in the exception on failure);
    quiet=False lets it through to this process's stdout/stderr."""
    exe = flashlab_bin()
    if db is None:
        db = default_db(experiment_yaml)
    db = os.fspath(db)
    parent = os.path.dirname(db)
    if parent:
        os.makedirs(parent, exist_ok=True)
    cmd = [exe, "run", os.fspath(experiment_yaml), "-o", db]
    if jobs is not None:
        cmd += ["-j", str(int(jobs))]
    cmd += [str(a) for a in extra_args]
    pipe = subprocess.PIPE if quiet else None
    try:
        p = subprocess.run(cmd, stdout=pipe, stderr=pipe, text=True, timeout=timeout)
    except OSError as e:
        raise ExperimentError("cannot run %s: %s" % (exe, e)) from e
    except subprocess.TimeoutExpired as e:
        raise ExperimentError("%s timed out after %ss" % (" ".join(cmd), timeout)) from e
    if p.returncode != 0:
        msg = (p.stderr or "").strip() if quiet else ""
        raise ExperimentError("%s exited %d%s" % (" ".join(cmd), p.returncode,
                                                  ": " + msg if msg else ""),
                              p.returncode, p.stdout or "", p.stderr or "")
    return db
