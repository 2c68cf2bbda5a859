#!/bin/sh
# The python tier, with Debian's python3 (PyPI need not be reachable):
#   install    pip install --no-build-isolation --no-index of this tree into a fresh virtual
#              environment (python3 -m venv --system-site-packages: pytest and pandas are Debian's)
#   extension  python/tests with that environment's python, from /: the C extension
#   ctypes     the same with PMU_PYTHON_BACKEND=ctypes: the fallback
#   no-compiler  pip install with CC=no-such-cc: the package alone, ctypes over PMU_LIBRARY
#   memcheck   python/tests/test_calls.py (the extension's calls) under valgrind memcheck
#   build      python3 -m build --no-isolation: the sdist, the wheel built from it, what each holds
#   tree       the source tree's package (PYTHONPATH=python) over build/libpmu.so.0, nothing installed
# It runs in a fresh tree (test/lib.sh's fresh_tree), where pip install is the first build.
# Prints "python: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
. test/lib.sh
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
skip() {
	echo "SKIP: $1"
	echo "python: 0 passed, 0 failed, 1 skipped"
	exit 0
}
[ -n "$py" ] || skip "python3 is not installed"
"$py" -c 'import pytest' 2>/dev/null || skip "pytest is not installed for $py (Debian: python3-pytest)"
limit=${TEST_TIMEOUT:-300}
tp=0 tf=0 ts=0
fresh_tree "$PWD" && cd "$tree" || { echo "python: 0 passed, 1 failed, 0 skipped (cannot copy the tree)"; exit 1; }
top=$tree
d=$(mktemp -d)
trap 'rm -rf "$d" "$tree" "$T_OUT"' EXIT

# suite RUN [ENV=VALUE...] PYTHON: python/tests (python/tests/$only), its counts added to the tier's.
suite() {
	name=$1 && shift
	out=$(cd / && env PYTHONDONTWRITEBYTECODE=1 "$@" -m pytest -q -rs -p no:cacheprovider -p no:pmu \
		"$top/python/tests/${only:-}" 2>&1 | sed "s|^|$name: |")
	printf '%s\n' "$out"
	last=$(printf '%s\n' "$out" | tail -n 1)
	n() { printf '%s\n' "$last" | grep -o "[0-9]* $1" | grep -o '[0-9]*' || echo 0; }
	p=$(n passed) f=$(($(n failed) + $(n error))) s=$(n skipped)
	[ $((p + f + s)) -eq 0 ] && f=1 && echo "FAIL python/$name (no tests ran; killed after $limit s?)"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
}

# result STATUS STEP LOG [NOTE]: the step's PASS (with NOTE) or FAIL (after LOG's tail), counted.
result() {
	if [ "$1" -eq 0 ]; then
		echo "PASS python/$2${4:+ ($4)}"
		tp=$((tp + 1))
	else
		tail -n 20 "$3"
		echo "FAIL python/$2"
		tf=$((tf + 1))
	fi
}

if "$py" -m venv --system-site-packages "$d/venv" >"$d/venv.log" 2>&1; then
	timeout -k 10 "$limit" "$d/venv/bin/pip" install -q --no-build-isolation --no-index "$top" >"$d/pip.log" 2>&1 &&
		"$d/venv/bin/python" -c 'import pmu; assert pmu.backend() == "extension", pmu.backend(True)' >>"$d/pip.log" 2>&1
	installed=$?
	result $installed install "$d/pip.log" "pip install of the tree into a virtual environment"
fi
# The tree's own build, for the steps that run over it (after pip, which built in the fresh tree first).
make -s lib build/pmu build/libpmu-qemu.so >/dev/null || { echo "python: $tp passed, $((tf + 1)) failed, $ts skipped (make failed)"; exit 1; }
if [ "${installed:-1}" -eq 0 ]; then
	suite extension PMU_TEST_BACKEND=extension timeout -k 10 "$limit" "$d/venv/bin/python"
	suite ctypes PMU_TEST_BACKEND=ctypes PMU_PYTHON_BACKEND=ctypes timeout -k 10 "$limit" "$d/venv/bin/python"
	# The extension's calls under memcheck (the interpreter's own allocator off, its leaks not ours).
	if command -v valgrind >/dev/null; then
		only=test_calls.py
		suite memcheck PYTHONMALLOC=malloc timeout -k 10 "$limit" valgrind -q \
			--error-exitcode=1 --leak-check=no --suppressions="$top/test/valgrind-python.supp" \
			"$d/venv/bin/python"
		only=
	fi
	# No C compiler: the package alone, ctypes over the library it is given.
	{ "$py" -m venv --system-site-packages "$d/venv2" &&
		CC=no-such-cc timeout -k 10 "$limit" "$d/venv2/bin/pip" install -q --no-build-isolation --no-index "$top" &&
		(cd / && env -u PYTHONPATH PMU_LIBRARY="$top/build/libpmu.so.0" "$d/venv2/bin/python" -c '
import os, pmu
name, why = pmu.backend(why=True)
assert name == "ctypes" and "_pmu" in why, (name, why)
assert not [f for f in os.listdir(os.path.dirname(pmu.__file__)) if f.endswith(".so") or f.startswith("libpmu")]
with pmu.open("task-clock") as s:
    assert s.read()["task-clock"] > 0
print("ctypes alone:", why)'); } >"$d/pip2.log" 2>&1
	result $? no-compiler "$d/pip2.log" "$(tail -n 1 "$d/pip2.log")"
elif [ -z "${installed:-}" ]; then
	tail -n 3 "$d/venv.log"
	echo "SKIP python/install: no virtual environments for $py (Debian: python3-venv)"
	ts=$((ts + 1))
fi
# The sdist and the wheel built from it (python3 -m build), and what the wheel carries.
if "$py" -c 'import build' 2>/dev/null; then
	(cd "$d" && timeout -k 10 "$limit" "$py" -m build --no-isolation -o "$d/dist" "$top") >"$d/build.log" 2>&1 &&
		"$py" - "$d"/dist/*.whl "$d"/dist/*.tar.gz "$(make -s --no-print-directory -C "$top" O="$d/vgprobe" \
			valgrind-tool >/dev/null 2>&1 && [ -x "$d/vgprobe/libpmu-valgrind" ] && echo yes)" >>"$d/build.log" 2>&1 <<'EOF'
import sys, tarfile, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for f in ("pmu/__init__.py", "pmu/pytest_plugin.py", "pmu/_version.py", "pmu/libpmu.so.0", "pmu/pmu", "pmu/libpmu-qemu.so"):
    assert f in names, (f, names)
assert any(n.startswith("pmu/_pmu.") and n.endswith(".so") for n in names), names
assert any(n.endswith("entry_points.txt") for n in names) and not any(n.endswith(".c") for n in names), names
src = tarfile.open(sys.argv[2]).getnames()
assert any(n.endswith("/src/regions/region.c") for n in src) and any(n.endswith("/Makefile") for n in src), src
# the Valgrind tool where Valgrind's tool libraries are, and its licence in the sdist
assert ("pmu/libpmu-valgrind" in names) == (sys.argv[3] == "yes"), (sys.argv[3], names)
assert any(n.endswith("/emulation/valgrind/COPYING") for n in src), src
EOF
	result $? build "$d/build.log" "sdist and wheel: $(ls "$d/dist" 2>/dev/null | tr '\n' ' ')"
else
	echo "SKIP python/build: no python3-build for $py"
	ts=$((ts + 1))
fi
suite tree PMU_LIBRARY="$top/build/libpmu.so.0" PYTHONPATH="$top/python" timeout -k 10 "$limit" "$py"
echo "python: $tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
