# SPDX-License-Identifier: MIT
"""libpmu from Python. pip install . builds the C extension pmu._pmu for the hot calls (regions,
reads); without a compiler every call goes through ctypes (pmu.backend() says which, and why).

    import pmu
    with pmu.open("task-clock,page-faults") as s:
        work()
        print(s.read())            # {'task-clock': ..., 'page-faults': ...}
        buf = s.buffer()
        s.read(buf)                # into a preallocated array('Q'): the cheapest read
        print(s.user_read(0))      # (False, 'why it is read through read(2)')

    pmu.thread_init("task-clock,page-faults")
    with pmu.region("load"):       # by name; pmu.region(pmu.region_register("load")): by handle
        load()
    @pmu.region("step")
    def step(): ...
    print(pmu.report(format="json"))
    for r in pmu.results():        # the same figures as objects
        print(r.name, r.calls, r.ns_min, r.ns_max, r.counts, r.running_pct, r.metrics)
    df = pmu.dataframe()           # or pmu.dataframe("run.json"): a pandas DataFrame
    d = pmu.diff("base.json", "new.json")   # pmu report diff's figures as data

The library: the one the extension was linked with (beside the package when pip installed it); else,
for ctypes, $PMU_LIBRARY, next to this package, in the library directory of the prefix `make install`
put this package in (the relative path in the file `libdir` beside this one), then the system's
libpmu.so.0. A library of another version than the package's is refused at import. Failures raise
OSError with the errno and the library's message.
"""
import array
import builtins
import ctypes
import errno
import ctypes.util
import functools
import html
import json
import os
import shutil
import subprocess
import tempfile

__all__ = ["open", "Set", "region", "region_register", "region_enter", "region_exit", "thread_init", "thread_fini",
           "report", "results", "Region", "Thread", "version", "library", "backend", "diff", "dataframe"]


def _extension():
    """The C extension pmu._pmu, or None; and why it is not in use."""
    if os.environ.get("PMU_PYTHON_BACKEND") == "ctypes":
        return None, "PMU_PYTHON_BACKEND=ctypes"
    try:
        from . import _pmu
    except ImportError as e:
        here = os.path.dirname(os.path.abspath(__file__))
        if not [f for f in os.listdir(here) if f.startswith("_pmu.") and f.endswith(".so")]:
            return None, "no extension pmu._pmu in %s (installed without a C compiler or Python.h)" % here
        return None, "the extension pmu._pmu did not load: %s" % e
    return _pmu, "pmu._pmu"


def _load(ext, why):
    """libpmu.so.0: the extension's own (one library in the process), else the first that loads."""
    if ext is not None:
        return ctypes.CDLL(ext.library(), use_errno=True)
    here = os.path.dirname(os.path.abspath(__file__))
    tried = [why]
    installed = None
    try:
        with builtins.open(os.path.join(here, "libdir")) as f:
            installed = os.path.join(here, f.read().strip(), "libpmu.so.0")
    except OSError:
        pass
    for cand in (os.environ.get("PMU_LIBRARY"), os.path.join(here, "libpmu.so.0"), installed,
                 ctypes.util.find_library("pmu"), "libpmu.so.0"):
        if not cand:
            continue
        try:
            return ctypes.CDLL(cand, use_errno=True)
        except OSError as e:
            tried.append(str(e))
    hint = ""
    if any("static TLS" in t for t in tried):
        # libpmu's thread-local data is initial-exec (for the hot path): a program that loads it late
        # needs room for it, given before the process starts.
        hint = " (start Python with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384, or LD_PRELOAD=libpmu.so.0)"
    raise ImportError("libpmu.so.0 could not be loaded (pip install . from libpmu's tree, or set PMU_LIBRARY "
                      "to its path): " + "; ".join(tried) + hint)


def _package_version(ext):
    """The libpmu version this package was built for: the extension's headers', else _version.py's (None
    in the source tree, whose package goes with whichever library it is given)."""
    if ext is not None:
        return ext.built_with
    try:
        from ._version import __version__ as v
    except ImportError:
        return None
    return v


