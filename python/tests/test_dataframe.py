# SPDX-License-Identifier: MIT
"""pmu.dataframe(): the current results and any JSON report, merged ones too, as a pandas DataFrame."""
import json
import os
import subprocess
import sys
import threading

import pytest

import pmu


def touch(n):
    b = bytearray(n * 4096)
    for i in range(0, len(b), 4096):
        b[i] = 1


def four_threads(report=None):
    """4 threads, thread i runs region "work" i + 1 times; the report written to report."""
    pmu.thread_init("task-clock,page-faults,CPUs_utilized")
    try:
        def work(i):
            for _ in range(i + 1):
                with pmu.region("work"):
                    touch(4)
        ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        frame = pmu.dataframe() if report is None else None
        if report:
            pmu.report(format="json", path=str(report))
        return frame
    finally:
        pmu.thread_fini()


def test_current_results_four_threads():
    pytest.importorskip("pandas")
    df = four_threads()
    assert list(df.columns) == ["process", "region", "thread", "thread_name", "calls", "ns", "task-clock",
                                "page-faults", "CPUs_utilized"]
    assert len(df) == 4 and sorted(df["calls"]) == [1, 2, 3, 4]
    assert df["thread"].nunique() == 4 and (df["region"] == "work").all()
    assert (df["process"] == "%s:%d" % (os.uname().nodename, os.getpid())).all()
    assert (df["CPUs_utilized"] == df["task-clock"] / df["ns"]).all()
    assert "<table" in df._repr_html_()


def test_reports_and_merged(tmp_path):
    pytest.importorskip("pandas")
    for i in (1, 2):
        four_threads(tmp_path / ("r%d.json" % i))
    one = pmu.dataframe(tmp_path / "r1.json")
    both = pmu.dataframe(tmp_path)                # a directory: its *.json
    assert len(one) == 4 and len(both) == 8 and both["calls"].sum() == 20
    tool = pmu._tool()
    subprocess.run([tool, "report", "merge", "-o", str(tmp_path / "m.json"), str(tmp_path / "r1.json"),
                    str(tmp_path / "r2.json")], check=True)
    m = pmu.dataframe(str(tmp_path / "m.json"))
    assert list(m["process"]) == ["all"] and list(m["thread"]) == [0] and list(m["calls"]) == [20]
    assert m["task-clock"][0] == both["task-clock"].sum()
    print(m.to_string())


def test_bad_reports(tmp_path):
    pytest.importorskip("pandas")
    (tmp_path / "a.json").write_text("{\"x\": 1}")
    (tmp_path / "b.json").write_text("not json")
    with pytest.raises(ValueError) as e:
        pmu.dataframe(tmp_path / "a.json")
    assert "a.json: not a libpmu JSON report" in str(e.value)
    with pytest.raises(ValueError) as e:
        pmu.dataframe(tmp_path / "b.json")
    assert "b.json: not JSON" in str(e.value)
    with pytest.raises(FileNotFoundError):
        pmu.dataframe(tmp_path / "missing.json")


def test_without_pandas_names_it(tmp_path):
    (tmp_path / "pandas.py").write_text("raise ImportError('No module named pandas')\n")
    code = "import pmu\ntry:\n    pmu.dataframe()\nexcept ImportError as e:\n    print(e)\n"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert "pmu.dataframe() needs pandas" in p.stdout and "python3-pandas" in p.stdout, p.stdout + p.stderr


def test_results_html_without_pandas():
    pmu.thread_init("task-clock")
    try:
        with pmu.region("<b>&"):
            pass
        page = pmu.results()._repr_html_()
    finally:
        pmu.thread_fini()
    assert page.startswith("<table>") and "<td>&lt;b&gt;&amp;</td>" in page and "<th>task-clock</th>" in page


def test_paths():
    """paths=True: a row per call path, with path, depth and self_ columns; solve under setup and under
    step are two rows, each self its total less the paths inside."""
    pmu.thread_init("page-faults")
    try:
        def solve(pages):
            with pmu.region("solve"):
                touch(pages)
        with pmu.region("setup"):
            touch(50)
            solve(100)
        with pmu.region("step"):
            solve(300)
        frame = pmu.dataframe(paths=True)
    finally:
        pmu.thread_fini()
    rows = {r.path: r for r in frame.itertuples()}
    assert set(rows) >= {("setup",), ("setup", "solve"), ("step",), ("step", "solve")}, list(rows)
    assert list(frame.columns[:7]) == ["process", "path", "region", "depth", "calls", "ns", "self_ns"]
    a, b = rows[("setup", "solve")], rows[("step", "solve")]
    assert a.depth == 1 and a.region == "solve" and a.calls == 1 and b.calls == 1
    faults = frame.set_index("path")["page-faults"]
    assert faults[("step", "solve")] > faults[("setup", "solve")] * 2   # 300 pages against 100
    setup = rows[("setup",)]
    assert setup.self_ns == setup.ns - a.ns
    assert frame["self_page-faults"].sum() == frame[frame.depth == 0]["page-faults"].sum()
    print(frame[["path", "calls", "page-faults", "self_page-faults"]].to_string())
