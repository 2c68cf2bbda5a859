#!/bin/sh
# User-space instructions per read, for each method of bench/read, from
# valgrind --tool=callgrind collecting inside bench_loop() only. Each method
# runs twice (N1 and N2 reads); (Ir(N2) - Ir(N1)) / (N2 - N1) removes
# one-time costs, and the empty loop's figure is the loop's own share.
# The kernel's share of a system call is not in Ir.
#   usage: bench/callgrind.sh [BENCH] [METHOD...]   (BENCH: build/bench/read)
#   N1, N2 in the environment change the read counts (2000, 12000).
set -u
cd "$(dirname "$0")/.." || exit 1
bench=build/bench/read
if [ $# -gt 0 ] && [ -x "$1" ]; then
	bench=$1
	shift
fi
n1=${N1:-2000}
n2=${N2:-12000}
command -v valgrind >/dev/null || { echo "callgrind: valgrind is not installed"; exit 77; }
[ -x "$bench" ] || { echo "callgrind: $bench is not built (make bench)"; exit 1; }
methods=$*
[ -n "$methods" ] || methods=$("$bench" --list | awk '{print $1}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Ir collected in bench_loop for N reads of method $1, or nothing when it cannot run here.
ir() {
	valgrind --tool=callgrind --toggle-collect=bench_loop --callgrind-out-file="$tmp/out" \
		"$bench" --callgrind "$1" "$2" >"$tmp/log" 2>&1 || return 1
	sed -n 's/^summary: *\([0-9]*\).*/\1/p; s/^totals: *\([0-9]*\).*/\1/p' "$tmp/out" | head -n 1
}

echo "user-space instructions per read (callgrind, (Ir($n2) - Ir($n1)) / $((n2 - n1)))"
printf '%-10s %12s %12s  %s\n' method "Ir/read" "net of loop" "what"
loop=
for m in $methods; do
	a=$(ir "$m" "$n1") && b=$(ir "$m" "$n2") && [ -n "$a" ] && [ -n "$b" ] || {
		printf '%-10s %12s %12s  %s\n' "$m" - - "$(grep -m 1 'not available' "$tmp/log" || tail -n 1 "$tmp/log")"
		continue
	}
	per=$(awk -v a="$a" -v b="$b" -v n=$((n2 - n1)) 'BEGIN { printf "%.1f", (b - a) / n }')
	[ "$m" = empty ] && loop=$per
	net=$(awk -v p="$per" -v l="${loop:-0}" 'BEGIN { printf "%.1f", p - l }')
	what=$("$bench" --list | awk -v m="$m" '$1 == m { $1 = ""; sub(/^ /, ""); print }')
	printf '%-10s %12s %12s  %s\n' "$m" "$per" "$net" "$what"
done
