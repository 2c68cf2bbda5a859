# SPDX-License-Identifier: MIT
"""libpmu from Python: pure ctypes over libpmu.so, no compiler needed.

    import pmu
    with pmu.open("task-clock,page-faults") as s:
        work()
        print(s.read())            # {'task-clock': ..., 'page-faults': ...}
        print(s.user_read(0))      # (False, 'why it is read through read(2)')

    pmu.thread_init("task-clock,page-faults")
    with pmu.region("load"):
        load()
    @pmu.region("step")
    def step(): ...
    print(pmu.report(format="json"))

The library is looked for in $PMU_LIBRARY, next to this package, then as
the system's libpmu.so.0. Failures raise OSError with the errno and the
library's message.
"""
import builtins
import ctypes
import ctypes.util
import functools
import os
import tempfile

__all__ = ["open", "Set", "region", "thread_init", "thread_fini", "report", "version", "library"]


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    tried = []
    for cand in (os.environ.get("PMU_LIBRARY"), os.path.join(here, "libpmu.so.0"),
                 ctypes.util.find_library("pmu"), "libpmu.so.0"):
        if not cand:
            continue
        try:
            return ctypes.CDLL(cand)
        except OSError as e:
            tried.append(str(e))
    hint = ""
    if any("static TLS" in t for t in tried):
        # libpmu's thread-local data is initial-exec (for the hot path): a program that loads it late
        # needs room for it, given before the process starts.
        hint = " (start Python with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384, or LD_PRELOAD=libpmu.so.0)"
    raise ImportError("libpmu.so.0 could not be loaded (set PMU_LIBRARY to its path): " + "; ".join(tried) + hint)


_lib = _load()
library = _lib._name
_u64p = ctypes.POINTER(ctypes.c_uint64)
_lib.pmu_open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
_lib.pmu_close.argtypes = [ctypes.c_void_p]
_lib.pmu_close.restype = None
_lib.pmu_count.argtypes = [ctypes.c_void_p]
_lib.pmu_count.restype = ctypes.c_uint
_lib.pmu_name.argtypes = [ctypes.c_void_p, ctypes.c_uint]
_lib.pmu_name.restype = ctypes.c_char_p
_lib.pmu_read.argtypes = [ctypes.c_void_p, _u64p]
_lib.pmu_user_read.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p)]
for _f in ("pmu_enable", "pmu_disable", "pmu_reset"):
    getattr(_lib, _f).argtypes = [ctypes.c_void_p]
_lib.pmu_errmsg.restype = ctypes.c_char_p
_lib.pmu_version.restype = ctypes.c_char_p
_lib.pmu_thread_init.argtypes = [ctypes.c_char_p]
_lib.pmu_region_begin.argtypes = [ctypes.c_char_p]
_lib.pmu_region_end.argtypes = [ctypes.c_char_p]
_lib.pmu_report_path.argtypes = [ctypes.c_char_p, ctypes.c_char_p]


def _check(r):
    """r as the library returns it: 0 (or more) or -errno; raises OSError with the message."""
    if r < 0:
        msg = (_lib.pmu_errmsg() or b"").decode("utf-8", "replace")
        raise OSError(-r, msg or os.strerror(-r))
    return r


def version():
    return _lib.pmu_version().decode()


class Set:
    """Events counting for the calling thread; a context manager that closes them."""

    def __init__(self, events):
        self._h = None
        h = ctypes.c_void_p()
        _check(_lib.pmu_open(ctypes.byref(h), events.encode()))
        self._h = h
        self.names = [_lib.pmu_name(h, i).decode() for i in range(_lib.pmu_count(h))]
        self._buf = (ctypes.c_uint64 * len(self.names))()

    def _handle(self):
        if not self._h:
            raise OSError(9, "the set is closed")  # EBADF
        return self._h

    def read(self):
        """Each event's count by name."""
        _check(_lib.pmu_read(self._handle(), self._buf))
        return dict(zip(self.names, self._buf))

    def user_read(self, i):
        """(True, why) when event i is read with a user-space instruction, (False, why) through read(2)."""
        why = ctypes.c_char_p()
        r = _check(_lib.pmu_user_read(self._handle(), i, ctypes.byref(why)))
        return bool(r), (why.value or b"").decode()

    def enable(self):
        _check(_lib.pmu_enable(self._handle()))

    def disable(self):
        _check(_lib.pmu_disable(self._handle()))

    def reset(self):
        _check(_lib.pmu_reset(self._handle()))

    def close(self):
        if self._h:
            _lib.pmu_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def open(events):  # noqa: A001 - the library's own verb
    """Opens the comma-separated events, as pmu_open(3)."""
    return Set(events)


def thread_init(events):
    _check(_lib.pmu_thread_init(events.encode()))


def thread_fini():
    _check(_lib.pmu_thread_fini())


class region:  # noqa: N801 - used as pmu.region("name")
    """A region (pmu_region_begin/end) as a context manager and a decorator."""

    def __init__(self, name):
        self.name = name.encode()

    def __enter__(self):
        _check(_lib.pmu_region_begin(self.name))
        return self

    def __exit__(self, *exc):
        _check(_lib.pmu_region_end(self.name))

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*a, **k):
            with self:
                return fn(*a, **k)
        return wrapper


def report(format="table", path=None):  # noqa: A002 - the library's own word
    """The region report as text (table, csv or json), or written to path (%p %h %r expanded)."""
    if path is not None:
        _check(_lib.pmu_report_path(path.encode(), format.encode() if format else None))
        return None
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "report")
        _check(_lib.pmu_report_path(f.replace("%", "%%").encode(), format.encode()))
        with builtins.open(f, encoding="utf-8") as fh:
            return fh.read()

