#!/bin/sh
# Runs test programs and prints "N passed, N failed, N skipped" last.
# usage: test/run.sh DIR [WRAPPER ARGS...]
#   TESTS="a b"  run only these; TIER=name  prefix for the closing line;
#   TEST_TIMEOUT seconds per test (default 300). POSIX sh: runs under busybox too.
dir=$1
shift
pass=0 fail=0 skip=0
for t in "$dir"/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=${t##*/}
	if [ -n "$TESTS" ]; then
		case " $TESTS " in *" $name "*) ;; *) continue ;; esac
	fi
	out=$(timeout "${TEST_TIMEOUT:-300}" "$@" "$t" 2>&1)
	rc=$?
	if [ $rc -eq 77 ]; then
		why=$(printf '%s\n' "$out" | sed -n 's/^SKIP: //p' | tail -n 1)
		if [ -n "$why" ]; then
			skip=$((skip + 1))
			echo "SKIP $name: $why"
			continue
		fi
		echo "FAIL $name: skipped without a reason"
		rc=1
	fi
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS $name"
	else
		fail=$((fail + 1))
		[ $rc -eq 124 ] && rc="timeout after ${TEST_TIMEOUT:-300}s"
		echo "FAIL $name (exit $rc)"
		printf '%s\n' "$out" | tail -n 40 | sed 's/^/    /'
	fi
done
echo "${TIER:+$TIER: }$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
