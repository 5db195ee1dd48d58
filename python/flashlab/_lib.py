"""Loading libflashlab.so and declaring its C API for ctypes.

The structures below mirror sim/nand.h, fs/logfs/logfs.h and analysis/results.h
field by field, in the same order and with the same C types, so that ctypes
lays them out as the C compiler does (both follow the platform ABI).  No C
function reports sizeof(struct ...), so the layouts are checked from the
outside instead (``self_check``):

* ``nand_config_init`` starts with ``memset(cfg, 0, sizeof *cfg)``: called
  on a buffer pre-filled with a sentinel, the extent it overwrites is the C
  sizeof, which must equal ``ctypes.sizeof(NandConfig)`` (checked at load,
  it is cheap);
* a YAML device file with a distinct value for every field, loaded with
  ``nand_config_load``, must read back field by field, and again through
  ``nand_create`` + ``nand_get_config``;
* every struct the library fills (stats, block info, latency, statfs...)
  must be written inside its ctypes size and nowhere beyond it;
* every logfs_options field has an option key: set through
  ``logfs_options_parse`` each must land in its ctypes field.

The library is loaded lazily by ``get()`` so that the pure-Python parts of
the package (flashlab.results) work without it.
"""

import ctypes
import os
import tempfile
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_int64, c_size_t, c_uint, c_uint32, c_uint64, c_void_p)

__all__ = ["get", "lib_path", "self_check", "LibraryNotFound", "LayoutError"]


class LibraryNotFound(OSError):
    """libflashlab.so could not be found or loaded."""


class LayoutError(RuntimeError):
    """A ctypes structure does not match the C layout."""


# ---- sim/nand.h -------------------------------------------------------------

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

NAND_SLC, NAND_MLC, NAND_TLC = 1, 2, 3
NAND_OP_READ, NAND_OP_PROGRAM, NAND_OP_ERASE = 0, 1, 2

c_enum = c_int  # C enums of these small values are int-sized


class NandGeometry(Structure):
    _fields_ = [
        ("channels", c_uint32),
        ("dies_per_channel", c_uint32),
        ("planes_per_die", c_uint32),
        ("blocks_per_plane", c_uint32),
        ("pages_per_block", c_uint32),
        ("page_size", c_uint32),
        ("oob_size", c_uint32),
    ]


class NandTiming(Structure):
    _fields_ = [
        ("t_r_ns", c_uint64),
        ("t_r_upper_ns", c_uint64),
        ("t_prog_ns", c_uint64),
        ("t_prog_upper_ns", c_uint64),
        ("t_bers_ns", c_uint64),
        ("t_cycle_ns", c_uint64),
        ("bus_bytes", c_uint32),
        ("addr_cycles", c_uint32),
    ]


class NandRberModel(Structure):
    _fields_ = [(n, c_double) for n in
                ("eps", "alpha", "k", "beta", "m", "n", "gamma", "p", "q")]


class NandEcc(Structure):
    _fields_ = [
        ("codeword_bytes", c_uint32),
        ("correct_bits", c_uint32),
    ]


class NandConfig(Structure):
    _fields_ = [
        ("name", c_char * 64),
        ("geo", NandGeometry),
        ("cell", c_enum),
        ("nop", c_uint32),
        ("pair_distance", c_uint32),
        ("timing", NandTiming),
        ("endurance", c_uint64),
        ("endurance_sigma", c_double),
        ("endurance_scale", c_double),
        ("initial_pe", c_uint64),
        ("factory_bad_fraction", c_double),
        ("rber", NandRberModel),
        ("ecc", NandEcc),
        ("seed", c_uint64),
        ("dedup", c_int),
        ("compress", c_int),
    ]


class NandResult(Structure):
    _fields_ = [
        ("start", c_uint64),
        ("done", c_uint64),
        ("corrected_bits", c_uint32),
        ("raw_bit_errors", c_uint32),
    ]


class NandOp(Structure):
    _fields_ = [
        ("kind", c_enum),
        ("block", c_uint32),
        ("page", c_uint32),
        ("data", c_void_p),
        ("oob", c_void_p),
        ("status", c_int),
        ("res", NandResult),
    ]


class NandBlockInfo(Structure):
    _fields_ = [
        ("pe_cycles", c_uint64),
        ("endurance", c_uint64),
        ("reads_since_erase", c_uint64),
        ("pages_programmed", c_uint32),
        ("factory_bad", c_int),
        ("grown_bad", c_int),
        ("marked_bad", c_int),
        ("erase_torn", c_int),
    ]


