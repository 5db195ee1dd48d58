"""Loading libflashlab.so and declaring its C API for ctypes.

The library describes its own public structs (api/layout.h): for each its
sizeof and alignment, for each member its offsetof, sizeof, kind and exact
type (signed or unsigned integer, float, char, string, pointer, nested
struct or pointer to one, with an array's element count), and the values
of its enums and constants.  The ctypes Structure classes below are built
from that table when the library is loaded (``get()``): this file names
them (NandConfig is struct nand_config) and nothing more, so a member added
to a C struct and its line in api/layout.c is seen here without an edit.
Only the function signatures (_PROTOS, FSAPI_HOOKS) and the three classes
that read the table itself are written by hand.  Every class is then
checked against the table -- same field names in the same order, same
offsets, sizes and kinds, same total size and alignment -- and so is every
constant below; a mismatch (say a packed struct that ctypes would lay out
otherwise) raises LayoutError naming the struct and the field (or the
constant) before anything else uses the library.

``self_check()`` (run by the tests) repeats the comparison and also
round-trips a YAML device file with a distinct value in every field through
``nand_config_load`` and ``nand_create`` + ``nand_get_config``.

The library is loaded lazily by ``get()`` so that the pure-Python parts of
the package (flashlab.results) work without it; a class built from the
table loads it when its first instance is made.
"""

import ctypes
import errno
import os
import stat
import tempfile
from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_float,
                    c_int, c_int8, c_int16, c_int32, c_int64, c_longdouble, c_size_t,
                    c_uint, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

__all__ = ["get", "lib_path", "lib_candidates", "self_check", "layout", "constants", "check_struct",
           "struct_class", "fsapi_hook", "LibraryNotFound", "LayoutError"]


class LibraryNotFound(FileNotFoundError):
    """libflashlab.so could not be found or loaded (a FileNotFoundError,
    whose message names every place looked in)."""


class LayoutError(RuntimeError):
    """A ctypes structure does not match the C layout."""


# ---- sim/nand.h -------------------------------------------------------------
# The constants are needed before the library is loaded (device.py and fs.py
# build tables of them at import); get() checks each against the library.

NAND_OK = 0
NAND_E_INVAL = -1
NAND_E_ADDR = -2
NAND_E_NOT_ERASED = -3
NAND_E_ORDER = -4
NAND_E_NOP = -5
NAND_E_PROGRAM_FAIL = -6
NAND_E_ERASE_FAIL = -7
NAND_E_ECC = -8
NAND_E_POWER = -9
NAND_E_NOMEM = -10
NAND_E_IO = -11
NAND_E_CORRUPT = -12
NAND_E_BUSY = -13
NAND_E_LOCKED = -14

NAND_SLC, NAND_MLC, NAND_TLC = 1, 2, 3
NAND_OP_READ, NAND_OP_PROGRAM, NAND_OP_ERASE = 0, 1, 2
(NAND_CORRUPT_FLIP, NAND_CORRUPT_BEYOND, NAND_CORRUPT_UNCORRECTABLE, NAND_CORRUPT_WIPE,
 NAND_CORRUPT_TEAR, NAND_CORRUPT_BAD, NAND_CORRUPT_AGE, NAND_CORRUPT_SILENT) = range(1, 9)

c_enum = c_int  # C enums of these small values are int-sized


class _TableStruct(Structure):
    """A struct whose _fields_ the layout table gives (see _build): the
    classes below only name their C struct."""

    def __new__(cls, *args, **kw):
        if "_fields_" not in cls.__dict__:
            get()  # builds every class of the table
        return super().__new__(cls, *args, **kw)


class NandGeometry(_TableStruct):
    _c_struct_ = "nand_geometry"


class NandTiming(_TableStruct):
    _c_struct_ = "nand_timing"


class NandRberModel(_TableStruct):
    _c_struct_ = "nand_rber_model"


class NandEcc(_TableStruct):
    _c_struct_ = "nand_ecc"


class NandConfig(_TableStruct):
    _c_struct_ = "nand_config"


class NandResult(_TableStruct):
    _c_struct_ = "nand_result"


class NandOp(_TableStruct):
    _c_struct_ = "nand_op"


class NandBlockInfo(_TableStruct):
    _c_struct_ = "nand_block_info"


class NandStats(_TableStruct):
    _c_struct_ = "nand_stats"


class NandCorrupt(_TableStruct):
    _c_struct_ = "nand_corrupt"


# ---- fs/logfs/logfs.h, fs/fstypes.h, fs/fsapi.h ------------------------------

LOGFS_WL_DYNAMIC, LOGFS_WL_NONE, LOGFS_WL_STATIC = 0, 1, 2
LOGFS_COMPRESS_NONE, LOGFS_COMPRESS_ZLIB, LOGFS_COMPRESS_LZO = 1, 2, 3
LOGFS_OP_READ, LOGFS_OP_WRITE, LOGFS_OP_SYNC, LOGFS_OP_META, LOGFS_OP_KINDS = range(5)
# utimens: "now" and "leave as it is" (utimensat's UTIME_NOW, UTIME_OMIT)
LOGFS_TIME_NOW, LOGFS_TIME_OMIT = -(1 << 63), -(1 << 63) + 1
# allocate's flag (fs/fstypes.h): the size kept
FS_ALLOC_KEEP_SIZE = 1


