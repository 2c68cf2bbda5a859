#!/bin/sh
# SPDX-License-Identifier: MIT
# make mutate: each mutation of test/mutations (the read, scaling, region, results and
# merge code) applied alone to a copy of the tree, built, and run against its tests. A
# mutation that no test fails "survives": a hole in the tests, or a change nothing can see.
# Not part of make check (a build and a test run per mutation). Prints one line a mutation
# and "mutate: N killed, N survived, N broken".
cd "$(dirname "$0")/.." || exit 1
top=$PWD
d=${MUTATE_DIR:-$top/build-mutate}
rm -rf "$d" && mkdir -p "$d/tree" || exit 1
git ls-files -z | xargs -0 cp --parents -t "$d/tree" || exit 1
n=0
# The tree unchanged first: every test named must build and pass, or no mutation can be judged.
all=$(grep -v '^#' test/mutations | cut -f2 | tr ' ' '\n' | sort -u)
if ! make -s --no-print-directory -C "$d/tree" -j2 build/pmu $(for t in $all; do echo build/test/$t; done) \
		>"$d/build.log" 2>&1; then
	tail -n 20 "$d/build.log"
	echo "mutate: the unchanged tree does not build its tests"
	exit 1
fi
for t in $all; do
	(cd "$d/tree" && PMU_TEST_QUICK=1 timeout 120 "build/test/$t" >/dev/null 2>&1)
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 77 ] || { echo "mutate: $t fails on the unchanged tree"; exit 1; }
done
rm -rf "$d/tree/build"

grep -v '^#' test/mutations | while IFS="$(printf '\t')" read -r file tests from to; do
	n=$((n + 1))
	rm -rf "$d/work" && cp -r "$d/tree" "$d/work"
	if ! python3 - "$d/work/$file" "$from" "$to" <<-'EOF'
		import sys
		path, a, b = sys.argv[1], *(x.replace("\\n", "\n").replace("\\t", "\t") for x in sys.argv[2:4])
		s = open(path).read()
		if a not in s:
		    sys.exit(1)
		open(path, "w").write(s.replace(a, b, 1))
	EOF
	then
		echo "BROKEN $n $file: the text to change is not there: $from"
		echo broken >> "$d/tally"
		continue
	fi
	# the tool too: tests run it (a test that cannot find it would skip)
	if ! make -s --no-print-directory -C "$d/work" -j2 build/pmu $(for t in $tests; do echo build/test/$t; done) \
			>"$d/build.log" 2>&1; then
		echo "KILLED $n $file (does not build): $to"
		echo killed >> "$d/tally"
		continue
	fi
	by= skipped=
	for t in $tests; do
		(cd "$d/work" && PMU_TEST_QUICK=1 timeout 120 "build/test/$t" >/dev/null 2>&1)
		rc=$?
		[ $rc -eq 77 ] && skipped="$skipped $t"
		[ $rc -ne 0 ] && [ $rc -ne 77 ] && { by=$t; break; }
	done
	if [ -n "$by" ]; then
		echo "KILLED $n $file by $by: $to"
		echo killed >> "$d/tally"
	else
		echo "SURVIVED $n $file ($tests${skipped:+; skipped:$skipped}): $from -> $to"
		echo survived >> "$d/tally"
	fi
done
k=$(grep -c killed "$d/tally" 2>/dev/null); s=$(grep -c survived "$d/tally" 2>/dev/null); b=$(grep -c broken "$d/tally" 2>/dev/null)
echo "mutate: ${k:-0} killed, ${s:-0} survived, ${b:-0} broken"
[ "${s:-0}" -eq 0 ] && [ "${b:-0}" -eq 0 ]
