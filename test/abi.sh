#!/bin/sh
# The ABI of the built libpmu.so.0 against the last release's, committed in
# abi/libpmu.so.0.abi (abigail-tools' abidw): abidiff must find no incompatible
# change, symbols added since must be in a version node of their own (one the
# baseline does not have), the Debian symbols file must list exactly what the
# library exports, and a program built against 0.4.0's headers (test/abi/v0.4.0)
# (test/abi/old_caller.c) must run unchanged with this library.
# Prints "abi: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
T_TIER=abi T_PREFIX=abi/
. test/lib.sh

ver() { sed -n "s/^#define PMU_VERSION_$1 //p" include/pmu.h; }
major=$(ver MAJOR) version=$(ver MAJOR).$(ver MINOR).$(ver PATCH)
lib=$O/libpmu.so.$version
base=abi/libpmu.so.$major.abi
bless="To bless an intended change: bump the version in include/pmu.h (PMU_VERSION_MAJOR, and with it the
  soname, for an incompatible one; otherwise PMU_VERSION_MINOR, with the new symbols in a new node
  LIBPMU_$major.MINOR of src/libpmu.map and debian/libpmu0.symbols), then 'make abi-baseline' at
  the release and commit $base with the bump."

make -s --no-print-directory "$lib" >/dev/null || { fail=1; closing "build failed"; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d" "$T_OUT"' EXIT

if ! command -v abidiff >/dev/null || ! command -v abidw >/dev/null; then
	sk abidiff "abigail-tools is not installed (apt-get install abigail-tools)"
elif [ ! -f "$base" ]; then
	ko "baseline: $base is missing (soname libpmu.so.$major has no baseline)"
	echo "  $bless"
else
	lim abidw --no-corpus-path --no-comp-dir-path --drop-undefined-syms "$lib" > "$d/new.abi"
	lim abidiff --suppressions abi/libpmu.suppr "$base" "$d/new.abi" > "$d/diff"
	rc=$?
	sed 's/^/    /' "$d/diff"
	# abidiff's exit status: bit 1 error, 2 usage, 4 a change, 8 an incompatible change.
	if [ $((rc & 3)) -ne 0 ]; then
		ko "abidiff: abidiff failed ($rc)"
	elif [ $((rc & 8)) -ne 0 ]; then
		ko "abidiff: an incompatible change to libpmu.so.$major"
		echo "  $bless"
	else
		ok abidiff
	fi
	# Added symbols: each in a node the baseline does not have.
	grep -o " version='[^']*'" "$base" | sort -u | sed "s/ version='//; s/'//" > "$d/old-nodes"
	grep '^ *\[A\]' "$d/diff" | grep -o '[a-z_0-9]*@@LIBPMU_[0-9.]*' > "$d/added"
	bad=$(while IFS=@ read -r sym _ node; do grep -qx "$node" "$d/old-nodes" && echo "$sym@$node"; done < "$d/added")
	if [ -n "$bad" ]; then
		ko "new-node: added to a version node of the baseline: $bad"
		echo "  $bless"
	else
		ok "new-node"
	fi
fi

# The Debian symbols file: exactly the library's exported symbols and versions
# (a version node's own symbol, shown as LIBPMU_0.5, is listed as LIBPMU_0.5@LIBPMU_0.5),
# the tool's private node by one pattern, and _exit and _Exit under the C library's version (src/zerocode/exit.c) by another.
nm -D --defined-only --with-symbol-versions "$lib" | awk '{print $3}' | grep -v 'LIBPMU_PRIVATE_\|GLIBC_' |
	sed 's/@@*/@/; s/^\(LIBPMU_[0-9.]*\)$/\1@\1/' | LC_ALL=C sort > "$d/exported"
if nm -D --defined-only --with-symbol-versions "$lib" | grep -q '@LIBPMU_PRIVATE_'; then
	echo '(symver|regex)^LIBPMU_PRIVATE_' >> "$d/exported"
	LC_ALL=C sort -o "$d/exported" "$d/exported"
fi
if nm -D --defined-only --with-symbol-versions "$lib" | grep -q ' _exit@@GLIBC_'; then
	echo '(symver|regex)^GLIBC_' >> "$d/exported"
	LC_ALL=C sort -o "$d/exported" "$d/exported"
fi
sed -n 's/^ \([^ ]*\) .*/\1/p' debian/libpmu0.symbols | LC_ALL=C sort > "$d/listed"
if diff "$d/exported" "$d/listed" > "$d/symdiff"; then
	ok debian-symbols
else
	ko "debian-symbols: debian/libpmu0.symbols and $lib differ (< exported, > listed)"
	sed 's/^/    /' "$d/symdiff"
fi

# A program built against 0.4.0: compiled with 0.4.0's headers, committed in test/abi/v0.4.0
# (a clone has no tags), and linked as then: every symbol it takes is of a node 0.4.0 had. It
# must run unchanged with this library.
old=test/abi/v0.4.0/include
mkdir -p "$d/new" && cp "$lib" "$d/new/libpmu.so.0"
if ! cc -std=gnu11 -I"$old" test/abi/old_caller.c -o "$d/old_caller" -L"$d/new" -l:libpmu.so.0 \
		-Wl,-rpath,"$d/new" 2> "$d/cc.out"; then
	ko "old-caller: does not build against 0.4.0's headers"
	sed 's/^/    /' "$d/cc.out"
elif nodes=$(objdump -T "$d/old_caller" | grep -o 'LIBPMU_[0-9A-Z_.]*' | sort -u | tr '\n' ' ') &&
		[ -n "$(echo "$nodes" | tr ' ' '\n' | grep -vxE 'LIBPMU_0|LIBPMU_0\.[234]|')" ]; then
	ko "old-caller: takes symbols of nodes 0.4.0 did not have: $nodes"
elif lim "$d/old_caller" > "$d/run-new.out" 2>&1 && grep -q "running with $version" "$d/run-new.out"; then
	ok "old-caller (0.4.0's headers, nodes $nodes, run with $version)"
	sed "s/^/    $version: /" "$d/run-new.out"
elif grep -q "perf_event_open\|not permitted\|does not open" "$d/run-new.out"; then
	sk old-caller "perf_event_open is refused here: $(tail -n 1 "$d/run-new.out")"
else
	ko "old-caller: a program built against 0.4.0 fails with $version"
	sed "s/^/    $version: /" "$d/run-new.out"
fi

closing
[ $fail -eq 0 ]