class LogfsOptions(_TableStruct):
    _c_struct_ = "logfs_options"


class LogfsStat(_TableStruct):
    _c_struct_ = "fs_stat"


class LogfsStatfs(_TableStruct):
    _c_struct_ = "fs_statfs"


class LogfsStats(_TableStruct):
    _c_struct_ = "logfs_stats"


class LogfsLatency(_TableStruct):
    _c_struct_ = "fs_latency"


FsLatency = LogfsLatency  # fs/fstypes.h's name


class Fsapi(_TableStruct):
    """An entry of fs/fsapi.h's table: its name, summary and entry points
    (function pointers, read as c_void_p; fsapi_hook makes them callable)."""
    _c_struct_ = "fsapi"


FsapiHead = Fsapi  # its name when Python read only the head


class FsapiCounter(_TableStruct):
    """One named counter of a mounted fs (struct fsapi's stats)."""
    _c_struct_ = "fsapi_counter"


# fs/fstypes.h, fs/fsapi.h
FS_OP_READ, FS_OP_WRITE, FS_OP_SYNC, FS_OP_META, FS_OP_KINDS = range(5)
FS_TIME_NOW, FS_TIME_OMIT = LOGFS_TIME_NOW, LOGFS_TIME_OMIT
# file attributes (chattr), Linux's FS_*_FL values
FS_FL_SYNC, FS_FL_IMMUTABLE, FS_FL_APPEND, FS_FL_NODUMP, FS_FL_NOATIME = (
    0x08, 0x10, 0x20, 0x40, 0x80)
FSAPI_COUNTERS_MAX = 64
(FSAPI_F_SPECIAL_FILES, FSAPI_F_XATTR, FSAPI_F_COMPRESS, FSAPI_F_FSCK, FSAPI_F_ATTRS,
 FSAPI_F_FAULT_SAFE) = (1 << i for i in range(6))


# int (*)(void *ctx, const char *name, uint64_t ino, uint32_t type): fs_dir_fn
LOGFS_DIR_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p, c_uint64, c_uint32)


# ---- analysis/results.h (writer side; used by the tests) -------------------

RESULTS_RUNNING, RESULTS_COMPLETE, RESULTS_FAILED, RESULTS_INCOMPLETE = range(4)


class ResultsSample(_TableStruct):
    _c_struct_ = "results_sample"


class ResultsMount(_TableStruct):
    _c_struct_ = "results_mount"


class ResultsLatency(_TableStruct):
    _c_struct_ = "results_latency"


class ResultsFault(_TableStruct):
    _c_struct_ = "results_fault"


# ---- api/layout.h: the table itself ----------------------------------------
# Written by hand: they read the table (checked against its own entries).

class LayoutField(Structure):
    _c_struct_ = "flashlab_field"
    _fields_ = [("name", c_char_p), ("offset", c_uint32), ("size", c_uint32),
                ("kind", c_char), ("type", c_char), ("count", c_uint32), ("tag", c_char_p)]


class LayoutStruct(Structure):
    _c_struct_ = "flashlab_struct"
    _fields_ = [("name", c_char_p), ("size", c_uint32), ("align", c_uint32),
                ("nfields", c_uint32), ("fields", POINTER(LayoutField))]


class LayoutEnum(Structure):
    _c_struct_ = "flashlab_enum"
    _fields_ = [("name", c_char_p), ("value", c_int64)]


LAYOUT_VERSION = 2  # FLASHLAB_LAYOUT_VERSION these three classes mirror


# ---- prototypes -------------------------------------------------------------

_P = POINTER
_dev = c_void_p   # nand_dev *
_fs = c_void_p    # logfs *
_res = c_void_p   # struct results *