_ext, _backend_why = _extension()
_lib = _load(_ext, _backend_why)
library = _lib._name
_lib.pmu_version.restype = ctypes.c_char_p
_want = _package_version(_ext)
if _want and _lib.pmu_version().decode() != _want:
    raise ImportError("the pmu package is libpmu %s's, but %s is libpmu %s: install the package and the "
                      "library from one libpmu tree (pip install . there), or set PMU_LIBRARY to a "
                      "libpmu.so.0 of %s" % (_want, library, _lib.pmu_version().decode(), _want))
_u64p = ctypes.POINTER(ctypes.c_uint64)
_lib.pmu_open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
_lib.pmu_close.argtypes = [ctypes.c_void_p]
_lib.pmu_close.restype = None
_lib.pmu_count.argtypes = [ctypes.c_void_p]
_lib.pmu_count.restype = ctypes.c_uint
_lib.pmu_name.argtypes = [ctypes.c_void_p, ctypes.c_uint]
_lib.pmu_name.restype = ctypes.c_char_p
_lib.pmu_unit.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_double)]
_lib.pmu_unit.restype = ctypes.c_char_p
_lib.pmu_read.argtypes = [ctypes.c_void_p, _u64p]
_lib.pmu_user_read.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p)]
for _f in ("pmu_enable", "pmu_disable", "pmu_reset"):
    getattr(_lib, _f).argtypes = [ctypes.c_void_p]
_lib.pmu_errmsg.restype = ctypes.c_char_p
_lib.pmu_thread_init.argtypes = [ctypes.c_char_p]
_lib.pmu_thread_event_name.argtypes = [ctypes.c_uint]
_lib.pmu_thread_event_name.restype = ctypes.c_char_p
_lib.pmu_region_begin.argtypes = [ctypes.c_char_p]
_lib.pmu_region_end.argtypes = [ctypes.c_char_p]
_lib.pmu_region_register.argtypes = [ctypes.c_char_p]
_lib.pmu_region_enter.argtypes = [ctypes.c_int]
_lib.pmu_region_exit.argtypes = [ctypes.c_int]
_lib.pmu_report_path.argtypes = [ctypes.c_char_p, ctypes.c_char_p]


class _ThreadResult(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("tid", ctypes.c_int), ("name", ctypes.c_char_p),
                ("exited", ctypes.c_int), ("compensated", ctypes.c_int)]


class _RegionResult(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("name", ctypes.c_char_p), ("calls", ctypes.c_uint64),
                ("spans", ctypes.c_uint64), ("ns", ctypes.c_uint64), ("ns_min", ctypes.c_uint64),
                ("ns_max", ctypes.c_uint64), ("ns_stddev", ctypes.c_double), ("nevents", ctypes.c_uint),
                ("sum", _u64p), ("min", _u64p), ("max", _u64p),
                ("stddev", ctypes.POINTER(ctypes.c_double)), ("running_pct", ctypes.POINTER(ctypes.c_double)),
                ("clamped", ctypes.c_uint64)]


_names_p = ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p))
_lib.pmu_results_take.restype = ctypes.c_void_p
_lib.pmu_results_free.argtypes = [ctypes.c_void_p]
_lib.pmu_results_free.restype = None
_lib.pmu_results_events.argtypes = [ctypes.c_void_p, _names_p]
_lib.pmu_results_events.restype = ctypes.c_uint
_lib.pmu_results_regions.argtypes = [ctypes.c_void_p, _names_p]
_lib.pmu_results_regions.restype = ctypes.c_uint
_lib.pmu_results_threads.argtypes = [ctypes.c_void_p]
_lib.pmu_results_threads.restype = ctypes.c_uint
_lib.pmu_results_thread.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.POINTER(_ThreadResult)]
_lib.pmu_results_get.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.POINTER(_RegionResult)]
_has_metrics = hasattr(_lib, "pmu_results_metric")   # 0.5
if _has_metrics:
    _lib.pmu_results_metrics.argtypes = [ctypes.c_void_p, _names_p]
    _lib.pmu_results_metrics.restype = ctypes.c_uint
    _lib.pmu_results_metric.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_char_p,
                                        ctypes.POINTER(ctypes.c_double)]