class NandStats(Structure):
    _fields_ = [(n, c_uint64) for n in (
        "reads", "programs", "erases",
        "bytes_read", "bytes_written",
        "bits_corrected",
        "ecc_failures",
        "uncorrectable_reads",
        "program_fails", "erase_fails",
        "violations_not_erased", "violations_order", "violations_nop",
        "violations_addr",
        "power_cuts", "torn_programs", "torn_erases", "paired_corruptions",
        "state_ops",
        "pages_stored",
        "bytes_stored",
        "busy_ns",
    )]


# ---- fs/logfs/logfs.h -------------------------------------------------------------

LOGFS_WL_DYNAMIC, LOGFS_WL_NONE, LOGFS_WL_STATIC = 0, 1, 2
LOGFS_OP_READ, LOGFS_OP_WRITE, LOGFS_OP_SYNC, LOGFS_OP_META, LOGFS_OP_KINDS = range(5)


class LogfsOptions(Structure):
    _fields_ = [
        ("block_size", c_uint32),
        ("anchor_blocks", c_uint32),
        ("reserve_segments", c_uint32),
        ("cache_bytes", c_uint64),
        ("dirty_bytes", c_uint64),
        ("readonly", c_int),
        ("gc_policy", c_char_p),
        ("gc_window", c_uint32),
        ("gc_choices", c_uint32),
        ("gc_seed", c_uint64),
        ("gc_free_min", c_uint32),
        ("gc_separate", c_int),
        ("wear_leveling", c_int),
        ("wl_threshold", c_uint32),
        ("gc_idle_free", c_uint32),
    ]


class LogfsStat(Structure):
    _fields_ = [
        ("ino", c_uint64),
        ("mode", c_uint32),
        ("nlink", c_uint32),
        ("uid", c_uint32),
        ("gid", c_uint32),
        ("size", c_uint64),
        ("atime", c_int64),
        ("mtime", c_int64),
        ("ctime", c_int64),
    ]


class LogfsStatfs(Structure):
    _fields_ = [
        ("block_size", c_uint32),
        ("total_bytes", c_uint64),
        ("free_bytes", c_uint64),
        ("files", c_uint64),
    ]


class LogfsStats(Structure):
    _fields_ = [(n, c_uint64) for n in (
        "commits", "live_bytes", "mem_bytes", "cache_hits", "cache_misses",
        "next_ino", "relocations", "host_bytes", "pages_data", "pages_meta",
        "pages_anchor", "pages_gc", "erases", "gc_rounds", "gc_objects",
        "gc_bytes", "gc_time_ns", "wl_moves", "gc_fallbacks", "free_segments",
    )]


class LogfsLatency(Structure):
    _fields_ = [
        ("count", c_uint64),
        ("p50_ns", c_uint64),
        ("p99_ns", c_uint64),
        ("p999_ns", c_uint64),
        ("max_ns", c_uint64),
        ("mean_ns", c_double),
    ]


# int (*)(void *ctx, const char *name, uint64_t ino, uint32_t type)
LOGFS_DIR_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p, c_uint64, c_uint32)


# ---- analysis/results.h (writer side; used by the tests) -------------------

RESULTS_RUNNING, RESULTS_COMPLETE, RESULTS_FAILED, RESULTS_INCOMPLETE = range(4)


class ResultsSample(Structure):
    _fields_ = [
        ("seq", c_int64),
        ("sim_time_ns", c_int64),
        ("host_bytes", c_int64),
        ("flash_bytes_programmed", c_int64),
        ("data_pages", c_int64),
        ("meta_pages", c_int64),
        ("anchor_pages", c_int64),
        ("gc_pages", c_int64),
        ("erases", c_int64),
        ("wa", c_double),
        ("free_segments", c_int64),
        ("gc_time_ns", c_int64),
        ("gc_invocations", c_int64),
    ]


class ResultsMount(Structure):
    _fields_ = [
        ("fs_kind", c_char_p),
        ("device_bytes", c_int64),
        ("fill_fraction", c_double),
        ("clean", c_int),
        ("sim_latency_ns", c_int64),
        ("flash_time_ns", c_int64),
        ("cpu_time_ns", c_int64),
        ("pages_read", c_int64),
        ("bytes_read", c_int64),
        ("ram_bytes", c_int64),
        ("wall_ns", c_int64),
    ]