# name: (restype, [argtypes])
_PROTOS = {
    # sim/nand.h
    "nand_strerror": (c_char_p, [c_int]),
    "nand_config_init": (None, [_P(NandConfig)]),
    "nand_config_finish": (c_int, [_P(NandConfig), c_char_p, c_size_t]),
    "nand_config_load": (c_int, [c_char_p, _P(NandConfig), c_char_p, c_size_t]),
    "nand_blocks": (c_uint64, [_P(NandConfig)]),
    "nand_rber": (c_double, [_P(NandRberModel), c_double, c_double, c_double]),
    "nand_dies": (c_uint64, [_P(NandConfig)]),
    "nand_capacity_bytes": (c_uint64, [_P(NandConfig)]),
    "nand_create": (c_int, [_P(NandConfig), _P(c_void_p)]),
    "nand_open": (c_int, [c_char_p, _P(c_void_p), c_char_p, c_size_t]),
    "nand_open_write": (c_int, [c_char_p, c_char_p, _P(c_void_p), c_char_p, c_size_t]),
    "nand_save": (c_int, [_dev, c_char_p]),
    "nand_sync": (c_int, [_dev, c_char_p]),
    "nand_close": (None, [_dev]),
    "nand_get_config": (_P(NandConfig), [_dev]),
    "nand_read": (c_int, [_dev, c_uint32, c_uint32, c_void_p, c_void_p, _P(NandResult)]),
    "nand_program": (c_int, [_dev, c_uint32, c_uint32, c_void_p, c_void_p, _P(NandResult)]),
    "nand_erase": (c_int, [_dev, c_uint32, _P(NandResult)]),
    "nand_read_col": (c_int, [_dev, c_uint32, c_uint32, c_uint32, c_void_p, c_uint32,
                              _P(NandResult)]),
    "nand_program_col": (c_int, [_dev, c_uint32, c_uint32, c_uint32, c_void_p, c_uint32,
                                 _P(NandResult)]),
    "nand_read_raw": (c_int, [_dev, c_uint32, c_uint32, c_void_p, c_void_p, _P(NandResult)]),
    "nand_is_bad": (c_int, [_dev, c_uint32]),
    "nand_mark_bad": (c_int, [_dev, c_uint32]),
    "nand_export": (c_int, [_dev, c_char_p, c_int, c_char_p, c_size_t]),
    "nand_import": (c_int, [_P(NandConfig), c_char_p, c_int, _P(c_void_p), c_char_p,
                            c_size_t]),
    "nand_submit": (c_int, [_dev, _P(NandOp)]),
    "nand_wait": (c_uint64, [_dev]),
    "nand_now": (c_uint64, [_dev]),
    "nand_advance": (None, [_dev, c_uint64]),
    "nand_cut_at_time": (None, [_dev, c_uint64]),
    "nand_cut_after_ops": (None, [_dev, c_uint64, c_double]),
    "nand_cut_disarm": (None, [_dev]),
    "nand_power_cut": (None, [_dev]),
    "nand_is_powered": (c_int, [_dev]),
    "nand_power_on": (None, [_dev]),
    "nand_snapshot_take": (c_int, [_dev, _P(c_void_p)]),
    "nand_snapshot_restore": (c_int, [_dev, c_void_p]),
    "nand_snapshot_free": (None, [c_void_p]),
    "nand_block_info": (c_int, [_dev, c_uint32, _P(NandBlockInfo)]),
    "nand_set_wear": (c_int, [_dev, c_uint32, c_uint64]),
    "nand_get_stats": (None, [_dev, _P(NandStats)]),
    "nand_reset_stats": (None, [_dev]),
    "nand_corrupt_mode_parse": (c_int, [c_char_p]),
    "nand_corrupt": (c_int, [_dev, _P(NandCorrupt), c_char_p, c_size_t]),
    # fsck/fsck.h: the page map of media-fault campaigns (docs/faults.md)
    "fsck_page_map": (c_int, [_dev, _P(c_uint8)]),
    "fsck_page_class_name": (c_char_p, [c_int]),
    # fs/fsapi.h (the entry points of an entry: FSAPI_HOOKS)
    "fsapi_at": (_P(Fsapi), [c_size_t]),
    "fsapi_find": (_P(Fsapi), [c_char_p]),
    "fsapi_probe": (_P(Fsapi), [_dev]),
    # fs/logfs/logfs.h
    "logfs_gc_policy_name": (c_char_p, [c_uint, _P(c_char_p)]),
    "logfs_options_parse": (c_int, [_P(LogfsOptions), c_char_p, c_char_p, c_size_t]),
    # analysis/results.h (writer; the Python reader is flashlab.results)
    "results_open": (c_int, [c_char_p, _P(c_void_p), c_char_p, c_size_t]),
    "results_close": (c_int, [_res]),
    "results_error": (c_char_p, [_res]),
    "results_begin_experiment": (c_int, [_res, c_char_p, c_char_p, c_char_p, c_char_p,
                                         _P(c_int64)]),
    "results_begin_run": (c_int, [_res, c_int64, c_int64, c_char_p, c_uint64, c_char_p,
                                  _P(c_int64)]),
    "results_end_run": (c_int, [_res, c_int64, c_enum, c_char_p]),
    "results_add_sample": (c_int, [_res, c_int64, _P(ResultsSample)]),
    "results_add_erase_counts": (c_int, [_res, c_int64, c_int64, _P(c_uint32), c_uint32]),
    "results_add_mount": (c_int, [_res, c_int64, _P(ResultsMount)]),
    "results_add_latency": (c_int, [_res, c_int64, _P(ResultsLatency)]),
    "results_add_fault": (c_int, [_res, c_int64, _P(ResultsFault)]),
    "results_set_kv": (c_int, [_res, c_int64, c_char_p, c_double]),
    "results_set_kv_text": (c_int, [_res, c_int64, c_char_p, c_char_p]),
    "results_flush": (c_int, [_res]),
    "results_status_name": (c_char_p, [c_enum]),
    # api/layout.h
    "flashlab_layout_version": (c_int, []),
    "flashlab_layout": (_P(LayoutStruct), [c_size_t]),
    "flashlab_enum_at": (_P(LayoutEnum), [c_size_t]),
}

