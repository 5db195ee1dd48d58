"""Loading libflashlab.so and declaring its C API for ctypes.

The structures below mirror sim/nand.h, fs/fstypes.h, fs/logfs/logfs.h,
fs/fsapi.h and analysis/results.h field by field, with the same C types, so
that ctypes lays them out as the C compiler does.  The library reports its
own layouts (api/layout.h): for each struct its sizeof and alignment, for
each member its offsetof, sizeof and kind of type (integer, floating,
other), and the values of its enums and constants.  When the library is
loaded (``get()``), every class here is compared with that table -- same
field names in the same order, same offsets, sizes and kinds, same total
size and alignment -- and so is every constant below; a mismatch raises
LayoutError naming the struct and the field (or the constant) before
anything else uses the library.  When a header changes, update this file.

``self_check()`` (run by the tests) repeats the comparison and also
round-trips a YAML device file with a distinct value in every field through
``nand_config_load`` and ``nand_create`` + ``nand_get_config``.

The library is loaded lazily by ``get()`` so that the pure-Python parts of
the package (flashlab.results) work without it.
"""

import ctypes
import errno
import os
import stat
import tempfile
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_int64, c_size_t, c_uint, c_uint8, c_uint32, c_uint64,
                    c_void_p)

__all__ = ["get", "lib_path", "lib_candidates", "self_check", "layout", "constants", "check_struct",
           "LibraryNotFound", "LayoutError"]


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

NAND_SLC, NAND_MLC, NAND_TLC = 1, 2, 3
NAND_OP_READ, NAND_OP_PROGRAM, NAND_OP_ERASE = 0, 1, 2
(NAND_CORRUPT_FLIP, NAND_CORRUPT_BEYOND, NAND_CORRUPT_UNCORRECTABLE, NAND_CORRUPT_WIPE,
 NAND_CORRUPT_TEAR, NAND_CORRUPT_BAD, NAND_CORRUPT_AGE, NAND_CORRUPT_SILENT) = range(1, 9)

c_enum = c_int  # C enums of these small values are int-sized


class NandGeometry(Structure):
    _c_struct_ = "nand_geometry"
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
    _c_struct_ = "nand_timing"
    _fields_ = [
        ("t_r_ns", c_uint64),
        ("t_r_upper_ns", c_uint64),
        ("t_prog_ns", c_uint64),
        ("t_prog_upper_ns", c_uint64),
        ("t_bers_ns", c_uint64),
        ("t_cycle_ns", c_uint64),
        ("bus_bytes", c_uint32),
        ("addr_cycles", c_uint32),
        ("whole_page_reads", c_int),
    ]


class NandRberModel(Structure):
    _c_struct_ = "nand_rber_model"
    _fields_ = [(n, c_double) for n in
                ("eps", "alpha", "k", "beta", "m", "n", "gamma", "p", "q")]


class NandEcc(Structure):
    _c_struct_ = "nand_ecc"
    _fields_ = [
        ("codeword_bytes", c_uint32),
        ("correct_bits", c_uint32),
    ]


class NandConfig(Structure):
    _c_struct_ = "nand_config"
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
    _c_struct_ = "nand_result"
    _fields_ = [
        ("start", c_uint64),
        ("done", c_uint64),
        ("corrected_bits", c_uint32),
        ("raw_bit_errors", c_uint32),
        ("max_cw_bits", c_uint32),
    ]


class NandOp(Structure):
    _c_struct_ = "nand_op"
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
    _c_struct_ = "nand_block_info"
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
    _c_struct_ = "nand_stats"
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


class NandCorrupt(Structure):
    _c_struct_ = "nand_corrupt"
    _fields_ = [
        ("mode", c_enum),
        ("block", c_uint32),
        ("page", c_uint32),
        ("bits", c_uint32),
        ("offset", c_uint32),
        ("length", c_uint32),
        ("frac", c_double),
        ("age_ns", c_uint64),
        ("reads", c_uint64),
        ("all_blocks", c_int),
        ("seed", c_uint64),
    ]


# ---- fs/logfs/logfs.h -------------------------------------------------------------

LOGFS_WL_DYNAMIC, LOGFS_WL_NONE, LOGFS_WL_STATIC = 0, 1, 2
LOGFS_COMPRESS_NONE, LOGFS_COMPRESS_ZLIB, LOGFS_COMPRESS_LZO = 1, 2, 3
LOGFS_OP_READ, LOGFS_OP_WRITE, LOGFS_OP_SYNC, LOGFS_OP_META, LOGFS_OP_KINDS = range(5)
# logfs_utimens: "now" and "leave as it is" (utimensat's UTIME_NOW, UTIME_OMIT)
LOGFS_TIME_NOW, LOGFS_TIME_OMIT = -(1 << 63), -(1 << 63) + 1