class ResultsLatency(Structure):
    _fields_ = [
        ("op", c_char_p),
        ("count", c_int64),
        ("p50_ns", c_int64),
        ("p99_ns", c_int64),
        ("p999_ns", c_int64),
        ("max_ns", c_int64),
        ("mean_ns", c_double),
    ]


# ---- prototypes -------------------------------------------------------------

class FsapiHead(Structure):
    """The first two members of struct fsapi (fs/fsapi.h): all Python reads
    of an entry of the table; the rest stays opaque."""
    _fields_ = [("name", c_char_p), ("summary", c_char_p)]


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
    "nand_dies": (c_uint64, [_P(NandConfig)]),
    "nand_capacity_bytes": (c_uint64, [_P(NandConfig)]),
    "nand_create": (c_int, [_P(NandConfig), _P(c_void_p)]),
    "nand_open": (c_int, [c_char_p, _P(c_void_p), c_char_p, c_size_t]),
    "nand_save": (c_int, [_dev, c_char_p]),
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
    # fs/fsapi.h
    "fsapi_at": (_P(FsapiHead), [c_size_t]),
    # fs/logfs/logfs.h
    "logfs_gc_policy_name": (c_char_p, [c_uint, _P(c_char_p)]),
    "logfs_option_set": (c_int, [_P(LogfsOptions), c_char_p, c_char_p, c_char_p, c_size_t]),
    "logfs_options_parse": (c_int, [_P(LogfsOptions), c_char_p, c_char_p, c_size_t]),
    "logfs_option_help": (c_char_p, [c_uint, _P(c_char_p)]),
    "logfs_mkfs": (c_int, [_dev, _P(LogfsOptions)]),
    "logfs_mount": (c_int, [_dev, _P(LogfsOptions), _P(c_void_p)]),
    "logfs_sync": (c_int, [_fs]),
    "logfs_unmount": (c_int, [_fs]),
    "logfs_open": (c_int, [_fs, c_char_p, c_int, c_uint32]),
    "logfs_close": (c_int, [_fs, c_int]),
    "logfs_read": (c_int64, [_fs, c_int, c_void_p, c_uint64]),
    "logfs_write": (c_int64, [_fs, c_int, c_void_p, c_uint64]),
    "logfs_pread": (c_int64, [_fs, c_int, c_void_p, c_uint64, c_uint64]),
    "logfs_pwrite": (c_int64, [_fs, c_int, c_void_p, c_uint64, c_uint64]),
    "logfs_lseek": (c_int64, [_fs, c_int, c_int64, c_int]),
    "logfs_ftruncate": (c_int, [_fs, c_int, c_uint64]),
    "logfs_truncate": (c_int, [_fs, c_char_p, c_uint64]),
    "logfs_punch": (c_int, [_fs, c_int, c_uint64, c_uint64]),
    "logfs_fsync": (c_int, [_fs, c_int]),
    "logfs_stat": (c_int, [_fs, c_char_p, _P(LogfsStat)]),
    "logfs_lstat": (c_int, [_fs, c_char_p, _P(LogfsStat)]),
    "logfs_fstat": (c_int, [_fs, c_int, _P(LogfsStat)]),
    "logfs_chmod": (c_int, [_fs, c_char_p, c_uint32]),
    "logfs_chown": (c_int, [_fs, c_char_p, c_uint32, c_uint32]),
    "logfs_utimens": (c_int, [_fs, c_char_p, c_int64, c_int64]),
    "logfs_lchown": (c_int, [_fs, c_char_p, c_uint32, c_uint32]),
    "logfs_lutimens": (c_int, [_fs, c_char_p, c_int64, c_int64]),
    "logfs_mkdir": (c_int, [_fs, c_char_p, c_uint32]),
    "logfs_rmdir": (c_int, [_fs, c_char_p]),
    "logfs_unlink": (c_int, [_fs, c_char_p]),
    "logfs_rename": (c_int, [_fs, c_char_p, c_char_p]),
    "logfs_link": (c_int, [_fs, c_char_p, c_char_p]),
    "logfs_symlink": (c_int, [_fs, c_char_p, c_char_p]),
    "logfs_readlink": (c_int64, [_fs, c_char_p, c_void_p, c_uint64]),
    "logfs_readdir": (c_int, [_fs, c_char_p, _P(c_uint64), LOGFS_DIR_FN, c_void_p]),
    "logfs_statfs": (c_int, [_fs, _P(LogfsStatfs)]),
    "logfs_get_stats": (None, [_fs, _P(LogfsStats)]),
    "logfs_get_latency": (c_int, [_fs, c_int, _P(LogfsLatency)]),
    "logfs_reset_latency": (None, [_fs]),
    "logfs_idle": (c_int, [_fs, c_uint64]),
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
    "results_set_kv": (c_int, [_res, c_int64, c_char_p, c_double]),
    "results_set_kv_text": (c_int, [_res, c_int64, c_char_p, c_char_p]),
    "results_flush": (c_int, [_res]),
    "results_status_name": (c_char_p, [c_enum]),
}


