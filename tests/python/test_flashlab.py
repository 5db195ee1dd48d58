#!/usr/bin/env python3
"""Tests of the Python package python/flashlab (unittest, standard library).

Run from the repository root:  PYTHONPATH=python python3 tests/python/test_flashlab.py
The library is $FLASHLAB_LIB or build/libflashlab.so, the CLI $FLASHLAB_BIN
or build/flashlab.  The last line is "test_python: N passed, N failed, N
skipped"; the exit status is nonzero when something failed.
FLASHLAB_LONG=1 runs the model test with more seeds and operations.
"""

import errno
import gc
import os
import random
import re
import sqlite3
import stat
import sys
import tempfile
import unittest

_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
if os.path.join(_ROOT, "python") not in sys.path:
    sys.path.insert(0, os.path.join(_ROOT, "python"))

import flashlab  # noqa: E402
from flashlab import (Device, FileSystem, LogFS, NandError, NotSupported,  # noqa: E402
                      Results, _lib)
from flashlab import experiment  # noqa: E402
from flashlab.results import ResultsError  # noqa: E402

LONG = bool(os.environ.get("FLASHLAB_LONG"))
TEST_YAML = os.path.join(_ROOT, "configs", "devices", "test-64m.yaml")
# the experiment the `flashlab run` test runs: FLASHLAB_TEST_EXPERIMENT, or
# a small one written by the test (configs/demo.yaml, 60 runs of 8 device
# fills, is `make run`'s, far too long for `make test`)
DEMO_EXPERIMENT = os.environ.get("FLASHLAB_TEST_EXPERIMENT")
SMALL_EXPERIMENT = """name: small
device: {file: %s, blocks_per_plane: 128}
fs: {reserve: 4, dirty: 64K}
workload: {kind: hotcold, utilisation: 0.5}
stop: {device_fills: 1}
sweep:
  fs.gc_policy: [greedy, fifo]
""" % TEST_YAML


def small_device(**kw):
    """16 MiB: 128 blocks of 64 pages of 2048 + 64 bytes, no bit errors."""
    args = dict(blocks=128, pages=64, page_size=2048, oob_size=64, seed=8, rber=None)
    args.update(kw)
    return Device.create(**args)


def pattern(n, seed):
    return random.Random(seed).randbytes(n)


