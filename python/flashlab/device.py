"""A simulated NAND device (sim/nand.h) as a Python object.

    with Device.create(blocks=128, pages=64, page_size=2048, seed=7) as dev:
        dev.program(3, 0, b"hello")        # the rest of the page stays 0xFF
        assert dev.read(3, 0)[:5] == b"hello"
        dev.save("x.img")

A Device owns its nand_dev: close() (or leaving the ``with`` block, or as a
last resort garbage collection) unmounts a LogFS still mounted on it, frees
its snapshots and closes it, once.
"""

import ctypes
import os
from ctypes import byref, c_void_p

from . import _lib
from ._lib import NandConfig, struct_dict

__all__ = ["Device", "NandError", "Snapshot", "config_from", "CONFIG_KEYS"]


class NandError(Exception):
    """A simulator call failed.  ``code`` is the negative nand_err value,
    ``name`` its nand_strerror() text.  For an uncorrectable read
    (NAND_E_ECC) ``data``/``oob`` hold what the device returned."""

    def __init__(self, code, message=None, *, data=None, oob=None):
        self.code = code
        try:
            self.name = _lib.get().nand_strerror(code).decode()
        except Exception:  # pragma: no cover - library gone at exit
            self.name = "error %d" % code
        self.data = data
        self.oob = oob
        super().__init__(message or self.name)


def _check(rc, what=None):
    if rc < 0:
        raise NandError(rc, "%s: %s" % (what, _lib.get().nand_strerror(rc).decode())
                        if what else None)
    return rc


def _fspath(path):
    return os.fsencode(os.fspath(path))


# keyword -> (path of the field in struct nand_config)
_GEO = ("channels", "dies_per_channel", "planes_per_die", "blocks_per_plane",
        "pages_per_block", "page_size", "oob_size")
_TIMING = ("t_r_ns", "t_r_upper_ns", "t_prog_ns", "t_prog_upper_ns", "t_bers_ns",
           "t_cycle_ns", "bus_bytes", "addr_cycles", "whole_page_reads")
_TOP = ("name", "cell", "nop", "pair_distance", "endurance", "endurance_sigma",
        "endurance_scale", "initial_pe", "factory_bad_fraction", "seed", "dedup",
        "compress")
_ECC = ("codeword_bytes", "correct_bits")
_RBER = ("eps", "alpha", "k", "beta", "m", "n", "gamma", "p", "q")
_CELLS = {"slc": _lib.NAND_SLC, "mlc": _lib.NAND_MLC, "tlc": _lib.NAND_TLC}
_ALIASES = {"pages": "pages_per_block", "oob": "oob_size"}

#: every keyword Device.create / config_from accepts
CONFIG_KEYS = (_GEO + _TIMING + _TOP + _ECC + tuple("rber_" + k for k in _RBER) +
               ("blocks", "pages", "oob", "geometry", "timing", "ecc", "rber"))


def _set(cfg, key, value):
    key = _ALIASES.get(key, key)
    if key in _GEO:
        setattr(cfg.geo, key, value)
    elif key in _TIMING:
        setattr(cfg.timing, key, value)
    elif key in _ECC:
        setattr(cfg.ecc, key, value)
    elif key.startswith("rber_") and key[5:] in _RBER:
        setattr(cfg.rber, key[5:], value)
    elif key == "name":
        raw = value.encode() if isinstance(value, str) else bytes(value)
        if not 0 < len(raw) < 64:
            raise ValueError("name must be 1..63 bytes")
        cfg.name = raw
    elif key == "cell":
        cfg.cell = _CELLS[value.lower()] if isinstance(value, str) else int(value)
    elif key in ("dedup", "compress"):
        setattr(cfg, key, 1 if value else 0)
    elif key in _TOP:
        setattr(cfg, key, value)
    elif key in ("geometry", "timing", "ecc"):
        for k, v in dict(value).items():
            _set(cfg, k, v)
    elif key == "rber":
        # None/False/0: no bit errors at all; a dict: set those coefficients
        if not value:
            ctypes.memset(byref(cfg.rber), 0, ctypes.sizeof(cfg.rber))
        else:
            for k, v in dict(value).items():
                _set(cfg, "rber_" + k, v)
    else:
        raise TypeError("unknown device setting %r (known: %s)"
                        % (key, ", ".join(CONFIG_KEYS)))


