# SPDX-License-Identifier: MIT
"""The Python binding over this build's libpmu.so (PMU_LIBRARY): software events only."""
import errno
import json
import mmap
import os

import pytest

import pmu


def touch_pages(n):
    """n fresh pages, one fault each (a bytearray may reuse pages the heap already touched)."""
    m = mmap.mmap(-1, n * 4096)
    for i in range(0, n * 4096, 4096):
        m[i] = 1
    m.close()


def test_version():
    assert pmu.version().count(".") == 2


def test_open_read_dict():
    with pmu.open("task-clock,page-faults") as s:
        assert s.names == ["task-clock", "page-faults"]
        before = s.read()
        touch_pages(64)
        after = s.read()
    assert set(after) == {"task-clock", "page-faults"}
    assert after["page-faults"] - before["page-faults"] >= 64
    assert after["task-clock"] > before["task-clock"]


def test_user_read_with_reason():
    with pmu.open("page-faults") as s:
        direct, why = s.user_read(0)
        assert isinstance(direct, bool) and why
        with pytest.raises(OSError) as e:
            s.user_read(5)
        assert e.value.errno == errno.EINVAL


def test_unit_as_perf_shows_it():
    with pmu.open("task-clock,page-faults") as s:
        assert s.unit(0) == ("msec", 1e-6)
        assert s.unit(1) == ("", 1.0)
        with pytest.raises(OSError) as e:
            s.unit(2)
        assert "out of range" in str(e.value)


def test_bad_event_raises_oserror_with_message():
    with pytest.raises(OSError) as e:
        pmu.open("no-such-event")
    assert e.value.errno != 0
    assert "no-such-event" in e.value.strerror


def test_closed_set():
    s = pmu.open("page-faults")
    s.close()
    with pytest.raises(OSError) as e:
        s.read()
    assert e.value.errno == errno.EBADF


def test_regions_and_report(tmp_path):
    pmu.thread_init("task-clock,page-faults")
    try:
        with pmu.region("load"):
            touch_pages(16)

        @pmu.region("step")
        def step(x):
            return x + 1

        assert [step(i) for i in range(3)] == [1, 2, 3]
        doc = json.loads(pmu.report(format="json"))
        calls = {r["name"]: r["calls"] for r in doc["regions"]}
        assert calls == {"load": 1, "step": 3}
        assert doc["pid"] == os.getpid() and doc["library"].startswith("libpmu ")
        assert pmu.report(format="csv").startswith("region,")
        page = pmu.report(format="html")
        assert page.startswith("<!DOCTYPE html>") and ">step</td><td>3</td>" in page
        pmu.report(format=None, path=str(tmp_path / "r.html"))
        assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
        p = tmp_path / "r-%p.json"
        pmu.report(format=None, path=str(p))
        assert json.loads((tmp_path / ("r-%d.json" % os.getpid())).read_text())["regions"]
        with pytest.raises(OSError) as e:
            pmu.report(format="xml")
        assert e.value.errno == errno.EINVAL and "xml" in e.value.strerror
        with pytest.raises(OSError) as e:
            with pmu.region(""):
                pass
        assert e.value.errno == errno.EINVAL
    finally:
        pmu.thread_fini()


def test_regions_by_handle():
    pmu.thread_init("task-clock")
    try:
        h = pmu.region_register("hot")
        assert h >= 0 and pmu.region_register("hot") == h
        pmu.region_enter(h)
        pmu.region_exit(h)
        with pmu.region("hot"):
            pass
        pmu.region_enter(h)
        with pmu.region("hot"):  # nested in itself, by name inside by handle
            pass
        pmu.region_exit(h)
        hot = [r for r in pmu.results() if r.name == "hot"]
        assert len(hot) == 1 and hot[0].calls == 4
        with pytest.raises(OSError) as e:
            pmu.region_enter(12345)
        assert e.value.errno == errno.EINVAL and "12345" in e.value.strerror
        with pytest.raises(OSError) as e:
            pmu.region_exit(h)
        assert e.value.errno == errno.EINVAL
    finally:
        pmu.thread_fini()


