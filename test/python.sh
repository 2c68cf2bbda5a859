#!/bin/sh
# SPDX-License-Identifier: MIT
# The python tier: python/tests under pytest, over this build's libpmu.so.
# Debian's python3 with python3-pytest (PyPI need not be reachable).
# Prints "python: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
if [ -z "$py" ]; then
	echo "SKIP: python3 is not installed"
	echo "python: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
if ! "$py" -c 'import pytest' 2>/dev/null; then
	echo "SKIP: pytest is not installed for $py (Debian: python3-pytest)"
	echo "python: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
make -s build/libpmu.so.0 >/dev/null || { echo "python: 0 passed, 1 failed, 0 skipped"; exit 1; }
out=$(PMU_LIBRARY="$PWD/build/libpmu.so.0" \
	PYTHONPATH="$PWD/python" PYTHONDONTWRITEBYTECODE=1 timeout -k 10 "${TEST_TIMEOUT:-300}" "$py" -m pytest -q -rs -p no:cacheprovider \
	python/tests 2>&1)
rc=$?
printf '%s\n' "$out"
n() { printf '%s\n' "$out" | tail -1 | grep -o "[0-9]* $1" | grep -o '[0-9]*' || echo 0; }
p=$(n passed); f=$(n failed); s=$(n skipped); e=$(n error)
f=$((f + e))
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
[ "$rc" -eq 124 ] && echo "FAIL python/pytest (killed: still running after ${TEST_TIMEOUT:-300} s)"
echo "python: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