_has_dist = hasattr(_lib, "pmu_results_quantile")   # 0.7: histograms, tasks
if _has_dist:
    _lib.pmu_results_quantile.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_uint,
                                          ctypes.c_double, ctypes.POINTER(ctypes.c_double)]
    _lib.pmu_results_tail.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_uint, _u64p,
                                      ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)]
    _lib.pmu_task_begin.argtypes = [ctypes.c_char_p]
    _lib.pmu_task_begin.restype = ctypes.c_void_p
    for _f in ("pmu_task_suspend", "pmu_task_resume", "pmu_task_end"):
        getattr(_lib, _f).argtypes = [ctypes.c_void_p]
    _lib.pmu_task_read.argtypes = [ctypes.c_void_p, _u64p, _u64p, ctypes.c_uint]
QUANTILES = (0.5, 0.9, 0.99, 0.999)   # the reports' own: p50, p90, p99, p99.9


def _check(r):
    """r as the library returns it: 0 (or more) or -errno; raises OSError with the message."""
    if r < 0:
        msg = (_lib.pmu_errmsg() or b"").decode("utf-8", "replace")
        raise OSError(-r, msg or os.strerror(-r))
    return r


def version():
    return _lib.pmu_version().decode()


def backend(why=False):
    """"extension" when the hot calls are the C extension's (pmu._pmu), "ctypes" when they go through
    ctypes (no compiler at install, or PMU_PYTHON_BACKEND=ctypes); with why, (name, the reason)."""
    name = "extension" if _ext is not None else "ctypes"
    return (name, _backend_why) if why else name


class _CtypesSet:
    """pmu._pmu.Set's calls through ctypes: open, read, close and the handle."""

    def __init__(self, events):
        self._h = None
        h = ctypes.c_void_p()
        _check(_lib.pmu_open(ctypes.byref(h), events.encode()))
        self._h = h
        self.names = [_lib.pmu_name(h, i).decode() for i in range(_lib.pmu_count(h))]
        self._buf = (ctypes.c_uint64 * len(self.names))()

    @property
    def handle(self):
        return self._h.value if self._h else None

    def read(self, out=None):
        if not self._h:
            raise OSError(errno.EBADF, "the set is closed")
        if out is None:
            _check(_lib.pmu_read(self._h, self._buf))
            return dict(zip(self.names, self._buf))
        try:
            m = memoryview(out)
        except TypeError:
            m = None
        if m is None or m.readonly:
            raise ValueError("read(out): out (%s) is not a writable buffer" % type(out).__name__)
        if m.itemsize != 8 or m.format[-1:] not in ("Q", "L") or m.nbytes < 8 * len(self.names):
            raise ValueError("read(out): out holds %d items of format '%s'; it needs %d unsigned 64-bit ones "
                             "('Q'), as Set.buffer() makes" % (len(m), m.format, len(self.names)))
        _check(_lib.pmu_read(self._h, (ctypes.c_uint64 * len(self.names)).from_buffer(out)))
        return out

    def close(self):
        if self._h:
            _lib.pmu_close(self._h)
            self._h = None

    def __del__(self):
        self.close()


class _SetMethods:
    """Set's cold methods, over the handle with ctypes: the same for both backends."""

    def _handle(self):
        h = self.handle
        if not h:
            raise OSError(errno.EBADF, "the set is closed")
        return ctypes.c_void_p(h)

    def buffer(self):
        """A zeroed array('Q') with room for every count, for read(out)."""
        return array.array("Q", bytes(8 * len(self.names)))

    def user_read(self, i):
        """(True, why) when event i is read with a user-space instruction, (False, why) through read(2)."""
        why = ctypes.c_char_p()
        r = _check(_lib.pmu_user_read(self._handle(), i, ctypes.byref(why)))
        return bool(r), (why.value or b"").decode()

    def unit(self, i):
        """(unit, scale) of event i as perf stat shows it: count * scale is in unit ("Joules", "msec", "")."""
        scale = ctypes.c_double()
        u = _lib.pmu_unit(self._handle(), i, ctypes.byref(scale))
        if u is None:
            _check(-22)  # EINVAL, with the library's message
        return u.decode(), scale.value

    def enable(self):
        _check(_lib.pmu_enable(self._handle()))

    def disable(self):
        _check(_lib.pmu_disable(self._handle()))

    def reset(self):
        _check(_lib.pmu_reset(self._handle()))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _methods(cls):
    return {k: v for k, v in vars(cls).items() if callable(v)}


if _ext is not None:
    Set = _ext.Set
    _ext.extend(Set, _methods(_SetMethods))