# The signatures of struct fsapi's entry points (fs/fsapi.h), by member name.
FSAPI_HOOKS = {
    "check_options": (c_int, [c_char_p, c_char_p, c_size_t]),
    "option_help": (c_char_p, [c_uint, _P(c_char_p)]),
    "mkfs": (c_int, [_dev, c_char_p]),
    "probe": (c_int, [_dev]),
    "mount": (c_int, [_dev, c_char_p, _P(c_void_p)]),
    "unmount": (c_int, [_fs]),
    "sync": (c_int, [_fs]),
    "open": (c_int, [_fs, c_char_p, c_int, c_uint32]),
    "close": (c_int, [_fs, c_int]),
    "pread": (c_int64, [_fs, c_int, c_void_p, c_uint64, c_uint64]),
    "pwrite": (c_int64, [_fs, c_int, c_void_p, c_uint64, c_uint64]),
    "ftruncate": (c_int, [_fs, c_int, c_uint64]),
    "punch": (c_int, [_fs, c_int, c_uint64, c_uint64]),
    "fsync": (c_int, [_fs, c_int]),
    "stat": (c_int, [_fs, c_char_p, _P(LogfsStat)]),
    "lstat": (c_int, [_fs, c_char_p, _P(LogfsStat)]),
    "fstat": (c_int, [_fs, c_int, _P(LogfsStat)]),
    "mkdir": (c_int, [_fs, c_char_p, c_uint32]),
    "mknod": (c_int, [_fs, c_char_p, c_uint32, c_uint64]),
    "getxattr": (c_int64, [_fs, c_char_p, c_char_p, c_void_p, c_uint64]),
    "setxattr": (c_int, [_fs, c_char_p, c_char_p, c_char_p, c_uint64, c_int]),
    "listxattr": (c_int64, [_fs, c_char_p, c_void_p, c_uint64]),
    "removexattr": (c_int, [_fs, c_char_p, c_char_p]),
    "rmdir": (c_int, [_fs, c_char_p]),
    "unlink": (c_int, [_fs, c_char_p]),
    "rename": (c_int, [_fs, c_char_p, c_char_p]),
    "link": (c_int, [_fs, c_char_p, c_char_p]),
    "symlink": (c_int, [_fs, c_char_p, c_char_p]),
    "readlink": (c_int64, [_fs, c_char_p, c_void_p, c_uint64]),
    "readdir": (c_int, [_fs, c_char_p, _P(c_uint64), LOGFS_DIR_FN, c_void_p]),
    "statfs": (c_int, [_fs, _P(LogfsStatfs)]),
    "mem_bytes": (c_uint64, [_fs]),
    "page_map": (c_int, [_dev, _P(c_uint8)]),
    "stats": (c_size_t, [_fs, _P(FsapiCounter), c_size_t]),
    "latency": (c_int, [_fs, c_int, _P(LogfsLatency)]),
    "reset_latency": (None, [_fs]),
    "set_gc_observer": (None, [_fs, c_void_p, c_void_p]),
    "idle": (c_int, [_fs, c_uint64]),
    "scrub": (c_int, [_fs, c_uint64]),
    "block_role": (c_char_p, [_fs, c_uint32]),
    "chmod": (c_int, [_fs, c_char_p, c_uint32]),
    "chown": (c_int, [_fs, c_char_p, c_uint32, c_uint32]),
    "lchown": (c_int, [_fs, c_char_p, c_uint32, c_uint32]),
    "utimens": (c_int, [_fs, c_char_p, c_int64, c_int64]),
    "lutimens": (c_int, [_fs, c_char_p, c_int64, c_int64]),
    "truncate": (c_int, [_fs, c_char_p, c_uint64]),
    "getflags": (c_int, [_fs, c_char_p, _P(c_uint)]),
    "setflags": (c_int, [_fs, c_char_p, c_uint]),
    "format_check": (c_int, [_dev, c_char_p, c_size_t]),
    "check_device": (c_int, [_dev, c_char_p, c_char_p, c_size_t]),
    "rename2": (c_int, [_fs, c_char_p, c_char_p, c_uint]),
    "allocate": (c_int, [_fs, c_int, c_uint64, c_uint64, c_uint]),
}
_hook_types = {}  # name: its CFUNCTYPE


def fsapi_hook(entry, name):
    """Entry point `name` of an fsapi entry (an Fsapi structure) as a
    callable, or None when the fs leaves it NULL (or the library's struct
    fsapi has no such member)."""
    if name not in FSAPI_HOOKS:
        raise KeyError("no signature for fsapi member %r (FSAPI_HOOKS)" % name)
    if name not in dict(type(entry)._fields_):
        return None
    addr = getattr(entry, name)
    if not addr:
        return None
    if name not in _hook_types:
        restype, argtypes = FSAPI_HOOKS[name]
        _hook_types[name] = ctypes.CFUNCTYPE(restype, *argtypes)
    return _hook_types[name](addr)


# The classes built from the table, and the table's own (all checked at load).
_BUILT = (NandGeometry, NandTiming, NandRberModel, NandEcc, NandConfig, NandResult,
          NandOp, NandBlockInfo, NandStats, NandCorrupt, LogfsStat, LogfsStatfs, Fsapi,
          FsapiCounter, LogfsOptions, LogfsStats, LogfsLatency, ResultsSample, ResultsMount,
          ResultsLatency, ResultsFault)
_MIRRORED = _BUILT + (LayoutField, LayoutStruct, LayoutEnum)

