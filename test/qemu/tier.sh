# The body of a kernel tier, sourced by test/arm64/run.sh and
# test/riscv64/run.sh after they set:
#   tier, TIER     arm64 / ARM64: the tests' prefix, the tier's name, the
#                  PMU_${TIER}_CACHE, _CONFIGS and _TIMEOUT variables
#   cross          the cross toolchain's prefix (aarch64-linux-gnu)
#   MATRIX         the configurations: name kernel cpu icount perf_user_access
#                  tests bench timeout(s)
#   qemu, console  qemu-system-X, and the guest console
#   qemu_args      a function: QEMU's extra arguments (the cache is $cache)
#   qemu_cpu CPU   a function: QEMU's -cpu for the matrix's cpu
#   pmu_config, pmu_name       what the guest's @@PMU-CONFIG line must match
#                  to show the PMU, and the PMU's name for a failure
# It cross-builds the tests and benchmarks statically, packs them with
# busybox into an initramfs, boots the matrix two at a time, and prints every
# result prefixed with its configuration, then "TIER: N passed, N failed,
# N skipped". A kernel missing from the cache skips its configurations.
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
	*) echo "usage: test/$tier/run.sh [--bench] [-v] [-j N] [--list]" >&2; exit 2 ;;
	esac
	shift
done

O=${O:-build/$tier}
var=PMU_${TIER}_CACHE
export "$var=${!var:-${HOME:-/root}/.cache/libpmu-$tier}"
cache=${!var}
var=PMU_${TIER}_CONFIGS
configs=${!var:-}
var=PMU_${TIER}_TIMEOUT
timeout_all=${!var:-}
t0=$(date +%s)

closing() {	# passed failed skipped [note]
	echo "$tier: $1 passed, $2 failed, $3 skipped${4:+ ($4)}"
}

# 1. Tools and cache.
setup_out=$(test/$tier/setup.sh 2>&1)
rc=$?
printf '%s\n' "$setup_out" | grep -v '^SKIP: ' | sed 's/^/# /'
if [ $rc -eq 77 ]; then
	closing 0 0 1 "$(printf '%s\n' "$setup_out" | sed -n 's/^SKIP: //p' | tail -n 1)"
	exit 77
elif [ $rc -ne 0 ]; then
	closing 0 1 0 "test/$tier/setup.sh failed with status $rc"
	exit 1
fi