# ---- loading -------------------------------------------------------------------

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.normpath(os.path.join(_HERE, "..", ".."))
_lib = None


def lib_path():
    """The library that get() loads: $FLASHLAB_LIB, else build/libflashlab.so
    of the repository this package sits in."""
    env = os.environ.get("FLASHLAB_LIB")
    if env:
        return os.path.abspath(env)
    return os.path.join(_REPO, "build", "libflashlab.so")


def _declare(lib):
    for name, (restype, argtypes) in _PROTOS.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def get():
    """The loaded library, its prototypes declared (loaded on first use)."""
    global _lib
    if _lib is not None:
        return _lib
    path = lib_path()
    if not os.path.exists(path):
        how = ("$FLASHLAB_LIB names a missing file" if os.environ.get("FLASHLAB_LIB")
               else "run `make` in %s to build it, or set FLASHLAB_LIB" % _REPO)
        raise LibraryNotFound("flashlab: %s not found: %s" % (path, how))
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
    _check_config_size(lib)
    _lib = lib
    return lib


# ---- layout checks ----------------------------------------------------------

_SENTINEL = 0xA5
_GUARD = 64  # bytes after the struct that C must not touch


def _guarded(cls):
    """A buffer of sizeof(cls) + _GUARD sentinel bytes and a cls view of it."""
    buf = (ctypes.c_ubyte * (ctypes.sizeof(cls) + _GUARD))(*([_SENTINEL] * (ctypes.sizeof(cls) + _GUARD)))
    return buf, cls.from_buffer(buf)


def _written_extent(buf):
    """One past the last byte that differs from the sentinel."""
    raw = bytes(buf)
    for i in range(len(raw) - 1, -1, -1):
        if raw[i] != _SENTINEL:
            return i + 1
    return 0


def _check_guard(buf, cls, what):
    n = ctypes.sizeof(cls)
    if bytes(buf)[n:] != bytes([_SENTINEL]) * _GUARD:
        raise LayoutError("%s wrote past ctypes.sizeof(%s) = %d: the C struct is larger"
                          % (what, cls.__name__, n))


def _check_all_fields_written(buf, cls, what, fields=None):
    """Every listed field differs from the sentinel pattern (a wrong offset
    would leave one of them untouched)."""
    view = cls.from_buffer(buf)
    for name, ctype in cls._fields_:
        if fields is not None and name not in fields:
            continue
        off = getattr(cls, name).offset
        size = ctypes.sizeof(ctype)
        if bytes(buf)[off:off + size] == bytes([_SENTINEL]) * size:
            raise LayoutError("%s left %s.%s (offset %d) unwritten: layout mismatch"
                              % (what, cls.__name__, name, off))
    return view


