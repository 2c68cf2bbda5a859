#!/bin/sh
# SPDX-License-Identifier: MIT
# What exact instruction counts without a PMU cost: each workload run natively, under
# pmu stat --emulate=qemu (libpmu-qemu), under qemu-x86_64 without the plugin, under
# pmu stat --emulate=valgrind (libpmu-valgrind), under valgrind --tool=none, and under
# valgrind --tool=cachegrind --cache-sim=no, side by side in one run. Seconds are the
# median of 5 runs (3 for xz), the modes taking turns; then each backend against its emulator
# alone and against cachegrind.
#   usage: bench/emulate.sh [--quick]
#   workloads: a compute loop of 10^8 hash steps (build/bench/emu_work loop), xz -9 -T1 of
#   20 MB of base64 text, and 10^6 region pairs by name around 50 steps each with
#   PMU_EVENTS=instructions (emu_work regions; natively and under cachegrind instructions
#   does not open there, and the regions keep their times). --quick: a tenth of each.
# Each run has a time limit (BENCH_LIMIT seconds, default 900): one past it prints "limit".
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
pmu=$PWD/$O/pmu
work=$PWD/$O/bench/emu_work
limit=${BENCH_LIMIT:-900}
div=1
[ "${1:-}" = --quick ] && div=10
for c in qemu-x86_64 valgrind xz; do
	command -v $c >/dev/null || { echo "emulate: $c is not installed (apt-get install qemu-user valgrind xz-utils)"; exit 77; }
done
make -s --no-print-directory O="$O" all "$work" >/dev/null || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c $((15000000 / div)) /dev/urandom | base64 > "$tmp/data"

# Seconds of one run of "$@" (its output dropped), or "limit"/"failed".
secs() {
	t0=$(date +%s%N)
	timeout -k 5 "$limit" "$@" >/dev/null 2>"$tmp/err"
	st=$?
	t1=$(date +%s%N)
	[ $st = 124 ] && { echo limit; return; }
	[ $st = 0 ] || { echo failed; sed 's/^/  /' "$tmp/err" >&2; return; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}
# One row: NAME RUNS CMD...: native; QEMU's backend, QEMU alone; Valgrind's backend, --tool=none;
# cachegrind; then each backend over its emulator alone, and over cachegrind. The modes take turns
# in each of the RUNS rounds, so that a slower spell of the machine falls on all of them alike.
row() {
	name=$1 n=$2 c=$(command -v "$3")
	shift 3
	set -- "$c" "$@"
	for i in $(seq "$n"); do
		secs "$@" >> "$tmp/nat"; echo >> "$tmp/nat"
		secs "$pmu" stat --emulate=qemu -e instructions -o "$tmp/stat" -- "$@" >> "$tmp/eq"; echo >> "$tmp/eq"
		secs qemu-x86_64 "$@" >> "$tmp/q"; echo >> "$tmp/q"
		secs "$pmu" stat --emulate=valgrind -e instructions -o "$tmp/stat" -- "$@" >> "$tmp/ev"; echo >> "$tmp/ev"
		secs valgrind --tool=none -q "$@" >> "$tmp/v"; echo >> "$tmp/v"
		secs valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" >> "$tmp/cg"
		echo >> "$tmp/cg"
	done
	for m in nat eq q ev v cg; do
		eval "$m=\$(sort -g \"\$tmp/\$m\" | awk '{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }')"
		rm -f "$tmp/$m"
	done
	printf '%-26s %7s %8s %8s %8s %8s %8s  %5s %5s %5s %5s\n' "$name" "$nat" "$eq" "$q" "$ev" "$v" "$cg" \
		"$(x "$eq" "$q")" "$(x "$ev" "$v")" "$(x "$eq" "$cg")" "$(x "$ev" "$cg")"
}
x() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }

echo "seconds (median of runs); q/Q: QEMU's backend over QEMU alone, v/V: Valgrind's over --tool=none, /cg: over cachegrind"
printf '%-26s %7s %8s %8s %8s %8s %8s  %5s %5s %5s %5s\n' workload native emu=qemu qemu emu=vg vg-none cg \
	q/Q v/V q/cg v/cg
row "loop, $((100000000 / div)) steps" 5 "$work" loop $((100000000 / div))
row "xz -9 -T1, $((20 / div)) MB" 3 xz -9 -T1 -c "$tmp/data"
PMU_EVENTS=instructions PMU_REPORT=/dev/null row "regions, $((1000000 / div)) pairs" 5 "$work" regions $((1000000 / div))
