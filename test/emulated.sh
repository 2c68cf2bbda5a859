#!/bin/sh
# SPDX-License-Identifier: MIT
# The emulated tier: exact instruction counts without a PMU, under QEMU's user-mode emulation
# with libpmu-qemu and under Valgrind with libpmu-valgrind (pmu emulate, pmu stat --emulate).
# Exact and the same each run for x86-64, arm64 and riscv64 programs (test/counters/emu_exact.c: loops,
# reads, regions, threads, fork), the same counts under both backends; zero-code mode, the PAPI
# drop-in, pmu stat -r with no spread, pmu report diff's exact gate; what an exec leaves; every
# QEMU that cannot count named before the program runs, with no count (test/emulated/refusals.sh);
# Valgrind's runs (test/emulated/valgrind.sh); the plugin under a QEMU >= 9 built from Debian 13's
# source (test/emulated/qemu_setup.sh), and the tier's Valgrind half in a Debian 13 root, as on
# ubuntu-latest. Skips where neither backend counts.
# Prints "emulated: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
T_TIER=emulated T_PREFIX=emulated/
. test/lib.sh
pmu=$PWD/$O/pmu

make -s --no-print-directory O="$O" all "$O/test/emu_exact" "$O/test/signal_storm" >/dev/null || { fail=1; closing "make failed"; exit 1; }
qemu=$(command -v qemu-x86_64 >/dev/null && "$pmu" emulate --backend qemu /bin/true >/dev/null 2>&1 && echo yes)
vg=$("$pmu" emulate --backend valgrind /bin/true >/dev/null 2>&1 && echo yes)
if [ -z "$qemu$vg" ]; then
	sk emulated "no backend counts here: $("$pmu" emulate /bin/true 2>&1 | tr '\n' ' ')"
	closing
	exit 0
fi
d=$(mktemp -d)
trap 'rm -rf "$d" "$T_OUT"' EXIT

# Exact, and the same every run, on each ISA: the x86 build, and the cross builds' static ones.
exact() {	# NAME BINARY [BACKEND]
	for i in 1 2 3; do
		lim "$pmu" emulate ${3:+--backend "$3"} "$2" > "$d/$1.$i" 2>&1 || { cat "$d/$1.$i"; return 1; }
	done
	cat "$d/$1.1"
	cmp -s "$d/$1.1" "$d/$1.2" && cmp -s "$d/$1.1" "$d/$1.3" || { echo "runs differ"; return 1; }
}
if [ -n "$vg" ]; then
	run exact-x86_64-valgrind exact x86_64-vg "$O/test/emu_exact" valgrind
else
	sk exact-x86_64-valgrind "libpmu-valgrind does not count here: $("$pmu" emulate --backend valgrind /bin/true 2>&1)"
fi
if [ -z "$qemu" ]; then
	sk qemu "no QEMU counts here, the rest of the tier is Valgrind's: $("$pmu" emulate --backend qemu /bin/true 2>&1)"
	. test/emulated/valgrind.sh
	. test/emulated/refusals.sh
	closing
	[ "$fail" = 0 ]
	exit
fi
run exact-x86_64 exact x86_64 "$O/test/emu_exact" qemu
# The same loop, both backends: the same slope and the same read constants, to the instruction.
if [ -n "$vg" ]; then
	run same-counts sh -c "tail -n +2 $d/x86_64.1 > $d/q && tail -n +2 $d/x86_64-vg.1 > $d/v && cat $d/q && cmp $d/q $d/v"
fi
for a in "aarch64 build/arm64" "riscv64 build-riscv64"; do
	set -- $a
	if command -v "$1-linux-gnu-gcc" >/dev/null && command -v "qemu-$1" >/dev/null &&
	   make -s --no-print-directory O="$2" CC="$1-linux-gnu-gcc" STATIC=1 "$2/test/emu_exact" >/dev/null 2>&1; then
		run "exact-$1" exact "$1" "$2/test/emu_exact"
	else
		sk "exact-$1" "no $1-linux-gnu-gcc or qemu-$1 (gcc-$1-linux-gnu, qemu-user)"
	fi
done
[ -n "$vg" ] && . test/emulated/valgrind.sh
. test/emulated/refusals.sh
[ -z "${PMU_IN_ROOT:-}" ] && . test/emulated/qemu9.sh

# A signal handler reading the emulated counter while the loop it interrupts reads it: never backwards.
run signal-storm sh -c "PMU_TEST_STORM_EVENTS=instructions $pmu emulate $O/test/signal_storm"

# A real program, counted whole: pmu stat --emulate -r 5 with no spread, and pmu report diff's
# exact change, which --fail-if gates.
head -c 300000 /dev/urandom | base64 > "$d/data"
run stat-runs sh -c "$pmu stat --emulate -e instructions -r 5 -j -o $d/base.json -- xz -9 -T1 -c $d/data > /dev/null &&
	cat $d/base.json && grep -q '\"event\" : \"instructions\", \"variance\" : 0.00, \"runs\" : 5, \"emulated\" : \"QEMU' $d/base.json"
