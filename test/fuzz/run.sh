#!/bin/sh
# Builds the libFuzzer targets test/fuzz/fuzz_*.c with clang (ASan + UBSan) in
# build-fuzz/ and runs each for a bounded time from its seed corpus.
# Last line: "fuzz: N passed, N failed, N skipped" (a fuzzer that crashes fails).
#   FUZZ_TIME   seconds per fuzzer (default: 64 s shared by all fuzzers)
#   FUZZ_RUNS   executions per fuzzer instead of a time (make stress)
#   FUZZ_TIMEOUT  seconds one input may take before it counts as a hang (60:
#               the clock is wall time, and a loaded machine stalls a process for seconds)
#   FUZZ_ONLY   run only these fuzzers ("fuzz_event fuzz_format")
#   CLANG       the compiler (default clang, else clang-14..19)
cd "$(dirname "$0")/../.." || exit 1
out=build-fuzz
pass=0 fail=0 skip=0

done_line() {
	[ -n "$1" ] && echo "fuzz: skipped: $1"
	echo "fuzz: $pass passed, $fail failed, $skip skipped"
}

cc=${CLANG:-}
if [ -z "$cc" ]; then
	for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
		command -v $c >/dev/null 2>&1 && { cc=$c; break; }
	done
fi
fuzzers=$(ls test/fuzz/fuzz_*.c 2>/dev/null | sed 's|.*/||; s|\.c$||')
[ -n "$FUZZ_ONLY" ] && fuzzers=$FUZZ_ONLY
n=$(echo $fuzzers | wc -w)
if [ -z "$cc" ]; then
	skip=$n
	done_line "clang is not installed"
	exit 0
fi
mkdir -p $out/obj $out/artifacts
flags="-std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Isrc/uapi -Iinclude -Isrc -Itools -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers"
# The library's sources (the merge's reader is over all of its layers), but the exit hook of
# libpmu.so alone; libpfm4 is left out (not our code to fuzz).
srcs=$(ls src/*/*.c | grep -v '^src/zerocode/exit\.c$')
if ! printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}\n' |
	$cc -x c - -fsanitize=fuzzer -o $out/obj/probe >/dev/null 2>&1; then
	skip=$n
	done_line "$cc cannot link -fsanitize=fuzzer (install libclang-rt-dev)"
	exit 0
fi

# one build of the library sources, linked into each fuzzer
objs=
for s in $srcs; do
	o=$out/obj/$(basename $s .c).o
	if ! $cc $(echo $flags | sed 's/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,/') -c -o $o $s 2>$out/build.log; then
		echo "build failed: $s"
		sed 's/^/    /' $out/build.log | head -n 20
		fail=$n
		done_line
		exit 1
	fi
	objs="$objs $o"
done

per=${FUZZ_TIME:-$((64 / n))}
[ "$per" -lt 1 ] && per=1
limit="-max_total_time=$per" what="in ${per}s"
[ -n "$FUZZ_RUNS" ] && limit="-runs=$FUZZ_RUNS" what="(of $FUZZ_RUNS asked)"
total_runs=0
for f in $fuzzers; do
	bin=$out/$f
	if ! $cc $flags -o $bin test/fuzz/$f.c $objs 2>$out/$f.build.log; then
		echo "$f: build failed"
		sed 's/^/    /' $out/$f.build.log | head -n 20
		fail=$((fail + 1))
		continue
	fi
	# new inputs go to the scratch corpus; the seeds in the tree stay as they are
	mkdir -p $out/corpus/$f
	rm -f $out/artifacts/$f-*
	# a fuzzer's own dictionary, else the event names'
	dict=
	if [ -f test/fuzz/$f.dict ]; then dict=-dict=test/fuzz/$f.dict
	elif [ -f test/fuzz/event.dict ]; then dict=-dict=test/fuzz/event.dict; fi
	ASAN_OPTIONS=detect_leaks=1 FUZZ_FIXTURES=test/fixtures \
		$bin $limit -timeout=${FUZZ_TIMEOUT:-60} -report_slow_units=${FUZZ_TIMEOUT:-60} -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=$out/artifacts/$f- $dict $out/corpus/$f test/fuzz/corpus/$f >$out/$f.log 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' $out/$f.log | tail -n 1)
	[ -z "$runs" ] && runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' $out/$f.log | tail -n 1)
	[ -z "$runs" ] && runs=0
	total_runs=$((total_runs + runs))
	crashes=$(ls $out/artifacts/$f-* 2>/dev/null | wc -l)
	if [ $rc -eq 0 ] && [ "$crashes" -eq 0 ]; then
		pass=$((pass + 1))
		echo "$f: $runs executions $what, 0 crashes"
	else
		fail=$((fail + 1))
		echo "$f: $runs executions, $crashes crashes (exit $rc); inputs: $(ls $out/artifacts/$f-* 2>/dev/null | tr '\n' ' ')"
		grep -E 'ERROR|SUMMARY|runtime error|^ *#[0-9]' $out/$f.log | head -n 25 | sed 's/^/    /'
	fi
done
echo "fuzz: $total_runs executions in all"
done_line
[ $fail -eq 0 ]