# The constants above, each checked against the library's value.
_CONSTANTS = (
    "NAND_OK", "NAND_E_INVAL", "NAND_E_ADDR", "NAND_E_NOT_ERASED", "NAND_E_ORDER",
    "NAND_E_NOP", "NAND_E_PROGRAM_FAIL", "NAND_E_ERASE_FAIL", "NAND_E_ECC",
    "NAND_E_POWER", "NAND_E_NOMEM", "NAND_E_IO", "NAND_E_CORRUPT", "NAND_E_BUSY",
    "NAND_E_LOCKED",
    "NAND_SLC", "NAND_MLC", "NAND_TLC", "NAND_OP_READ", "NAND_OP_PROGRAM", "NAND_OP_ERASE",
    "NAND_CORRUPT_FLIP", "NAND_CORRUPT_BEYOND", "NAND_CORRUPT_UNCORRECTABLE",
    "NAND_CORRUPT_WIPE", "NAND_CORRUPT_TEAR", "NAND_CORRUPT_BAD", "NAND_CORRUPT_AGE",
    "NAND_CORRUPT_SILENT",
    "LOGFS_WL_DYNAMIC", "LOGFS_WL_NONE", "LOGFS_WL_STATIC",
    "LOGFS_COMPRESS_NONE", "LOGFS_COMPRESS_ZLIB", "LOGFS_COMPRESS_LZO",
    "LOGFS_OP_READ", "LOGFS_OP_WRITE", "LOGFS_OP_SYNC", "LOGFS_OP_META", "LOGFS_OP_KINDS",
    "LOGFS_TIME_NOW", "LOGFS_TIME_OMIT",
    "RESULTS_RUNNING", "RESULTS_COMPLETE", "RESULTS_FAILED", "RESULTS_INCOMPLETE",
    "FS_OP_READ", "FS_OP_WRITE", "FS_OP_SYNC", "FS_OP_META", "FS_OP_KINDS",
    "FS_TIME_NOW", "FS_TIME_OMIT", "FSAPI_COUNTERS_MAX",
    "FS_FL_SYNC", "FS_FL_IMMUTABLE", "FS_FL_APPEND", "FS_FL_NODUMP", "FS_FL_NOATIME",
    "FSAPI_F_SPECIAL_FILES", "FSAPI_F_XATTR", "FSAPI_F_COMPRESS", "FSAPI_F_FSCK",
    "FSAPI_F_ATTRS", "FSAPI_F_FAULT_SAFE",
)

# The host's values that the file systems take as they are (fs.py passes
# os.O_*, os.SEEK_* and reads stat.S_IF*): the library must agree with them.
_HOST_CONSTANTS = {
    "O_RDONLY": os, "O_WRONLY": os, "O_RDWR": os, "O_ACCMODE": os, "O_CREAT": os,
    "O_EXCL": os, "O_TRUNC": os, "O_APPEND": os, "O_NOFOLLOW": os, "O_DIRECTORY": os,
    "SEEK_SET": os, "SEEK_CUR": os, "SEEK_END": os,
    "S_IFREG": stat, "S_IFDIR": stat, "S_IFLNK": stat,
}


# ---- loading -------------------------------------------------------------------

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.normpath(os.path.join(_HERE, "..", ".."))
_lib = None


def _recorded_path():
    """The library path recorded when the package was installed
    (python/flashlab_build.py writes flashlab/_install_paths.py), or None."""
    try:
        from . import _install_paths  # written by flashlab_build.py at install
    except ImportError:
        return None
    return getattr(_install_paths, "LIB_PATH", None) or None


def lib_candidates():
    """Where get() looks for the library, in order: $FLASHLAB_LIB alone when
    it is set; else the path recorded at install, build/libflashlab.so of
    the repository this package sits in, and the usual installed
    locations (make install's $PREFIX/lib)."""
    env = os.environ.get("FLASHLAB_LIB")
    if env:
        return [os.path.abspath(env)]
    out = []
    rec = _recorded_path()
    if rec:
        out.append(rec)
    out.append(os.path.join(_REPO, "build", "libflashlab.so"))
    for d in ("/usr/local/lib", "/usr/lib", "/usr/lib/x86_64-linux-gnu",
              "/usr/lib/aarch64-linux-gnu"):
        out.append(os.path.join(d, "libflashlab.so"))
    seen = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def lib_path():
    """The library that get() loads: the first of lib_candidates() that
    exists (the first of them when none does)."""
    cands = lib_candidates()
    for p in cands:
        if os.path.exists(p):
            return p
    return cands[0]


def _declare(lib):
    for name, (restype, argtypes) in _PROTOS.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def get():
    """The loaded library, its prototypes declared and its layouts checked
    (loaded on first use; LayoutError if a class here disagrees with it)."""
    global _lib
    if _lib is not None:
        return _lib
    path = lib_path()
    if not os.path.exists(path):
        if os.environ.get("FLASHLAB_LIB"):
            how = "$FLASHLAB_LIB names a missing file"
        else:
            how = ("looked in %s; run `make` in the flashlab repository to build it, "
                   "or set FLASHLAB_LIB to its path" % ", ".join(lib_candidates()))
        raise LibraryNotFound(errno.ENOENT, "flashlab: libflashlab.so not found: %s: %s"
                              % (path, how), path)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise LibraryNotFound("flashlab: cannot load %s: %s (rebuild it with `make`)"
                              % (path, e)) from e
    try:
        _declare(lib)
    except AttributeError as e:
        raise LibraryNotFound("flashlab: %s lacks a function (%s); rebuild it with `make`"
                              % (path, e)) from e
    try:
        _check_library(lib)
    except LayoutError as e:
        raise LayoutError("flashlab: %s: %s (python/flashlab/_lib.py and the library disagree: "
                          "rebuild with `make`, or fix api/layout.c or _lib.py)"
                          % (path, e)) from None
    _lib = lib
    return lib


