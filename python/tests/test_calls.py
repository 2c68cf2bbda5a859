# SPDX-License-Identifier: MIT
"""The hot calls, the same through either backend (test/python.sh runs this file with the extension and
with PMU_PYTHON_BACKEND=ctypes): regions in every form, reads into a dict or a buffer, threads, fork."""
import array
import errno
import gc
import os
import threading

import pytest

import pmu


@pytest.fixture
def layer():
    pmu.thread_init("task-clock,page-faults")
    yield
    pmu.thread_fini()


def calls():
    return {r.name: r.calls for r in pmu.results()}


def test_backend_says_which_and_why():
    name, why = pmu.backend(why=True)
    assert name == pmu.backend() and name in ("extension", "ctypes") and why
    want = os.environ.get("PMU_TEST_BACKEND")
    if want:
        assert name == want, why


def test_region_forms(layer):
    h = pmu.region_register("hot")
    r = pmu.region(h)
    assert r.handle == h and r.name is None and repr(r) == "region(%d)" % h
    assert pmu.region("hot").name == "hot" and pmu.region("hot").handle is None
    if pmu.backend() == "extension":
        assert pmu.region("hot") is pmu.region("hot")   # made once per name
    for _ in range(3):
        with r as x:
            assert x is r
    with pmu.region("hot"):
        pass
    pmu.region_enter(h)
    pmu.region_exit(h)

    @pmu.region("deco")
    def f(a, b=1):
        """doc"""
        return a + b

    class C:
        @pmu.region(h)
        def m(self, y):
            return y * 2

    assert f(1, b=2) == 3 and f.__name__ == "f" and f.__doc__ == "doc" and f.__wrapped__(1) == 2
    assert C().m(4) == 8
    assert calls() == {"hot": 6, "deco": 1}


def test_region_ends_when_the_body_raises(layer):
    @pmu.region("raises")
    def g():
        raise KeyError("x")

    with pytest.raises(KeyError):
        g()
    with pytest.raises(ZeroDivisionError):
        with pmu.region("raises"):
            1 / 0
    assert calls() == {"raises": 2}
    with pmu.region("after"):   # nothing left open
        pass


def test_region_bad_input(layer):
    for bad in (3.5, None, [1]):
        with pytest.raises(TypeError) as e:
            pmu.region(bad)
        assert "a name (str) or a handle (int)" in str(e.value)
    for bad in ("a\0b", b"a\0b"):   # never counted as region "a"
        with pytest.raises(ValueError) as e:
            pmu.region(bad)
        assert "NUL" in str(e.value)
    with pytest.raises(OSError) as e:
        with pmu.region(12345):
            pass
    assert e.value.errno == errno.EINVAL and "12345" in e.value.strerror
    with pytest.raises(OSError) as e:
        pmu.region_exit(pmu.region_register("never"))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(TypeError):
        pmu.region_enter("name")
    with pytest.raises(OSError) as e:
        pmu.region("x" * 200).__enter__()
    assert e.value.errno == errno.ENAMETOOLONG or "127" in e.value.strerror


def test_regions_used_often_are_collected(layer):
    """A region used twice keeps its __enter__/__exit__ (a cycle): the collector frees it."""
    def live():
        gc.collect()
        return sum(isinstance(o, pmu.region) for o in gc.get_objects())

    before = live()
    r = pmu.region(pmu.region_register("often"))   # by handle: region(name) keeps what it made
    for _ in range(3):
        with r:
            pass
    assert live() == before + 1
    del r
    assert live() == before


def test_read_dict_and_buffer():
    with pmu.open("task-clock,page-faults") as s:
        a = s.read()
        b = s.read()
        assert a is not b and set(a) == {"task-clock", "page-faults"}
        assert b["task-clock"] >= a["task-clock"]
        buf = s.buffer()
        assert isinstance(buf, array.array) and buf.typecode == "Q" and len(buf) == 2
        assert s.read(buf) is buf and buf[0] >= b["task-clock"]
        first = buf[0]
        s.read(buf)
        assert buf[0] >= first
        big = array.array("Q", [7] * 4)
        s.read(big)
        assert big[3] == 7 and big[0] >= first
        for bad in (bytearray(16), array.array("Q", [0]), array.array("d", [0, 0])):
            with pytest.raises(ValueError) as e:
                s.read(bad)
            assert "unsigned 64-bit" in str(e.value)
        with pytest.raises(ValueError) as e:
            s.read(b"\0" * 16)
        assert "not a writable buffer" in str(e.value)
        with pytest.raises(ValueError) as e:
            s.read(12)
        assert "not a writable buffer" in str(e.value)
    with pytest.raises(OSError) as e:
        s.read()
    assert e.value.errno == errno.EBADF
    with pytest.raises(OSError) as e:
        s.read(s.buffer())
    assert e.value.errno == errno.EBADF


def test_threads_keep_their_own_stacks(layer):
    r = pmu.region("shared")
    n, k = 4, 500
    start = threading.Barrier(n)
    errors = []

    def work():
        start.wait()
        for _ in range(k):
            with r:
                with pmu.region("inner"):
                    pass

    ts = [threading.Thread(target=work) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    res = {x.name: x for x in pmu.results()}
    assert res["shared"].calls == n * k and res["inner"].calls == n * k
    assert sorted(t.calls for t in res["shared"].threads) == [k] * n


def test_misuse_across_threads_raises(layer):
    opened = threading.Event()
    done = threading.Event()

    def other():
        pmu.region("theirs").__enter__()
        opened.set()
        done.wait()
        pmu.region("theirs").__exit__(None, None, None)

    t = threading.Thread(target=other)
    t.start()
    opened.wait()
    try:
        with pytest.raises(OSError) as e:   # open in the other thread, not in this one
            pmu.region("theirs").__exit__(None, None, None)
        assert e.value.errno == errno.EINVAL and "theirs" in e.value.strerror
    finally:
        done.set()
        t.join()
    assert calls() == {"theirs": 1}


def test_fork_child_starts_afresh(layer):
    with pmu.region("parent"):
        pass
    s = pmu.open("task-clock")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            with pmu.region("child"):
                pass
            got = calls()
            try:
                s.read()
                read_errno = 0
            except OSError as e:
                read_errno = e.errno
            code = 0 if got == {"child": 1} and read_errno == errno.ECHILD else 3
            if code:
                print("child: regions %r, parent's set read: errno %d" % (got, read_errno), flush=True)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert calls() == {"parent": 1}
    assert s.read()["task-clock"] > 0
    s.close()
