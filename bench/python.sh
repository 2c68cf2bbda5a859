#!/bin/sh
# What a call costs from Python against the same call from C, in user-space instructions
# (valgrind --tool=cachegrind --cache-sim=no: the kernel's share of a read(2) is not counted).
# Each case runs N1 and N2 times; (Ir(N2) - Ir(N1)) / (N2 - N1) removes start-up, and the empty
# loop's figure (the plain call's, for the decorator) is subtracted. The C side comes from
# bench/region and bench/read in the same run. Both Python backends: the extension and ctypes.
#   usage: bench/python.sh            (needs make bench python; N1, N2: 2000, 12000)
set -u
cd "$(dirname "$0")/.." || exit 1
n1=${N1:-2000}
n2=${N2:-12000}
py=${PYTHON:-/usr/bin/python3}
command -v valgrind >/dev/null || { echo "python bench: valgrind is not installed"; exit 77; }
mod=$(ls build/python/pmu/_pmu*.so 2>/dev/null | head -n 1)
[ -n "$mod" ] && [ -x build/bench/region ] && [ -x build/bench/read ] ||
	{ echo "python bench: make bench python first (the extension needs python3-dev)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The source tree's package with the extension beside it, over build/libpmu.so.0.
mkdir "$tmp/pkg" && cp -r python/pmu "$tmp/pkg/" && cp "$mod" "$tmp/pkg/pmu/"
export PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$tmp/pkg" LD_LIBRARY_PATH="$PWD/build"

irs() { sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/out" | head -n 1; }
# Ir per call of Python CASE with backend $2 (extension|ctypes).
pyper() {
	for n in $n1 $n2; do
		PMU_PYTHON_BACKEND=$2 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/out" \
			"$py" bench/python_calls.py "$1" "$n" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; return 1; }
		irs
	done | awk -v n=$((n2 - n1)) 'NR == 1 { a = $1 } NR == 2 { printf "%.0f", ($1 - a) / n }'
}
# Ir per call of C: FUNCTION collected in PROGRAM ARGS... with N1 and N2 calls.
cper() {
	f=$1 && shift
	for n in $n1 $n2; do
		valgrind --tool=callgrind --toggle-collect="$f" --callgrind-out-file="$tmp/out" "$@" "$n" task-clock \
			>"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; return 1; }
		irs
	done | awk -v n=$((n2 - n1)) 'NR == 1 { a = $1 } NR == 2 { printf "%.0f", ($1 - a) / n }'
}
cread() {
	for n in $n1 $n2; do
		valgrind --tool=callgrind --toggle-collect=bench_loop --callgrind-out-file="$tmp/out" \
			build/bench/read --callgrind "$1" "$n" >"$tmp/log" 2>&1 || return 1
		irs
	done | awk -v n=$((n2 - n1)) 'NR == 1 { a = $1 } NR == 2 { printf "%.0f", ($1 - a) / n }'
}
chpair=$(cper bench_hpairs build/bench/region --only hpairs)
cpair=$(cper bench_pairs build/bench/region --only pairs)
cread1=$(( $(cread pmu1) - $(cread empty) ))
echo "user-space instructions per call, 1 event (task-clock), the loop's own cost subtracted"
printf '%-46s %7s %10s %8s %8s %8s\n' call C extension "over C" ctypes "over C"
for b in extension ctypes; do
	eval "loop_$b=\$(pyper loop $b) call_$b=\$(pyper call $b)"
done
row() {
	what=$1 c=$2 case=$3 base=$4
	e=$(( $(pyper "$case" extension) - $(eval echo \$${base}_extension) ))
	t=$(( $(pyper "$case" ctypes) - $(eval echo \$${base}_ctypes) ))
	printf '%-46s %7s %10s %8s %8s %8s\n' "$what" "$c" "$e" "+$((e - c))" "$t" "+$((t - c))"
}
row "region pair by handle (with r:)" "$chpair" pair_handle loop
row "region pair by name (with r:)" "$cpair" pair_name loop
row "region pair, with pmu.region(\"name\"): each time" "$cpair" pair_new loop
row "region_enter(h); region_exit(h)" "$chpair" enter_exit loop
row "decorated function (less a plain call)" "$cpair" decorated call
row "Set.read(), a dict" "$cread1" read loop
row "Set.read(buf), preallocated" "$cread1" read_into loop
