# SPDX-License-Identifier: MIT
"""One of the Python package's calls N times, for bench/python.sh to count under cachegrind.
    python3 bench/python_calls.py CASE N     (CASE: see CASES; 1 event, task-clock)"""
import sys

import pmu


def cases():
    pmu.thread_init("task-clock")
    h = pmu.region_register("bench")
    by_handle, by_name = pmu.region(h), pmu.region("bench")
    s = pmu.open("task-clock")
    buf = s.buffer()
    enter, exit_ = pmu.region_enter, pmu.region_exit

    def plain():
        pass

    @pmu.region("bench")
    def decorated():
        pass

    def loop(n):
        for _ in range(n):
            pass

    def call(n):
        for _ in range(n):
            plain()

    def pair_handle(n):
        for _ in range(n):
            with by_handle:
                pass

    def pair_name(n):
        for _ in range(n):
            with by_name:
                pass

    def pair_new(n):
        for _ in range(n):
            with pmu.region("bench"):
                pass

    def enter_exit(n):
        for _ in range(n):
            enter(h)
            exit_(h)

    def deco(n):
        for _ in range(n):
            decorated()

    def read(n):
        for _ in range(n):
            s.read()

    def read_into(n):
        for _ in range(n):
            s.read(buf)

    return dict(loop=loop, call=call, pair_handle=pair_handle, pair_name=pair_name, pair_new=pair_new,
                enter_exit=enter_exit, decorated=deco, read=read, read_into=read_into)


if __name__ == "__main__":
    c = cases()
    if len(sys.argv) != 3 or sys.argv[1] not in c:
        sys.exit("usage: python_calls.py CASE N; CASE: " + " ".join(c))
    c[sys.argv[1]](1)   # every first use (the thread's counters, the caches) before the counted ones
    c[sys.argv[1]](int(sys.argv[2]))