else:
    class Set(_CtypesSet, _SetMethods):
        """Events counting for the calling thread; a context manager that closes them. read() gives each
        count by name, read(out) writes them into a preallocated buffer (Set.buffer()) and returns it."""


def open(events):  # noqa: A001 - the library's own verb
    """Opens the comma-separated events, as pmu_open(3)."""
    return Set(events)


def thread_init(events):
    _check(_lib.pmu_thread_init(events.encode()))


def thread_fini():
    _check(_lib.pmu_thread_fini())


if _ext is not None:
    region = _ext.region
else:
    class region:  # noqa: N801 - used as pmu.region("name")
        """region(name) or region(handle): a region by name (pmu_region_begin/end) or by handle (an int
        from region_register(): pmu_region_enter/exit), as a context manager and a decorator."""

        def __init__(self, what):
            if isinstance(what, bool) or not isinstance(what, (int, str, bytes)):
                raise TypeError("region(%r): a name (str) or a handle (int) is needed, not %s"
                                % (what, type(what).__name__))
            by_name = not isinstance(what, int)
            if by_name and ("\0" if isinstance(what, str) else b"\0") in what:
                raise ValueError("region(%r): a name with a NUL character" % (what,))   # C would cut it there
            self.name = what if isinstance(what, str) else what.decode("utf-8", "replace") if by_name else None
            self.handle = None if by_name else what
            arg = what.encode() if isinstance(what, str) else what
            self._calls = ((_lib.pmu_region_begin, _lib.pmu_region_end) if by_name else
                           (_lib.pmu_region_enter, _lib.pmu_region_exit), arg)

        def __enter__(self):
            _check(self._calls[0][0](self._calls[1]))
            return self

        def __exit__(self, *exc):
            _check(self._calls[0][1](self._calls[1]))

        def __call__(self, fn):
            @functools.wraps(fn)
            def wrapper(*a, **k):
                with self:
                    return fn(*a, **k)
            wrapper.region = self
            return wrapper

        def __repr__(self):
            return "region(%r)" % (self.name if self.handle is None else self.handle)


def region_register(name):
    """The handle of region name (pmu_region_register): the same in every thread, valid until thread_fini()."""
    return _check(_lib.pmu_region_register(name.encode()))


if _ext is not None:
    region_enter, region_exit = _ext.region_enter, _ext.region_exit
else:
    def _int(handle, call):
        if isinstance(handle, bool) or not isinstance(handle, int):
            raise TypeError("%s(handle): the handle is an int" % call)
        return handle

    def region_enter(handle):
        """pmu_region_enter: begin the handle's region, the same region as by name."""
        _check(_lib.pmu_region_enter(_int(handle, "region_enter")))

    def region_exit(handle):
        """pmu_region_exit: end the handle's region."""
        _check(_lib.pmu_region_exit(_int(handle, "region_exit")))


def _since(call, version_of):
    if not hasattr(_lib, call):
        raise OSError(errno.ENOSYS, "%s: not in this libpmu (%s; since %s)" % (call, version(), version_of))


def region_histograms(on):
    """pmu_region_histograms: regions keep a histogram of each figure per call, for Region.quantiles and
    Region.tail (in the threads that begin regions later, and this one with no region open)."""
    _since("pmu_region_histograms", "0.7")
    _check(_lib.pmu_region_histograms(1 if on else 0))


class Task:
    """pmu_task_*: work that moves between threads, counted over the intervals it ran, added to region
    name as one call when it ends. Begun on the calling thread; suspend() on the thread it runs on,
    resume() on any; end() once; read() gives (ns, {event: count}) so far. As a context manager it ends
    at the block's end (an exception in the block ends it too)."""

    def __init__(self, name):
        _since("pmu_task_begin", "0.7")
        if "\0" in name:
            raise ValueError("Task(%r): a name with a NUL character" % (name,))
        self.name = name
        self._t = _lib.pmu_task_begin(name.encode())
        if not self._t:
            _check(-(ctypes.get_errno() or errno.EINVAL))

    def _task(self, call):
        if not self._t:
            raise ValueError("%s: the task %r has ended" % (call, self.name))
        return self._t

    def suspend(self):
        _check(_lib.pmu_task_suspend(self._task("suspend")))

    def resume(self):
        _check(_lib.pmu_task_resume(self._task("resume")))

    def end(self):
        t, self._t = self._task("end"), None
        r = _lib.pmu_task_end(t)
        if r == -errno.EBUSY:
            self._t = t   # refused and left as it was: it runs on another thread, which ends it
        _check(r)         # any other failure freed it, its counts not added

    def read(self):
        n = _lib.pmu_thread_event_count()
        ns, vals = ctypes.c_uint64(), (ctypes.c_uint64 * max(n, 1))()
        n = _check(_lib.pmu_task_read(self._task("read"), ctypes.byref(ns), vals, max(n, 0)))
        return ns.value, {thread_event_name(i): vals[i] for i in range(n)}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._t:
            self.end()

    def __repr__(self):
        return "Task(%r%s)" % (self.name, "" if self._t else ", ended")


