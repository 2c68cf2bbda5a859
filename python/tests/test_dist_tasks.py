# SPDX-License-Identifier: MIT
"""Histograms (quantiles and the tail) and tasks from Python, over this build's libpmu.so."""
import errno
import json
import threading

import pytest
from test_pmu import touch_pages

import pmu


def test_quantiles_and_tail_as_the_json_report_gives_them():
    pmu.thread_init("task-clock,page-faults")
    try:
        with pmu.region("before"):
            pass
        pmu.region_histograms(True)
        for i in range(200):
            with pmu.region("mixed"):
                touch_pages(40 if i % 100 == 99 else 1)
        res = {r.name: r for r in pmu.results()}
        assert res["before"].quantiles == {} and res["before"].tail == {}   # begun without histograms
        q = res["mixed"].quantiles
        assert set(q) == {"ns", "task-clock", "page-faults"} and set(q["ns"]) == set(pmu.QUANTILES)
        assert q["page-faults"][0.5] <= q["page-faults"][0.999] and q["page-faults"][0.999] >= 40
        tail = res["mixed"].tail
        assert 2 <= tail["calls"] < 200 and len(tail["page-faults"]) == 2
        assert res["mixed"].threads[0].quantiles["ns"] == q["ns"]   # one thread: its own are the total's
        doc = json.loads(pmu.report(format="json"))
        dist = [r for r in doc["regions"] if r["name"] == "mixed"][0]["dist"]
        for name in ("ns", "page-faults"):
            for k, qq in zip(("p50", "p90", "p99", "p99.9"), pmu.QUANTILES):
                assert dist[name][k] == pytest.approx(q[name][qq], abs=0.05)
    finally:
        pmu.region_histograms(False)
        pmu.thread_fini()


def test_task_across_threads():
    pmu.thread_init("task-clock,page-faults")
    try:
        t = pmu.Task("request")
        t.suspend()
        errors = []

        def step():
            try:
                t.resume()
                touch_pages(30)
                t.suspend()
            except OSError as e:   # noqa: PERF203 - a thread's failure, reported by the main one
                errors.append(e)

        th = threading.Thread(target=step)
        th.start()
        th.join()
        assert not errors
        ns, counts = t.read()
        assert ns > 0 and counts["page-faults"] >= 30 and set(counts) == {"task-clock", "page-faults"}
        t.end()
        with pytest.raises(ValueError):
            t.end()
        r = [r for r in pmu.results() if r.name == "request"][0]
        assert r.calls == 1 and r.counts["page-faults"] >= 30
    finally:
        pmu.thread_fini()


def test_task_refused_on_another_thread_stays_usable():
    pmu.thread_init("task-clock")
    try:
        with pmu.Task("held") as t:
            out = []
            th = threading.Thread(target=lambda: out.append(pytest.raises(OSError, t.end)))
            th.start()
            th.join()
            assert out[0].value.errno == errno.EBUSY and "left as it was" in out[0].value.strerror
            assert repr(t) == "Task('held')"
        assert repr(t) == "Task('held', ended)"   # the block's end ended it here
        with pytest.raises(ValueError):
            pmu.Task("a\0b")
    finally:
        pmu.thread_fini()