def _check_config_size(lib):
    buf, cfg = _guarded(NandConfig)
    lib.nand_config_init(cfg)
    n = _written_extent(buf)
    if n != ctypes.sizeof(NandConfig):
        raise LayoutError("nand_config_init cleared %d bytes but ctypes.sizeof(NandConfig) "
                          "is %d: python/flashlab/_lib.py is out of date with sim/nand.h"
                          % (n, ctypes.sizeof(NandConfig)))
    return n


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
"""

_PROBE_EXPECT = {
    "name": b"layout-probe-0123456789", "cell": NAND_MLC,
    "geo": {"channels": 2, "dies_per_channel": 3, "planes_per_die": 5,
            "blocks_per_plane": 7, "pages_per_block": 16, "page_size": 1024,
            "oob_size": 33},
    "nop": 6, "pair_distance": 4,
    "timing": {"t_r_ns": 1001, "t_r_upper_ns": 1002, "t_prog_ns": 1003,
               "t_prog_upper_ns": 1004, "t_bers_ns": 1005, "t_cycle_ns": 1006,
               "bus_bytes": 2, "addr_cycles": 7},
    "endurance": 123457, "endurance_sigma": 0.125, "endurance_scale": 0.5,
    "initial_pe": 11, "factory_bad_fraction": 0.0625,
    "rber": {"eps": 1e-10, "alpha": 2e-17, "k": 2.5, "beta": 3e-10, "m": 0.25,
             "n": 0.75, "gamma": 4e-17, "p": 0.375, "q": 1.875},
    "ecc": {"codeword_bytes": 256, "correct_bits": 9},
    "seed": 18446744073709551557, "dedup": 1, "compress": 1,
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
    """Check every mirrored structure against the library; raise LayoutError
    on a mismatch.  Returns a list of the checks done (for reports)."""
    lib = get()
    done = []
    n = _check_config_size(lib)
    done.append("sizeof(struct nand_config) = %d = ctypes.sizeof(NandConfig) "
                "(extent cleared by nand_config_init)" % n)

    # nand_config: every field through a YAML file and back.
    fd, path = tempfile.mkstemp(suffix=".yaml", prefix="flashlab-probe-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(_PROBE_YAML)
        buf, cfg = _guarded(NandConfig)
        lib.nand_config_init(cfg)
        err = ctypes.create_string_buffer(512)
        rc = lib.nand_config_load(path.encode(), cfg, err, len(err))
        if rc:
            raise LayoutError("nand_config_load of the probe file failed: %s"
                              % err.value.decode(errors="replace"))
        _check_guard(buf, NandConfig, "nand_config_load")
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
        done.append("nand_create + nand_get_config return the same %d fields"
                    % _count_leaves(_PROBE_EXPECT))
        buf, info = _guarded(NandBlockInfo)
        if lib.nand_block_info(dev, 1, info):
            raise LayoutError("nand_block_info failed")
        _check_guard(buf, NandBlockInfo, "nand_block_info")
        _check_all_fields_written(buf, NandBlockInfo, "nand_block_info")
        if info.pe_cycles != 11 or info.pages_programmed > 16 or \
                info.factory_bad not in (0, 1) or info.erase_torn != 0:
            raise LayoutError("nand_block_info returned implausible values: %r"
                              % struct_dict(info))
        done.append("nand_block_info writes every NandBlockInfo field and nothing past it")
        buf, st = _guarded(NandStats)
        lib.nand_get_stats(dev, st)
        _check_guard(buf, NandStats, "nand_get_stats")
        _check_all_fields_written(buf, NandStats, "nand_get_stats")
        done.append("nand_get_stats writes every NandStats field and nothing past it")
        res = NandResult()
        data = ctypes.create_string_buffer(1024)
        if lib.nand_read(dev, 0, 0, data, None, ctypes.byref(res)):
            raise LayoutError("nand_read failed")
        if not (res.done > res.start >= 0 and res.done == lib.nand_now(dev)):
            raise LayoutError("nand_result start/done implausible: %r" % struct_dict(res))
        done.append("nand_result.done of a read equals nand_now")
        # nand_op: a queued program then read through every pointer field
        page = bytes(range(256)) * 4
        src = ctypes.create_string_buffer(page, 1024)
        spare = ctypes.create_string_buffer(b"\x5a" * 33, 33)
        buf, op = _guarded(NandOp)
        ctypes.memset(buf, 0, ctypes.sizeof(NandOp))
        good = _first_good_block(lib, dev, 2)
        op.kind, op.block, op.page = NAND_OP_PROGRAM, good, 0
        op.data = ctypes.cast(src, c_void_p)
        op.oob = ctypes.cast(spare, c_void_p)
        op.status = 12345
        if lib.nand_submit(dev, op) != 0 or op.status != 0:
            raise LayoutError("nand_submit of a program failed: status %d" % op.status)
        _check_guard(buf, NandOp, "nand_submit")
        end = lib.nand_wait(dev)
        if not (op.res.done == end and op.res.done > op.res.start):
            raise LayoutError("nand_op.res implausible: %r" % struct_dict(op.res))
        got = ctypes.create_string_buffer(1024)
        got_oob = ctypes.create_string_buffer(33)
        op.kind, op.data, op.oob = NAND_OP_READ, ctypes.cast(got, c_void_p), \
            ctypes.cast(got_oob, c_void_p)
        if lib.nand_submit(dev, op) != 0 or got.raw != page or got_oob.raw[:33] != spare.raw:
            raise LayoutError("nand_submit read back other data: nand_op layout mismatch")
        op.block = 10**6
        if lib.nand_submit(dev, op) != NAND_E_ADDR or op.status != NAND_E_ADDR:
            raise LayoutError("nand_op.status not where ctypes reads it")
        lib.nand_wait(dev)
        done.append("nand_submit/nand_wait through NandOp: data, oob, status and res "
                    "where C puts them, nothing written past it")
    finally:
        lib.nand_close(dev)

    # logfs_options: one key per field.
    opts = LogfsOptions()
    err = ctypes.create_string_buffer(256)
    spec = ("block_size=2048,anchor_blocks=3,reserve=5,cache=12345K,dirty=77K,readonly=1,"
            "gc_policy=cost-benefit,gc_window=13,gc_choices=17,"
            "gc_seed=18446744073709551613,gc_free_min=19,gc_separate=1,"
            "wear_leveling=static,wl_threshold=23,gc_idle_free=29")
    if lib.logfs_options_parse(ctypes.byref(opts), spec.encode(), err, len(err)):
        raise LayoutError("logfs_options_parse failed: %s" % err.value.decode())
    want = {"block_size": 2048, "anchor_blocks": 3, "reserve_segments": 5,
            "cache_bytes": 12345 << 10, "dirty_bytes": 77 << 10, "readonly": 1,
            "gc_policy": b"cost-benefit", "gc_window": 13, "gc_choices": 17,
            "gc_seed": 18446744073709551613, "gc_free_min": 19, "gc_separate": 1,
            "wear_leveling": LOGFS_WL_STATIC, "wl_threshold": 23, "gc_idle_free": 29}
    if set(want) != {f for f, _ in LogfsOptions._fields_}:
        raise LayoutError("the logfs_options probe does not cover every field")
    _compare(opts, want, "logfs_options_parse: ")
    done.append("logfs_options_parse sets each of the %d LogfsOptions fields where "
                "ctypes reads it" % len(want))

    # the mounted-fs structs
    dev = _tiny_fs_device(lib)
    fs = c_void_p()
    try:
        if lib.logfs_mount(dev, None, ctypes.byref(fs)):
            raise LayoutError("logfs_mount of the probe device failed")
        fd = lib.logfs_open(fs, b"/probe", os.O_RDWR | os.O_CREAT, 0o640)
        if fd < 0 or lib.logfs_write(fs, fd, b"x" * 5000, 5000) != 5000:
            raise LayoutError("could not write the probe file")
        lib.logfs_fsync(fs, fd)
        for fn, cls, call in (
                ("logfs_get_stats", LogfsStats, lambda s: lib.logfs_get_stats(fs, s)),
                ("logfs_get_latency", LogfsLatency,
                 lambda s: lib.logfs_get_latency(fs, LOGFS_OP_WRITE, s)),
                ("logfs_statfs", LogfsStatfs, lambda s: lib.logfs_statfs(fs, s)),
                ("logfs_fstat", LogfsStat, lambda s: lib.logfs_fstat(fs, fd, s))):
            buf, s = _guarded(cls)
            if call(s):
                raise LayoutError("%s failed" % fn)
            _check_guard(buf, cls, fn)
            _check_all_fields_written(buf, cls, fn)
            done.append("%s writes every %s field and nothing past it" % (fn, cls.__name__))
            if cls is LogfsStat and not (s.size == 5000 and s.nlink == 1 and
                                         s.mode & 0o7777 == 0o640):
                raise LayoutError("logfs_fstat: implausible %r" % struct_dict(s))
            if cls is LogfsLatency and s.count != 1:
                raise LayoutError("logfs_get_latency: implausible %r" % struct_dict(s))
            if cls is LogfsStatfs and s.block_size != 4096:
                raise LayoutError("logfs_statfs: implausible %r" % struct_dict(s))
        lib.logfs_close(fs, fd)
    finally:
        if fs:
            lib.logfs_unmount(fs)
        lib.nand_close(dev)
    return done


def _first_good_block(lib, dev, start):
    info = NandBlockInfo()
    b = start
    while lib.nand_block_info(dev, b, info) == 0:
        if not info.factory_bad and not info.pages_programmed:
            return b
        b += 1
    raise LayoutError("no good erased block on the probe device")


def _tiny_fs_device(lib):
    cfg = NandConfig()
    lib.nand_config_init(cfg)
    cfg.geo.blocks_per_plane = 64
    cfg.geo.pages_per_block = 32
    cfg.geo.page_size = 2048
    cfg.geo.oob_size = 64
    dev = c_void_p()
    if lib.nand_create(cfg, ctypes.byref(dev)):
        raise LayoutError("nand_create of the probe device failed")
    if lib.logfs_mkfs(dev, None):
        lib.nand_close(dev)
        raise LayoutError("logfs_mkfs of the probe device failed")
    return dev


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
        elif isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        out[name] = v
    return out
