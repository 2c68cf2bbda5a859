#!/bin/bash
# The arm64 tier: cross-builds the tests and benchmarks statically, packs them
# with busybox into an initramfs, and boots Debian's arm64 kernels under
# qemu-system-aarch64 (TCG, whose PMUv3 is emulated) in a matrix of
# configurations. Every result line is prefixed with its configuration
# ("PASS 6.12-max/arm64_counters"); the last line is
# "arm64: N passed, N failed, N skipped". Exit: 0 all passed, 1 a failure,
# 77 the tier cannot run here (the closing line says why).
#
# usage: test/arm64/run.sh [--bench] [-v] [-j N] [--list]
#   --bench   only boot the -icount configuration and print the benchmarks
#   -v        also show every test's own output (each test runs twice)
#   --list    print the configuration matrix and exit
# environment:
#   PMU_ARM64_CACHE    download cache (default ~/.cache/libpmu-arm64)
#   PMU_ARM64_CONFIGS  names of the configurations to run (default: all)
#   PMU_ARM64_TIMEOUT  seconds before a guest counts as hung (default per config)
#   O                  cross build directory (default build/arm64)
set -u
cd "$(dirname "$0")/../.." || exit 1

# name kernel cpu icount perf_user_access tests bench timeout(s)
#   tests: all = the whole suite, arm64 = test/arm64_*.c only
#   perf_user_access "-": the kernel has none (before 5.17: no user access,
#   the arm64 tests check the read(2) path on the real counters)
MATRIX="
6.12-max     6.12 max        0 1 all   0 300
6.1-max      6.1  max        0 1 all   0 300
6.12-a72     6.12 cortex-a72 0 1 arm64 0 120
6.1-a72      6.1  cortex-a72 0 1 arm64 0 120
6.12-icount  6.12 max        1 1 arm64 1 180
6.1-icount   6.1  max        1 1 arm64 0 180
6.12-nouser  6.12 max        0 0 arm64 0 120
6.1-nouser   6.1  max        0 0 arm64 0 120
5.10-max     5.10 max        0 - all   0 300
5.10-icount  5.10 max        1 - arm64 0 180
"

bench_only=0
verbose=0
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
	case $1 in
	--bench) bench_only=1 ;;
	-v|--verbose) verbose=1 ;;
	-j) shift; jobs=${1:-2} ;;
	-j*) jobs=${1#-j} ;;
	--list) echo "$MATRIX" | sed '/^$/d'; exit 0 ;;
	*) echo "usage: test/arm64/run.sh [--bench] [-v] [-j N] [--list]" >&2; exit 2 ;;
	esac
	shift
done

O=${O:-build/arm64}
export PMU_ARM64_CACHE=${PMU_ARM64_CACHE:-${HOME:-/root}/.cache/libpmu-arm64}
cache=$PMU_ARM64_CACHE
t0=$(date +%s)

closing() {	# passed failed skipped [note]
	echo "arm64: $1 passed, $2 failed, $3 skipped${4:+ ($4)}"
}

# 1. Tools and cache.
setup_out=$(test/arm64/setup.sh 2>&1)
rc=$?
printf '%s\n' "$setup_out" | grep -v '^SKIP: ' | sed 's/^/# /'
if [ $rc -eq 77 ]; then
	closing 0 0 1 "$(printf '%s\n' "$setup_out" | sed -n 's/^SKIP: //p' | tail -n 1)"
	exit 77
elif [ $rc -ne 0 ]; then
	closing 0 1 0 "test/arm64/setup.sh failed with status $rc"
	exit 1
fi