def thread_event_name(i):
    """The name of event i of thread_init()'s list."""
    name = _lib.pmu_thread_event_name(ctypes.c_uint(i))
    if name is None:
        raise IndexError("thread_event_name(%d): out of range" % i)
    return name.decode()


def region_compensate(on):
    """pmu_region_compensate: regions leave out what the region calls inside them cost, in this thread (no
    region open) and in the threads that begin regions later."""
    if not hasattr(_lib, "pmu_region_compensate"):   # 0.6
        raise OSError(errno.ENOSYS, "pmu_region_compensate: not in this libpmu (%s)" % version())
    _check(_lib.pmu_region_compensate(1 if on else 0))


class Thread:
    """A thread that used regions: tid, name, exited, compensated (region_compensate)."""

    def __init__(self, tid, name, exited, compensated=False):
        self.tid, self.name, self.exited, self.compensated = tid, name, exited, compensated

    def __repr__(self):
        return "Thread(tid=%d, name=%r, exited=%r)" % (self.tid, self.name, self.exited)


class Region:
    """A region's figures in total (threads: the same per thread, each with .thread), per outermost call
    for ns_min/ns_max/ns_stddev and the min/max/stddev dicts; running_pct is 100 when never multiplexed.
    metrics: {name: value} computed from the region's summed counts (None where undefined: a zero
    denominator), as pmu_results_metric gives them: before their scale (0.025 for 2.5 %).
    With histograms (region_histograms): quantiles, {"ns" or event: {0.5: value, ...}} at QUANTILES,
    and tail, {"calls": slowest 1% of calls, event: (mean there, mean over the others)}; else empty."""

    def __init__(self, res, events, thread=None, metrics=None):
        n = res.nevents
        self.name = res.name.decode("utf-8", "replace")
        self.thread = thread
        self.calls, self.spans, self.ns = res.calls, res.spans, res.ns
        self.clamped = res.clamped   # compensated calls with a figure below 0, counted 0
        self.ns_min, self.ns_max, self.ns_stddev = res.ns_min, res.ns_max, res.ns_stddev
        self.counts = {events[i]: res.sum[i] for i in range(n)}
        self.min = {events[i]: res.min[i] for i in range(n)}
        self.max = {events[i]: res.max[i] for i in range(n)}
        self.stddev = {events[i]: res.stddev[i] for i in range(n)}
        self.running_pct = {events[i]: res.running_pct[i] for i in range(n)}
        self.metrics = metrics or {}
        self.quantiles, self.tail = {}, {}
        self.threads = []

    def __repr__(self):
        return "Region(%r, calls=%d, ns=%d, counts=%r)" % (self.name, self.calls, self.ns, self.counts)


def _dist(reg, h, region, thread, events):
    """Region's quantiles and tail in thread (-1: the total) into reg, where it kept histograms."""
    v, t, o, calls = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_uint64()
    if not _has_dist or _lib.pmu_results_quantile(h, region, thread, 0, 0.5, ctypes.byref(v)) == -errno.ENOENT:
        return
    for f, name in enumerate(["ns"] + events):
        reg.quantiles[name] = {}
        for q in QUANTILES:
            _check(_lib.pmu_results_quantile(h, region, thread, f, q, ctypes.byref(v)))
            reg.quantiles[name][q] = v.value
    for i, name in enumerate(events):
        _check(_lib.pmu_results_tail(h, region, thread, i, ctypes.byref(calls), ctypes.byref(t), ctypes.byref(o)))
        reg.tail["calls"], reg.tail[name] = calls.value, (t.value, o.value)


