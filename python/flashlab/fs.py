"""The file systems of fs/fsapi.h on a flashlab Device: LogFS and the
baselines (jffs2-scan, jffs2-summary, blockfs), all through fsapi's table.

    from flashlab import Device, FileSystem, LogFS
    dev = Device.create(blocks=128, pages=64, page_size=2048)
    FileSystem.mkfs(dev, kind="blockfs")
    with FileSystem.mount(dev) as fs:          # kind probed: "blockfs"
        fs.write_file("/hello", b"hi")
    LogFS.mkfs(dev, block_size=4096)
    with LogFS.mount(dev, gc_policy="cost-benefit") as fs:
        fd = fs.open("/hello", os.O_RDWR | os.O_CREAT)
        fs.write(fd, b"hi")
        assert fs.pread(fd, 10, 0) == b"hi"
        fs.close(fd)

FileSystem reaches every kind through the entry points of its struct fsapi
(read by member name from the layout table, called with the signatures of
_lib.FSAPI_HOOKS); one the kind leaves NULL raises NotSupported, an
OSError(ENOTSUP) and NotImplementedError: "blockfs does not support mknod".
The optional hooks (stats as {name: value}, latency, idle, scrub,
block_role, chmod, chown, utimens, truncate) and the kind's features and
option keys come from the same table.  LogFS is the FileSystem of kind
"logfs", whose only extras are options by keyword and the file position
LogFS keeps (read, write, lseek); FileSystem.mount of a LogFS returns a
LogFS.

The calls mirror the C API: file descriptors are ints, flags and modes are
the host's os.O_* and stat values, paths are absolute (str or bytes).  A
negative return code becomes OSError(errno, strerror, path) -- so
FileNotFoundError, FileExistsError... -- with filename2 for two-path calls.
Options are a "key=value,..." string and/or keyword arguments, in the
kind's own keys (option_keys(kind)), checked by the kind's check_options:
a bad one raises OSError(EINVAL) with its text, naming the key.

A file system is not thread-safe.  unmount() (or leaving the ``with``
block, or closing its Device, or as a last resort garbage collection)
commits and frees it, once.
"""

import collections
import ctypes
import errno
import os
from ctypes import byref, c_uint, c_uint64, c_void_p

from . import _lib
from ._lib import LogfsOptions, struct_dict
from .device import Device, _Handle

__all__ = ["FileSystem", "LogFS", "NotSupported", "mkfs", "mount", "options", "gc_policies",
           "option_keys", "fs_kinds", "fs_features", "StatResult", "StatFS", "DirEntry"]

StatResult = collections.namedtuple(
    "StatResult", "ino mode nlink uid gid size atime mtime ctime rdev blocks")
StatFS = collections.namedtuple("StatFS", "block_size total_bytes free_bytes files")
DirEntry = collections.namedtuple("DirEntry", "name ino type")

LATENCY_KINDS = {"read": _lib.FS_OP_READ, "write": _lib.FS_OP_WRITE,
                 "sync": _lib.FS_OP_SYNC, "meta": _lib.FS_OP_META}


def _oserror(rc, path=None, path2=None, message=None):
    e = -rc
    msg = message or os.strerror(e)
    if path2 is not None:
        return OSError(e, msg, path, None, path2)
    if path is not None:
        return OSError(e, msg, path)
    return OSError(e, msg)


def _path(p):
    if isinstance(p, (str, bytes)) or hasattr(p, "__fspath__"):
        return os.fsencode(p)
    raise TypeError("path must be str or bytes, not %s" % type(p).__name__)


def _bytes(data):
    if isinstance(data, int):  # bytes(5) would be five zeros
        raise TypeError("expected a bytes-like object, not int")
    return bytes(data)


