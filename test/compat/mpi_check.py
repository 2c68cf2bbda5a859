# SPDX-License-Identifier: MIT
# libpmu-mpi's job report (argv[1]) of test/compat/mpi_regions.c on N ranks
# (argv[2]) against pmu report merge's of the ranks' own reports (argv[3],
# merged in rank order): every figure of every region the ranks wrote is the
# same, and so are their call paths; "(whole run)", which ends at MPI_Finalize, is the job report's alone.
import json
import sys

job, n, ref = json.load(open(sys.argv[1])), int(sys.argv[2]), json.load(open(sys.argv[3]))
assert job["merged"] == ref["merged"] and len(job["processes"]) == n, (job["merged"], len(job["processes"]))
regs = {r["name"]: r for r in job["regions"]}
want = {r["name"]: r for r in ref["regions"]}
print("regions:", ", ".join("%s (%d processes)" % (k, regs[k]["processes"]) for k in sorted(regs)))
assert regs["(whole run)"]["processes"] == n, regs["(whole run)"]
assert set(regs) - {"(whole run)"} == set(want), (sorted(regs), sorted(want))
if n > 1:
    assert regs["work"]["processes"] == n - 1, regs["work"]["processes"]
assert regs["even"]["processes"] == (n + 1) // 2, regs["even"]["processes"]
for name, r in want.items():
    if regs[name] != r:
        diff = [k for k in r if regs[name].get(k) != r[k]]
        raise SystemExit("%s: %s differ: %s against %s" % (name, diff, [regs[name].get(k) for k in diff],
                                                           [r[k] for k in diff]))
print("the same figures as pmu report merge, %d regions" % len(want))
paths = {tuple(p["path"]): p for p in job["paths"]}
want = {tuple(p["path"]): p for p in ref["paths"] if p["path"] != ["(whole run)"]}
assert ("(whole run)", "work", "sum") in paths, sorted(paths)
for k, p in want.items():
    if paths.get(k) != p:
        raise SystemExit("path %s: %s against %s" % (";".join(k), paths.get(k), p))
print("the same call paths as pmu report merge, %d paths" % len(want))