# ---- layout checks ----------------------------------------------------------

_table = None  # (structs, constants) of the loaded library


def _read_table(lib):
    """({name: {"size", "align", "fields": [(name, offset, size, kind, type,
    count, tag)]}}, {constant: value}) from the library's api/layout.h
    table (tag None but for a struct or a pointer to one)."""
    version = lib.flashlab_layout_version()
    if version != LAYOUT_VERSION:
        raise LayoutError("the library's layout table is version %d, _lib.py reads version %d: "
                          "python/flashlab/_lib.py is out of date with api/layout.h"
                          % (version, LAYOUT_VERSION))
    structs, consts = {}, {}
    i = 0
    while True:
        p = lib.flashlab_layout(i)
        if not p:
            break
        s = p.contents
        fields = [(f.name.decode(), f.offset, f.size, f.kind.decode(), f.type.decode(), f.count,
                   f.tag.decode() if f.tag else None)
                  for f in (s.fields[j] for j in range(s.nfields))]
        structs[s.name.decode()] = {"size": s.size, "align": s.align, "fields": fields}
        i += 1
    i = 0
    while True:
        p = lib.flashlab_enum_at(i)
        if not p:
            break
        consts[p.contents.name.decode()] = p.contents.value
        i += 1
    return structs, consts


# ---- classes from the table -------------------------------------------------

# layout.h's FLASHLAB_TYPE_* and element size: the ctypes type
# (long double first: where it is a double's size, double wins)
_SCALARS = {("f", ctypes.sizeof(c_longdouble)): c_longdouble,
            ("i", 1): c_int8, ("i", 2): c_int16, ("i", 4): c_int32, ("i", 8): c_int64,
            ("u", 1): c_uint8, ("u", 2): c_uint16, ("u", 4): c_uint32, ("u", 8): c_uint64,
            ("b", ctypes.sizeof(c_bool)): c_bool, ("c", 1): c_char,
            ("f", 4): c_float, ("f", 8): c_double,
            ("s", ctypes.sizeof(c_char_p)): c_char_p, ("p", ctypes.sizeof(c_void_p)): c_void_p}

_classes = {cls._c_struct_: cls for cls in _MIRRORED}  # tag: class


def struct_class(tag, table=None):
    """The ctypes class of struct tag, built from the layout table (by
    default the loaded library's).  A struct of the table that this module
    does not name gets a class of its own (CamelCase of its tag)."""
    structs = table if table is not None else layout()
    cls = _classes.get(tag)
    if cls is None:
        if tag not in structs:
            raise LayoutError("struct %s: the library's layout table has no such struct" % tag)
        name = "".join(w.capitalize() for w in tag.split("_"))
        cls = _classes[tag] = type(name, (_TableStruct,), {"_c_struct_": tag})
    if "_fields_" not in cls.__dict__:
        _build(cls, structs, ())
    return cls


