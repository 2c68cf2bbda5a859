#!/bin/sh
# make install into a temporary prefix, then build and run an outside program
# against it with pkg-config, as a user would. Prints "install: N passed, ...".
cd "$(dirname "$0")/.." || exit 1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS install/$1"; }
ko() { fail=$((fail + 1)); echo "FAIL install/$1${2:+: $2}"; }
t() { name=$1; shift; if out=$("$@" 2>&1); then ok "$name"; else ko "$name" "$(echo "$out" | tail -n 5)"; fi; }

t make-install make -s install PREFIX="$d"
export PKG_CONFIG_PATH="$d/lib/pkgconfig"
t pkg-config pkg-config --exists libpmu
t build-shared sh -c "cc examples/count.c \$(pkg-config --cflags --libs libpmu) -Wl,-rpath,$d/lib -o $d/count"
t run-shared "$d/count" task-clock,page-faults
t build-static sh -c "cc examples/count.c \$(pkg-config --cflags libpmu) $d/lib/libpmu.a \$(pkg-config --static --libs-only-other --libs-only-l libpmu | sed 's/-lpmu//') -o $d/count-static"
t run-static "$d/count-static" task-clock
t soname sh -c "readelf -d $d/lib/libpmu.so.0 | grep -q 'SONAME.*libpmu.so.0'"
# Only the public API is exported: pmu_*, never the internal pmu__*.
t exports sh -c "nm -D --defined-only $d/lib/libpmu.so | awk '{print \$3}' | sed 's/@.*//' | grep -v '^LIBPMU' > $d/syms &&
	! grep -v '^pmu_[a-z]' $d/syms && ! grep '^pmu__' $d/syms && grep -q '^pmu_read\$' $d/syms"
t header-only-public sh -c "ls $d/include | grep -qx pmu.h && [ \$(ls $d/include | wc -l) -eq 1 ]"
t man-pages sh -c "ls $d/share/man/man3/pmu_open.3 $d/share/man/man1/pmu.1"
t tool "$d/bin/pmu" version
echo "install: $pass passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]