def _metrics(h, region, thread, names):
    """Region's metrics in thread (-1: the total) as a dict: None where undefined."""
    out = {}
    v = ctypes.c_double()
    for m in names:
        r = _lib.pmu_results_metric(h, region, thread, m, ctypes.byref(v))
        if r != -errno.EDOM:
            _check(r)
        out[m.decode()] = v.value if r == 0 else None
    return out


class Results(list):
    """results()' Region objects; a notebook shows them as a table, one row per region and thread."""

    def _repr_html_(self):
        events = list(dict.fromkeys(e for r in self for e in r.counts))
        metrics = list(dict.fromkeys(m for r in self for m in r.metrics))
        head = ["region", "thread", "thread_name", "calls", "ns"] + events + metrics
        rows = [[r.name, t.thread.tid, t.thread.name, t.calls, t.ns] + [t.counts.get(e) for e in events] +
                [t.metrics.get(m) for m in metrics] for r in self for t in r.threads]
        cell = lambda v: "" if v is None else html.escape(str(v))  # noqa: E731
        return "<table><tr>%s</tr>%s</table>" % ("".join("<th>%s</th>" % cell(h) for h in head), "".join(
            "<tr>%s</tr>" % "".join("<td>%s</td>" % cell(v) for v in row) for row in rows))


def results():
    """Every region with at least one completed call, as Region objects (totals, .threads per thread)."""
    h = _lib.pmu_results_take()
    if not h:
        _check(-ctypes.get_errno() or -12)
    try:
        names = ctypes.POINTER(ctypes.c_char_p)()
        events = [names[i].decode() for i in range(_lib.pmu_results_events(h, ctypes.byref(names)))]
        metric_names = []
        if _has_metrics:
            metric_names = [names[i] for i in range(_lib.pmu_results_metrics(h, ctypes.byref(names)))]
        threads = []
        for k in range(_lib.pmu_results_threads(h)):
            t = _ThreadResult(size=ctypes.sizeof(_ThreadResult))
            _check(_lib.pmu_results_thread(h, k, ctypes.byref(t)))
            threads.append(Thread(t.tid, t.name.decode("utf-8", "replace"), bool(t.exited), bool(t.compensated)))
        out = Results()
        for i in range(_lib.pmu_results_regions(h, None)):
            res = _RegionResult(size=ctypes.sizeof(_RegionResult))
            r = _lib.pmu_results_get(h, i, -1, ctypes.byref(res))
            if r == -errno.ENOENT:
                continue
            _check(r)
            reg = Region(res, events, metrics=_metrics(h, i, -1, metric_names))
            _dist(reg, h, i, -1, events)
            for k, t in enumerate(threads):
                if _lib.pmu_results_get(h, i, k, ctypes.byref(res)) == 0:
                    reg.threads.append(Region(res, events, t, _metrics(h, i, k, metric_names)))
                    _dist(reg.threads[-1], h, i, k, events)
            out.append(reg)
        return out
    finally:
        _lib.pmu_results_free(h)


def report(format="table", path=None):  # noqa: A002 - the library's own word
    """The region report as text (table, csv, json, html, trace, prometheus, openmetrics, folded, hatchet or json-split), or written to path
    (%p %h %r expanded; the format from its extension when format is None)."""
    if path is not None:
        _check(_lib.pmu_report_path(path.encode(), format.encode() if format else None))
        return None
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "report")
        _check(_lib.pmu_report_path(f.replace("%", "%%").encode(), format.encode()))
        with builtins.open(f, encoding="utf-8") as fh:
            return fh.read()