def _field_type(where, field, structs, building):
    name, _off, size, _kind, typ, count, tag = field
    n = count or 1
    if typ in ("S", "P"):
        if tag not in structs:
            raise LayoutError("%s: field %r is of struct %s, which the table lacks"
                              % (where, name, tag))
        cls = _classes.get(tag) or struct_class(tag, structs)
        if typ == "S":
            if tag in building:
                raise LayoutError("%s: field %r nests struct %s in itself" % (where, name, tag))
            if "_fields_" not in cls.__dict__:
                _build(cls, structs, building)
            t = cls
        else:
            t = POINTER(cls)  # needs no fields yet: a struct may point to itself
    else:
        t = _SCALARS.get((typ, size // n))
        if t is None or size % n:
            raise LayoutError("%s: field %r: no ctypes type for type %r of %d bytes"
                              % (where, name, typ, size // n))
    return t * count if count else t


def _build(cls, structs, building):
    """Give cls its _fields_ from the table's entry for its tag."""
    tag = cls._c_struct_
    c = structs.get(tag)
    if c is None:
        raise LayoutError("struct %s (ctypes %s): the library's layout table has no such struct"
                          % (tag, cls.__name__))
    where = "struct %s (ctypes %s)" % (tag, cls.__name__)
    cls._fields_ = [(f[0], _field_type(where, f, structs, building + (tag,)))
                    for f in c["fields"]]


def _build_all(structs):
    for tag in structs:
        cls = _classes.get(tag)
        if cls is None or "_fields_" not in cls.__dict__:
            struct_class(tag, structs)


def _kind(ctype):
    """api/layout.h's kind of a ctypes type: 'i' integer, 'f' floating,
    '-' pointer, array or structure."""
    code = getattr(ctype, "_type_", None)
    if isinstance(code, str) and issubclass(ctype, ctypes._SimpleCData):
        if code in "bBhHiIlLqQ?c":
            return "i"
        if code in "fdg":
            return "f"
    return "-"


_KIND_NAMES = {"i": "an integer", "f": "a floating type", "-": "a pointer, array or struct"}


def check_struct(cls, table=None):
    """Compare the ctypes class cls with the C struct its ``_c_struct_``
    names in the library's table (by default the loaded library's); raise
    LayoutError naming the struct and the field on a mismatch.  Returns a
    one-line description of what matched."""
    structs = (table if table is not None else layout())
    cname = getattr(cls, "_c_struct_", None)
    if not cname:
        raise LayoutError("%s names no C struct (_c_struct_)" % cls.__name__)
    where = "struct %s (ctypes %s)" % (cname, cls.__name__)
    c = structs.get(cname)
    if c is None:
        raise LayoutError("%s: the library's layout table has no such struct" % where)
    cfields = c["fields"]
    pyfields = [(f[0], f[1]) for f in cls._fields_]
    cnames = [f[0] for f in cfields]
    pynames = [f[0] for f in pyfields]
    for i in range(max(len(cfields), len(pyfields))):
        if i >= len(pyfields):
            name, off, size = cfields[i][:3]
            raise LayoutError("%s: field %r (offset %d, %d bytes) is missing from ctypes"
                              % (where, name, off, size))
        pyname, ctype = pyfields[i]
        if i >= len(cfields):
            raise LayoutError("%s: ctypes field %r is not in the C struct" % (where, pyname))
        name, off, size, kind = cfields[i][:4]
        if pyname != name:
            if pyname in cnames and name in pynames:
                raise LayoutError("%s: field %d is %r in C but %r in ctypes (fields out of order)"
                                  % (where, i, name, pyname))
            if name not in pynames:
                raise LayoutError("%s: field %r (offset %d, %d bytes) is missing from ctypes%s"
                                  % (where, name, off, size,
                                     "" if pyname in cnames else
                                     ", which has %r there" % pyname))
            raise LayoutError("%s: ctypes field %r is not in the C struct (C has %r there)"
                              % (where, pyname, name))
        desc = getattr(cls, pyname)
        if desc.offset != off:
            raise LayoutError("%s: field %r is at offset %d in C, %d in ctypes"
                              % (where, name, off, desc.offset))
        if desc.size != size:
            raise LayoutError("%s: field %r is %d bytes in C, %d in ctypes (%s)"
                              % (where, name, size, desc.size, ctype.__name__))
        if _kind(ctype) != kind:
            raise LayoutError("%s: field %r is %s in C but %s in ctypes (%s)"
                              % (where, name, _KIND_NAMES.get(kind, repr(kind)),
                                 _KIND_NAMES[_kind(ctype)], ctype.__name__))
    size = ctypes.sizeof(cls)
    if size != c["size"]:
        raise LayoutError("%s: sizeof is %d in C, %d in ctypes" % (where, c["size"], size))
    if ctypes.alignment(cls) != c["align"]:
        raise LayoutError("%s: alignment is %d in C, %d in ctypes"
                          % (where, c["align"], ctypes.alignment(cls)))
    return ("sizeof(struct %s) = %d, align %d, %d fields: %s matches"
            % (cname, c["size"], c["align"], len(pyfields), cls.__name__))


def check_constants(consts=None):
    """Compare the constants of this module (and the host's os.O_*,
    os.SEEK_*, stat.S_IF* the file systems take) with the library's; raise
    LayoutError naming the constant on a mismatch.  Returns what matched."""
    consts = consts if consts is not None else constants()
    g = globals()
    for name in _CONSTANTS:
        if name not in consts:
            raise LayoutError("constant %s: not in the library's table" % name)
        if consts[name] != g[name]:
            raise LayoutError("constant %s: %d in C, %d in _lib.py"
                              % (name, consts[name], g[name]))
    host = 0
    for name, module in _HOST_CONSTANTS.items():
        if not isinstance(getattr(module, name, None), int):
            continue  # a platform without it
        if name not in consts:
            raise LayoutError("constant %s: not in the library's table" % name)
        if consts[name] != getattr(module, name):
            raise LayoutError("constant %s: %d in the library, %d in Python's %s module: "
                              "the library was built for another platform"
                              % (name, consts[name], getattr(module, name), module.__name__))
        host += 1
    return ["%d constants (NAND_E_*, NAND_OP_*, LOGFS_WL_*, LOGFS_OP_*, RESULTS_*, FS_OP_*, "
            "FSAPI_F_*) match the library's" % len(_CONSTANTS),
            "%d host constants (O_*, SEEK_*, S_IF*) match os/stat" % host]


def _check_library(lib):
    """At load: read the table, build the classes from it, check every
    class (built or written here) and constant."""
    global _table
    table = _read_table(lib)
    _build_all(table[0])
    for cls in _MIRRORED:
        check_struct(cls, table[0])
    check_constants(table[1])
    _table = table


def layout():
    """{struct tag: {"size", "align", "fields": [(name, offset, size, kind,
    type, count, tag)]}} as the library reports it (api/layout.h)."""
    get()
    return _table[0]


def constants():
    """{name: value} of the constants the library reports (api/layout.h)."""
    get()
    return _table[1]


# A device file with a distinct, valid, nonzero value in every field.
_PROBE_YAML = """\
name: layout-probe-0123456789
cell: mlc
geometry:
  channels: 2
  dies_per_channel: 3
  planes_per_die: 5
  blocks_per_plane: 7
  pages_per_block: 16
  page_size: 1024
  oob_size: 33
nop: 6
pair_distance: 4
timing:
  t_r_ns: 1001
  t_r_upper_ns: 1002
  t_prog_ns: 1003
  t_prog_upper_ns: 1004
  t_bers_ns: 1005
  t_cycle_ns: 1006
  bus_bytes: 2
  addr_cycles: 7
  whole_page_reads: true
endurance: 123457
endurance_sigma: 0.125
endurance_scale: 0.5
initial_pe: 11
factory_bad_fraction: 0.0625
rber: {eps: 1e-10, alpha: 2e-17, k: 2.5, beta: 3e-10, m: 0.25, n: 0.75,
       gamma: 4e-17, p: 0.375, q: 1.875}
ecc:
  codeword_bytes: 256
  correct_bits: 9
seed: 18446744073709551557
dedup: true
compress: true
source: "layout-probe source, 0123456789"
"""

_PROBE_EXPECT = {
    "name": b"layout-probe-0123456789", "cell": NAND_MLC,
    "geo": {"channels": 2, "dies_per_channel": 3, "planes_per_die": 5,
            "blocks_per_plane": 7, "pages_per_block": 16, "page_size": 1024,
            "oob_size": 33},
    "nop": 6, "pair_distance": 4,
    "timing": {"t_r_ns": 1001, "t_r_upper_ns": 1002, "t_prog_ns": 1003,
               "t_prog_upper_ns": 1004, "t_bers_ns": 1005, "t_cycle_ns": 1006,
               "bus_bytes": 2, "addr_cycles": 7, "whole_page_reads": 1},
    "endurance": 123457, "endurance_sigma": 0.125, "endurance_scale": 0.5,
    "initial_pe": 11, "factory_bad_fraction": 0.0625,
    "rber": {"eps": 1e-10, "alpha": 2e-17, "k": 2.5, "beta": 3e-10, "m": 0.25,
             "n": 0.75, "gamma": 4e-17, "p": 0.375, "q": 1.875},
    "ecc": {"codeword_bytes": 256, "correct_bits": 9},
    "seed": 18446744073709551557, "dedup": 1, "compress": 1,
    "source": b"layout-probe source, 0123456789",
}


def _compare(struct, expect, where):
    for name, want in expect.items():
        got = getattr(struct, name)
        if isinstance(want, dict):
            _compare(got, want, where + name + ".")
        elif got != want:
            raise LayoutError("%s%s: expected %r, got %r (layout mismatch?)"
                              % (where, name, want, got))


def self_check():
    """Check the ctypes classes and constants against the library's layout
    table (as get() does at load), and round-trip a YAML device file with a
    distinct value in every field through nand_config_load and nand_create +
    nand_get_config; raise LayoutError on a mismatch.  Returns a list of
    the checks done (for reports)."""
    lib = get()
    done = [check_struct(cls) for cls in _MIRRORED]
    done += check_constants()

    # nand_config: every field through a YAML file and back.
    fd, path = tempfile.mkstemp(suffix=".yaml", prefix="flashlab-probe-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(_PROBE_YAML)
        cfg = NandConfig()
        lib.nand_config_init(cfg)
        err = ctypes.create_string_buffer(512)
        rc = lib.nand_config_load(path.encode(), cfg, err, len(err))
        if rc:
            raise LayoutError("nand_config_load of the probe file failed: %s"
                              % err.value.decode(errors="replace"))
        _compare(cfg, _PROBE_EXPECT, "nand_config_load: ")
    finally:
        os.unlink(path)
    done.append("nand_config_load of a YAML file with a distinct value in each of the "
                "%d leaf fields reads back field by field" % _count_leaves(_PROBE_EXPECT))

    if lib.nand_blocks(cfg) != 2 * 3 * 5 * 7 or lib.nand_dies(cfg) != 6 or \
            lib.nand_capacity_bytes(cfg) != 2 * 3 * 5 * 7 * 16 * 1024:
        raise LayoutError("nand_blocks/nand_dies/nand_capacity_bytes disagree with the "
                          "geometry ctypes wrote")
    done.append("nand_blocks, nand_dies, nand_capacity_bytes of that struct agree")

    dev = c_void_p()
    rc = lib.nand_create(cfg, ctypes.byref(dev))
    if rc:
        raise LayoutError("nand_create of the probe config failed: %d" % rc)
    try:
        _compare(lib.nand_get_config(dev).contents, _PROBE_EXPECT, "nand_get_config: ")
    finally:
        lib.nand_close(dev)
    done.append("nand_create + nand_get_config return the same %d fields"
                % _count_leaves(_PROBE_EXPECT))
    return done


def _count_leaves(d):
    return sum(_count_leaves(v) if isinstance(v, dict) else 1 for v in d.values())


def struct_dict(s):
    """A ctypes structure as a dict (nested structures as dicts, char arrays
    and char pointers as str)."""
    out = {}
    for name, ctype in s._fields_:
        v = getattr(s, name)
        if isinstance(v, Structure):
            v = struct_dict(v)
        elif isinstance(v, ctypes.Array):
            v = [struct_dict(x) if isinstance(x, Structure) else x for x in v]
        elif isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        out[name] = v
    return out