# 2. Cross build, statically.
mkdir -p "$O"
# test/arm64/*.h is not among the Makefile's headers: rebuild what includes it.
for f in "$O"/test/arm64_*; do
	[ -e "$f" ] || continue
	for h in test/arm64/*.h; do
		[ "$h" -nt "$f" ] && rm -f "$f"
	done
done
echo "# make O=$O CC=aarch64-linux-gnu-gcc STATIC=1 tests bench"
if ! make -s --no-print-directory -j"$jobs" O="$O" CC=aarch64-linux-gnu-gcc STATIC=1 tests bench \
	>"$O/build.log" 2>&1; then
	tail -n 30 "$O/build.log" | sed 's/^/    /'
	closing 0 1 0 "the cross build failed: see $O/build.log"
	exit 1
fi

# The tool, which some tests run: its failure to build counts, the tests go on.
build_fail=0
if [ $bench_only -eq 0 ] && ! make -s --no-print-directory -j"$jobs" O="$O" CC=aarch64-linux-gnu-gcc STATIC=1 "$O/pmu" \
	>"$O/build-tool.log" 2>&1; then
	echo "FAIL build/pmu: the cross build of the pmu tool failed (make O=$O CC=aarch64-linux-gnu-gcc STATIC=1 $O/pmu):"
	grep -E 'error|Error' "$O/build-tool.log" | head -n 10 | sed 's/^/    /'
	build_fail=1
	rm -f "$O/pmu"
fi

# 3. The initramfs: busybox, /init, /run.sh, tests in /t, benchmarks in /b,
# the pmu tool in /pmu (tests look for it next to their directory) and the
# sysfs fixtures in /test/fixtures (the guest runs the tests from /).
root=$O/initramfs
rm -rf "$root" && mkdir -p "$root/bin" "$root/t" "$root/b" "$root/proc" "$root/sys" "$root/tmp" "$root/dev" || exit 1
cp "$cache/busybox" "$root/bin/busybox" &&
	cp test/arm64/init "$root/init" && cp test/run.sh "$root/run.sh" &&
	chmod 755 "$root/init" "$root/run.sh" || exit 1
if [ -x "$O/pmu" ]; then
	aarch64-linux-gnu-strip -o "$root/pmu" "$O/pmu" || exit 1
fi
if [ -d test/fixtures ]; then
	mkdir -p "$root/test" && cp -r test/fixtures "$root/test/" || exit 1
fi
ntests=0
for f in "$O"/test/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	# the other architectures' tests, and fault_alloc: every allocation of every call failed in turn,
	# the same on every architecture and too slow under emulation (the host tiers run it)
	case ${f##*/} in riscv64_*|x86_*|fault_alloc) continue ;; esac
	aarch64-linux-gnu-strip -o "$root/t/${f##*/}" "$f" || cp "$f" "$root/t/"
	ntests=$((ntests + 1))