# 2. Cross build, statically.
mkdir -p "$O"
# test/$tier/*.h is not among the Makefile's headers: rebuild what includes it.
for f in "$O"/test/${tier}_*; do
	[ -e "$f" ] || continue
	for h in test/$tier/*.h test/lib/guest.h; do
		[ "$h" -nt "$f" ] && rm -f "$f"
	done
done
echo "# make O=$O CC=$cross-gcc STATIC=1 tests bench"
if ! make -s --no-print-directory -j"$jobs" O="$O" CC=$cross-gcc STATIC=1 tests bench \
	>"$O/build.log" 2>&1; then
	tail -n 30 "$O/build.log" | sed 's/^/    /'
	closing 0 1 0 "the cross build failed: see $O/build.log"
	exit 1
fi

# The tool, which some tests run: its failure to build counts, the tests go on.
build_fail=0
if [ $bench_only -eq 0 ] && ! make -s --no-print-directory -j"$jobs" O="$O" CC=$cross-gcc STATIC=1 "$O/pmu" \
	>"$O/build-tool.log" 2>&1; then
	echo "FAIL build/pmu: the cross build of the pmu tool failed (make O=$O CC=$cross-gcc STATIC=1 $O/pmu):"
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
	cp test/$tier/init "$root/init" && cp test/run.sh "$root/run.sh" &&
	chmod 755 "$root/init" "$root/run.sh" || exit 1
if [ -x "$O/pmu" ]; then
	$cross-strip -o "$root/pmu" "$O/pmu" || exit 1
fi
if [ -d test/fixtures ]; then
	mkdir -p "$root/test" && cp -r test/fixtures "$root/test/" || exit 1
fi
ntests=0
for f in "$O"/test/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	# the other architectures' tests, and fault_alloc: every allocation of every call failed in turn,
	# the same on every architecture and too slow under emulation (the host tiers run it)
	case ${f##*/} in ${tier}_*) ;; arm64_*|riscv64_*|x86_*|fault_alloc) continue ;; esac
	# the functions tests name their functions from the symbol table: only the debug sections go
	case ${f##*/} in *_functions) how=--strip-debug ;; *) how=--strip-all ;; esac
	$cross-strip $how -o "$root/t/${f##*/}" "$f" || cp "$f" "$root/t/"
	ntests=$((ntests + 1))
done
narch=$(ls "$root/t" | grep -c "^${tier}_")
for f in "$O"/bench/*; do
	[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$root/b/"
done
if [ "$narch" -eq 0 ] || [ "$ntests" -le "$narch" ]; then
	closing 0 1 0 "no tests were built into $O/test ($ntests tests, $narch ${tier}_*)"
	exit 1
fi
initrd=$O/initramfs.cpio
(cd "$root" && find . | cpio -o -H newc --quiet) >"$initrd" || exit 1
echo "# initramfs: $ntests tests ($narch ${tier}_*), $(ls "$root/b" | wc -l) benchmarks, $(($(stat -c %s "$initrd") / 1024)) KiB"
echo "# kernels: $(tr '\n' ';' <"$cache/VERSIONS" | sed 's/;$//; s/;/; /g')"

# 4. The matrix.
logs=$O/logs
mkdir -p "$logs"
selected=() missing=()
while read -r name kern cpu icount ua tests bench tmo; do
	[ -n "$name" ] || continue
	if [ $bench_only -eq 1 ]; then
		# every kernel with user access, exact under -icount (the full tier benches one)
		[ "$icount" = 1 ] && [ "$ua" != - ] || continue
		tests=none bench=only
	fi
	if [ -n "$configs" ]; then
		case " $configs " in *" $name "*) ;; *) continue ;; esac
	fi
	if [ ! -s "$cache/Image-$kern" ]; then	# 5.10 may be missing: its configurations skip
		missing+=("$name: $(cat "$cache/$kern.missing" 2>/dev/null || echo "no $cache/Image-$kern")")
		continue
	fi
	selected+=("$name $kern $cpu $icount $ua $tests $bench ${timeout_all:-$tmo}")
done <<<"$MATRIX"
if [ ${#selected[@]} -eq 0 ] && [ ${#missing[@]} -gt 0 ]; then
	printf 'SKIP %s\n' "${missing[@]}"
	closing 0 0 ${#missing[@]} "no kernel for the configurations selected"
	exit 77
fi
if [ ${#selected[@]} -eq 0 ]; then
	closing 0 1 0 "no configuration selected (PMU_${TIER}_CONFIGS=$configs)"
	exit 1
fi

boot() {	# name kern cpu icount ua tests bench timeout
	local name=$1 kern=$2 cpu=$3 icount=$4 ua=$5 tests=$6 bench=$7 tmo=$8 qcpu=$3 smp=1
	local log=$logs/$name.log extra=() s e rc
	case $name in *-smp2) smp=2 ;; esac	# two CPUs: a writer and a report truly at once
	qcpu=$(qemu_cpu "$cpu")
	[ "$icount" = 1 ] && extra=(-icount shift=0)
	s=$(date +%s.%N)
	# shellcheck disable=SC2086
	timeout -k 5 "$tmo" $qemu -M virt -cpu "$qcpu" -smp $smp -m 512 \
		-nographic -no-reboot -nic none "${extra[@]}" $(qemu_args) \
		-kernel "$cache/Image-$kern" -initrd "$initrd" \
		-append "console=$console panic=-1 quiet libpmu.tests=$tests libpmu.user_access=$ua libpmu.icount=$icount libpmu.cpu=$cpu libpmu.bench=$bench libpmu.verbose=$verbose" \
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
	case $tests in all) what="whole suite" expect=$ntests ;; "$tier") what="$tier tests" expect=$narch ;; *) what="benchmarks" expect=0 ;; esac
	echo "== $name: kernel $(sed -n "s/^$kern \([^ ]*\).*/\1/p" "$cache/VERSIONS"), -cpu $(qemu_cpu "$cpu")$([ "$icount" = 1 ] && echo ", -icount shift=0"), perf_user_access=$ua, $what (${secs} s)"
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
	if grep -q '^@@PMU-CONFIG' "$log" && ! grep '^@@PMU-CONFIG' "$log" | grep -q "$pmu_config"; then
		f=$((f + 1))
		echo "FAIL $name: the guest kernel shows no $pmu_name ($(sed -n 's/^@@PMU-CONFIG .*pmus=//p' "$log"))"
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
echo "# $tier tier: $(($(date +%s) - t0)) s in all"
if [ $bench_only -eq 1 ]; then
	[ $tf -eq 0 ]
	exit
fi
closing $tp $tf $ts
[ $tf -eq 0 ]