def test_installed_package_loads_its_prefix_library(tmp_path):
    """As make install lays it out: the package, and beside it the relative path to its LIBDIR."""
    import subprocess
    import sys
    import shutil
    lib = os.environ.get("PMU_LIBRARY") or os.path.realpath(pmu.library)
    prefix = tmp_path / "prefix"
    (prefix / "lib").mkdir(parents=True)
    shutil.copy(lib, str(prefix / "lib" / "libpmu.so.0"))
    site = prefix / "lib" / "python3" / "site-packages" / "pmu"
    site.mkdir(parents=True)
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pmu", "__init__.py"), str(site))
    (site / "libdir").write_text(os.path.relpath(str(prefix / "lib"), str(site)) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PMU_LIBRARY", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(site.parent)
    out = subprocess.run([sys.executable, "-c", "import pmu; print(pmu.library); print(pmu.version())"],
                         capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == os.path.join(str(site), "../../../libpmu.so.0"), out.stdout


def test_results_objects():
    with pytest.raises(OSError) as e:
        pmu.results()
    assert e.value.errno == errno.EINVAL and "pmu_thread_init" in e.value.strerror
    pmu.thread_init("task-clock,page-faults")
    try:
        for n in (10, 20, 30):
            with pmu.region("pages"):
                touch_pages(n)
        with pmu.region("once"):
            pass
        pmu.region("open").__enter__()  # begun, never ended: not in the results
        regs = {r.name: r for r in pmu.results()}
        assert set(regs) == {"pages", "once"}
        r = regs["pages"]
        assert r.calls == 3 and r.spans == 3
        assert set(r.counts) == {"task-clock", "page-faults"}
        assert r.min["page-faults"] <= r.counts["page-faults"] / 3 <= r.max["page-faults"]
        assert r.min["page-faults"] >= 10 and r.max["page-faults"] >= 30
        assert r.ns_min <= r.ns / r.calls <= r.ns_max and r.ns_stddev >= 0
        assert r.stddev["page-faults"] > 0
        assert r.running_pct == {"task-clock": 100.0, "page-faults": 100.0}
        assert len(r.threads) == 1 and r.threads[0].thread.tid > 0 and not r.threads[0].thread.exited
        assert r.threads[0].calls == 3 and r.threads[0].counts == r.counts
        assert regs["once"].ns_stddev == 0
        pmu.region("open").__exit__()
        doc = json.loads(pmu.report(format="json"))
        byname = {x["name"]: x for x in doc["regions"]}
        for key in ("ns_min", "ns_max", "ns_stddev", "min", "max", "stddev", "running_pct"):
            assert key in byname["pages"] and key in byname["pages"]["threads"][0]
        assert byname["pages"]["min"]["page-faults"] == regs["pages"].min["page-faults"]
    finally:
        pmu.thread_fini()


def test_metrics_per_region():
    # a built-in metric named beside the events: its events counted once, its value per region and thread
    pmu.thread_init("page-faults,CPUs_utilized,task-clock")
    try:
        for n in (8, 16):
            with pmu.region("pages"):
                touch_pages(n)
        with pmu.region("empty"):
            pass
        regs = {r.name: r for r in pmu.results()}
        r = regs["pages"]
        assert set(r.counts) == {"page-faults", "task-clock"}
        assert set(r.metrics) == {"CPUs_utilized"}
        # from the sums the same results give, exactly
        assert r.metrics["CPUs_utilized"] == r.counts["task-clock"] / r.ns
        t = r.threads[0]
        assert t.metrics["CPUs_utilized"] == t.counts["task-clock"] / t.ns
        doc = json.loads(pmu.report(format="json"))
        byname = {x["name"]: x for x in doc["regions"]}
        j = byname["pages"]
        assert j["metrics"]["CPUs_utilized"] == j["counts"]["task-clock"] / j["ns"]
        assert j["threads"][0]["metrics"]["CPUs_utilized"] == \
            j["threads"][0]["counts"]["task-clock"] / j["threads"][0]["ns"]
    finally:
        pmu.thread_fini()
    with pytest.raises(OSError) as e:
        pmu.thread_init("task-clock,no_such_metric")
    assert "no_such_metric" in e.value.strerror


def test_diff(tmp_path):
    pmu.thread_init("task-clock,page-faults")
    try:
        for n in (10, 10, 10):
            with pmu.region("pages"):
                touch_pages(n)
        pmu.report(format="json", path=str(tmp_path / "base.json"))
    finally:
        pmu.thread_fini()
    pmu.thread_init("task-clock,page-faults")
    try:
        for n in (40, 40, 40):
            with pmu.region("pages"):
                touch_pages(n)
        with pmu.region("new"):
            pass
        pmu.report(format="json", path=str(tmp_path / "new.json"))
    finally:
        pmu.thread_fini()
    d = pmu.diff(tmp_path / "base.json", tmp_path / "new.json", fail_if=["page-faults:+50%"])
    rows = {(r["region"], r["figure"]): r for r in d["rows"]}
    faults = rows[("pages", "page-faults")]
    assert faults["new"] > faults["base"] and faults["change_pct"] > 50
    assert d["only_in_new"] == ["new"] and d["gate"]["thresholds"] == 1
    assert rows[("pages", "calls")]["change_pct"] == 0
    with pytest.raises(ValueError) as e:
        pmu.diff(tmp_path / "base.json", tmp_path / "missing.json")
    assert "missing.json" in str(e.value)


def test_trace():
    os.environ["PMU_TRACE"] = os.devnull  # on from pmu_thread_init(); written here by report()
    try:
        pmu.thread_init("task-clock,page-faults")
        try:
            for n in (5, 5):
                with pmu.region("pages"):
                    touch_pages(n)
            d = json.loads(pmu.report(format="trace"))
        finally:
            pmu.thread_fini()
    finally:
        del os.environ["PMU_TRACE"]
    calls = [e for e in d["traceEvents"] if e["ph"] == "X" and e["name"] == "pages"]
    assert len(calls) == 2 and all("page-faults" in e["args"] for e in calls)
    assert d["otherData"]["dropped"] == 0


def test_region_compensate():
    pmu.thread_init("task-clock,page-faults")
    try:
        pmu.region_compensate(True)
        with pmu.region("outer"):
            for _ in range(10):
                with pmu.region("inner"):
                    pass
        with pytest.raises(OSError) as e:
            with pmu.region("open"):
                pmu.region_compensate(False)
        assert e.value.errno == errno.EBUSY and "open" in e.value.strerror
        outer = [r for r in pmu.results() if r.name == "outer"][0]
        assert outer.calls == 1 and outer.threads[0].thread.compensated
        d = json.loads(pmu.report(format="json"))
        assert d["compensated"]["threads"] == 1 and "task-clock" in d["compensated"]["pair_by_name"]
        assert all("clamped" in r for r in d["regions"])
        pmu.region_compensate(False)
        d = json.loads(pmu.report(format="json"))
        assert d["compensated"] is None
    finally:
        pmu.region_compensate(False)
        pmu.thread_fini()
