# SPDX-License-Identifier: MIT
"""pytest --pmu EVENTS: each test's call counted as a region named by its node id, written as a libpmu
JSON report (--pmu-report PATH) for `pmu report diff base.json new.json --fail-if ...` to gate a change
per test. Without --pmu nothing is loaded: the plugin costs pytest nothing."""
import hashlib

import pytest

NAME_MAX = 127   # libpmu's longest region name (bytes)


def pytest_addoption(parser):
    g = parser.getgroup("pmu", "performance counters per test (libpmu)")
    g.addoption("--pmu", metavar="EVENTS", default=None,
                help="count EVENTS (as pmu list names them, comma-separated) in each test's call, as a "
                     "region named by the test's node id")
    g.addoption("--pmu-report", metavar="PATH", default="pmu-report.json",
                help="the libpmu JSON report --pmu writes (%%p: the process id); default pmu-report.json")
    g.addoption("--pmu-repeat", metavar="N", type=int, default=1,
                help="call each test once uncounted (a warm-up), then N times counted, in a row (its fixtures "
                     "set up once): the spread pmu report diff needs to call a change significant; default 1 "
                     "(one counted call, no warm-up)")


def region_name(nodeid):
    """The node id, or where it is longer than a region name can be, its start and a hash of the whole
    (the same in every run, so that pmu report diff matches the runs' tests)."""
    b = nodeid.encode()
    if len(b) <= NAME_MAX:
        return nodeid
    h = hashlib.sha1(b).hexdigest()[:12]
    return b[:NAME_MAX - 14].decode("utf-8", "ignore") + "~" + h


class Counting:
    """The hooks --pmu adds: a region around each test's call, the report at the session's end."""

    def __init__(self, pmu, events, path, repeat):
        self.pmu, self.events, self.path, self.repeat = pmu, events, path, repeat
        # The whole session, a region too: and the thread's counters open here, not in the first test.
        self.session = pmu.region("pytest session")
        self.session.__enter__()


    @pytest.hookimpl(hookwrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        """The test function's call alone, not pytest's code around it (hooks, capture, timing), whose
        instructions change from run to run."""
        fn = pyfuncitem.obj
        counted = self.pmu.region(region_name(pyfuncitem.nodeid))(fn)

        def repeated(*args, **kwargs):
            fn(*args, **kwargs)   # a first call, not counted: caches, imports, compiled patterns
            for _ in range(self.repeat - 1):
                counted(*args, **kwargs)
            return counted(*args, **kwargs)

        pyfuncitem.obj = repeated if self.repeat > 1 else counted
        try:
            yield
        finally:
            pyfuncitem.obj = fn

    def pytest_sessionfinish(self, session):
        self.session.__exit__(None, None, None)
        if self.path:
            self.pmu.report(format="json", path=self.path)

    def pytest_terminal_summary(self, terminalreporter):
        terminalreporter.write_line("pmu: %s per test in %s" % (self.events, self.path))


def pytest_configure(config):
    events = config.getoption("pmu")
    if not events:
        return
    repeat = config.getoption("pmu_repeat")
    if repeat < 1:
        raise pytest.UsageError("--pmu-repeat %d: not a number of calls (1 or more)" % repeat)
    try:
        import pmu
        pmu.thread_init(events)
    except (ImportError, OSError) as e:
        raise pytest.UsageError("--pmu %s: %s" % (events, e))
    config.pluginmanager.register(Counting(pmu, events, config.getoption("pmu_report"), repeat), "pmu-counting")