cat "$d/data" "$d/data" > "$d/data2"
run diff-exact sh -c "$pmu stat --emulate -e instructions -r 2 -j -o $d/new.json -- xz -9 -T1 -c $d/data2 > /dev/null &&
	$pmu report diff $d/base.json $d/new.json > $d/diff; cat $d/diff; grep -q 'instructions .* exact' $d/diff &&
	! $pmu report diff --fail-if instructions:+0.5% $d/base.json $d/new.json &&
	$pmu report diff --fail-if instructions:+0.5% $d/base.json $d/base.json"
run stat-table sh -c "$pmu stat --emulate -e instructions,task-clock -- xz -9 -T1 -c $d/data 2>&1 >/dev/null |
	tee /dev/stderr | grep -q 'instructions: emulated (QEMU .*): counted by emulation, not by a PMU'"

# Zero-code mode in the program (LD_PRELOAD is handed to it, not to QEMU): its report says emulated.
run zero-code sh -c "cd $d && LD_PRELOAD=$PWD/$O/libpmu.so.0 PMU_EVENTS=instructions PMU_REPORT=zero.json \
	$pmu emulate xz -9 -T1 -c data > /dev/null && cat zero.json && grep -q '\"emulated\": \"QEMU' zero.json &&
	grep -q '\"instructions\": [1-9]' zero.json"

# The PAPI drop-in: PAPI_TOT_INS is the emulated count.
mkdir -p "$d/inc" && ln -sf "$PWD/compat/dropins/papi_protos.h" "$d/inc/papi.h"
if make -s --no-print-directory O="$O" compat >/dev/null 2>&1 &&
   cc -I"$d/inc" -o "$d/papi_prog" test/compat/papi_prog.c -L"$O" -lpmu-papi -Wl,-rpath,"$PWD/$O" -pthread 2>"$d/cc"; then
	run papi sh -c "cd $d && PAPI_EVENTS=PAPI_TOT_INS $pmu emulate ./papi_prog 16 > out &&
		cat papi_hl_output/rank_*.json && grep -q '\"PAPI_TOT_INS\": *\"*[1-9]' papi_hl_output/rank_*.json"
else
	sk papi "libpmu-papi or its test program did not build: $(head -c 200 "$d/cc")"
fi

# LIKWID's marker API: a group with instructions counts the region.
cat > "$d/lk.c" <<'C'
#include <likwid-marker.h>
#include <stdio.h>
int main(void)
{
	int n = 4;
	double v[4];
	volatile unsigned x = 0;

	LIKWID_MARKER_INIT;
	LIKWID_MARKER_START("loop");
	for (unsigned i = 0; i < 100000; i++)
		x += i;
	LIKWID_MARKER_STOP("loop");
	LIKWID_MARKER_GET("loop", &n, v, &(double){ 0 }, &(int){ 0 });
	LIKWID_MARKER_CLOSE;
	printf("%d %.0f\n", n, v[0]);
	return !(n == 1 && v[0] >= 100000);
}
C
if [ -f /usr/include/likwid-marker.h ] &&
   cc -DLIKWID_PERFMON -o "$d/lk" "$d/lk.c" -L"$O" -lpmu-likwid -Wl,-rpath,"$PWD/$O" -pthread 2>"$d/cc"; then
	run likwid sh -c "cd $d && PMU_EVENTS=instructions PMU_REPORT=/dev/null $pmu emulate ./lk"
else
	sk likwid "likwid-marker.h (likwid) or libpmu-likwid is missing: $(head -c 200 "$d/cc")"
fi

# pmu check names the emulation; a region report and PMU_TRACE's timeline carry it; the perf
# spelling opens the same counter; two runs' reports merge.
run check sh -c "$pmu emulate $pmu check -e instructions,perf::INSTRUCTIONS,cycles > $d/check; cat $d/check;
	grep -q 'emulated: instructions counted by QEMU' $d/check &&
	grep -q '^  instructions  *yes .*user space: emulated (QEMU' $d/check &&
	grep -q '^  perf::INSTRUCTIONS  *yes .*emulated (QEMU' $d/check &&
	grep -q 'cycles: not counted under emulation' $d/check"
run trace sh -c "cd $d && PMU_EVENTS=instructions PMU_REPORT=r%p.json PMU_TRACE=t.json $pmu emulate $PWD/$O/examples/zero_code &&
	PMU_EVENTS=instructions PMU_REPORT=r%p.json $pmu emulate $PWD/$O/examples/zero_code &&
	grep -q '\"emulated\": \"QEMU' t.json && $pmu report merge -o m.json r*.json && cat m.json &&
	grep -q '\"emulated\": \"QEMU' m.json && grep -q '\"calls\": 400' m.json"

# A foreign program through pmu stat: the arm64 build of the exact test, on any host.
if [ -x build/arm64/test/emu_exact ] && command -v qemu-aarch64 >/dev/null; then
	run stat-arm64 sh -c "$pmu stat --emulate -e instructions,task-clock -- build/arm64/test/emu_exact 2>&1 >/dev/null |
		tee /dev/stderr | grep -q 'emulated (QEMU 7.*aarch64'"
else
	sk stat-arm64 "no arm64 build of emu_exact or no qemu-aarch64"
fi

# After an exec QEMU no longer runs the program: it finds no table, and counts nothing as emulated.
run after-exec sh -c "$pmu emulate /bin/sh -c 'exec $PWD/$O/test/emu_exact' > $d/exec; st=\$?; cat $d/exec;
	[ \$st = 77 ] && grep -q 'instructions does not open' $d/exec"

closing
[ "$fail" = 0 ]