done
narm64=$(ls "$root/t" | grep -c '^arm64_')
for f in "$O"/bench/*; do
	[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$root/b/"
done
if [ "$narm64" -eq 0 ] || [ "$ntests" -le "$narm64" ]; then
	closing 0 1 0 "no tests were built into $O/test ($ntests tests, $narm64 arm64_*)"
	exit 1
fi
initrd=$O/initramfs.cpio
(cd "$root" && find . | cpio -o -H newc --quiet) >"$initrd" || exit 1
echo "# initramfs: $ntests tests ($narm64 arm64_*), $(ls "$root/b" | wc -l) benchmarks, $(($(stat -c %s "$initrd") / 1024)) KiB"
echo "# kernels: $(tr '\n' ';' <"$cache/VERSIONS" | sed 's/;$//; s/;/; /g')"

# 4. The matrix.
logs=$O/logs
mkdir -p "$logs"
selected=() missing=()
while read -r name kern cpu icount ua tests bench tmo; do
	[ -n "$name" ] || continue
	if [ $bench_only -eq 1 ]; then
		[ "$icount" = 1 ] && [ "$bench" = 1 ] || continue
		tests=none bench=only
	fi
	if [ -n "${PMU_ARM64_CONFIGS:-}" ]; then
		case " $PMU_ARM64_CONFIGS " in *" $name "*) ;; *) continue ;; esac
	fi
	if [ ! -s "$cache/Image-$kern" ]; then	# 5.10 may be missing: its configurations skip
		missing+=("$name: $(cat "$cache/$kern.missing" 2>/dev/null || echo "no $cache/Image-$kern")")
		continue
	fi
	selected+=("$name $kern $cpu $icount $ua $tests $bench ${PMU_ARM64_TIMEOUT:-$tmo}")
done <<<"$MATRIX"
if [ ${#selected[@]} -eq 0 ] && [ ${#missing[@]} -gt 0 ]; then
	printf 'SKIP %s\n' "${missing[@]}"
	closing 0 0 ${#missing[@]} "no kernel for the configurations selected"
	exit 77
fi
if [ ${#selected[@]} -eq 0 ]; then
	closing 0 1 0 "no configuration selected (PMU_ARM64_CONFIGS=${PMU_ARM64_CONFIGS:-})"
	exit 1
fi

boot() {	# name kern cpu icount ua tests bench timeout
	local name=$1 kern=$2 cpu=$3 icount=$4 ua=$5 tests=$6 bench=$7 tmo=$8 qcpu=$3
	local log=$logs/$name.log extra=() s e rc
	[ "$cpu" = max ] && qcpu=max,pauth-impdef=on
	[ "$icount" = 1 ] && extra=(-icount shift=0)
	s=$(date +%s.%N)
	timeout -k 5 "$tmo" qemu-system-aarch64 -M virt -cpu "$qcpu" -smp 1 -m 512 \
		-nographic -no-reboot -nic none "${extra[@]}" \
		-kernel "$cache/Image-$kern" -initrd "$initrd" \
		-append "console=ttyAMA0 panic=-1 quiet libpmu.tests=$tests libpmu.user_access=$ua libpmu.icount=$icount libpmu.cpu=$cpu libpmu.bench=$bench libpmu.verbose=$verbose" \
		</dev/null >"$log.raw" 2>&1
	rc=$?
	e=$(date +%s.%N)
	tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw"
	echo "$rc $(awk "BEGIN { printf \"%.1f\", $e - $s }")" >"$log.status"
}

# report NAME: prints the results of one configuration and adds them up.
tp=0 tf=$build_fail ts=0
report() {
	local name=$1 kern=$2 cpu=$3 icount=$4 ua=$5 tests=$6 bench=$7 tmo=$8
	local log=$logs/$name.log rc secs p=0 f=0 s=0 seen=0 expect what last
	read -r rc secs <"$log.status"
	case $tests in all) what="whole suite" expect=$ntests ;; arm64) what="arm64 tests" expect=$narm64 ;; *) what="benchmarks" expect=0 ;; esac
	echo "== $name: kernel $(sed -n "s/^$kern \([^ ]*\).*/\1/p" "$cache/VERSIONS"), -cpu $cpu$([ "$icount" = 1 ] && echo ", -icount shift=0"), perf_user_access=$ua, $what (${secs} s)"
	[ $verbose -eq 1 ] && sed -n 's/^@@PMU-OUT //p' "$log"
	# Results of the guest's test/run.sh, prefixed with the configuration.
	while IFS= read -r line; do
		case $line in
		"PASS "*) p=$((p + 1)) seen=$((seen + 1)); echo "PASS $name/${line#PASS }" ;;
		"FAIL "*) f=$((f + 1)) seen=$((seen + 1)); echo "FAIL $name/${line#FAIL }" ;;
		"SKIP "*) s=$((s + 1)) seen=$((seen + 1)); echo "SKIP $name/${line#SKIP }" ;;
		"    "*) echo "$line" ;;
		"@@PMU-ERROR "*) f=$((f + 1)); echo "FAIL $name/init: ${line#@@PMU-ERROR }" ;;
		esac
	done < <(sed -n '/^@@PMU-BEGIN/,/^@@PMU-END/p; /^@@PMU-ERROR /p' "$log")
	# The tier is about the PMU: a guest without one passes nothing.
	if grep -q '^@@PMU-CONFIG' "$log" && ! grep '^@@PMU-CONFIG' "$log" | grep -q 'pmus=.*armv8_'; then
		f=$((f + 1))
		echo "FAIL $name: the guest kernel shows no armv8 PMU ($(sed -n 's/^@@PMU-CONFIG .*pmus=//p' "$log"))"
	fi
	if ! grep -q '^@@PMU-DONE' "$log"; then
		f=$((f + 1))
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			last=$(grep -E '^(PASS|FAIL|SKIP) ' "$log" | tail -n 1 | cut -c1-60)
			echo "FAIL $name: the guest hung: qemu killed by the watchdog after ${tmo}s" \
				"(${last:+in the test after \"$last\"}${last:-before the first result}); last console lines:"
		else
			echo "FAIL $name: the guest stopped before finishing (qemu exit $rc); last console lines:"
		fi
		grep -v '^@@' "$log" | tail -n 15 | sed 's/^/    /'
	elif [ $seen -lt "$expect" ]; then
		f=$((f + 1))
		echo "FAIL $name: $seen results for $expect tests"
	elif grep -q '^@@PMU-END rc=[1-9]' "$log" && [ $f -eq 0 ]; then
		f=$((f + 1))
		echo "FAIL $name: the guest's runner failed without a FAIL line"
	fi
	# Benchmarks: shown, not counted.
	sed -n '/^@@PMU-BENCH-BEGIN/,/^@@PMU-BENCH-END/p' "$log" | while IFS= read -r line; do
		case $line in
		"@@PMU-BENCH-BEGIN "*) echo "-- bench $name/${line#@@PMU-BENCH-BEGIN }:" ;;
		"@@PMU-BENCH-END "*rc=0) ;;
		"@@PMU-BENCH-END "*) echo "   (exited with status ${line##*rc=})" ;;
		*) echo "   $line" ;;
		esac
	done
	if [ "$bench" != 0 ] && ! grep -q '^@@PMU-BENCH-BEGIN' "$log"; then
		echo "-- bench $name: no benchmark program was built (bench/*.c)"
	fi
	[ "$tests" = none ] || echo "-- $name: $p passed, $f failed, $s skipped"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
}

echo "# booting ${#selected[@]} configurations, $jobs at a time"
# The slowest (-icount) first: the last ones to finish then are short.
launch=()
for c in "${selected[@]}"; do
	set -- $c
	[ "$4" = 1 ] && launch+=("$c")
done
for c in "${selected[@]}"; do
	set -- $c
	[ "$4" = 1 ] || launch+=("$c")
done
running=0
for c in "${launch[@]}"; do
	# shellcheck disable=SC2086
	boot $c &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

for c in "${selected[@]}"; do
	# shellcheck disable=SC2086
	report $c
done
for m in "${missing[@]}"; do
	echo "SKIP $m"
	ts=$((ts + 1))
done
echo "# arm64 tier: $(($(date +%s) - t0)) s in all"
if [ $bench_only -eq 1 ]; then
	[ $tf -eq 0 ]
	exit
fi
closing $tp $tf $ts
[ $tf -eq 0 ]
