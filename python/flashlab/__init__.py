"""flashlab: Python access to the NAND simulator and LogFS of libflashlab.so.

    import flashlab
    dev = flashlab.Device.create(blocks=128, pages=64, page_size=2048)
    flashlab.LogFS.mkfs(dev)
    with flashlab.LogFS.mount(dev, gc_policy="cost-benefit") as fs:
        fs.write_file("/a", b"data")

Modules: device (Device, NandError), fs (FileSystem: any kind of
fs/fsapi.h, through its table; LogFS), results (Results, reading a results
database; needs only sqlite3), experiment (run an experiment YAML with
`flashlab run`).  The library is $FLASHLAB_LIB, else
build/libflashlab.so of this repository; it is loaded at first use.
"""

from .device import Device, NandError, Snapshot
from .fs import (FileSystem, LogFS, NotSupported, mkfs, mount, gc_policies, option_keys,
                 fs_kinds, fs_features)
from .results import Results
from . import experiment

__all__ = ["Device", "NandError", "Snapshot", "FileSystem", "LogFS", "NotSupported",
           "mkfs", "mount", "gc_policies", "option_keys", "fs_kinds", "fs_features",
           "Results", "experiment", "self_check"]


def self_check():
    """Check the ctypes structures against libflashlab.so; see _lib.self_check."""
    from . import _lib
    return _lib.self_check()
