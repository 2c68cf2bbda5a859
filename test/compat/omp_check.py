# SPDX-License-Identifier: MIT
# libpmu-omp's report (argv[1]) of test/compat/omp_regions.c on THREADS threads
# (argv[2]): each thread of the team has its own figures for each construct,
# named by function and file:line (argv[3] "lines") or by function alone;
# argv[4] "noloop": the runtime reports no loops (gcc's code on libomp).
import json
import re
import sys

rep = json.load(open(sys.argv[1]))
threads, lines = int(sys.argv[2]), sys.argv[3] == "lines"
regs = {r["name"]: r for r in rep["regions"]}
print("regions:", ", ".join(sorted(regs)))
par = [n for n in regs if n.endswith("[parallel]")]
assert par, "no parallel region"
line = re.compile(r"^main \(omp_regions\.c:(\d+)\) \[parallel\]$")
named = [n for n in par if line.match(n)] if lines else [n for n in par if n.startswith("main")]
assert len(named) >= 2, "parallel regions not named after main%s: %s" % (" (omp_regions.c:LINE)" if lines else "", par)
# the first construct: 3 runs, on each thread of the team, each with its own task-clock
first = min(named, key=lambda n: int(line.match(n).group(1)) if lines else 0) if lines else named[0]
r = regs[first]
calls = sorted(t["calls"] for t in r["threads"])
print(first, "calls per thread", calls)
assert calls == [3] * threads, calls
for t in r["threads"]:
    assert t["counts"]["task-clock"] > 0, t
total = sum(t["counts"]["task-clock"] for t in r["threads"])
assert r["counts"]["task-clock"] == total, (r["counts"], total)
if lines and sys.argv[4:] != ["noloop"]:
    loop = [n for n in regs if n.endswith("[loop]")]
    assert loop and all(re.search(r"\(omp_regions\.c:\d+\) \[loop\]$", n) for n in loop), loop
    assert sum(t["calls"] for t in regs[loop[0]]["threads"]) == 3 * threads, regs[loop[0]]["threads"]
    single = [n for n in regs if n.endswith("[single]")]
    assert single and sum(t["calls"] for n in single for t in regs[n]["threads"]) == 3 * threads, single
print("ok")