class LogfsOptions(Structure):
    _c_struct_ = "logfs_options"
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
        ("clock", c_void_p),        # int64_t (*)(void *): None = simulated time
        ("clock_ctx", c_void_p),
        ("epoch_ns", c_int64),
        ("scrub_threshold", c_uint32),
        ("compress", c_int),        # LOGFS_COMPRESS_*: 0 = mkfs's choice
        ("parallel", c_uint32),
    ]


class LogfsStat(Structure):
    _c_struct_ = "fs_stat"
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
        ("rdev", c_uint64),
    ]


class LogfsStatfs(Structure):
    _c_struct_ = "fs_statfs"
    _fields_ = [
        ("block_size", c_uint32),
        ("total_bytes", c_uint64),
        ("free_bytes", c_uint64),
        ("files", c_uint64),
    ]


class LogfsStats(Structure):
    _c_struct_ = "logfs_stats"
    _fields_ = [(n, c_uint64) for n in (
        "commits", "live_bytes", "mem_bytes", "cache_hits", "cache_misses",
        "next_ino", "relocations", "host_bytes", "pages_data", "pages_meta",
        "pages_anchor", "pages_gc", "erases", "gc_rounds", "gc_objects",
        "gc_bytes", "gc_time_ns", "wl_moves", "gc_fallbacks", "free_segments",
        "anchor_seq", "anchor_fallback", "gc_unreadable", "segfile_unreadable",
        "scrub_flagged", "scrub_reads", "scrub_segments", "scrub_pages",
        "data_raw_bytes", "data_stored_bytes", "compress",
        "scrub_super", "scrub_anchor", "anchor_bad", "anchor_left",
    )]


class LogfsLatency(Structure):
    _c_struct_ = "fs_latency"
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
    _c_struct_ = "results_sample"
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
    _c_struct_ = "results_mount"
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
    _c_struct_ = "results_latency"
    _fields_ = [
        ("op", c_char_p),
        ("count", c_int64),
        ("p50_ns", c_int64),
        ("p99_ns", c_int64),
        ("p999_ns", c_int64),
        ("max_ns", c_int64),
        ("mean_ns", c_double),
    ]



class ResultsFault(Structure):
    _c_struct_ = "results_fault"
    _fields_ = [
        ("point", c_int64),
        ("fault", c_char_p),
        ("class_name", c_char_p),
        ("block", c_int64),
        ("page", c_int64),
        ("outcome", c_char_p),
        ("mounted", c_int),
        ("state", c_char_p),
        ("rolled_back", c_int64),
        ("flagged", c_int),
        ("files", c_int64),
        ("files_eio", c_int64),
        ("files_wrong", c_int64),
        ("files_missing", c_int64),
        ("crashed", c_int),
        ("fsck", c_char_p),
        ("after_write", c_char_p),
        ("detail", c_char_p),
    ]

# ---- api/layout.h: the table the classes above are checked against ---------

class LayoutField(Structure):
    _c_struct_ = "flashlab_field"
    _fields_ = [("name", c_char_p), ("offset", c_uint32), ("size", c_uint32),
                ("kind", c_char)]


class LayoutStruct(Structure):
    _c_struct_ = "flashlab_struct"
    _fields_ = [("name", c_char_p), ("size", c_uint32), ("align", c_uint32),
                ("nfields", c_uint32), ("fields", POINTER(LayoutField))]


class LayoutEnum(Structure):
    _c_struct_ = "flashlab_enum"
    _fields_ = [("name", c_char_p), ("value", c_int64)]


LAYOUT_VERSION = 1  # FLASHLAB_LAYOUT_VERSION these three classes mirror


# ---- prototypes -------------------------------------------------------------

class FsapiHead(Structure):
    """The first two members of struct fsapi (fs/fsapi.h): all Python reads
    of an entry of the table; the rest stays opaque."""
    _c_struct_ = "fsapi"
    _c_head_ = True  # a prefix of the C struct: smaller, and fewer fields
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
    "logfs_host_clock": (c_int64, [c_void_p]),
    "logfs_utimens": (c_int, [_fs, c_char_p, c_int64, c_int64]),
    "logfs_lchown": (c_int, [_fs, c_char_p, c_uint32, c_uint32]),
    "logfs_lutimens": (c_int, [_fs, c_char_p, c_int64, c_int64]),
    "logfs_mkdir": (c_int, [_fs, c_char_p, c_uint32]),
    "logfs_mknod": (c_int, [_fs, c_char_p, c_uint32, c_uint64]),
    "logfs_getxattr": (c_int64, [_fs, c_char_p, c_char_p, c_void_p, c_uint64]),
    "logfs_setxattr": (c_int, [_fs, c_char_p, c_char_p, c_char_p, c_uint64, c_int]),
    "logfs_listxattr": (c_int64, [_fs, c_char_p, c_void_p, c_uint64]),
    "logfs_removexattr": (c_int, [_fs, c_char_p, c_char_p]),
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
    "logfs_scrub": (c_int, [_fs, c_uint64]),
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

