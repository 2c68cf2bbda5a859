# SPDX-License-Identifier: MIT
# libpmu-omp's names in its report (argv[1]) of test/compat/omp_names.cpp on
# THREADS threads (argv[2]); argv[3] "tail-unnamed": the compiler's code makes
# no runtime call inside a tail-called kernel (GCC's static loops), which then
# keeps its caller's name, said in it.
import json
import re
import sys

rep = json.load(open(sys.argv[1]))
threads = int(sys.argv[2])
regs = {r["name"]: r for r in rep["regions"]}
print("regions:", ", ".join(sorted(regs)))


def calls(name):
    return sorted(t["calls"] for t in regs[name]["threads"])


for name in regs:
    assert len(name.encode()) <= 127 and "_Z" not in name, name
tail = [n for n in regs if "via a tail call" in n]
if sys.argv[3:] == ["tail-unnamed"]:
    assert len(tail) == 1 and re.match(r"^main \(omp_names\.cpp:\d+\) \[parallel via a tail call\]$", tail[0]), tail
    assert sum(calls(tail[0])) == 40 * threads, calls(tail[0])
else:
    # each kernel a region of its own, 20 calls on each thread of the team, named by its function and line
    assert not tail, tail
    for k in ("a", "b"):
        par = [n for n in regs if re.match(r"^physics::kernel_%s \(omp_names\.cpp:\d+\) \[parallel\]$" % k, n)]
        assert len(par) == 1 and calls(par[0]) == [20] * threads, (k, par, par and calls(par[0]))
        loop = [n for n in regs if re.match(r"^physics::kernel_%s \(omp_names\.cpp:\d+\) \[loop\]$" % k, n)]
        assert len(loop) == 1 and regs[loop[0]]["parent"] == par[0], (loop, loop and regs[loop[0]]["parent"])
# the long name: demangled, cut with a hash, its place and kind kept, its two regions two
long = sorted(n for n in regs if n.startswith("CalcCourantConstraintForElementsOfTheMesh"))
assert len(long) == 2 and all(re.search(r"\.\.\.#[0-9a-f]{8} \(omp_names\.cpp:\d+\) \[parallel\]$", n) for n in long), long
assert all(calls(n) == [3] * threads for n in long), [calls(n) for n in long]
print("ok")