def config_from(yaml_path=None, **settings):
    """A finished struct nand_config: the YAML device file (or the defaults
    of nand_config_init) with the keyword settings applied on top.

    Keywords are the field names of struct nand_config and its nested
    structs (page_size, oob_size, t_prog_ns, correct_bits, seed, ...),
    ``rber_<coef>`` for one bit-error coefficient, nested dicts
    ``geometry=``, ``timing=``, ``ecc=``, ``rber=`` as in the YAML file
    (``rber=None`` switches bit errors off), and the short forms
    ``blocks`` (total blocks, divided over channels, dies and planes),
    ``pages`` (pages_per_block) and ``oob`` (oob_size).  Without a YAML
    file and without oob_size, oob_size is page_size / 32.
    """
    lib = _lib.get()
    cfg = NandConfig()
    lib.nand_config_init(cfg)
    err = ctypes.create_string_buffer(512)
    if yaml_path is not None:
        rc = lib.nand_config_load(_fspath(yaml_path), cfg, err, len(err))
        if rc:
            raise NandError(rc, err.value.decode(errors="replace"))
    blocks = settings.pop("blocks", None)
    for k, v in settings.items():
        _set(cfg, k, v)
    if blocks is not None:
        per = cfg.geo.channels * cfg.geo.dies_per_channel * cfg.geo.planes_per_die
        if per == 0 or blocks % per:
            raise ValueError("blocks=%d is not a multiple of channels * dies * planes = %d"
                             % (blocks, per))
        cfg.geo.blocks_per_plane = blocks // per
    if yaml_path is None and "oob_size" not in settings and "oob" not in settings \
            and cfg.geo.oob_size == 0:
        cfg.geo.oob_size = max(1, cfg.geo.page_size // 32)
    rc = lib.nand_config_finish(cfg, err, len(err))
    if rc:
        raise NandError(rc, err.value.decode(errors="replace"))
    return cfg


class _Handle:
    """The C pointer, shared by a Python object and whoever must release it
    first (a mounted file system is released by its Device's close, through
    release: its kind's unmount)."""
    __slots__ = ("ptr", "release")

    def __init__(self, ptr=None, release=None):
        self.ptr = ptr
        self.release = release


class Snapshot:
    """A copy-on-write snapshot of a device (nand_snapshot_take).  It belongs
    to its device: Device.close() frees every snapshot left."""

    def __init__(self, device, ptr):
        self._device = device
        self._h = _Handle(ptr)
        device._snapshots.add(self._h)

    def restore(self):
        """Put the device back in the state of the snapshot."""
        if not self._h.ptr:
            raise ValueError("snapshot is freed")
        _check(self._device._lib.nand_snapshot_restore(self._device._ptr(), self._h.ptr),
               "nand_snapshot_restore")

    def free(self):
        h = self._h
        if h.ptr:
            ptr, h.ptr = h.ptr, None
            self._device._snapshots.discard(h)
            self._device._lib.nand_snapshot_free(ptr)

    close = free

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


class Device:
    """A nand_dev.  Build one with Device.create() or Device.open()."""

    def __init__(self, ptr, lib=None):
        """Takes ownership of a nand_dev pointer (use create/open)."""
        self._lib = lib or _lib.get()
        self._h = _Handle(ptr)
        self._mounts = set()     # _Handle of each file system mounted on it
        self._snapshots = set()  # _Handle of each live snapshot
        self.last_result = None  # dict of the last read/program/erase's nand_result

    # ---- life cycle -------------------------------------------------------

    @classmethod
    def create(cls, yaml_path=None, **settings):
        """A fresh device from a YAML device file and/or keyword settings
        (see config_from): Device.create(blocks=128, pages=64,
        page_size=2048, seed=1) or Device.create("configs/devices/test-64m.yaml")."""
        lib = _lib.get()
        cfg = config_from(yaml_path, **settings)
        ptr = c_void_p()
        _check(lib.nand_create(cfg, byref(ptr)), "nand_create")
        return cls(ptr.value, lib)

    @classmethod
    def open(cls, path, write=False, holder="flashlab Python session"):
        """A device saved with save() (or `flashlab sim create`).
        write=True: the session will save or sync the image, so it takes
        the image lock first (nand_open_write; held until close()): a
        second writer -- a `flashlab mount`, a CLI command, another
        session -- is refused, and this open raises NandError
        (NAND_E_LOCKED, "IMAGE is in use by flashlab mount on M (pid N)")
        while another holds it.  holder names this session to them."""
        lib = _lib.get()
        ptr = c_void_p()
        err = ctypes.create_string_buffer(4608)
        if write:
            rc = lib.nand_open_write(_fspath(path), holder.encode(), byref(ptr), err, len(err))
        else:
            rc = lib.nand_open(_fspath(path), byref(ptr), err, len(err))
        if rc:
            raise NandError(rc, err.value.decode(errors="replace") or None)
        return cls(ptr.value, lib)

    _DUMP_FORMATS = {"nanddump": 1, "raw": 2}  # enum nand_dump_format

    @classmethod
    def import_dump(cls, path, yaml_path=None, format="nanddump", **settings):
        """A fresh device (as create) with the pages of a nanddump (data +
        OOB) or raw (data only) file programmed into it: nand_import,
        docs/simulator.md "Exchanging images with mtd-utils and nandsim"."""
        lib = _lib.get()
        cfg = config_from(yaml_path, **settings)
        ptr = c_void_p()
        err = ctypes.create_string_buffer(512)
        rc = lib.nand_import(cfg, _fspath(path), cls._DUMP_FORMATS[format], byref(ptr),
                             err, len(err))
        if rc:
            raise NandError(rc, err.value.decode(errors="replace") or None)
        return cls(ptr.value, lib)

    def export_dump(self, path, format="nanddump"):
        """Write every page as a nanddump (data + OOB) or raw (data only)
        file, without ECC, noise or counted reads: nand_export."""
        err = ctypes.create_string_buffer(512)
        rc = self._lib.nand_export(self._ptr(), _fspath(path), self._DUMP_FORMATS[format],
                                   err, len(err))
        if rc:
            raise NandError(rc, err.value.decode(errors="replace") or None)

    def save(self, path):
        """Write the device's whole state to an image file (atomic rename).
        Raises NandError (NAND_E_LOCKED) when another process holds the
        image's lock (open(path, write=True) takes it for this session).
        A mounted LogFS is not synced first: call its sync() to include
        what is dirty."""
        _check(self._lib.nand_save(self._ptr(), _fspath(path)), "nand_save %s" % path)

    def sync(self, path):
        """Make the device's state durable in the image at path cheaply:
        append what changed since it was opened from, saved to or synced to
        path to path + ".journal" (nand_sync; a full save() when the device
        has no image there yet).  open() replays the journal, save() folds
        it into the image.  A mounted LogFS is not synced first: call its
        sync() to commit what is dirty."""
        _check(self._lib.nand_sync(self._ptr(), _fspath(path)), "nand_sync %s" % path)

    @property
    def closed(self):
        return not self._h.ptr

    def close(self):
        """Unmount what is mounted on the device (which commits), free its
        snapshots, close it.  Idempotent.  Raises OSError if an unmount's
        final sync failed (the device is closed anyway)."""
        if not self._h.ptr:
            return
        first_error = None
        for h in list(self._mounts):
            if h.ptr:
                ptr, h.ptr = h.ptr, None
                rc = h.release(ptr)  # its kind's unmount
                if rc < 0 and first_error is None:
                    first_error = OSError(-rc, "unmount at device close: %s"
                                          % os.strerror(-rc))
        self._mounts.clear()
        for h in list(self._snapshots):
            if h.ptr:
                ptr, h.ptr = h.ptr, None
                self._lib.nand_snapshot_free(ptr)
        self._snapshots.clear()
        ptr, self._h.ptr = self._h.ptr, None
        self._lib.nand_close(ptr)
        if first_error is not None:
            raise first_error

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _ptr(self):
        if not self._h.ptr:
            raise ValueError("device is closed")
        return self._h.ptr

    def __repr__(self):
        if self.closed:
            return "<flashlab.Device closed>"
        return "<flashlab.Device %s: %d blocks x %d pages x %d+%d bytes>" % (
            self.name, self.blocks, self.pages_per_block, self.page_size, self.oob_size)

    # ---- configuration ----------------------------------------------------

    def config_struct(self):
        """A copy of the device's struct nand_config (a ctypes NandConfig)."""
        cfg = NandConfig()
        ctypes.memmove(byref(cfg), self._lib.nand_get_config(self._ptr()),
                       ctypes.sizeof(cfg))
        return cfg

    def config(self):
        """The device's configuration as a dict (nested like the YAML file)."""
        return struct_dict(self._lib.nand_get_config(self._ptr()).contents)

    def _cfg(self):
        return self._lib.nand_get_config(self._ptr()).contents

    @property
    def name(self):
        return self._cfg().name.decode(errors="replace")

    @property
    def page_size(self):
        return self._cfg().geo.page_size

    @property
    def oob_size(self):
        return self._cfg().geo.oob_size

    @property
    def pages_per_block(self):
        return self._cfg().geo.pages_per_block

    @property
    def blocks(self):
        """Total erase blocks."""
        return self._lib.nand_blocks(self._lib.nand_get_config(self._ptr()))

    @property
    def capacity(self):
        """Data bytes (blocks x pages x page_size)."""
        return self._lib.nand_capacity_bytes(self._lib.nand_get_config(self._ptr()))

    # ---- statistics, wear, clock -----------------------------------------

    def stats(self):
        """struct nand_stats as a dict."""
        st = _lib.NandStats()
        self._lib.nand_get_stats(self._ptr(), st)
        return struct_dict(st)

    def reset_stats(self):
        self._lib.nand_reset_stats(self._ptr())

    def block_info(self, block):
        """struct nand_block_info of one block as a dict (the int flags as bool)."""
        info = _lib.NandBlockInfo()
        _check(self._lib.nand_block_info(self._ptr(), block, info), "nand_block_info")
        d = struct_dict(info)
        for k in ("factory_bad", "grown_bad", "marked_bad", "erase_torn"):
            d[k] = bool(d[k])
        return d

    def erase_counts(self):
        """Every block's P/E cycles, as a list indexed by block."""
        info = _lib.NandBlockInfo()
        out = []
        for b in range(self.blocks):
            _check(self._lib.nand_block_info(self._ptr(), b, info), "nand_block_info")
            out.append(info.pe_cycles)
        return out

    def set_wear(self, block, pe_cycles):
        _check(self._lib.nand_set_wear(self._ptr(), block, pe_cycles), "nand_set_wear")

    def now(self):
        """The simulated clock, in nanoseconds."""
        return self._lib.nand_now(self._ptr())

    def advance(self, ns):
        """Let ns of simulated time pass."""
        self._lib.nand_advance(self._ptr(), ns)

    def corrupt(self, mode, block=0, page=0, *, bits=0, offset=0, length=0,
                frac=None, hours=0.0, age_ns=0, reads=0, all_blocks=False, seed=1):
        """Damage the device as nand_corrupt does (docs/simulator.md, "Damage
        injection"): mode is "flip", "beyond", "uncorrectable", "wipe",
        "tear", "bad", "age" or "silent".  frac=None tears at a fraction
        drawn from seed; hours (or age_ns) and reads age the device."""
        lib = self._lib
        m = lib.nand_corrupt_mode_parse(mode.encode()) if isinstance(mode, str) else mode
        if not m:
            raise ValueError("unknown damage mode %r" % (mode,))
        c = _lib.NandCorrupt(mode=m, block=block, page=page, bits=bits, offset=offset,
                             length=length, frac=-1.0 if frac is None else frac,
                             age_ns=int(age_ns + hours * 3.6e12), reads=reads,
                             all_blocks=1 if all_blocks else 0, seed=seed)
        err = ctypes.create_string_buffer(256)
        rc = lib.nand_corrupt(self._ptr(), byref(c), err, len(err))
        if rc < 0:
            raise NandError(rc, "corrupt %s: %s" % (
                mode, err.value.decode() or lib.nand_strerror(rc).decode()))

    # ---- raw flash operations -------------------------------------------

    def _result(self, res):
        self.last_result = struct_dict(res)

    def read(self, block, page, oob=False, raw=False):
        """The page's data (bytes); with oob=True a (data, oob) pair.
        raw=True reads without ECC.  An uncorrectable read raises NandError
        (NAND_E_ECC) carrying the corrupt data in .data/.oob."""
        cfg = self._cfg()
        data = ctypes.create_string_buffer(cfg.geo.page_size)
        spare = ctypes.create_string_buffer(cfg.geo.oob_size) if oob else None
        res = _lib.NandResult()
        fn = self._lib.nand_read_raw if raw else self._lib.nand_read
        rc = fn(self._ptr(), block, page, data, spare, byref(res))
        self._result(res)
        if rc < 0:
            raise NandError(rc, "read %d/%d: %s" % (
                block, page, self._lib.nand_strerror(rc).decode()),
                data=data.raw if rc == _lib.NAND_E_ECC else None,
                oob=spare.raw if (spare is not None and rc == _lib.NAND_E_ECC) else None)
        return (data.raw, spare.raw) if oob else data.raw

    def _page_buf(self, buf, size, what):
        if buf is None:
            return None
        if isinstance(buf, int):  # bytes(5) would be five zeros
            raise TypeError("%s: expected a bytes-like object, not int" % what)
        buf = bytes(buf)
        if len(buf) > size:
            raise ValueError("%s is %d bytes, more than %d" % (what, len(buf), size))
        # bits left 1 are not programmed: pad with 0xFF
        return ctypes.create_string_buffer(buf + b"\xff" * (size - len(buf)), size)

    def program(self, block, page, data=None, oob=None):
        """Program a page; data and oob shorter than the page are padded
        with 0xFF (left erased); None leaves that part erased."""
        cfg = self._cfg()
        d = self._page_buf(data, cfg.geo.page_size, "data")
        o = self._page_buf(oob, cfg.geo.oob_size, "oob")
        res = _lib.NandResult()
        rc = self._lib.nand_program(self._ptr(), block, page, d, o, byref(res))
        self._result(res)
        _check(rc, "program %d/%d" % (block, page))

    def erase(self, block):
        res = _lib.NandResult()
        rc = self._lib.nand_erase(self._ptr(), block, byref(res))
        self._result(res)
        _check(rc, "erase %d" % block)

    def read_col(self, block, page, col, length):
        """length bytes at column col of the page+spare byte space."""
        buf = ctypes.create_string_buffer(length)
        res = _lib.NandResult()
        rc = self._lib.nand_read_col(self._ptr(), block, page, col, buf, length, byref(res))
        self._result(res)
        _check(rc, "read_col %d/%d" % (block, page))
        return buf.raw

    def program_col(self, block, page, col, data):
        if isinstance(data, int):
            raise TypeError("data: expected a bytes-like object, not int")
        data = bytes(data)
        res = _lib.NandResult()
        rc = self._lib.nand_program_col(self._ptr(), block, page, col, data, len(data),
                                        byref(res))
        self._result(res)
        _check(rc, "program_col %d/%d" % (block, page))

    def is_bad(self, block):
        return bool(_check(self._lib.nand_is_bad(self._ptr(), block), "nand_is_bad"))

    def mark_bad(self, block):
        _check(self._lib.nand_mark_bad(self._ptr(), block), "nand_mark_bad")

    def submit(self, kind, block, page=0, data=None):
        """Queue one operation on its die (nand_submit): kind is 'read',
        'program' or 'erase'.  Returns (status, result dict, data read or
        None); the clock does not move until wait()."""
        kinds = {"read": _lib.NAND_OP_READ, "program": _lib.NAND_OP_PROGRAM,
                 "erase": _lib.NAND_OP_ERASE}
        cfg = self._cfg()
        op = _lib.NandOp(kind=kinds[kind], block=block, page=page)
        buf = None
        if kind == "read":
            buf = ctypes.create_string_buffer(cfg.geo.page_size)
        elif kind == "program" and data is not None:
            buf = self._page_buf(data, cfg.geo.page_size, "data")
        if buf is not None:
            op.data = ctypes.cast(buf, c_void_p)
        rc = self._lib.nand_submit(self._ptr(), byref(op))
        if rc < 0 and op.status == 0:
            op.status = rc
        return op.status, struct_dict(op.res), (buf.raw if kind == "read" else None)

    def wait(self):
        """Advance the clock to the end of everything submitted; the new time."""
        return self._lib.nand_wait(self._ptr())

    # ---- power ---------------------------------------------------------------

    def power_cut(self):
        """Cut the power now, between operations."""
        self._lib.nand_power_cut(self._ptr())

    def power_on(self):
        self._lib.nand_power_on(self._ptr())

    @property
    def powered(self):
        return bool(self._lib.nand_is_powered(self._ptr()))

    def cut_at_time(self, t):
        self._lib.nand_cut_at_time(self._ptr(), t)

    def cut_after_ops(self, n, frac=-1.0):
        """Let n more state-changing operations complete and tear the next
        one after frac of its busy time (frac < 0: drawn from the seed)."""
        self._lib.nand_cut_after_ops(self._ptr(), n, frac)

    def cut_disarm(self):
        self._lib.nand_cut_disarm(self._ptr())

    # ---- snapshots -------------------------------------------------------

    def snapshot(self):
        """A Snapshot (copy-on-write); restore() it later, free() it or let
        the device free it at close."""
        ptr = c_void_p()
        _check(self._lib.nand_snapshot_take(self._ptr(), byref(ptr)), "nand_snapshot_take")
        return Snapshot(self, ptr.value)