def _tool():
    """The pmu tool of this library: $PMU_TOOL, beside the library (a build tree), its prefix's bin/, the PATH."""
    libdir = os.path.dirname(os.path.realpath(library)) if os.path.isabs(library) else ""
    for cand in (os.environ.get("PMU_TOOL"), libdir and os.path.join(libdir, "pmu"),
                 libdir and os.path.join(libdir, "..", "bin", "pmu"), shutil.which("pmu")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    raise FileNotFoundError(errno.ENOENT, "the pmu tool was not found (set PMU_TOOL to its path)", "pmu")


def diff(base, new, alpha=0.05, fail_if=()):
    """pmu report diff of two reports (or pmu stat -j outputs) as data: a dict with "rows" (per region and
    figure: base, new, change_pct, p, ci_low_pct, ci_high_pct, significant, flags), "notes", "only_in_base",
    "only_in_new" and "gate" ({"thresholds", "failed"} for the fail_if thresholds, "instructions:u:+2%")."""
    args = [_tool(), "report", "diff", "--format", "json", "--alpha", repr(float(alpha))]
    for t in fail_if:
        args += ["--fail-if", t]
    p = subprocess.run(args + ["--", os.fspath(base), os.fspath(new)], capture_output=True, text=True, check=False)
    if p.returncode not in (0, 1):
        raise ValueError(p.stderr.strip() or "pmu report diff: exit status %d" % p.returncode)
    return json.loads(p.stdout)


def _row(process, region, tid, tname, fig, events):
    row = {"process": process, "region": region, "thread": tid, "thread_name": tname,
           "calls": fig["calls"], "ns": fig["ns"]}
    counts = fig.get("counts") or {}
    row.update((e, counts.get(e)) for e in events)
    row.update(fig.get("metrics") or {})
    return row


def _rows(doc, where):
    """A JSON report's rows: per region and thread; a merged report's per region, process "all"."""
    if not isinstance(doc, dict) or not isinstance(doc.get("regions"), list):
        raise ValueError("%s: not a libpmu JSON report (no \"regions\" list)" % where)
    events = list(doc.get("events") or [])
    try:
        if doc.get("merged"):
            return [_row("all", r["name"], 0, "all", r, events) for r in doc["regions"]]
        process = "%s:%s" % (doc.get("hostname", ""), doc.get("pid", ""))
        return [_row(process, r["name"], t["tid"], t["name"], t, events)
                for r in doc["regions"] for t in r.get("threads") or []]
    except (KeyError, TypeError) as e:
        raise ValueError("%s: not a libpmu JSON report (a region without %s)" % (where, e)) from e


def _path_rows(doc, where):
    """A JSON report's call paths (since 0.8), in total: process, path (the names from the top, a
    tuple), region, depth, calls, ns, self_ns, and per event its total and self_ its self."""
    process = "all" if doc.get("merged") else "%s:%s" % (doc.get("hostname", ""), doc.get("pid", ""))
    rows = []
    for p in doc.get("paths") or []:
        try:
            row = {"process": process, "path": tuple(p["path"]), "region": p["path"][-1],
                   "depth": len(p["path"]) - 1, "calls": p["calls"], "ns": p["ns"], "self_ns": p["self_ns"]}
            for e, v in p["counts"].items():
                row[e] = v
                row["self_" + e] = p["self_counts"][e]
        except (KeyError, TypeError, IndexError) as e:
            raise ValueError("%s: not a libpmu JSON report (a path without %s)" % (where, e)) from e
        rows.append(row)
    return rows


def _report_files(path):
    if isinstance(path, (list, tuple)):
        return [os.fspath(p) for p in path]
    path = os.fspath(path)
    if os.path.isdir(path):
        return sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".json"))
    return [path]


def dataframe(path=None, paths=False):
    """A pandas DataFrame, one row per region and thread: process, region, thread (tid), thread_name,
    calls, ns, a column per event, then the metrics. Of the current results, or of libpmu JSON reports:
    path a file (a merged one gives a row per region, process and thread_name "all", thread 0), a
    directory (its *.json) or a list of files. With paths=True, one row per call path in total instead:
    process, path (the names from the top, a tuple), region, depth, calls, ns, self_ns, and each event
    beside its self_ column (self: the total less the paths inside)."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("pmu.dataframe() needs pandas (pip install pandas; Debian: python3-pandas): %s" % e) from e
    if path is None:
        docs = [(json.loads(report(format="json")), "the current results")]
    else:
        docs = []
        for f in _report_files(path):
            with builtins.open(f, encoding="utf-8") as fh:
                try:
                    docs.append((json.load(fh), f))
                except ValueError as e:
                    raise ValueError("%s: not JSON: %s" % (f, e)) from e
    rows = [row for doc, where in docs for row in (_path_rows if paths else _rows)(doc, where)]
    columns = (["process", "path", "region", "depth", "calls", "ns", "self_ns"] if paths else
               ["process", "region", "thread", "thread_name", "calls", "ns"])
    for row in rows:
        columns += [k for k in row if k not in columns]
    return pandas.DataFrame(rows, columns=columns)
