#!/bin/sh
# The cost of counting every function (-finstrument-functions, docs/paths.md) on bench/hydro.c, a
# program of LULESH's shape: built plain, and with -finstrument-functions run without the library
# (glibc's hooks, which do nothing) and with it (libpmu-functions.so preloaded, task-clock: the
# read(2) path here, the default budget). Prints the best of 3 wall times of each and their ratio to
# the plain build, the function calls and the hooks' cost per call, the functions the budget cut,
# and, with valgrind, the user-space instructions of each (deterministic, where times are not).
#   usage: bench/functions.sh [EDGE [STEPS]]   (default 20 elements an edge, 200 steps)
set -u
cd "$(dirname "$0")/.." || exit 1
edge=${1:-20}
steps=${2:-200}
lib=build/libpmu-functions.so
[ -f "$lib" ] || { echo "functions: $lib is not built (make)"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pmu-functions.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
${CC:-cc} -O2 bench/hydro.c -o "$dir/plain" -lm || exit 1
${CC:-cc} -O2 -finstrument-functions bench/hydro.c -o "$dir/fn" -lm || exit 1

# best SECONDS of 3 runs of a command
best() {
	b=
	for _ in 1 2 3; do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "functions: $* failed" >&2; exit 1; }
		e=$(date +%s%N)
		t=$(( (e - s) / 1000 ))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}
with() {
	PMU_EVENTS=task-clock PMU_REPORT="$dir/report.json" LD_PRELOAD="$PWD/$lib" "$@"
}
plain=$(best "$dir/plain" "$edge" "$steps")
hooks=$(best "$dir/fn" "$edge" "$steps")
counted=$(best with "$dir/fn" "$edge" "$steps")
python3 - "$dir/report.json" "$plain" "$hooks" "$counted" "$edge" "$steps" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
plain, hooks, counted = (int(x) for x in sys.argv[2:5])
size = "%s %s" % (sys.argv[5], sys.argv[6])
paths = r["paths"]
cut = r.get("functions_cut", [])
# every call the hooks saw: those counted (each path's calls) and the cut functions' calls since their trial
calls = sum(p["calls"] for p in paths if p["path"][0] != "(whole run)" or len(p["path"]) > 1)
calls += sum(max(0, c["calls"] - 100) for c in cut)
print("hydro %s: plain %.3f s; -finstrument-functions with glibc's hooks %.3f s (%.2fx); with libpmu %.3f s (%.2fx)"
      % (size, plain / 1e6, hooks / 1e6, hooks / plain, counted / 1e6, counted / plain))
print("%d function calls: libpmu's hooks add %.1f ns a call over glibc's, %.1f ns over the plain build"
      % (calls, (counted - hooks) * 1e3 / calls, (counted - plain) * 1e3 / calls))
print("%d functions cut by the budget (%.0f%%):" % (len(cut), 100 * r["functions_budget"]) if cut else "no function cut")
for c in sorted(cut, key=lambda c: -c["calls"]):
    print("  %-20s %10d calls  pair %6.0f ns  call %6.0f ns  avoided %8.1f ms"
          % (c["function"], c["calls"], c["pair_ns"], c["call_ns"], c["avoided_ns"] / 1e6))
whole = [p for p in paths if len(p["path"]) == 1]
top = sum(p["counts"]["task-clock"] for p in whole)
selves = sum(p["self_counts"]["task-clock"] for p in paths)
print("task-clock: the selves of all paths %d ns, the top paths' totals %d ns (%+.4f%%)"
      % (selves, top, 100.0 * (selves - top) / top))
PY
if command -v valgrind >/dev/null; then
	for v in plain fn lib; do
		[ "$v" = plain ] && set -- "$dir/plain" 10 20
		[ "$v" = fn ] && set -- "$dir/fn" 10 20
		if [ "$v" = lib ]; then
			PMU_EVENTS=task-clock PMU_REPORT="$dir/r.json" LD_PRELOAD="$PWD/$lib" valgrind --tool=callgrind \
				--callgrind-out-file="$dir/cg.$v" "$dir/fn" 10 20 >/dev/null 2>"$dir/vg.$v"
		else
			valgrind --tool=callgrind --callgrind-out-file="$dir/cg.$v" "$@" >/dev/null 2>"$dir/vg.$v"
		fi
		eval "ir_$v=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/vg.$v")"
	done
	# shellcheck disable=SC2154
	echo "instructions (hydro 10 20, callgrind): plain $ir_plain; glibc's hooks $ir_fn ($(echo "scale=2; $ir_fn / $ir_plain" | bc)x); libpmu $ir_lib ($(echo "scale=2; $ir_lib / $ir_plain" | bc)x)"
fi
