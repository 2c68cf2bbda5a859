#!/bin/sh
# SPDX-License-Identifier: MIT
# A per-test gate under emulation, on a real suite: pandas' own tests/tools/test_to_time.py (12
# tests, as Debian's python3-pandas ships them) beside a test whose loop can grow by 2%, under
# pmu emulate -- python3 -m pytest --pmu instructions, PYTHONHASHSEED=0, 3 runs a side merged
# (pmu report merge: the spread between the runs). Prints each test's spread (the relative
# standard deviation between runs), then the gate (pmu report diff --fail-if instructions:+1%)
# of 10 sides of the unchanged suite against a first one, and of the suite with the loop grown
# by 2%. One run a side is shown too: no significance claim, so no gate.
#   usage: bench/emulate_gate.sh [RUNS]      (RUNS: unchanged runs gated, default 10)
# Needs python3-pandas, python3-hypothesis and python3-pytest; skips (77) without them.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
top=$PWD
runs=${1:-10}
suite=/usr/lib/python3/dist-packages/pandas/tests/tools/test_to_time.py
for m in pandas hypothesis pytest; do
	/usr/bin/python3 -c "import $m" 2>/dev/null || { echo "emulate_gate: no $m for python3 (apt-get install python3-$m)"; exit 77; }
done
[ -f "$suite" ] || { echo "emulate_gate: $suite is not installed (python3-pandas)"; exit 77; }
"$O/pmu" emulate /bin/true >/dev/null 2>&1 || { echo "emulate_gate: pmu emulate does not count here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count N OUT: the suite, with the loop test of N iterations, 3 runs into reports merged into OUT.
count() {
	printf 'def test_loop():\n    s = 0\n    for i in range(%s):\n        s += i * i\n' "$1" > "$tmp/test_loop.py"
	for k in 1 2 3; do
		(cd "$tmp" && PYTHONHASHSEED=0 PYTHONPATH="$top/python" PMU_LIBRARY="$top/$O/libpmu.so.0" timeout 600 \
			"$top/$O/pmu" emulate -- /usr/bin/python3 -m pytest -q -p no:cacheprovider -p pmu.pytest_plugin \
			--pmu instructions --pmu-report "$2.$k" "$suite" test_loop.py > "$2.log" 2>&1) ||
			{ tail -n 5 "$2.log"; echo "emulate_gate: the suite failed"; exit 1; }
	done
	"$O/pmu" report merge -o "$2" "$2.1" "$2.2" "$2.3" || exit 1
}
count 100000 "$tmp/base.json"
echo "per-test spread under emulation (relative standard deviation between 3 runs):"
/usr/bin/python3 - "$tmp/base.json" <<'PY'
import json, math, sys
for r in json.load(open(sys.argv[1]))["regions"]:
    if r["name"] == "pytest session":
        continue
    p = r["per_process"]["counts"]["instructions"]
    n, m = r["processes"], p["mean"]
    sd = math.sqrt(max(int(p["sum_sq"]) / n - m * m, 0))
    print("  %-50s %10.0f  %5.2f%%" % (r["name"].split("::", 1)[-1][-50:], m, 100 * sd / m))
PY
"$O/pmu" report diff --fail-if instructions:+1% "$tmp/base.json.1" "$tmp/base.json.2" > /dev/null 2> "$tmp/one"
echo "one run a side: $(grep -c 'not gated' "$tmp/one") figures not gated, $(grep -c FAIL "$tmp/one") failed"
pass=0
for i in $(seq "$runs"); do
	count 100000 "$tmp/r$i.json"
	if "$O/pmu" report diff --fail-if instructions:+1% "$tmp/base.json" "$tmp/r$i.json" > /dev/null 2> "$tmp/g$i"; then
		pass=$((pass + 1))
	else
		grep FAIL "$tmp/g$i"
	fi
done
echo "the unchanged suite: the gate passed $pass of $runs runs"
count 102000 "$tmp/grown.json"
"$O/pmu" report diff --fail-if instructions:+1% "$tmp/base.json" "$tmp/grown.json" > /dev/null 2> "$tmp/grown"
grep 'FAIL' "$tmp/grown" | sed 's/^/  /'
echo "the loop grown by 2%: the gate failed on $(grep -c FAIL "$tmp/grown") test(s)"
[ "$pass" = "$runs" ] && [ "$(grep -c FAIL "$tmp/grown")" = 1 ] && grep -q 'FAIL instructions in .*test_loop.py::test_loop' "$tmp/grown"
