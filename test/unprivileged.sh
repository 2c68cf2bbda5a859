#!/bin/sh
# The unprivileged tier: the host tests, pmu check, pmu stat, zero-code
# mode and the Python extension run as nobody (setpriv, else runuser), from
# a copy of the build output that nobody can read. CI runs as root, so this
# is where the paths of an ordinary user (kernel.perf_event_paranoid 2, no
# CAP_PERFMON, tracefs not readable) are tested. Skips, saying why, where the runner is not root.
cd "$(dirname "$0")/.." || exit 1
T_TIER=unprivileged
. test/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	skip=1
	closing "running as $(id -un): only root can run the tests as another user"
	exit 0
fi
user=nobody
group=$(id -gn "$user" 2>/dev/null)
if [ -z "$group" ]; then
	skip=1
	closing "no user $user"
	exit 0
fi
if command -v setpriv >/dev/null; then
	as_user="setpriv --reuid=$user --regid=$group --clear-groups --inh-caps=-all --"
elif command -v runuser >/dev/null; then
	as_user="runuser -u $user --"
else
	skip=1
	closing "needs setpriv or runuser (util-linux)"
	exit 0
fi
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if [ -n "$paranoid" ] && [ "$paranoid" -gt 2 ]; then
	skip=1
	closing "kernel.perf_event_paranoid is $paranoid: an ordinary user may count nothing (2 or less needed)"
	exit 0
fi
if ! make -s --no-print-directory all tests python >/dev/null; then
	fail=1
	closing "the build failed"
	exit 1
fi

# A copy nobody can read: build/test, the tool, the library, the fixtures, the tests' helper
# scripts, and what man_pages checks (the header, the map, the manuals).
tmp=$(mktemp -d /tmp/pmu-unprivileged.XXXXXX) || exit 1
trap 'rm -rf "$tmp" "$T_OUT"' EXIT
mkdir -p "$tmp/build" "$tmp/test/report" "$tmp/tracefs/events"
cp -R build/test "$tmp/build/" && cp build/pmu build/libpmu.so* "$tmp/build/" &&
	cp -R test/fixtures test/run.sh "$tmp/test/" && cp test/report/*.py "$tmp/test/report/" &&
	cp -R include man completion "$tmp/" && mkdir -p "$tmp/src" &&
	cp src/libpmu.map "$tmp/src/" || { fail=1; closing "cannot copy the build output"; exit 1; }
chmod -R a+rX "$tmp"
chmod 700 "$tmp/tracefs/events"	# tracefs mounted, not readable by the user
# as_nobody SCRIPT [SECONDS]: SCRIPT run by nobody in the copy, within the time limit (or SECONDS).
as_nobody() {
	timeout -k 10 "${2:-$T_LIMIT}" $as_user env -i PATH="$PATH" HOME=/ LANG=C sh -c "cd '$tmp' && $1" 2>&1
}

# 1. The host tests.
# (each test within the limit, all of them within an hour)
out=$(as_nobody "TEST_TIMEOUT=$T_LIMIT test/run.sh build/test" 3600)
printf '%s\n' "$out" | grep -v '^[0-9]* passed'
set -- $(printf '%s\n' "$out" | sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' | tail -n 1)
if [ $# -eq 3 ]; then
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
else
	ko "host tests" "$out"
fi

# 2. pmu check: opens task-clock; says why the kernel may not be counted.
out=$(as_nobody "build/pmu check -e task-clock,context-switches")
if printf '%s\n' "$out" | grep -Eq '^  task-clock +yes '; then ok "pmu check"; else ko "pmu check" "$out"; fi
if [ "${paranoid:-2}" -ge 2 ]; then
	if printf '%s\n' "$out" | grep -q 'context-switches: permission denied: kernel.perf_event_paranoid is 2.*context-switches:u'; then
		ok "pmu check: kernel counting refused, reason and :u given"
	else
		ko "pmu check: kernel counting refused, reason and :u given" "$out"
	fi
fi

# 3. pmu stat: the command's counts; the scheduler's events as perf counts them (:u).
out=$(as_nobody "build/pmu stat -x, -- true")
if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^[0-9]+,,page-faults(:u)?,'; then
	ok "pmu stat"
else
	ko "pmu stat" "$out"
fi
if printf '%s\n' "$out" | grep -Eq '^[0-9]+,,context-switches:u,' &&
   printf '%s\n' "$out" | grep -Eq '^[0-9]+,,cpu-migrations:u,'; then
	ok "pmu stat: context-switches:u and cpu-migrations:u counted"
else
	ko "pmu stat: context-switches:u and cpu-migrations:u counted" "$out"
fi

# 4. Zero-code mode: the report at exit, preloaded into a program that never calls libpmu.
out=$(as_nobody "PMU_EVENTS=task-clock,page-faults PMU_REPORT=stderr LD_PRELOAD='$tmp/build/libpmu.so.0' ls / >/dev/null")
if printf '%s\n' "$out" | grep -q '^libpmu report: 1 region, 1 thread; events: task-clock, page-faults'; then
	ok "zero-code mode"
else
	ko "zero-code mode" "$out"
fi

# 5. tracefs there but not readable: said, not "mount tracefs".
out=$(as_nobody "PMU_TRACEFS='$tmp/tracefs' build/pmu encode sched:sched_switch")
if printf '%s\n' "$out" | grep -q "sched:sched_switch: permission denied: tracefs is mounted but $tmp/tracefs/events is not readable by this user"; then
	ok "tracefs not readable"
else
	ko "tracefs not readable" "$out"
fi

# 6. Python: the extension's calls and the tests of them, as nobody; a kernel event refused with the
# library's message.
py=/usr/bin/python3
mod=$(ls build/python/pmu/_pmu*.so 2>/dev/null | head -n 1)
if [ ! -x $py ] || ! $py -c 'import pytest' 2>/dev/null; then
	sk python "Debian's python3 with python3-pytest is not installed"
elif [ -z "$mod" ]; then
	sk python "no extension built (make python: needs python3-dev)"
else
	mkdir -p "$tmp/python/tests" "$tmp/python/pmu" && cp python/pmu/*.py "$mod" "$tmp/python/pmu/" &&
		cp python/tests/test_calls.py "$tmp/python/tests/" && chmod -R a+rX "$tmp/python"
	env="PYTHONPATH='$tmp/python' LD_LIBRARY_PATH='$tmp/build' PYTHONDONTWRITEBYTECODE=1 PMU_TEST_BACKEND=extension"
	out=$(as_nobody "$env $py -m pytest -q -p no:cacheprovider python/tests/test_calls.py")
	if printf '%s\n' "$out" | tail -n 1 | grep -Eq '^[0-9]+ passed in'; then ok "python"; else ko "python" "$out"; fi
	out=$(as_nobody "$env $py -c 'import pmu
try:
    pmu.open(\"context-switches\")
except OSError as e:
    print(e.strerror)'")
	if [ "${paranoid:-2}" -lt 2 ]; then
		sk "python: kernel counting refused" "kernel.perf_event_paranoid is $paranoid: kernel counting allowed"
	elif printf '%s\n' "$out" | grep -q 'context-switches: permission denied: kernel.perf_event_paranoid is 2.*context-switches:u'; then
		ok "python: kernel counting refused, reason and :u given"
	else
		ko "python: kernel counting refused, reason and :u given" "$out"
	fi
fi

closing
[ $fail -eq 0 ]