def _value(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


class NotSupported(OSError, NotImplementedError):
    """An entry point the file system's kind lacks (NULL in its struct
    fsapi): OSError(ENOTSUP, "KIND does not support X")."""


def _option_string(opts=None, **kw):
    """"key=value,..." from a string and/or keyword arguments (True/False
    become 1/0), or None when there are none."""
    items = [opts] if opts else []
    for k, v in kw.items():
        v = _value(v)
        if "," in v or "=" in k or "," in k:
            raise OSError(errno.EINVAL, "option %s=%s: ',' cannot appear in an option" % (k, v))
        items.append("%s=%s" % (k, v))
    return ",".join(items) or None


def options(opts=None, **kw):
    """A struct logfs_options from a "key=value,..." string and/or keyword
    arguments (True/False become 1/0), through logfs_options_parse."""
    lib = _lib.get()
    text = _option_string(opts, **kw) or ""
    o = LogfsOptions()
    err = ctypes.create_string_buffer(256)
    rc = lib.logfs_options_parse(byref(o), text.encode(), err, len(err))
    if rc:
        raise _oserror(rc, message=err.value.decode(errors="replace"))
    return o


def gc_policies():
    """{name: summary} of the victim-selection policies (logfs_gc_policy_name)."""
    lib = _lib.get()
    out, i = {}, 0
    summary = ctypes.c_char_p()
    while True:
        name = lib.logfs_gc_policy_name(i, byref(summary))
        if name is None:
            return out
        out[name.decode()] = (summary.value or b"").decode()
        i += 1


def fs_kinds():
    """{name: summary} of the file systems an experiment's fs.kind may
    name: LogFS and the baselines (fs/fsapi.h's table)."""
    lib = _lib.get()
    out, i = {}, 0
    while True:
        entry = lib.fsapi_at(i)
        if not entry:
            return out
        out[entry.contents.name.decode()] = (entry.contents.summary or b"").decode()
        i += 1


def _entry(kind):
    """The struct fsapi of kind (fsapi_find)."""
    lib = _lib.get()
    p = lib.fsapi_find(os.fsencode(kind)) if isinstance(kind, (str, bytes)) else None
    if not p:
        raise OSError(errno.EINVAL, "unknown file-system kind %r (%s)"
                      % (kind, ", ".join(fs_kinds())))
    return p.contents


def _hook(entry, name, kind=None, what=None):
    """The entry point name of an fsapi entry, callable; NotSupported when
    the kind leaves it NULL."""
    fn = _lib.fsapi_hook(entry, name)
    if fn is None:
        kind = kind or entry.name.decode()
        raise NotSupported(errno.ENOTSUP, "%s does not support %s" % (kind, what or name))
    return fn


def _check_options(entry, text, kind):
    """The kind's check_options: OSError(EINVAL) with its text naming the
    key.  A kind without one takes no options (as fsapi_check_options)."""
    if not text:
        return
    fn = _lib.fsapi_hook(entry, "check_options")
    if fn is None:
        raise OSError(errno.EINVAL, "%s takes no options (%r)" % (kind, text))
    err = ctypes.create_string_buffer(256)
    rc = fn(text.encode(), err, len(err))
    if rc < 0:
        raise _oserror(rc, message=err.value.decode(errors="replace") or
                       "%s: bad options %r" % (kind, text))


def option_keys(kind="logfs"):
    """{key: help} of every option of kind (its option_help; {} when it
    has none)."""
    fn = _lib.fsapi_hook(_entry(kind), "option_help")
    out, i = {}, 0
    text = ctypes.c_char_p()
    while fn is not None:
        key = fn(i, byref(text))
        if key is None:
            break
        out[key.decode()] = (text.value or b"").decode()
        i += 1
    return out


def fs_features(kind):
    """What kind can do beyond the calls every kind has: its FSAPI_F_*
    flags as names ("special_files", "xattr", "compress", "fsck", "attrs",
    "fault_safe"), from the library's own constants."""
    bits = _entry(kind).features
    return frozenset(name[len("FSAPI_F_"):].lower() for name, v in _lib.constants().items()
                     if name.startswith("FSAPI_F_") and bits & v)


def _device_ptr(device):
    if not isinstance(device, Device):
        raise TypeError("expected a flashlab.Device, not %s" % type(device).__name__)
    if any(h.ptr for h in device._mounts):
        raise OSError(errno.EBUSY, "a file system is mounted on this device")
    return device._ptr()


def mkfs(device, opts=None, **kw):
    """Format device with LogFS (fsapi's logfs entry)."""
    FileSystem.mkfs(device, "logfs", opts, **kw)


def mount(device, opts=None, **kw):
    """Mount the LogFS on device; returns a LogFS."""
    return LogFS.mount(device, opts, **kw)


class FileSystem:
    """A mounted file system of any kind of fs/fsapi.h, called through its
    entry's function pointers.  Use FileSystem.mount(device, ...)."""

    kind = None  # a subclass's own kind

    def __init__(self, device, ptr, kind=None):
        """Takes a handle the kind's mount gave (use mount)."""
        self.kind = kind or self.kind
        self.device = device
        self._lib = device._lib
        self._api = _entry(self.kind)
        self._hooks = {}
        self._files = {}  # fd: [position, flags] for read/write/lseek
        self._h = _Handle(ptr, _hook(self._api, "unmount", self.kind))
        device._mounts.add(self._h)

    @staticmethod
    def mkfs(device, kind="logfs", options=None, **kw):
        """Format device with a file system of kind (fs_kinds()); options
        "key=value,..." and/or keywords, in the kind's own keys."""
        entry = _entry(kind)
        text = _option_string(options, **kw)
        _check_options(entry, text, kind)
        ptr = _device_ptr(device)
        rc = _hook(entry, "mkfs", kind)(ptr, text.encode() if text else None)
        if rc < 0:
            raise _oserror(rc, message="mkfs %s: %s" % (kind, os.strerror(-rc)))

    @classmethod
    def mount(cls, device, kind=None, options=None, **kw):
        """Mount the file system on device: of kind, or (None) of the kind
        whose marks are on it (fsapi_probe).  A LogFS for "logfs"."""
        ptr = _device_ptr(device)
        kind = kind or cls.kind
        if kind is None:
            p = device._lib.fsapi_probe(ptr)
            if not p:
                raise OSError(errno.EINVAL, "mount: no file system of a known kind (%s) on "
                              "the device" % ", ".join(fs_kinds()))
            kind = p.contents.name.decode()
        entry = _entry(kind)
        text = _option_string(options, **kw)
        _check_options(entry, text, kind)
        out = c_void_p()
        rc = _hook(entry, "mount", kind)(ptr, text.encode() if text else None, byref(out))
        if rc < 0:
            raise _oserror(rc, message="mount %s: %s" % (kind, os.strerror(-rc)))
        if cls is FileSystem:
            cls = _KINDS.get(kind, FileSystem)
        return cls(device, out.value, kind)

    # ---- life cycle ---------------------------------------------------------

    @property
    def closed(self):
        return not self._h.ptr

    def unmount(self):
        """Sync and free; the fs is gone either way.  Raises OSError if the
        final sync failed.  Idempotent."""
        h = self._h
        if not h.ptr:
            return
        ptr, h.ptr = h.ptr, None
        self.device._mounts.discard(h)
        rc = h.release(ptr)
        if rc < 0:
            raise _oserror(rc, message="unmount: %s" % os.strerror(-rc))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.unmount()

    def __del__(self):
        try:
            self.unmount()
        except Exception:
            pass

    def _fs(self):
        if not self._h.ptr:
            raise ValueError("file system is unmounted")
        return self._h.ptr

    def __repr__(self):
        return "<flashlab.%s %s %s>" % (type(self).__name__, self.kind,
                                        "unmounted" if self.closed else "mounted")

    def _call(self, rc, path=None, path2=None):
        if rc < 0:
            raise _oserror(rc, path, path2)
        return rc

    def _op(self, name, what=None):
        """The entry point name, callable (NotSupported if the kind lacks it)."""
        fn = self._hooks.get(name)
        if fn is None:
            fn = self._hooks[name] = _hook(self._api, name, self.kind, what)
        return fn

    def supports(self, name):
        """Whether the kind has entry point name (a struct fsapi member)."""
        return _lib.fsapi_hook(self._api, name) is not None

    @property
    def features(self):
        """fs_features(kind): "special_files", "xattr", "compress", ..."""
        return fs_features(self.kind)

    # ---- whole file system ---------------------------------------------------

    def sync(self):
        """Commit what is dirty (one commit point)."""
        self._call(self._op("sync")(self._fs()))

    def statfs(self):
        st = _lib.LogfsStatfs()
        self._call(self._op("statfs")(self._fs(), byref(st)))
        return StatFS(st.block_size, st.total_bytes, st.free_bytes, st.files)

    def mem_bytes(self):
        """RAM the mounted file system holds."""
        return self._op("mem_bytes")(self._fs())

    def stats(self):
        """The kind's named counters, {name: value} (LogFS: every field of
        struct logfs_stats)."""
        out = (_lib.FsapiCounter * _lib.FSAPI_COUNTERS_MAX)()
        n = self._op("stats", "counters (stats)")(self._fs(), out, len(out))
        return {out[i].name.decode(): out[i].value for i in range(n)}

    def latency(self, kind):
        """Latency summary (simulated ns) of 'read', 'write', 'sync' or 'meta'
        calls (or an FS_OP_* number) since mount or reset_latency():
        dict with count, p50_ns, p99_ns, p999_ns, max_ns, mean_ns."""
        k = LATENCY_KINDS.get(kind, kind) if isinstance(kind, str) else int(kind)
        if isinstance(k, str):
            raise OSError(errno.EINVAL, "unknown latency kind %r (%s)"
                          % (kind, ", ".join(LATENCY_KINDS)))
        out = _lib.LogfsLatency()
        self._call(self._op("latency")(self._fs(), k, byref(out)))
        return struct_dict(out)

    def reset_latency(self):
        self._op("reset_latency")(self._fs())

    def idle(self, ns):
        """The host is idle for ns of simulated time (background cleaning)."""
        self._call(self._op("idle")(self._fs(), ns))

    def scrub(self, budget):
        """The idle-time scrubber: read up to budget pages, move the data of
        segments near the ECC limit (LogFS: scrub_threshold); segments moved."""
        return self._call(self._op("scrub")(self._fs(), budget))

    def block_role(self, block):
        """What erase block `block` is to the mounted fs ("superblock",
        "anchor", "segment", ...), or None."""
        role = self._op("block_role")(self._fs(), block)
        return role.decode() if role is not None else None

    # ---- files ------------------------------------------------------------------

    def open(self, path, flags=os.O_RDONLY, mode=0o644):
        """A file descriptor (int)."""
        fd = self._call(self._op("open")(self._fs(), _path(path), flags, mode), path)
        self._files[fd] = [0, flags]
        return fd

    def close(self, fd):
        self._call(self._op("close")(self._fs(), fd))
        self._files.pop(fd, None)

    def _file(self, fd):
        f = self._files.get(fd)
        if f is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        return f

    def read(self, fd, n):
        """Up to n bytes from the file position (kept here: fsapi has pread)."""
        f = self._file(fd)
        data = self.pread(fd, n, f[0])
        f[0] += len(data)
        return data

    def write(self, fd, data):
        """Bytes written at the file position (the end with O_APPEND)."""
        f = self._file(fd)
        if f[1] & os.O_APPEND:
            f[0] = self.fstat(fd).size
        n = self.pwrite(fd, data, f[0])
        f[0] += n
        return n

    def lseek(self, fd, offset, whence=os.SEEK_SET):
        f = self._file(fd)
        base = {os.SEEK_SET: 0, os.SEEK_CUR: f[0]}.get(whence)
        if base is None:
            if whence != os.SEEK_END:
                raise OSError(errno.EINVAL, "lseek: bad whence %r" % (whence,))
            base = self.fstat(fd).size
        if base + offset < 0:
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
        f[0] = base + offset
        return f[0]

    def pread(self, fd, n, offset):
        buf = ctypes.create_string_buffer(n)
        rc = self._call(self._op("pread")(self._fs(), fd, buf, n, offset))
        return ctypes.string_at(buf, rc)

    def pwrite(self, fd, data, offset):
        data = _bytes(data)
        return self._call(self._op("pwrite")(self._fs(), fd, data, len(data), offset))

    def fsync(self, fd):
        self._call(self._op("fsync")(self._fs(), fd))

    def ftruncate(self, fd, size):
        self._call(self._op("ftruncate")(self._fs(), fd, size))

    def truncate(self, path_or_fd, size):
        """Truncate a path, or an open fd (an int)."""
        if isinstance(path_or_fd, int):
            return self.ftruncate(path_or_fd, size)
        if self.supports("truncate"):
            self._call(self._op("truncate")(self._fs(), _path(path_or_fd), size), path_or_fd)
            return
        fd = self.open(path_or_fd, os.O_WRONLY)  # as fsapi_truncate
        try:
            self.ftruncate(fd, size)
        finally:
            self.close(fd)

    def punch(self, fd, offset, length):
        """Deallocate [offset, offset+length): reads as zeros, size unchanged."""
        self._call(self._op("punch")(self._fs(), fd, offset, length))

    def allocate(self, fd, offset, length, keep_size=False):
        """fallocate: the holes of [offset, offset+length) allocated (read
        as zeros, their room kept); the size grows unless keep_size.
        NotSupported where the kind (or a LogFS before format 6) lacks it."""
        rc = self._op("allocate")(self._fs(), fd, offset, length,
                                  _lib.FS_ALLOC_KEEP_SIZE if keep_size else 0)
        if rc == -errno.ENOTSUP:
            raise NotSupported(errno.ENOTSUP, "%s does not support allocate" % self.kind)
        self._call(rc)

    def _stat(self, fn, arg, path):
        st = _lib.LogfsStat()
        self._call(fn(self._fs(), arg, byref(st)), path)
        return StatResult(st.ino, st.mode, st.nlink, st.uid, st.gid, st.size,
                          st.atime, st.mtime, st.ctime, st.rdev, st.blocks)

    def stat(self, path):
        return self._stat(self._op("stat"), _path(path), path)

    def lstat(self, path):
        return self._stat(self._op("lstat"), _path(path), path)

    def fstat(self, fd):
        return self._stat(self._op("fstat"), fd, None)

    def chmod(self, path, mode):
        self._call(self._op("chmod")(self._fs(), _path(path), mode), path)

    def chown(self, path, uid, gid):
        self._call(self._op("chown")(self._fs(), _path(path), uid, gid), path)

    def utimens(self, path, atime_ns, mtime_ns):
        """Times in ns since 1970, or _lib.FS_TIME_NOW / FS_TIME_OMIT."""
        self._call(self._op("utimens")(self._fs(), _path(path), atime_ns, mtime_ns), path)

    def getflags(self, path):
        """The file attributes (chattr's), _lib.FS_FL_* bits."""
        flags = c_uint(0)
        self._call(self._op("getflags")(self._fs(), _path(path), byref(flags)), path)
        return flags.value

    def setflags(self, path, flags):
        """Set the file attributes to exactly flags (_lib.FS_FL_*): one
        commit; what they forbid then raises PermissionError."""
        self._call(self._op("setflags")(self._fs(), _path(path), flags), path)

    def lchown(self, path, uid, gid):
        """chown of a final symbolic link itself."""
        self._call(self._op("lchown")(self._fs(), _path(path), uid, gid), path)

    def lutimens(self, path, atime_ns, mtime_ns):
        """utimens of a final symbolic link itself."""
        self._call(self._op("lutimens")(self._fs(), _path(path), atime_ns, mtime_ns), path)

    # ---- the namespace ---------------------------------------------------------

    def mknod(self, path, mode, rdev=0):
        """A FIFO, socket or device (mode's stat.S_IF* type), rdev as
        os.makedev(major, minor)."""
        self._call(self._op("mknod", "special files (mknod)")(self._fs(), _path(path), mode,
                                                              rdev), path)

    XATTR_CREATE, XATTR_REPLACE = 1, 2

    def setxattr(self, path, name, value, flags=0):
        """Set extended attribute name (user., trusted. or security.) to
        value (bytes); flags XATTR_CREATE or XATTR_REPLACE as os.setxattr."""
        fn = self._op("setxattr", "extended attributes (setxattr)")
        self._call(fn(self._fs(), _path(path), _path(name), value, len(value), flags), path)

    def _sized(self, fn, path, *args):
        n = self._call(fn(self._fs(), _path(path), *args, None, 0), path)
        buf = ctypes.create_string_buffer(max(n, 1))
        n = self._call(fn(self._fs(), _path(path), *args, buf, n), path)
        return ctypes.string_at(buf, n)

    def getxattr(self, path, name):
        """The value (bytes); OSError ENODATA when there is none."""
        return self._sized(self._op("getxattr", "extended attributes (getxattr)"), path,
                           _path(name))

    def listxattr(self, path):
        """The names (str), in the order the fs keeps them (LogFS: sorted)."""
        raw = self._sized(self._op("listxattr", "extended attributes (listxattr)"), path)
        return [os.fsdecode(n) for n in raw.split(b"\0") if n]

    def removexattr(self, path, name):
        fn = self._op("removexattr", "extended attributes (removexattr)")
        self._call(fn(self._fs(), _path(path), _path(name)), path)

    def mkdir(self, path, mode=0o755):
        self._call(self._op("mkdir")(self._fs(), _path(path), mode), path)

    def rmdir(self, path):
        self._call(self._op("rmdir")(self._fs(), _path(path)), path)

    def unlink(self, path):
        self._call(self._op("unlink")(self._fs(), _path(path)), path)

    def rename(self, src, dst):
        self._call(self._op("rename")(self._fs(), _path(src), _path(dst)), src, dst)

    def link(self, existing, newpath):
        self._call(self._op("link")(self._fs(), _path(existing), _path(newpath)),
                   existing, newpath)

    def symlink(self, target, linkpath):
        """Make linkpath a symbolic link to target (as os.symlink)."""
        self._call(self._op("symlink")(self._fs(), _path(target), _path(linkpath)),
                   linkpath, target)

    def readlink(self, path):
        """The target (str when path is str, bytes when bytes)."""
        size = 4096
        while True:
            buf = ctypes.create_string_buffer(size)
            n = self._call(self._op("readlink")(self._fs(), _path(path), buf, size), path)
            if n < size:
                raw = ctypes.string_at(buf, n)
                return raw if isinstance(path, bytes) else os.fsdecode(raw)
            size *= 4

    def readdir(self, path="/"):
        """[DirEntry(name, ino, type)] in the directory's order; type is
        the stat.S_IFMT bits.  "." and ".." are not listed."""
        entries, failure = [], []
        as_bytes = isinstance(path, bytes)

        def each(_ctx, name, ino, typ):
            try:
                entries.append(DirEntry(name if as_bytes else os.fsdecode(name), ino, typ))
                return 0
            except BaseException as e:  # never let an exception cross C
                failure.append(e)
                return 1

        fn = _lib.LOGFS_DIR_FN(each)
        cookie = c_uint64(0)
        self._call(self._op("readdir")(self._fs(), _path(path), byref(cookie), fn, None), path)
        if failure:
            raise failure[0]
        return entries

    def listdir(self, path="/"):
        """The names in a directory (the fs's order, like os.listdir's arbitrary order)."""
        return [e.name for e in self.readdir(path)]

    # ---- conveniences --------------------------------------------------------

    def exists(self, path):
        try:
            self.lstat(path)
            return True
        except FileNotFoundError:
            return False

    def read_file(self, path):
        """The whole content of a file."""
        fd = self.open(path, os.O_RDONLY)
        try:
            size = self.fstat(fd).size
            chunks, off = [], 0
            while off < size:
                b = self.pread(fd, min(size - off, 1 << 20), off)
                if not b:
                    break
                chunks.append(b)
                off += len(b)
            return b"".join(chunks)
        finally:
            self.close(fd)

    def write_file(self, path, data, mode=0o644):
        """Create or replace the content of a file."""
        fd = self.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            data = _bytes(data)
            off = 0
            while off < len(data):
                off += self.write(fd, data[off:off + (1 << 20)])
            return off
        finally:
            self.close(fd)


class LogFS(FileSystem):
    """A mounted LogFS.  Use LogFS.mount(device, ...).  Its calls go through
    fsapi's logfs entry, as every kind's do; read, write and lseek keep the
    file position in Python (FileSystem's)."""

    kind = "logfs"
    mkfs = staticmethod(mkfs)

    def __init__(self, device, ptr, kind="logfs"):
        super().__init__(device, ptr, kind)

    @classmethod
    def mount(cls, device, opts=None, **kw):
        return super().mount(device, "logfs", opts, **kw)

    def __repr__(self):
        return "<flashlab.LogFS %s>" % ("unmounted" if self.closed else "mounted")


_KINDS = {"logfs": LogFS}  # the class FileSystem.mount gives a kind