class TempDirMixin:
    def setUp(self):
        super().setUp()
        self._tmp = tempfile.TemporaryDirectory(prefix="flashlab-py-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()
        super().tearDown()


# ---------------------------------------------------------------------------

class TestLayout(unittest.TestCase):
    def test_self_check(self):
        checks = flashlab.self_check()
        self.assertTrue(any("sizeof(struct nand_config)" in c for c in checks))
        self.assertTrue(any("nand_create + nand_get_config" in c for c in checks))
        self.assertGreaterEqual(len(checks), 10)

    def test_config_size_matches_c(self):
        # the library reports sizeof(struct nand_config) (api/layout.h)
        c = _lib.layout()["nand_config"]
        self.assertEqual(c["size"], _lib.ctypes.sizeof(_lib.NandConfig))
        self.assertEqual([f[0] for f in c["fields"]], [f[0] for f in _lib.NandConfig._fields_])

    def test_classes_are_built_from_the_table(self):
        # every struct of the table has a class whose fields, offsets, sizes
        # and total size are the table's: none is written in Python
        table = _lib.layout()
        for tag, c in table.items():
            cls = _lib.struct_class(tag)
            self.assertEqual(_lib.ctypes.sizeof(cls), c["size"], tag)
            self.assertEqual([f[0] for f in cls._fields_], [f[0] for f in c["fields"]], tag)
            for name, off, size, *_ in c["fields"]:
                self.assertEqual((getattr(cls, name).offset, getattr(cls, name).size),
                                 (off, size), "%s.%s" % (tag, name))
        self.assertIs(_lib.struct_class("nand_config"), _lib.NandConfig)
        self.assertEqual(_lib.NandConfig.geo.size, _lib.ctypes.sizeof(_lib.NandGeometry))
        self.assertIs(dict(_lib.NandConfig._fields_)["geo"], _lib.NandGeometry)

    def test_fsapi_members_need_no_python_edit(self):
        # every member fs/fsapi.h declares in struct fsapi is in the class
        # built from the table, at the C offset (layout.c's line is the edit)
        with open(os.path.join(_ROOT, "fs", "fsapi.h")) as f:
            src = f.read()
        body = re.search(r"struct fsapi \{(.*?)\n\};", src, re.S).group(1)
        body = re.sub(r"/\*.*?\*/", " ", body, flags=re.S)
        names = []
        for decl in body.split(";"):
            m = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", decl) or re.search(r"(\w+)\s*$", decl)
            if m:
                names.append(m.group(1))
        self.assertIn("readdir", names)
        self.assertEqual([f[0] for f in _lib.Fsapi._fields_], names)
        c = _lib.layout()["fsapi"]
        self.assertEqual(_lib.ctypes.sizeof(_lib.Fsapi), c["size"])

    def test_a_new_member_needs_no_python_edit(self):
        # a struct the library might describe: built from its entry alone
        table = dict(_lib.layout())
        ecc = table["nand_ecc"]
        table["test_widget"] = {"size": 48, "align": 8, "fields": [
            ("count", 0, 4, "i", "u", 0, None), ("delta", 4, 2, "i", "i", 0, None),
            ("tag", 6, 10, "-", "c", 10, None), ("ratio", 16, 8, "f", "f", 0, None),
            ("ecc", 24, ecc["size"], "-", "S", 0, "nand_ecc"),
            ("next", 32, 8, "-", "P", 0, "test_widget"), ("name", 40, 8, "-", "s", 0, None)]}
        cls = _lib.struct_class("test_widget", table)
        self.assertEqual(cls.__name__, "TestWidget")
        self.assertEqual(_lib.ctypes.sizeof(cls), 48)
        self.assertIn("matches", _lib.check_struct(cls, table))
        w = cls(count=7, delta=-2, tag=b"abc", ratio=0.5, name=b"w")
        w.ecc.correct_bits = 9
        self.assertEqual(_lib.struct_dict(w)["tag"], "abc")
        self.assertEqual((w.count, w.delta, w.ratio, w.ecc.correct_bits), (7, -2, 0.5, 9))
        w.next = _lib.ctypes.pointer(w)
        self.assertEqual(w.next.contents.count, 7)

    def test_every_class_is_in_the_table(self):
        table = _lib.layout()
        for cls in _lib._MIRRORED:
            self.assertIn(cls._c_struct_, table)
            self.assertIn("matches", _lib.check_struct(cls))
        self.assertEqual(_lib.constants()["NAND_E_ECC"], _lib.NAND_E_ECC)

    def _rejected(self, cls, *words):
        with self.assertRaises(_lib.LayoutError) as cm:
            _lib.check_struct(cls)
        msg = str(cm.exception)
        for w in ("struct nand_stats",) + words:
            self.assertIn(w, msg)
        return msg

    def test_wrong_classes_are_rejected(self):
        _lib.get()  # the classes get their fields from the library's table
        good = list(_lib.NandStats._fields_)

        def copy(fields, name="BadStats"):
            return type(name, (_lib.ctypes.Structure,),
                        {"_c_struct_": "nand_stats", "_fields_": fields})
        # two fields swapped
        swapped = good[:]
        swapped[1], swapped[2] = swapped[2], swapped[1]
        self._rejected(copy(swapped), "'programs'", "'erases'", "out of order")
        # one missing, in the middle and at the end
        self._rejected(copy(good[:5] + good[6:]), "'bits_corrected'", "missing")
        self._rejected(copy(good[:-1]), "'busy_ns'", "missing")
        # one too many, and one renamed
        self._rejected(copy(good + [("extra", _lib.c_uint64)]), "'extra'", "not in the C")
        self._rejected(copy(good[:3] + [("bytes_in", _lib.c_uint64)] + good[4:]),
                       "'bytes_read'")
        # a narrower type (moves every later offset), and a same-size wrong kind
        self._rejected(copy(good[:3] + [("bytes_read", _lib.c_uint32)] + good[4:]),
                       "'bytes_read'", "8 bytes in C, 4")
        self._rejected(copy(good[:3] + [("bytes_read", _lib.c_double)] + good[4:]),
                       "'bytes_read'", "an integer in C")
        # a class naming no or an unknown struct
        with self.assertRaises(_lib.LayoutError):
            _lib.check_struct(type("NoName", (_lib.ctypes.Structure,), {"_fields_": good}))
        with self.assertRaisesRegex(_lib.LayoutError, "no_such"):
            _lib.check_struct(type("Unknown", (_lib.ctypes.Structure,),
                                   {"_c_struct_": "no_such", "_fields_": good}))

    def test_wrong_constants_are_rejected(self):
        consts = dict(_lib.constants())
        self.assertTrue(_lib.check_constants(consts))
        for name, delta in (("NAND_E_ECC", -100), ("LOGFS_OP_META", 1), ("O_CREAT", 1)):
            bad = dict(consts)
            bad[name] += delta
            with self.assertRaisesRegex(_lib.LayoutError, name):
                _lib.check_constants(bad)
        del consts["RESULTS_FAILED"]
        with self.assertRaisesRegex(_lib.LayoutError, "RESULTS_FAILED"):
            _lib.check_constants(consts)

    def test_other_table_version_is_refused(self):
        class Newer:
            @staticmethod
            def flashlab_layout_version():
                return _lib.LAYOUT_VERSION + 1
        with self.assertRaisesRegex(_lib.LayoutError, "version"):
            _lib._read_table(Newer())

    def test_mismatch_stops_the_load(self):
        # a wrong class among those checked: the first use of the library
        # fails with LayoutError naming the struct and the field
        import subprocess
        code = ("import ctypes, flashlab\n"
                "from flashlab import _lib\n"
                "f = [('programs', ctypes.c_uint64), ('reads', ctypes.c_uint64)]\n"
                "Bad = type('Bad', (ctypes.Structure,), {'_c_struct_': 'nand_stats', "
                "'_fields_': f})\n"
                "_lib._MIRRORED = _lib._MIRRORED + (Bad,)\n"
                "try:\n"
                "    flashlab.Device.create(blocks=8, pages=4, page_size=512)\n"
                "except _lib.LayoutError as e:\n"
                "    print(e); assert _lib._lib is None\n"
                "else:\n"
                "    raise SystemExit('loaded')\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(_ROOT, "python"))
        p = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("struct nand_stats", p.stdout)
        self.assertIn("'reads'", p.stdout)

    def test_library_lookup(self):
        path = _lib.lib_path()
        if os.environ.get("FLASHLAB_LIB"):
            self.assertEqual(path, os.path.abspath(os.environ["FLASHLAB_LIB"]))
        else:
            self.assertEqual(path, os.path.join(_ROOT, "build", "libflashlab.so"))
        self.assertTrue(os.path.exists(path))

    def test_missing_library_is_a_clear_error(self):
        import subprocess
        env = dict(os.environ, FLASHLAB_LIB=os.path.join(_ROOT, "no-such-lib.so"),
                   PYTHONPATH=os.path.join(_ROOT, "python"))
        p = subprocess.run([sys.executable, "-c", "import flashlab; flashlab.Device.create("
                            "blocks=8, pages=4, page_size=512)"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("LibraryNotFound", p.stderr)
        self.assertIn("no-such-lib.so", p.stderr)
        # importing alone does not need the library (results.py is pure sqlite)
        p = subprocess.run([sys.executable, "-c", "import flashlab.results"], env=env)
        self.assertEqual(p.returncode, 0)


# ---------------------------------------------------------------------------

class TestDevice(TempDirMixin, unittest.TestCase):
    def test_create_in_memory(self):
        with small_device() as dev:
            self.assertEqual(dev.blocks, 128)
            self.assertEqual(dev.pages_per_block, 64)
            self.assertEqual(dev.page_size, 2048)
            self.assertEqual(dev.oob_size, 64)
            self.assertEqual(dev.capacity, 128 * 64 * 2048)
            cfg = dev.config()
            self.assertEqual(cfg["seed"], 8)
            self.assertEqual(cfg["rber"]["eps"], 0.0)
            self.assertEqual(cfg["name"], "custom")
            self.assertEqual(dev.now(), 0)
            self.assertFalse(dev.closed)
        self.assertTrue(dev.closed)

    def test_create_kwargs_forms(self):
        with Device.create(blocks=64, pages=16, page_size=4096, channels=2,
                           dies_per_channel=2, timing={"t_prog_ns": 300000},
                           ecc={"correct_bits": 8}, name="mine", cell="mlc",
                           pair_distance=4) as dev:
            c = dev.config()
            self.assertEqual(c["geo"]["blocks_per_plane"], 16)  # 64 over 4 dies
            self.assertEqual(dev.blocks, 64)
            self.assertEqual(c["geo"]["oob_size"], 128)         # page_size / 32
            self.assertEqual(c["timing"]["t_prog_ns"], 300000)
            self.assertEqual(c["timing"]["t_prog_upper_ns"], 300000)  # finished
            self.assertEqual(c["ecc"]["correct_bits"], 8)
            self.assertEqual(c["cell"], _lib.NAND_MLC)
            self.assertEqual(dev.name, "mine")
        with self.assertRaises(TypeError):
            Device.create(blocks=8, pages=4, page_size=512, bogus=1)
        with self.assertRaises(ValueError):
            Device.create(blocks=9, pages=4, page_size=512, dies_per_channel=2)
        with self.assertRaises(NandError) as cm:
            Device.create(blocks=8, pages=4, page_size=1000)  # codewords do not divide
        self.assertEqual(cm.exception.code, _lib.NAND_E_INVAL)
        self.assertIn("codeword", str(cm.exception))

    def test_create_from_yaml(self):
        with Device.create(TEST_YAML) as dev:
            self.assertEqual(dev.name, "test-64m")
            self.assertEqual(dev.capacity, 64 << 20)
            self.assertEqual(dev.config()["nop"], 4)
        with Device.create(TEST_YAML, blocks=256, seed=99) as dev:
            self.assertEqual(dev.blocks, 256)
            self.assertEqual(dev.config()["seed"], 99)
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write("geometry:\n  pagesize: 5\n")
        with self.assertRaises(NandError) as cm:
            Device.create(bad)
        self.assertIn("bad.yaml:2:", str(cm.exception))
        self.assertIn("page_size", str(cm.exception))

    def test_raw_program_read_erase(self):
        with small_device() as dev:
            data = pattern(2048, 1)
            dev.program(5, 0, data, b"\x01\x02")
            got, oob = dev.read(5, 0, oob=True)
            self.assertEqual(got, data)
            self.assertEqual(oob[:3], b"\x01\x02\xff")
            self.assertEqual(dev.read(5, 0, raw=True), data)
            self.assertGreater(dev.last_result["done"], dev.last_result["start"])
            dev.program(5, 1, b"short")
            self.assertEqual(dev.read(5, 1), b"short" + b"\xff" * 2043)
            self.assertEqual(dev.read_col(5, 1, 1, 4), b"hort")
            # the rules: no reprogram, ascending order
            with self.assertRaises(NandError) as cm:
                dev.program(5, 0, data)
            self.assertEqual(cm.exception.code, _lib.NAND_E_NOT_ERASED)
            dev.program(5, 9, b"x")
            with self.assertRaises(NandError) as cm:
                dev.program(5, 3, b"x")
            self.assertEqual(cm.exception.code, _lib.NAND_E_ORDER)
            with self.assertRaises(NandError) as cm:
                dev.read(100000, 0)
            self.assertEqual(cm.exception.code, _lib.NAND_E_ADDR)
            with self.assertRaises(ValueError):
                dev.program(6, 0, b"x" * 2049)
            info = dev.block_info(5)
            self.assertEqual(info["pages_programmed"], 10)
            self.assertEqual(info["pe_cycles"], 0)
            dev.erase(5)
            self.assertEqual(dev.read(5, 0), b"\xff" * 2048)
            info = dev.block_info(5)
            self.assertEqual(info["pe_cycles"], 1)
            self.assertEqual(info["pages_programmed"], 0)
            self.assertFalse(info["factory_bad"])
            st = dev.stats()
            self.assertEqual(st["programs"], 3)
            self.assertEqual(st["erases"], 1)
            self.assertEqual(st["violations_not_erased"], 1)
            self.assertEqual(st["violations_order"], 1)
            self.assertGreaterEqual(st["reads"], 5)
            self.assertEqual(dev.erase_counts()[5], 1)
            t = dev.now()
            dev.advance(12345)
            self.assertEqual(dev.now(), t + 12345)
            dev.reset_stats()
            self.assertEqual(dev.stats()["programs"], 0)

    def test_queued_ops_run_in_parallel(self):
        with Device.create(blocks=64, pages=16, page_size=2048, dies_per_channel=4,
                           rber=None) as dev:
            t0 = dev.now()
            for die in range(4):
                st, res, _ = dev.submit("program", die * 16, 0, b"q")
                self.assertEqual(st, 0)
            self.assertEqual(dev.now(), t0)
            end = dev.wait()
            self.assertEqual(end, dev.now())
            self.assertLess(end - t0, 2 * 4 * 200000)  # overlapped, not serial
            st, res, data = dev.submit("read", 16, 0)
            dev.wait()
            self.assertEqual(data[:2], b"q\xff")

    def test_power_cut_and_snapshot(self):
        with small_device() as dev:
            dev.program(1, 0, b"before")
            snap = dev.snapshot()
            dev.erase(1)
            dev.program(1, 0, b"after")
            snap.restore()
            self.assertEqual(dev.read(1, 0)[:6], b"before")
            dev.power_cut()
            self.assertFalse(dev.powered)
            with self.assertRaises(NandError) as cm:
                dev.read(1, 0)
            self.assertEqual(cm.exception.code, _lib.NAND_E_POWER)
            dev.power_on()
            self.assertTrue(dev.powered)
            dev.cut_after_ops(1, 0.5)
            dev.program(2, 0, b"ok")
            with self.assertRaises(NandError):
                dev.program(2, 1, b"torn")
            dev.power_on()
            self.assertEqual(dev.stats()["torn_programs"], 1)
            snap.free()
            snap.free()  # idempotent
            dev.snapshot()  # left for close() to free

    def test_export_and_import_dump(self):
        nd, raw = os.path.join(self.tmp, "d.nanddump"), os.path.join(self.tmp, "d.raw")
        geo = dict(blocks=128, pages=64, page_size=2048, oob_size=64, seed=8, rber=None)
        with small_device() as dev:
            dev.program(3, 1, b"dumped", b"\xff\x42")
            dev.mark_bad(5)
            dev.export_dump(nd)
            dev.export_dump(raw, format="raw")
            self.assertEqual(dev.stats()["reads"], 0)  # exporting reads nothing
        self.assertEqual(os.path.getsize(nd), 128 * 64 * 2112)
        self.assertEqual(os.path.getsize(raw), 128 * 64 * 2048)
        with Device.import_dump(nd, **geo) as dev:
            data, oob = dev.read(3, 1, oob=True)
            self.assertEqual((data[:6], oob[:2]), (b"dumped", b"\xff\x42"))
            self.assertTrue(dev.is_bad(5))
        with Device.import_dump(raw, format="raw", **geo) as dev:
            data, oob = dev.read(3, 1, oob=True)
            self.assertEqual((data[:6], oob[:2]), (b"dumped", b"\xff\xff"))
            self.assertFalse(dev.is_bad(5))
        short = os.path.join(self.tmp, "short.nanddump")
        with open(short, "wb") as f:
            f.write(b"\0" * 3000)
        with self.assertRaises(NandError) as cm:
            Device.import_dump(short, **geo)
        self.assertEqual(cm.exception.code, _lib.NAND_E_CORRUPT)
        self.assertIn("3000 bytes is not a whole number of 2112-byte pages", str(cm.exception))

    def test_save_and_open_image(self):
        path = os.path.join(self.tmp, "dev.img")
        with small_device(seed=77) as dev:
            dev.program(7, 0, b"persist")
            dev.erase(9)
            now = dev.now()
            dev.save(path)
        with Device.open(path) as dev:
            self.assertEqual(dev.read(7, 0)[:7], b"persist")
            self.assertEqual(dev.block_info(9)["pe_cycles"], 1)
            self.assertEqual(dev.config()["seed"], 77)
            self.assertGreaterEqual(dev.now(), now)
        with self.assertRaises(NandError) as cm:
            Device.open(os.path.join(self.tmp, "missing.img"))
        self.assertEqual(cm.exception.code, _lib.NAND_E_IO)
        junk = os.path.join(self.tmp, "junk.img")
        with open(junk, "wb") as f:
            f.write(b"not an image" * 10)
        with self.assertRaises(NandError) as cm:
            Device.open(junk)
        self.assertEqual(cm.exception.code, _lib.NAND_E_CORRUPT)

    def test_corrupt_modes_and_save(self):
        path = os.path.join(self.tmp, "hurt.img")
        data = pattern(2048, 3)
        with small_device(seed=5) as dev:
            for p in range(4):
                dev.program(7, p, data)
            dev.corrupt("silent", 7, 0, bits=3, seed=9)
            self.assertEqual(sum(bin(a ^ b).count("1")
                                 for a, b in zip(dev.read(7, 0), data)), 3)
            dev.corrupt("uncorrectable", 7, 1)
            with self.assertRaises(NandError) as cm:
                dev.read(7, 1)
            self.assertEqual(cm.exception.code, _lib.NAND_E_ECC)
            dev.corrupt("wipe", 7, 2)
            self.assertEqual(dev.read(7, 2), b"\xff" * 2048)
            dev.corrupt("bad", 12)
            self.assertTrue(dev.block_info(12)["grown_bad"])
            now = dev.now()
            dev.corrupt("age", hours=2, reads=10, all_blocks=True)
            self.assertEqual(dev.now(), now + 2 * 3600 * 10**9)
            with self.assertRaises(NandError) as cm:
                dev.corrupt("flip", 7, 99)
            self.assertIn("page 99", str(cm.exception))
            with self.assertRaises(ValueError):
                dev.corrupt("sideways", 7, 0)
            dev.save(path)
        with Device.open(path) as dev:
            self.assertNotEqual(dev.read(7, 0), data)
            with self.assertRaises(NandError):
                dev.read(7, 1)
            self.assertTrue(dev.block_info(12)["marked_bad"])

    def test_closed_device(self):
        dev = small_device()
        dev.close()
        dev.close()
        with self.assertRaises(ValueError):
            dev.read(0, 0)
        with self.assertRaises(ValueError):
            dev.stats()
        self.assertIn("closed", repr(dev))


class TestFileSystem(unittest.TestCase):
    """FileSystem: every kind of fs/fsapi.h through its table."""

    def test_round_trip_every_kind(self):
        kinds = flashlab.fs_kinds()
        self.assertEqual(set(kinds), {"logfs", "jffs2-scan", "jffs2-summary", "blockfs", "ftl"})
        for kind in kinds:
            if kind == "ftl":
                continue  # a block device: one file, /disk (tests/fs/test_ftlfs.c)
            with self.subTest(kind=kind), small_device() as dev:
                FileSystem.mkfs(dev, kind=kind)
                big = pattern(20000, 5)
                with FileSystem.mount(dev, kind=kind) as fs:
                    self.assertEqual(fs.kind, kind)
                    fs.mkdir("/d")
                    fs.write_file("/d/big", big)
                    fd = fs.open("/d/pos", os.O_RDWR | os.O_CREAT, 0o600)
                    self.assertEqual(fs.write(fd, b"abc"), 3)
                    self.assertEqual(fs.write(fd, b"def"), 3)
                    self.assertEqual(fs.lseek(fd, 2), 2)
                    self.assertEqual(fs.read(fd, 3), b"cde")
                    self.assertEqual(fs.pwrite(fd, b"XY", 4), 2)
                    fs.fsync(fd)
                    self.assertEqual(fs.fstat(fd).size, 6)
                    fs.close(fd)
                    fs.write_file("/gone", b"x")
                    fs.rename("/gone", "/d/moved")
                    fs.unlink("/d/moved")
                    fs.sync()
                    self.assertGreater(fs.statfs().total_bytes, 0)
                self.assertTrue(fs.closed)
                with FileSystem.mount(dev) as fs:  # probed
                    self.assertEqual(fs.kind, kind)
                    self.assertEqual(fs.read_file("/d/big"), big)
                    self.assertEqual(fs.read_file("/d/pos"), b"abcdXY")
                    self.assertEqual(sorted(fs.listdir("/d")), ["big", "pos"])
                    self.assertTrue(stat.S_ISDIR(fs.stat("/d").mode))
                    self.assertEqual(fs.stat("/d/pos").mode & 0o777, 0o600)
                    with self.assertRaises(FileNotFoundError):
                        fs.stat("/d/moved")

    def test_kind_does_not_support(self):
        with small_device() as dev:
            FileSystem.mkfs(dev, kind="blockfs")
            with FileSystem.mount(dev) as fs:
                self.assertFalse(fs.supports("mknod"))
                self.assertTrue(fs.supports("pread"))
                with self.assertRaises(NotSupported) as cm:
                    fs.mknod("/fifo", stat.S_IFIFO | 0o644)
                self.assertIn("blockfs does not support", str(cm.exception))
                self.assertEqual(cm.exception.errno, errno.ENOTSUP)
                self.assertIsInstance(cm.exception, OSError)
                self.assertIsInstance(cm.exception, NotImplementedError)
                fs.write_file("/f", b"x")
                with self.assertRaisesRegex(NotSupported, "blockfs does not support"):
                    fs.setxattr("/f", "user.a", b"1")

    def test_hooks_features_and_options(self):
        self.assertTrue({"special_files", "xattr", "attrs"} <= flashlab.fs_features("logfs"))
        self.assertNotIn("special_files", flashlab.fs_features("blockfs"))
        self.assertIn("compress", flashlab.fs_features("jffs2-scan"))
        self.assertIn("gc_policy", flashlab.option_keys("logfs"))
        self.assertEqual(flashlab.option_keys(), flashlab.option_keys("logfs"))
        self.assertIn("block_size", flashlab.option_keys("blockfs"))
        with small_device() as dev:
            # the kind's check_options, with its text naming the key
            with self.assertRaises(OSError) as cm:
                FileSystem.mkfs(dev, kind="blockfs", options="nonsense=1")
            self.assertEqual(cm.exception.errno, errno.EINVAL)
            self.assertIn("nonsense", cm.exception.strerror)
            FileSystem.mkfs(dev, kind="blockfs", block_size=4096)
            with FileSystem.mount(dev) as fs:
                self.assertEqual(fs.features, flashlab.fs_features("blockfs"))
                for what, call in (("stats", fs.stats), ("latency", lambda: fs.latency("read")),
                                   ("idle", lambda: fs.idle(1)), ("scrub", lambda: fs.scrub(1)),
                                   ("chmod", lambda: fs.chmod("/", 0o700))):
                    with self.assertRaisesRegex(NotSupported, "blockfs does not support"):
                        call()
                fs.write_file("/t", b"0123456789")
                fs.truncate("/t", 4)  # no hook: open, ftruncate, close
                self.assertEqual(fs.read_file("/t"), b"0123")
        with small_device() as dev:
            FileSystem.mkfs(dev, kind="logfs")
            with FileSystem.mount(dev, dirty="64K") as fs:
                fs.reset_latency()
                fs.write_file("/t", b"0123456789")
                fs.sync()
                st = fs.stats()
                self.assertGreaterEqual(st["commits"], 1)
                self.assertEqual(st["host_bytes"], 10)
                self.assertEqual(set(st), set(f[0] for f in _lib.LogfsStats._fields_))
                self.assertEqual(fs.latency("sync")["count"], 1)
                fs.idle(10**6)
                self.assertGreaterEqual(fs.scrub(4), 0)
                self.assertIsInstance(fs.block_role(0), str)
                fs.chmod("/t", 0o600)
                self.assertEqual(fs.stat("/t").mode & 0o777, 0o600)
                fs.utimens("/t", 5 * 10**9, _lib.FS_TIME_OMIT)
                self.assertEqual(fs.stat("/t").atime, 5 * 10**9)
                fs.truncate("/t", 3)
                self.assertEqual(fs.read_file("/t"), b"012")

    def test_logfs_is_a_filesystem(self):
        self.assertTrue(issubclass(LogFS, FileSystem))
        with small_device() as dev:
            FileSystem.mkfs(dev, kind="logfs", options="block_size=4096")
            with FileSystem.mount(dev, options="cache=1M") as fs:
                self.assertIs(type(fs), LogFS)  # probed, with LogFS's extras
                self.assertEqual(fs.kind, "logfs")
                fs.write_file("/a", b"data")
                self.assertGreaterEqual(fs.stats()["commits"], 0)
            with LogFS.mount(dev, readonly=True) as fs:
                self.assertIsInstance(fs, FileSystem)
                self.assertEqual(fs.read_file("/a"), b"data")
                self.assertTrue(fs.supports("mknod"))

    def test_bad_kind_options_and_blank_device(self):
        with small_device() as dev:
            with self.assertRaises(OSError) as cm:
                FileSystem.mkfs(dev, kind="no-such-fs")
            self.assertEqual(cm.exception.errno, errno.EINVAL)
            self.assertIn("blockfs", str(cm.exception))  # names the kinds there are
            with self.assertRaises(OSError) as cm:
                FileSystem.mount(dev)  # nothing to probe
            self.assertEqual(cm.exception.errno, errno.EINVAL)
            with self.assertRaises(OSError) as cm:
                FileSystem.mkfs(dev, kind="blockfs", options="no_such_key=1")
            self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_close_device_unmounts_any_kind(self):
        dev = small_device()
        FileSystem.mkfs(dev, kind="jffs2-summary")
        fs = FileSystem.mount(dev, kind="jffs2-summary")
        fs.write_file("/f", b"x")
        with self.assertRaises(OSError) as cm:
            FileSystem.mount(dev)
        self.assertEqual(cm.exception.errno, errno.EBUSY)
        dev.close()
        self.assertTrue(fs.closed)
        with self.assertRaises(ValueError):
            fs.stat("/")


class TestLifetime(unittest.TestCase):
    """C resources are freed exactly once whatever the order of release."""

    def test_close_device_unmounts(self):
        dev = small_device()
        LogFS.mkfs(dev)
        fs = LogFS.mount(dev)
        fs.write_file("/f", b"x")
        dev.close()
        self.assertTrue(fs.closed)
        fs.unmount()  # no-op
        with self.assertRaises(ValueError):
            fs.stat("/")

    def test_unmount_then_close(self):
        dev = small_device()
        LogFS.mkfs(dev)
        with LogFS.mount(dev) as fs:
            fs.write_file("/f", b"x")
        self.assertTrue(fs.closed)
        fs.unmount()
        dev.close()
        dev.close()

    def test_garbage_collection_in_any_order(self):
        for order in range(4):
            dev = small_device()
            LogFS.mkfs(dev)
            fs = LogFS.mount(dev)
            snap = dev.snapshot()
            fs.write_file("/f", b"y" * 1000)
            if order == 0:
                del fs, snap, dev
            elif order == 1:
                del dev, snap, fs
            elif order == 2:
                dev._cycle = (fs, snap)  # a reference cycle: collector order
                fs._cycle = dev
                del fs, snap, dev
            else:
                dev.close()
                del dev
                gc.collect()
                del fs, snap
            gc.collect()

    def test_no_leak(self):
        # glibc's mallinfo2 counts the C heap: devices and file systems
        # released by close() or by the garbage collector give it all back
        # (a device + fs kept alive costs tens of KiB here).
        import ctypes
        try:
            libc = ctypes.CDLL(None)
            mallinfo2 = libc.mallinfo2
        except (OSError, AttributeError):
            self.skipTest("no mallinfo2 (not glibc >= 2.33)")

        class MallInfo2(ctypes.Structure):
            _fields_ = [(n, ctypes.c_size_t) for n in (
                "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                "uordblks", "fordblks", "keepcost")]
        mallinfo2.restype = MallInfo2

        def used():
            gc.collect()
            m = mallinfo2()
            return m.uordblks + m.hblkhd

        def cycle(explicit):
            dev = small_device()
            LogFS.mkfs(dev)
            fs = LogFS.mount(dev)
            fs.write_file("/a", b"x" * 50000)
            dev.snapshot()
            if explicit:
                fs.unmount()
                dev.close()

        kept = []
        for explicit in (True, False):
            cycle(explicit)
            before = used()
            for _ in range(30):
                cycle(explicit)
            grown = used() - before
            before = used()
            kept.append(small_device())
            LogFS.mkfs(kept[-1])
            one = used() - before
            if one <= 0:
                self.skipTest("mallinfo2 does not see the C heap (another allocator, "
                              "e.g. ASan)")
            self.assertLess(grown, 3 * one, "explicit=%s: %d bytes kept after 30 cycles, "
                            "one device is %d" % (explicit, grown, one))
        for d in kept:
            d.close()

    def test_mkfs_refused_while_mounted(self):
        with small_device() as dev:
            LogFS.mkfs(dev)
            with LogFS.mount(dev):
                with self.assertRaises(OSError) as cm:
                    LogFS.mkfs(dev)
                self.assertEqual(cm.exception.errno, errno.EBUSY)
                with self.assertRaises(OSError) as cm:
                    LogFS.mount(dev)
                self.assertEqual(cm.exception.errno, errno.EBUSY)


# ---------------------------------------------------------------------------

class FsCase(TempDirMixin, unittest.TestCase):
    mkfs_options = {}
    mount_options = {"gc_policy": "cost-benefit"}

    def setUp(self):
        super().setUp()
        self.dev = small_device()
        LogFS.mkfs(self.dev, **self.mkfs_options)
        self.fs = LogFS.mount(self.dev, **self.mount_options)

    def tearDown(self):
        self.fs.unmount()
        self.dev.close()
        super().tearDown()

    def remount(self, **options):
        self.fs.unmount()
        self.fs = LogFS.mount(self.dev, **(options or self.mount_options))
        return self.fs


class TestOptions(TempDirMixin, unittest.TestCase):
    def test_mkfs_and_mount_options(self):
        with small_device() as dev:
            LogFS.mkfs(dev, block_size=2048, anchor_blocks=4, reserve=6)
            with LogFS.mount(dev, "cache=1M", gc_policy="cost-benefit", dirty="64K",
                             gc_separate=True, wear_leveling="static") as fs:
                self.assertEqual(fs.statfs().block_size, 2048)
                fs.write_file("/x", b"1" * 10000)
            with LogFS.mount(dev, readonly=True) as fs:
                self.assertEqual(fs.read_file("/x"), b"1" * 10000)
                with self.assertRaises(OSError) as cm:
                    fs.write_file("/y", b"no")
                self.assertIn(cm.exception.errno, (errno.EROFS, errno.EPERM, errno.EACCES))

    def test_scrub(self):
        """logfs_scrub through the binding: off, it reads nothing; on, it
        reads written pages and (no bit errors here) moves nothing."""
        with small_device() as dev:
            LogFS.mkfs(dev)
            with LogFS.mount(dev) as fs:
                for i in range(8):
                    fs.write_file("/s%d" % i, pattern(40000, i))
                fs.sync()
                reads = dev.stats()["reads"]
                self.assertEqual(fs.scrub(10000), 0)
                self.assertEqual(dev.stats()["reads"], reads)
            with LogFS.mount(dev, scrub_threshold=1) as fs:
                self.assertEqual(fs.scrub(50), 0)
                st = fs.stats()
                self.assertEqual(st["scrub_reads"], 50)  # the budget
                self.assertEqual(st["scrub_segments"], 0)
                for i in range(8):
                    self.assertEqual(fs.read_file("/s%d" % i), pattern(40000, i))

    def test_bad_options_raise_einval(self):
        with small_device() as dev:
            for bad in ({"gc_policy": "no-such"}, {"block_size": 1000},
                        {"block_size": 65536}, {"nonsense": 1}, {"wear_leveling": "max"},
                        {"readonly": "maybe"}, {"cache": "-5"}):
                with self.assertRaises(OSError, msg=repr(bad)) as cm:
                    LogFS.mkfs(dev, **bad)
                self.assertEqual(cm.exception.errno, errno.EINVAL, bad)
                key = next(iter(bad))
                self.assertIn(key, cm.exception.strerror)
            with self.assertRaises(OSError) as cm:
                LogFS.mount(dev, "gc_policy")
            self.assertEqual(cm.exception.errno, errno.EINVAL)
            with self.assertRaises(OSError) as cm:
                LogFS.mount(dev, gc_policy="a,b")
            self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_policy_and_option_lists(self):
        pols = flashlab.gc_policies()
        self.assertIn("greedy", pols)
        self.assertIn("cost-benefit", pols)
        keys = flashlab.option_keys()
        for k in ("block_size", "gc_policy", "dirty", "wear_leveling"):
            self.assertIn(k, keys)
        kinds = flashlab.fs_kinds()
        self.assertEqual(set(kinds), {"logfs", "blockfs", "jffs2-scan", "jffs2-summary", "ftl"})
        self.assertTrue(all(kinds.values()))  # each has a one-line summary
        # every policy mounts
        with small_device() as dev:
            LogFS.mkfs(dev)
            for p in pols:
                with LogFS.mount(dev, gc_policy=p) as fs:
                    fs.write_file("/" + p, p.encode())
            with LogFS.mount(dev) as fs:
                self.assertEqual(sorted(fs.listdir("/")), sorted(pols))

    def test_mount_unformatted(self):
        with small_device() as dev:
            with self.assertRaises(OSError):
                LogFS.mount(dev)


class TestFiles(FsCase):
    def test_write_read_round_trip(self):
        fs = self.fs
        sizes = [0, 1, 4095, 4096, 4097, 100000, 300001]
        for i, n in enumerate(sizes):
            fs.write_file("/f%d" % i, pattern(n, i))
        for i, n in enumerate(sizes):
            self.assertEqual(fs.read_file("/f%d" % i), pattern(n, i))
            self.assertEqual(fs.stat("/f%d" % i).size, n)
        fd = fs.open("/f5", os.O_RDWR)
        self.assertEqual(fs.pread(fd, 10, 50000), pattern(100000, 5)[50000:50010])
        self.assertEqual(fs.pwrite(fd, b"HELLO", 99998), 5)
        self.assertEqual(fs.fstat(fd).size, 100003)
        self.assertEqual(fs.lseek(fd, 3, os.SEEK_SET), 3)
        self.assertEqual(fs.read(fd, 4), pattern(100000, 5)[3:7])
        self.assertEqual(fs.lseek(fd, -2, os.SEEK_END), 100001)
        self.assertEqual(fs.read(fd, 100), b"LO")
        self.assertEqual(fs.read(fd, 100), b"")
        fs.fsync(fd)
        fs.close(fd)
        fd = fs.open("/f1", os.O_WRONLY | os.O_APPEND)
        fs.write(fd, b"++")
        fs.close(fd)
        self.assertEqual(fs.read_file("/f1"), pattern(1, 1) + b"++")
        self.remount()
        self.assertEqual(self.fs.read_file("/f6"), pattern(300001, 6))
        self.assertEqual(self.fs.read_file("/f1"), pattern(1, 1) + b"++")

    def test_stat_fields(self):
        fs = self.fs
        t0 = self.dev.now()
        fs.write_file("/s", b"abc", mode=0o640)
        st = fs.stat("/s")
        self.assertTrue(stat.S_ISREG(st.mode))
        self.assertEqual(stat.S_IMODE(st.mode), 0o640)
        self.assertEqual(st.nlink, 1)
        self.assertEqual(st.size, 3)
        self.assertGreaterEqual(st.mtime, t0)
        self.assertLessEqual(st.mtime, self.dev.now())
        fs.chmod("/s", 0o600)
        fs.chown("/s", 12, 34)
        fs.utimens("/s", 111, 222)
        st = fs.stat("/s")
        self.assertEqual((stat.S_IMODE(st.mode), st.uid, st.gid, st.atime, st.mtime),
                         (0o600, 12, 34, 111, 222))
        self.assertTrue(stat.S_ISDIR(fs.stat("/").mode))

    def test_relative_symlinks_and_lchown(self):
        fs = self.fs
        fs.mkdir("/d")
        fs.mkdir("/d/sub")
        fs.write_file("/d/f", b"xyz")
        fs.symlink("../f", "/d/sub/up")
        fs.symlink("sub", "/d/ld")
        self.assertEqual(fs.read_file("/d/sub/up"), b"xyz")
        self.assertEqual(fs.read_file("/d/ld/up"), b"xyz")
        self.assertEqual(fs.stat("/d/ld/../f").size, 3)
        fs.symlink("loop", "/d/loop")
        with self.assertRaises(OSError) as cm:
            fs.stat("/d/loop")
        self.assertEqual(cm.exception.errno, errno.ELOOP)
        fs.lchown("/d/sub/up", 5, 6)
        fs.lutimens("/d/sub/up", 7, 8)
        lst, st = fs.lstat("/d/sub/up"), fs.stat("/d/sub/up")
        self.assertEqual((lst.uid, lst.gid, lst.atime, lst.mtime), (5, 6, 7, 8))
        self.assertEqual((st.uid, st.gid), (0, 0))

    def test_directories_and_listdir(self):
        fs = self.fs
        fs.mkdir("/a")
        fs.mkdir("/a/b", 0o700)
        fs.write_file("/a/one", b"1")
        fs.write_file("/a/b/two", b"2")
        names = ["n%03d" % i for i in range(120)]
        for n in names:
            fs.write_file("/a/b/" + n, n.encode())
        self.assertEqual(sorted(fs.listdir("/")), ["a"])
        self.assertEqual(sorted(fs.listdir("/a")), ["b", "one"])
        self.assertEqual(sorted(fs.listdir("/a/b")), sorted(names + ["two"]))
        entries = {e.name: e for e in fs.readdir("/a")}
        self.assertEqual(stat.S_IFMT(entries["b"].type), stat.S_IFDIR)
        self.assertEqual(stat.S_IFMT(entries["one"].type), stat.S_IFREG)
        self.assertEqual(entries["one"].ino, fs.stat("/a/one").ino)
        self.assertEqual(fs.listdir(b"/a/b")[0].__class__, bytes)
        self.assertTrue(stat.S_ISDIR(fs.stat("/a/b").mode))
        self.assertEqual(fs.stat("/a").size, 2)  # a directory's size: its entries
        with self.assertRaises(NotADirectoryError):
            fs.listdir("/a/one")
        for n in names:
            fs.unlink("/a/b/" + n)
        fs.unlink("/a/b/two")
        fs.rmdir("/a/b")
        self.assertEqual(fs.listdir("/a"), ["one"])
        self.remount()
        self.assertEqual(self.fs.listdir("/a"), ["one"])

    def test_rename(self):
        fs = self.fs
        fs.mkdir("/d1")
        fs.mkdir("/d2")
        fs.write_file("/d1/f", b"content")
        fs.rename("/d1/f", "/d2/g")
        self.assertFalse(fs.exists("/d1/f"))
        self.assertEqual(fs.read_file("/d2/g"), b"content")
        fs.write_file("/d2/h", b"old")
        fs.rename("/d2/g", "/d2/h")  # replaces
        self.assertEqual(fs.read_file("/d2/h"), b"content")
        self.assertEqual(fs.listdir("/d2"), ["h"])
        fs.rename("/d2", "/d3")
        self.assertEqual(fs.read_file("/d3/h"), b"content")
        with self.assertRaises(OSError) as cm:
            fs.rename("/d3", "/d3/sub")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(FileNotFoundError) as cm:
            fs.rename("/nope", "/x")
        self.assertEqual(cm.exception.filename, "/nope")
        self.assertEqual(cm.exception.filename2, "/x")
        self.remount()
        self.assertEqual(sorted(self.fs.listdir("/")), ["d1", "d3"])

    def test_hard_links(self):
        fs = self.fs
        fs.write_file("/orig", b"shared")
        fs.mkdir("/d")
        fs.link("/orig", "/d/alias")
        a, b = fs.stat("/orig"), fs.stat("/d/alias")
        self.assertEqual(a.ino, b.ino)
        self.assertEqual(a.nlink, 2)
        fd = fs.open("/d/alias", os.O_WRONLY)
        fs.pwrite(fd, b"S", 0)
        fs.close(fd)
        self.assertEqual(fs.read_file("/orig"), b"Shared")
        with self.assertRaises(FileExistsError):
            fs.link("/orig", "/d/alias")
        self.remount()
        fs = self.fs
        self.assertEqual(fs.stat("/orig").nlink, 2)
        fs.unlink("/orig")
        self.assertEqual(fs.stat("/d/alias").nlink, 1)
        self.assertEqual(fs.read_file("/d/alias"), b"Shared")

    def test_file_attributes(self):
        fs = self.fs
        fs.write_file("/f", b"log")
        self.assertEqual(fs.getflags("/f"), 0)
        fs.setflags("/f", _lib.FS_FL_APPEND | _lib.FS_FL_NODUMP)
        self.assertEqual(fs.getflags("/f"), _lib.FS_FL_APPEND | _lib.FS_FL_NODUMP)
        with self.assertRaises(PermissionError):
            fs.unlink("/f")
        with self.assertRaises(PermissionError):
            fs.truncate("/f", 0)
        fs.setflags("/f", _lib.FS_FL_IMMUTABLE)
        with self.assertRaises(PermissionError):
            fs.chmod("/f", 0o600)
        with self.assertRaises(OSError) as cm:  # a bit LogFS does not keep
            fs.setflags("/f", 0x1)
        self.assertEqual(cm.exception.errno, errno.EOPNOTSUPP)
        fs.setflags("/f", 0)
        fs.unlink("/f")

    def test_special_files_and_xattrs(self):
        fs = self.fs
        fs.mknod("/fifo", stat.S_IFIFO | 0o644)
        fs.mknod("/dev", stat.S_IFBLK | 0o600, os.makedev(8, 1))
        self.assertTrue(stat.S_ISFIFO(fs.lstat("/fifo").mode))
        st = fs.lstat("/dev")
        self.assertTrue(stat.S_ISBLK(st.mode))
        self.assertEqual((os.major(st.rdev), os.minor(st.rdev)), (8, 1))
        fs.write_file("/f", b"x")
        fs.setxattr("/f", "user.b", b"2")
        fs.setxattr("/f", "user.a", b"1" * 65536)
        self.assertEqual(fs.listxattr("/f"), ["user.a", "user.b"])
        self.assertEqual(fs.getxattr("/f", "user.a"), b"1" * 65536)
        with self.assertRaises(FileExistsError):
            fs.setxattr("/f", "user.b", b"3", fs.XATTR_CREATE)
        fs.removexattr("/f", "user.a")
        with self.assertRaises(OSError) as cm:
            fs.getxattr("/f", "user.a")
        self.assertEqual(cm.exception.errno, errno.ENODATA)
        with self.assertRaises(OSError) as cm:  # kept, but not a well-formed ACL
            fs.setxattr("/f", "system.posix_acl_access", b"")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(OSError) as cm:
            fs.setxattr("/f", "system.other", b"x")
        self.assertEqual(cm.exception.errno, errno.ENOTSUP)

    def test_symlinks(self):
        fs = self.fs
        fs.mkdir("/real")
        fs.write_file("/real/file", b"target data")
        fs.symlink("/real", "/ln")
        fs.symlink("/real/file", "/lf")
        fs.symlink("/missing", "/dangling")
        self.assertEqual(fs.readlink("/lf"), "/real/file")
        self.assertEqual(fs.readlink(b"/ln"), b"/real")
        self.assertTrue(stat.S_ISLNK(fs.lstat("/lf").mode))
        self.assertTrue(stat.S_ISREG(fs.stat("/lf").mode))
        self.assertEqual(fs.read_file("/lf"), b"target data")
        self.assertEqual(fs.read_file("/ln/file"), b"target data")  # followed mid-path
        with self.assertRaises(FileNotFoundError):
            fs.stat("/dangling")
        with self.assertRaises(OSError) as cm:
            fs.readlink("/real/file")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(FileExistsError):
            fs.symlink("/x", "/lf")
        long_target = "/" + "t" * 3000
        fs.symlink(long_target, "/long")
        self.remount()
        self.assertEqual(self.fs.readlink("/long"), long_target)
        self.assertEqual(self.fs.readlink("/dangling"), "/missing")

    def test_truncate_and_punch(self):
        fs = self.fs
        data = pattern(50000, 3)
        fs.write_file("/t", data)
        fs.truncate("/t", 1000)
        self.assertEqual(fs.read_file("/t"), data[:1000])
        fs.truncate("/t", 200000)  # sparse extension reads zeros
        got = fs.read_file("/t")
        self.assertEqual(len(got), 200000)
        self.assertEqual(got[:1000], data[:1000])
        self.assertEqual(got[1000:], bytes(199000))
        fs.write_file("/p", data)
        fd = fs.open("/p", os.O_RDWR)
        fs.punch(fd, 5000, 20000)
        self.assertEqual(fs.fstat(fd).size, 50000)
        fs.truncate(fd, 49000)  # an fd: ftruncate
        fs.close(fd)
        want = data[:5000] + bytes(20000) + data[25000:49000]
        self.assertEqual(fs.read_file("/p"), want)
        # preallocation (format 6): zeros, the size grown unless keep_size,
        # st_blocks counting the blocks allocated
        fd = fs.open("/a", os.O_RDWR | os.O_CREAT)
        fs.allocate(fd, 0, 40000)
        st = fs.fstat(fd)
        self.assertEqual((st.size, st.blocks), (40000, 10 * 4096 // 512))
        fs.allocate(fd, 40960, 8192, keep_size=True)
        self.assertEqual((fs.fstat(fd).size, fs.fstat(fd).blocks), (40000, 12 * 8))
        fs.close(fd)
        self.assertEqual(fs.read_file("/a"), bytes(40000))
        # a hole far past the end
        fd = fs.open("/h", os.O_RDWR | os.O_CREAT)
        fs.pwrite(fd, b"end", 10 << 20)
        self.assertEqual(fs.pread(fd, 8, (10 << 20) - 5), bytes(5) + b"end")
        fs.close(fd)
        self.remount()
        self.assertEqual(self.fs.read_file("/p"), want)
        self.assertEqual(self.fs.stat("/h").size, (10 << 20) + 3)

    def test_statfs(self):
        fs = self.fs
        st = fs.statfs()
        self.assertEqual(st.block_size, 4096)
        self.assertGreater(st.total_bytes, 0)
        self.assertLessEqual(st.total_bytes, self.dev.capacity)
        self.assertLessEqual(st.free_bytes, st.total_bytes)
        fs.write_file("/big", pattern(1 << 20, 4))
        fs.write_file("/small", b"s")
        fs.sync()
        st2 = fs.statfs()
        self.assertEqual(st2.total_bytes, st.total_bytes)
        self.assertLessEqual(st2.free_bytes, st.free_bytes - (1 << 20))
        self.assertGreaterEqual(st2.files, st.files + 2)

    def test_errors(self):
        fs = self.fs
        fs.mkdir("/d")
        fs.write_file("/d/f", b"x")
        with self.assertRaises(FileNotFoundError) as cm:
            fs.open("/missing")
        self.assertEqual((cm.exception.errno, cm.exception.filename), (errno.ENOENT, "/missing"))
        with self.assertRaises(FileNotFoundError):
            fs.stat("/d/nope")
        with self.assertRaises(FileNotFoundError):
            fs.unlink("/nope")
        with self.assertRaises(FileNotFoundError):
            fs.open("/no/dir/f", os.O_CREAT | os.O_WRONLY)
        with self.assertRaises(FileExistsError) as cm:
            fs.mkdir("/d")
        self.assertEqual(cm.exception.errno, errno.EEXIST)
        with self.assertRaises(FileExistsError):
            fs.open("/d/f", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        with self.assertRaises(OSError) as cm:
            fs.rmdir("/d")
        self.assertEqual(cm.exception.errno, errno.ENOTEMPTY)
        self.assertEqual(cm.exception.filename, "/d")
        with self.assertRaises(IsADirectoryError):
            fs.unlink("/d")
        with self.assertRaises(NotADirectoryError):
            fs.rmdir("/d/f")
        with self.assertRaises(NotADirectoryError):
            fs.open("/d/f/x")
        with self.assertRaises(IsADirectoryError):
            fs.open("/d", os.O_WRONLY)
        with self.assertRaises(OSError) as cm:
            fs.close(12345)
        self.assertEqual(cm.exception.errno, errno.EBADF)
        fd = fs.open("/d/f", os.O_WRONLY)
        with self.assertRaises(OSError) as cm:
            fs.read(fd, 1)
        self.assertEqual(cm.exception.errno, errno.EBADF)
        fs.close(fd)
        with self.assertRaises(OSError) as cm:
            fs.latency("nope")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(OSError) as cm:
            fs.latency(99)
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(TypeError):
            fs.stat(42)

    def test_stats_counters_grow(self):
        fs = self.fs
        s0, d0 = fs.stats(), self.dev.stats()
        for i in range(20):
            fs.write_file("/c%d" % i, pattern(30000, i))
        fs.sync()
        s1, d1 = fs.stats(), self.dev.stats()
        self.assertEqual(s1["host_bytes"] - s0["host_bytes"], 20 * 30000)
        self.assertGreater(s1["commits"], s0["commits"])
        self.assertGreater(s1["pages_data"], s0["pages_data"])
        self.assertGreater(s1["pages_meta"] + s1["pages_anchor"],
                           s0["pages_meta"] + s0["pages_anchor"])
        self.assertGreater(s1["live_bytes"], s0["live_bytes"] + 20 * 30000 - 1)
        self.assertGreater(s1["mem_bytes"], 0)
        self.assertGreater(d1["programs"], d0["programs"])
        self.assertGreater(d1["bytes_written"], d0["bytes_written"] + 20 * 30000 - 1)
        self.assertGreater(d1["busy_ns"], d0["busy_ns"])
        self.assertLess(s1["free_segments"], s0["free_segments"])
        # the flash writes the fs counts are the device's programs
        pages = s1["pages_data"] + s1["pages_meta"] + s1["pages_anchor"]
        self.assertLessEqual(pages - (s0["pages_data"] + s0["pages_meta"] + s0["pages_anchor"]),
                             d1["programs"] - d0["programs"])

    def test_latency(self):
        fs = self.fs
        fs.reset_latency()
        fd = fs.open("/lat", os.O_RDWR | os.O_CREAT)
        for i in range(50):
            fs.pwrite(fd, pattern(8192, i), i * 8192)
            if i % 10 == 9:
                fs.fsync(fd)
        for i in range(30):
            fs.pread(fd, 4096, i * 4096)
        fs.close(fd)
        for kind, count in (("write", 50), ("sync", 5), ("read", 30)):
            lat = fs.latency(kind)
            self.assertEqual(lat["count"], count, kind)
            self.assertLessEqual(lat["p50_ns"], lat["p99_ns"])
            self.assertLessEqual(lat["p99_ns"], lat["p999_ns"])
            self.assertLessEqual(lat["p999_ns"], lat["max_ns"])
            self.assertLessEqual(lat["mean_ns"], lat["max_ns"])
            self.assertGreaterEqual(lat["mean_ns"], 0)
        sync = fs.latency("sync")
        # a commit programs pages: at least one tPROG (200 us) each
        self.assertGreaterEqual(sync["p50_ns"], 200000)
        self.assertLess(sync["max_ns"], 10 * 10**9)
        self.assertGreater(fs.latency("meta")["count"], 0)  # open, close, fstat...
        self.assertEqual(fs.latency(_lib.LOGFS_OP_WRITE)["count"], 50)
        fs.reset_latency()
        self.assertEqual(fs.latency("write")["count"], 0)

    def test_remount_keeps_data(self):
        fs = self.fs
        fs.mkdir("/keep")
        fs.write_file("/keep/a", pattern(12345, 1))
        fs.symlink("/keep/a", "/la")
        ino = fs.stat("/keep/a").ino
        for opts in ({"gc_policy": "greedy"}, {"gc_policy": "fifo", "cache": "64K"}, {}):
            fs = self.remount(**opts) if opts else self.remount()
            self.assertEqual(fs.read_file("/keep/a"), pattern(12345, 1))
            self.assertEqual(fs.stat("/keep/a").ino, ino)
            self.assertEqual(fs.readlink("/la"), "/keep/a")

    def test_save_image_and_reopen(self):
        fs = self.fs
        fs.mkdir("/img")
        fs.write_file("/img/data", pattern(70000, 9))
        fs.sync()
        path = os.path.join(self.tmp, "fs.img")
        self.dev.save(path)
        with Device.open(path) as dev2:
            with LogFS.mount(dev2) as fs2:
                self.assertEqual(fs2.read_file("/img/data"), pattern(70000, 9))
                fs2.write_file("/img/more", b"second")
            dev2.save(path)
        with Device.open(path) as dev3, LogFS.mount(dev3, readonly=True) as fs3:
            self.assertEqual(sorted(fs3.listdir("/img")), ["data", "more"])

    def test_sync_is_durable_without_a_save(self):
        # a long session commits with fs.sync() + dev.sync(path): a process
        # that dies afterwards (here: never saves) loses nothing synced
        fs = self.fs
        path = os.path.join(self.tmp, "synced.img")
        self.dev.save(path)
        size = os.path.getsize(path)
        fs.write_file("/durable", pattern(50000, 3))
        fs.sync()
        self.dev.sync(path)
        self.assertEqual(os.path.getsize(path), size)  # appended, not rewritten
        self.assertTrue(os.path.exists(path + ".journal"))
        fs.write_file("/lost", b"never synced")
        with Device.open(path) as dev2, LogFS.mount(dev2, readonly=True) as fs2:
            self.assertEqual(fs2.read_file("/durable"), pattern(50000, 3))
            self.assertNotIn("lost", fs2.listdir("/"))
        self.dev.save(path)  # folds the journal into the image
        self.assertFalse(os.path.exists(path + ".journal"))

    def test_cleaner_runs(self):
        # a 4 MiB device overwritten many times over: the cleaner must work
        with Device.create(blocks=64, pages=32, page_size=2048, rber=None) as dev:
            LogFS.mkfs(dev, reserve=4)
            with LogFS.mount(dev, gc_policy="cost-benefit", dirty="256K") as fs:
                cap = fs.statfs().total_bytes
                fd = fs.open("/hot", os.O_RDWR | os.O_CREAT)
                size = cap // 2
                rnd = random.Random(5)
                chunk = 16384
                for i in range(3 * size // chunk):
                    off = rnd.randrange(size // chunk) * chunk
                    fs.pwrite(fd, rnd.randbytes(chunk), off)
                fs.fsync(fd)
                fs.close(fd)
                st = fs.stats()
                self.assertGreater(st["gc_rounds"], 0)
                self.assertGreater(st["erases"], 0)
                self.assertGreater(st["gc_bytes"], 0)
            self.assertGreater(max(dev.erase_counts()), 0)


class TestModel(unittest.TestCase):
    """Random operations against a dict model of the files, with remounts."""

    def run_model(self, seed, nops):
        rnd = random.Random(seed)
        dev = small_device(seed=seed)
        LogFS.mkfs(dev)
        policies = list(flashlab.gc_policies())
        fs = LogFS.mount(dev, gc_policy="cost-benefit", dirty="64K")
        dirs = ["/", "/m1", "/m1/m2", "/z"]
        for d in dirs[1:]:
            fs.mkdir(d)
        names = {}   # path -> inode key
        data = {}    # inode key -> bytearray
        next_key = [0]

        def join(d, n):
            return d.rstrip("/") + "/" + n

        def new_path():
            return join(rnd.choice(dirs), "f%d" % rnd.randrange(40))

        def drop(path):
            key = names.pop(path)
            if key not in names.values():
                del data[key]

        def verify(where):
            for d in dirs:
                want = sorted(p.rsplit("/", 1)[1] for p in names
                              if p.rsplit("/", 1)[0] == d.rstrip("/"))
                want += sorted(x.rsplit("/", 1)[1] for x in dirs
                               if x != "/" and x.rsplit("/", 1)[0] == d.rstrip("/"))
                self.assertEqual(sorted(fs.listdir(d)), sorted(want), "%s: %s" % (where, d))
            for p, key in names.items():
                self.assertEqual(fs.read_file(p), bytes(data[key]), "%s: %s" % (where, p))
                st = fs.stat(p)
                self.assertEqual(st.size, len(data[key]))
                self.assertEqual(st.nlink, list(names.values()).count(key), p)

        ops = ["create"] * 5 + ["pwrite"] * 8 + ["truncate"] * 2 + ["punch"] * 2 + \
              ["unlink"] * 2 + ["rename"] * 2 + ["link", "read", "read", "sync",
                                                 "fsync", "remount"]
        for i in range(nops):
            op = rnd.choice(ops)
            where = "seed %d op %d %s" % (seed, i, op)
            if op != "create" and not names:
                op = "create"
            if op == "create":
                p = new_path()
                content = rnd.randbytes(rnd.choice([0, 1, 100, 4096, 5000, 20000]))
                fs.write_file(p, content)
                if p in names:   # rewrites the inode in place (O_TRUNC)
                    data[names[p]][:] = content
                else:
                    names[p] = next_key[0]
                    data[next_key[0]] = bytearray(content)
                    next_key[0] += 1
            elif op == "pwrite":
                p = rnd.choice(sorted(names))
                buf = data[names[p]]
                off = rnd.randrange(len(buf) + 9000)
                chunk = rnd.randbytes(rnd.randrange(1, 9000))
                fd = fs.open(p, os.O_WRONLY)
                self.assertEqual(fs.pwrite(fd, chunk, off), len(chunk), where)
                fs.close(fd)
                if off > len(buf):
                    buf.extend(bytes(off - len(buf)))
                buf[off:off + len(chunk)] = chunk
            elif op == "truncate":
                p = rnd.choice(sorted(names))
                buf = data[names[p]]
                size = rnd.randrange(len(buf) + 12000)
                fs.truncate(p, size)
                if size < len(buf):
                    del buf[size:]
                else:
                    buf.extend(bytes(size - len(buf)))
            elif op == "punch":
                p = rnd.choice(sorted(names))
                buf = data[names[p]]
                if not buf:
                    continue
                off = rnd.randrange(len(buf))
                n = rnd.randrange(1, len(buf) + 5000)
                fd = fs.open(p, os.O_RDWR)
                fs.punch(fd, off, n)
                fs.close(fd)
                end = min(off + n, len(buf))
                buf[off:end] = bytes(end - off)
            elif op == "unlink":
                p = rnd.choice(sorted(names))
                fs.unlink(p)
                drop(p)
            elif op == "rename":
                src = rnd.choice(sorted(names))
                dst = rnd.choice(sorted(names)) if rnd.random() < 0.3 else new_path()
                fs.rename(src, dst)
                if dst != src and not (dst in names and names[dst] == names[src]):
                    key = names[src]
                    if dst in names:
                        drop(dst)
                    del names[src]
                    names[dst] = key
                elif dst != src:
                    # POSIX: both names of one inode -> nothing happens
                    pass
            elif op == "link":
                src = rnd.choice(sorted(names))
                dst = new_path()
                if dst in names:
                    with self.assertRaises(FileExistsError, msg=where):
                        fs.link(src, dst)
                else:
                    fs.link(src, dst)
                    names[dst] = names[src]
            elif op == "read":
                p = rnd.choice(sorted(names))
                buf = data[names[p]]
                off = rnd.randrange(len(buf) + 100)
                n = rnd.randrange(1, 10000)
                fd = fs.open(p)
                self.assertEqual(fs.pread(fd, n, off), bytes(buf[off:off + n]), where)
                fs.close(fd)
            elif op == "sync":
                fs.sync()
            elif op == "fsync":
                fd = fs.open(rnd.choice(sorted(names)), os.O_RDONLY)
                fs.fsync(fd)
                fs.close(fd)
            elif op == "remount":
                fs.unmount()
                fs = LogFS.mount(dev, gc_policy=rnd.choice(policies), dirty="64K")
                verify(where)
        verify("seed %d end" % seed)
        fs.unmount()
        fs = LogFS.mount(dev)
        verify("seed %d final remount" % seed)
        fs.unmount()
        dev.close()

    def test_model(self):
        seeds = range(1, 9) if LONG else (20240501,)
        for seed in seeds:
            with self.subTest(seed=seed):
                self.run_model(seed, 2000 if LONG else 400)


# ---------------------------------------------------------------------------

SCHEMA = """
CREATE TABLE experiments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, config_path TEXT,
  config_text TEXT, created_at TEXT NOT NULL, program_version TEXT);
CREATE TABLE runs (id INTEGER PRIMARY KEY,
  experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  run_index INTEGER NOT NULL, params TEXT NOT NULL, seed INTEGER NOT NULL,
  program_version TEXT, status TEXT NOT NULL, error TEXT, started_at TEXT NOT NULL,
  finished_at TEXT, wall_seconds REAL, hostname TEXT, pid INTEGER);
CREATE TABLE samples (run_id INTEGER NOT NULL, seq INTEGER NOT NULL, sim_time_ns INTEGER,
  host_bytes INTEGER, flash_bytes_programmed INTEGER, data_pages INTEGER,
  meta_pages INTEGER, anchor_pages INTEGER, gc_pages INTEGER, erases INTEGER, wa REAL,
  free_segments INTEGER, gc_time_ns INTEGER, gc_invocations INTEGER);
CREATE TABLE erase_counts (run_id INTEGER NOT NULL, seq INTEGER NOT NULL,
  block INTEGER NOT NULL, erases INTEGER NOT NULL);
CREATE TABLE mounts (run_id INTEGER NOT NULL, fs_kind TEXT, device_bytes INTEGER,
  fill_fraction REAL, clean INTEGER, sim_latency_ns INTEGER, flash_time_ns INTEGER,
  cpu_time_ns INTEGER, pages_read INTEGER, bytes_read INTEGER, ram_bytes INTEGER,
  wall_ns INTEGER);
CREATE TABLE gc_events (run_id INTEGER NOT NULL, sim_time_ns INTEGER, victim INTEGER,
  live_units INTEGER, moved_pages INTEGER, duration_ns INTEGER, policy TEXT);
CREATE TABLE latency (run_id INTEGER NOT NULL, op TEXT NOT NULL, count INTEGER,
  p50_ns INTEGER, p99_ns INTEGER, p999_ns INTEGER, max_ns INTEGER, mean_ns REAL);
CREATE TABLE powercuts (run_id INTEGER NOT NULL, cut_point INTEGER, cut_kind TEXT,
  outcome TEXT, detail TEXT);
CREATE TABLE kv (run_id INTEGER NOT NULL, key TEXT NOT NULL, value, UNIQUE (run_id, key));
PRAGMA application_id = 1179402562;
PRAGMA user_version = 1;
"""

T = "2024-05-01T12:00:00.000Z"


def make_results_db(path):
    """A database as docs/results-schema.md describes, written with sqlite3."""
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("INSERT INTO experiments VALUES (1, 'wa-sweep', 'x.yaml', 'name: wa', ?, 'v1')",
               (T,))
    db.execute("INSERT INTO experiments VALUES (2, 'other', NULL, 'name: other', ?, 'v1')", (T,))
    big_seed = 2**63 + 5
    runs = [
        (1, 1, 0, '{"policy":"greedy","fill":0.5}', 7, "complete", None),
        (2, 1, 1, '{"policy":"cost-benefit","fill":0.5}', big_seed - 2**64, "complete", None),
        (3, 1, 2, '{"policy":"fifo"}', 9, "failed", "out of space"),
        (4, 2, 0, '{}', 1, "running", None),
    ]
    for rid, eid, idx, params, seed, status, err in runs:
        db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, 'v1', ?, ?, ?, ?, ?, 'host', 42)",
                   (rid, eid, idx, params, seed, status, err, T,
                    None if status == "running" else T, 1.5))
    for rid, was in ((1, [1.0, 1.5, 2.25]), (2, [1.0, 1.25])):
        for seq, wa in enumerate(was):
            db.execute("INSERT INTO samples VALUES (?, ?, ?, ?, ?, 1, 2, 3, 4, 5, ?, 6, 7, 8)",
                       (rid, seq, seq * 1000, (seq + 1) * 4096, int((seq + 1) * 4096 * wa), wa))
    for seq in (0, 10):
        for block in range(4):
            db.execute("INSERT INTO erase_counts VALUES (1, ?, ?, ?)", (seq, block, block + seq))
    db.execute("INSERT INTO mounts VALUES (1, 'logfs', 1048576, 0.5, 1, 100, 90, 5, 30, "
               "61440, 4096, 77)")
    db.execute("INSERT INTO mounts VALUES (1, 'logfs', 1048576, 0.5, 0, 200, 190, 5, 31, "
               "63488, 4096, 78)")
    db.execute("INSERT INTO gc_events VALUES (1, 5000, 17, 3, 2, 400, 'greedy')")
    db.execute("INSERT INTO latency VALUES (1, 'write', 10, 1, 2, 3, 4, 2.5)")
    db.execute("INSERT INTO powercuts VALUES (1, 33, 'mid-program', 'recovered', NULL)")
    db.execute("INSERT INTO kv VALUES (1, 'mount_reads', 30.0)")
    db.execute("INSERT INTO kv VALUES (1, 'note', 'text value')")
    db.commit()
    db.close()
    return big_seed


class TestResults(TempDirMixin, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.path = os.path.join(self.tmp, "r.db")
        self.big_seed = make_results_db(self.path)

    def test_experiments_and_runs(self):
        with Results(self.path) as r:
            exps = r.experiments()
            self.assertEqual([e["name"] for e in exps], ["wa-sweep", "other"])
            self.assertEqual(r.experiments("other")[0]["id"], 2)
            self.assertEqual(r.experiment(1)["config_text"], "name: wa")
            runs = r.runs()
            self.assertEqual([x["id"] for x in runs], [1, 2, 3, 4])
            self.assertEqual(runs[0]["params"], {"policy": "greedy", "fill": 0.5})
            self.assertEqual(runs[1]["seed"], self.big_seed)  # unsigned again
            self.assertEqual(runs[0]["seed"], 7)
            self.assertEqual([x["id"] for x in r.runs(experiment="wa-sweep")], [1, 2, 3])
            self.assertEqual([x["id"] for x in r.runs(experiment=2)], [4])
            self.assertEqual([x["id"] for x in r.runs(status="complete")], [1, 2])
            self.assertEqual([x["id"] for x in r.runs(1, status=["failed", "running"])], [3])
            self.assertEqual(r.run(3)["error"], "out of space")
            self.assertIsNone(r.run(99))

    def test_per_run_rows(self):
        with Results(self.path) as r:
            s = r.samples(1)
            self.assertEqual([x["seq"] for x in s], [0, 1, 2])
            self.assertEqual(s[1]["host_bytes"], 8192)
            self.assertEqual(set(s[0]), {"run_id", "seq", "sim_time_ns", "host_bytes",
                                         "flash_bytes_programmed", "data_pages", "meta_pages",
                                         "anchor_pages", "gc_pages", "erases", "wa",
                                         "free_segments", "gc_time_ns", "gc_invocations"})
            self.assertEqual(r.final_wa(1), 2.25)
            self.assertEqual(r.final_wa(2), 1.25)
            self.assertIsNone(r.final_wa(3))
            self.assertEqual(r.final_sample(1)["seq"], 2)
            self.assertEqual(r.erase_snapshots(1), [0, 10])
            self.assertEqual(r.erase_counts(1), [10, 11, 12, 13])
            self.assertEqual(r.erase_counts(1, 0), [0, 1, 2, 3])
            self.assertEqual(r.erase_counts(2), [])
            self.assertEqual(sorted(r.all_erase_counts(1)), [0, 10])
            m = r.mounts(1)
            self.assertEqual([x["clean"] for x in m], [True, False])
            self.assertEqual(m[0]["pages_read"], 30)
            self.assertEqual(r.gc_events(1)[0]["policy"], "greedy")
            self.assertEqual(r.latency(1)["write"]["p99_ns"], 2)
            self.assertEqual(r.powercuts(1)[0]["outcome"], "recovered")
            self.assertEqual(r.kv(1), {"mount_reads": 30.0, "note": "text value"})
            self.assertEqual(r.kv(2), {})
            rows = r.query("SELECT count(*) AS n FROM samples")
            self.assertEqual(rows, [{"n": 5}])

    def test_read_only(self):
        with Results(self.path) as r:
            with self.assertRaises(sqlite3.OperationalError):
                r._db.execute("DELETE FROM runs")
        with Results(self.path) as r:
            self.assertEqual(len(r.runs()), 4)
        with Results(self.path, immutable=True) as r:
            self.assertEqual(r.final_wa(1), 2.25)

    def test_refuses_other_files(self):
        other = os.path.join(self.tmp, "other.db")
        db = sqlite3.connect(other)
        db.execute("CREATE TABLE t (x)")
        db.commit()
        db.close()
        with self.assertRaises(ResultsError):
            Results(other)
        newer = os.path.join(self.tmp, "newer.db")
        db = sqlite3.connect(newer)
        db.executescript("PRAGMA application_id = 1179402562; PRAGMA user_version = 99;")
        db.close()
        with self.assertRaises(ResultsError) as cm:
            Results(newer)
        self.assertIn("newer", str(cm.exception))
        text = os.path.join(self.tmp, "text.db")
        with open(text, "w") as f:
            f.write("hello, not sqlite at all" * 100)
        with self.assertRaises(ResultsError):
            Results(text)
        with self.assertRaises(FileNotFoundError):
            Results(os.path.join(self.tmp, "missing.db"))

    def test_database_written_by_the_c_library(self):
        # The writer is analysis/results.c: the reader must agree with it
        # (and the ctypes mirrors of results_sample/results_mount with C).
        import ctypes
        lib = _lib.get()
        path = os.path.join(self.tmp, "c.db")
        r = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        self.assertEqual(lib.results_open(path.encode(), ctypes.byref(r), err, len(err)), 0,
                         err.value)
        try:
            exp, run = ctypes.c_int64(), ctypes.c_int64()
            self.assertEqual(lib.results_begin_experiment(r, b"from-c", b"e.yaml", b"x: 1",
                                                          b"test", ctypes.byref(exp)), 0)
            self.assertEqual(lib.results_begin_run(r, exp, 3, b'{"policy": "cat", "n": [1, 2]}',
                                                   2**64 - 1, None, ctypes.byref(run)), 0)
            for seq in range(3):
                s = _lib.ResultsSample(seq=seq, sim_time_ns=10 + seq, host_bytes=11 + seq,
                                       flash_bytes_programmed=12, data_pages=13, meta_pages=14,
                                       anchor_pages=15, gc_pages=16, erases=17,
                                       wa=1.5 + seq, free_segments=18, gc_time_ns=19,
                                       gc_invocations=20, wa_interval=1.25 + seq,
                                       wa_total_interval=2.25 + seq,
                                       utilisation=0.5 if seq else float("nan"))
                self.assertEqual(lib.results_add_sample(r, run, ctypes.byref(s)), 0)
            counts = (ctypes.c_uint32 * 5)(5, 4, 3, 2, 1)
            self.assertEqual(lib.results_add_erase_counts(r, run, 7, counts, 5), 0)
            m = _lib.ResultsMount(fs_kind=b"logfs", device_bytes=101, fill_fraction=0.25,
                                  clean=1, sim_latency_ns=102, flash_time_ns=103,
                                  cpu_time_ns=104, pages_read=105, bytes_read=106,
                                  ram_bytes=107, wall_ns=108)
            self.assertEqual(lib.results_add_mount(r, run, ctypes.byref(m)), 0)
            lat = _lib.ResultsLatency(op=b"fsync", count=3, p50_ns=4, p99_ns=5, p999_ns=6,
                                      max_ns=7, mean_ns=4.5)
            self.assertEqual(lib.results_add_latency(r, run, ctypes.byref(lat)), 0)
            self.assertEqual(lib.results_set_kv(r, run, b"k", 2.5), 0)
            self.assertEqual(lib.results_set_kv_text(r, run, b"t", b"v"), 0)
            self.assertEqual(lib.results_end_run(r, run, _lib.RESULTS_COMPLETE, None), 0,
                             lib.results_error(r))
        finally:
            self.assertEqual(lib.results_close(r), 0)
        with Results(path) as res:
            (e,) = res.experiments()
            self.assertEqual((e["name"], e["config_path"], e["config_text"]),
                             ("from-c", "e.yaml", "x: 1"))
            (runrow,) = res.runs(experiment="from-c")
            self.assertEqual(runrow["params"], {"policy": "cat", "n": [1, 2]})
            self.assertEqual(runrow["seed"], 2**64 - 1)
            self.assertEqual(runrow["status"], "complete")
            self.assertEqual(runrow["run_index"], 3)
            rid = runrow["id"]
            s = res.samples(rid)
            self.assertEqual(len(s), 3)
            self.assertEqual(
                {k: v for k, v in s[1].items() if k != "run_id"},
                {"seq": 1, "sim_time_ns": 11, "host_bytes": 12, "flash_bytes_programmed": 12,
                 "data_pages": 13, "meta_pages": 14, "anchor_pages": 15, "gc_pages": 16,
                 "erases": 17, "wa": 2.5, "free_segments": 18, "gc_time_ns": 19,
                 "gc_invocations": 20, "wa_interval": 2.25, "wa_total_interval": 3.25,
                 "utilisation": 0.5})
            self.assertIsNone(s[0]["utilisation"])  # NaN is stored as NULL
            self.assertEqual(res.final_wa(rid), 3.5)
            self.assertEqual(res.erase_counts(rid), [5, 4, 3, 2, 1])
            self.assertEqual(res.erase_snapshots(rid), [7])
            (mrow,) = res.mounts(rid)
            self.assertEqual({k: v for k, v in mrow.items() if k != "run_id"},
                             {"fs_kind": "logfs", "device_bytes": 101, "fill_fraction": 0.25,
                              "clean": True, "sim_latency_ns": 102, "flash_time_ns": 103,
                              "cpu_time_ns": 104, "pages_read": 105, "bytes_read": 106,
                              "ram_bytes": 107, "wall_ns": 108})
            self.assertEqual(res.latency(rid), {"fsync": {"count": 3, "p50_ns": 4, "p99_ns": 5,
                                                          "p999_ns": 6, "max_ns": 7,
                                                          "mean_ns": 4.5}})
            self.assertEqual(res.kv(rid), {"k": 2.5, "t": "v"})

    def test_experiments_selected_by_name_and_hash(self):
        # one name, one config: another config under it is refused by the
        # writer; a file holding two (as before hashes) is selected by
        # NAME@HASH, and the name alone refuses to mix them
        import ctypes
        lib = _lib.get()
        path = os.path.join(self.tmp, "h.db")
        r = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        self.assertEqual(lib.results_open(path.encode(), ctypes.byref(r), err, len(err)), 0)
        try:
            exp, run = ctypes.c_int64(), ctypes.c_int64()
            for text in (b"x: 1", b"x: 2"):
                self.assertEqual(lib.results_begin_experiment(r, text.replace(b": ", b"-"),
                                                              None, text, None,
                                                              ctypes.byref(exp)), 0)
                self.assertEqual(lib.results_begin_run(r, exp, 0, b"{}", 1, None,
                                                       ctypes.byref(run)), 0)
            self.assertEqual(lib.results_begin_experiment(r, b"x-1", None, b"x: 3", None,
                                                          ctypes.byref(exp)), -1)
            self.assertIn(b"another config", lib.results_error(r))
        finally:
            self.assertEqual(lib.results_close(r), 0)
        with sqlite3.connect(path) as db:
            db.execute("UPDATE experiments SET name = 'x'")
        with Results(path) as res:
            h1, h2 = [e["config_hash"] for e in res.experiments()]
            self.assertEqual(len(h1), 16)
            self.assertNotEqual(h1, h2)
            with self.assertRaisesRegex(ValueError, "several configs.*x@%s" % h1):
                res.runs("x")
            (one,) = res.runs("x@" + h2[:5])
            self.assertEqual(one["experiment_id"], 2)
            self.assertEqual(res.runs("x@" + "f" * 17), [])


# ---------------------------------------------------------------------------

_RUN_OK, _RUN_WHY = experiment.available()


@unittest.skipUnless(_RUN_OK, "flashlab run is not available: %s" % _RUN_WHY)
class TestExperiment(TempDirMixin, unittest.TestCase):
    def test_bad_experiment_file_raises(self):
        db = os.path.join(self.tmp, "out", "x.db")
        with self.assertRaises(experiment.ExperimentError) as cm:
            experiment.run(os.path.join(self.tmp, "no-such.yaml"), db=db)
        self.assertNotEqual(cm.exception.returncode, 0)

    @unittest.skipUnless(not DEMO_EXPERIMENT or os.path.exists(DEMO_EXPERIMENT),
                         "no experiment file %s (FLASHLAB_TEST_EXPERIMENT)" % DEMO_EXPERIMENT)
    def test_run_experiment(self):
        exp = DEMO_EXPERIMENT
        if not exp:
            exp = os.path.join(self.tmp, "small.yaml")
            with open(exp, "w") as f:
                f.write(SMALL_EXPERIMENT)
        db = experiment.run(exp, db=os.path.join(self.tmp, "e.db"), jobs=2, timeout=600)
        self.assertEqual(db, os.path.join(self.tmp, "e.db"))
        with Results(db) as r:
            self.assertGreater(len(r.experiments()), 0)
            runs = r.runs()
            self.assertGreater(len(runs), 0)
            for run in runs:
                self.assertEqual(run["status"], "complete", run)


class TestExperimentLookup(unittest.TestCase):
    def test_binary_lookup(self):
        exe = experiment.flashlab_bin()
        if os.environ.get("FLASHLAB_BIN"):
            self.assertEqual(exe, os.path.abspath(os.environ["FLASHLAB_BIN"]))
        else:
            self.assertEqual(exe, os.path.join(_ROOT, "build", "flashlab"))
        self.assertEqual(experiment.default_db("configs/experiments/wa.yaml"),
                         os.path.join("results", "wa.db"))  # no such file: its stem
        with tempfile.TemporaryDirectory() as tmp:
            for text, want in (("# c\nname: my-exp  # x\nseeds: [1]\n", "my-exp"),
                               ("name: 'q x'\n", "q x"), ("  name: nested\n", "e")):
                path = os.path.join(tmp, "e.yaml")
                with open(path, "w") as f:
                    f.write(text)
                self.assertEqual(experiment.default_db(path),
                                 os.path.join("results", want + ".db"))


# ---------------------------------------------------------------------------

def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
    # a test counts once, however many of its subtests failed
    bad = {getattr(t, "test_case", t).id() for t, _ in result.failures + result.errors}
    bad |= {t.id() for t in result.unexpectedSuccesses}
    failed = len(bad)
    skipped = len(result.skipped)
    passed = max(0, result.testsRun - failed - skipped)
    for test, reason in result.skipped:
        print("skipped %s: %s" % (test.id(), reason))
    sys.stdout.flush()
    sys.stderr.flush()
    print("test_python: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