# Every class get() checks against the library's table.
_MIRRORED = (NandGeometry, NandTiming, NandRberModel, NandEcc, NandConfig, NandResult,
             NandOp, NandBlockInfo, NandStats, NandCorrupt, LogfsStat, LogfsStatfs, FsapiHead,
             LogfsOptions, LogfsStats, LogfsLatency, ResultsSample, ResultsMount,
             ResultsLatency, ResultsFault, LayoutField, LayoutStruct, LayoutEnum)

# The constants above, each checked against the library's value.
_CONSTANTS = (
    "NAND_OK", "NAND_E_INVAL", "NAND_E_ADDR", "NAND_E_NOT_ERASED", "NAND_E_ORDER",
    "NAND_E_NOP", "NAND_E_PROGRAM_FAIL", "NAND_E_ERASE_FAIL", "NAND_E_ECC",
    "NAND_E_POWER", "NAND_E_NOMEM", "NAND_E_IO", "NAND_E_CORRUPT", "NAND_E_BUSY",
    "NAND_SLC", "NAND_MLC", "NAND_TLC", "NAND_OP_READ", "NAND_OP_PROGRAM", "NAND_OP_ERASE",
    "NAND_CORRUPT_FLIP", "NAND_CORRUPT_BEYOND", "NAND_CORRUPT_UNCORRECTABLE",
    "NAND_CORRUPT_WIPE", "NAND_CORRUPT_TEAR", "NAND_CORRUPT_BAD", "NAND_CORRUPT_AGE",
    "NAND_CORRUPT_SILENT",
    "LOGFS_WL_DYNAMIC", "LOGFS_WL_NONE", "LOGFS_WL_STATIC",
    "LOGFS_COMPRESS_NONE", "LOGFS_COMPRESS_ZLIB", "LOGFS_COMPRESS_LZO",
    "LOGFS_OP_READ", "LOGFS_OP_WRITE", "LOGFS_OP_SYNC", "LOGFS_OP_META", "LOGFS_OP_KINDS",
    "LOGFS_TIME_NOW", "LOGFS_TIME_OMIT",
    "RESULTS_RUNNING", "RESULTS_COMPLETE", "RESULTS_FAILED", "RESULTS_INCOMPLETE",
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
    """The library path recorded when the package was installed (setup.py
    writes flashlab/_install_paths.py), or None."""
    try:
        from . import _install_paths  # written by setup.py at install
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
                          "update _lib.py to the C headers, or rebuild with `make`)"
                          % (path, e)) from None
    _lib = lib
    return lib


# ---- layout checks ----------------------------------------------------------

_table = None  # (structs, constants) of the loaded library


def _read_table(lib):
    """({name: {"size", "align", "fields": [(name, offset, size, kind)]}},
    {constant: value}) from the library's api/layout.h table."""
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
        fields = [(f.name.decode(), f.offset, f.size, f.kind.decode())
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
    head = getattr(cls, "_c_head_", False)
    cfields = c["fields"]
    pyfields = [(f[0], f[1]) for f in cls._fields_]
    cnames = [f[0] for f in cfields]
    pynames = [f[0] for f in pyfields]
    for i in range(max(len(cfields), len(pyfields))):
        if i >= len(pyfields):
            if head:
                break
            name, off, size, _ = cfields[i]
            raise LayoutError("%s: field %r (offset %d, %d bytes) is missing from ctypes"
                              % (where, name, off, size))
        pyname, ctype = pyfields[i]
        if i >= len(cfields):
            raise LayoutError("%s: ctypes field %r is not in the C struct%s"
                              % (where, pyname, " (or not in its listed head)" if head else ""))
        name, off, size, kind = cfields[i]
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
    if size != c["size"] and not (head and size <= c["size"]):
        raise LayoutError("%s: sizeof is %d in C, %d in ctypes" % (where, c["size"], size))
    if ctypes.alignment(cls) != c["align"] and not head:
        raise LayoutError("%s: alignment is %d in C, %d in ctypes"
                          % (where, c["align"], ctypes.alignment(cls)))
    return ("sizeof(struct %s) = %d, align %d, %s%d fields: %s matches"
            % (cname, c["size"], c["align"], "the first " if head else "",
               len(pyfields), cls.__name__))


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
    return ["%d constants (NAND_E_*, NAND_OP_*, LOGFS_WL_*, LOGFS_OP_*, RESULTS_*) match "
            "the library's" % len(_CONSTANTS),
            "%d host constants (O_*, SEEK_*, S_IF*) match os/stat" % host]


def _check_library(lib):
    """At load: read the table, check every mirrored class and constant."""
    global _table
    table = _read_table(lib)
    for cls in _MIRRORED:
        check_struct(cls, table[0])
    check_constants(table[1])
    _table = table


def layout():
    """{struct tag: {"size", "align", "fields": [(name, offset, size, kind)]}}
    as the library reports it (api/layout.h)."""
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
        elif isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        out[name] = v
    return out
