#!/bin/sh
# Every test tier in turn; each prints "TIER: N passed, N failed, N skipped",
# and the last line is the total. Exits non-zero when any test failed.
#   builds    gcc, clang, generic-arch and cross builds, all -Werror
#   host      the tests, normal build (build/)
#   unprivileged  the host tests, pmu check, pmu stat and zero-code mode as
#             nobody (test/unprivileged.sh; skipped unless run as root)
#   security  setuid and cap_perfmon copies run by nobody, planted links,
#             hostile names in every format, a .. host name (test/security.sh;
#             skipped unless run as root)
#   asan      the tests built with ASan + UBSan (build-asan/)
#   tsan      the tsan line of test/tiers, built with TSan (build-tsan/)
#   valgrind  the valgrind line of test/tiers, under valgrind memcheck
#   install   make install from a fresh tree, outside programs built with pkg-config and
#             CMake, DESTDIR staging, the ldconfig decision, make uninstall, no Python,
#             cross builds, installs over themselves and over other versions
#   trixie    the README's quick start, make install, documented links and pip install .
#             in a Debian 13 root, as on ubuntu-latest (test/trixie.sh; needs root)
#   abi       abidiff of build/libpmu.so against abi/libpmu.so.0.abi, the symbols
#             file, a program built against 0.4.0 run unchanged (test/abi.sh)
#   python    python/tests under pytest over build/libpmu.so (test/python.sh)
#   emulated  exact instruction counts under QEMU's user mode with libpmu-qemu:
#             pmu emulate, pmu stat --emulate, x86-64, arm64 and riscv64 programs
#             (test/emulated.sh; skipped without qemu-user)
#   docs      every command block of the README and docs/ run as written, the
#             options of each pmu command in its --help, manual and the documents,
#             no version written by hand (test/docs.sh)
#   deb       the Debian packages built with dpkg-buildpackage, checked with
#             lintian (test/deb.sh; `make deb` keeps them)
#   fuzz      each fuzzer for a bounded time (test/fuzz/run.sh)
#   arm64     the suite in an arm64 kernel under QEMU (test/arm64/run.sh)
#   riscv64   the suite in a riscv64 kernel under QEMU (test/riscv64/run.sh);
#             where no kernel can be had, the simulated read path and the
#             parsers under qemu-user (which has no perf_event_open)
# TIERS="host asan" runs only those tiers (make check TIERS="host asan");
# SKIP_TIERS="arm64 fuzz" leaves tiers out (they then count as skipped).
# Each tier runs in a process of its own within TIER_TIMEOUT seconds (default
# 2400): one that does not finish fails, naming the limit and its last line.
# The tiers that stand for a user's flow (install, trixie, python, docs, deb) each start from a
# fresh tree of their own (test/lib.sh's fresh_tree), never from another tier's build.
cd "$(dirname "$0")/.." || exit 1
# Warnings fail every build of the tiers (a plain make only warns).
export WERROR=1
# The tiers' builds use every core (the Makefile builds in any order: the install tier checks it);
# a make -jN that runs this keeps its own jobserver.
case " ${MAKEFLAGS:-} " in
*-j*|*jobserver*) ;;
*) MAKEFLAGS="-j$(nproc 2>/dev/null || echo 2) ${MAKEFLAGS:-}" && export MAKEFLAGS ;;
esac
ALL_TIERS="builds host unprivileged security asan tsan valgrind install trixie abi python compat emulated docs deb fuzz arm64 riscv64"

# A tier's tests, from the manifest test/tiers.
marked() { sed -n "s/^$1: //p" test/tiers; }

tier() {
	name=$1
	case " $SKIP_TIERS " in *" $name "*)
		echo "$name: 0 passed, 0 failed, 1 skipped (left out by SKIP_TIERS)"
		ts=$((ts + 1))
		return ;;
	esac
	echo "== $name"
	t0=$(date +%s)
	TIER=$name timeout -k 30 "$limit" "$0" --tier "$name" 2>&1 | tee "$log"
	echo "# $name tier: $(($(date +%s) - t0)) s"
	line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped" "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "$name: 0 passed, 1 failed, 0 skipped (the tier did not finish within $limit s; its last line: $(grep -v '^ ' "$log" | tail -n 1 | cut -c1-120))"
		tf=$((tf + 1))
		return
	fi
	set -- $(echo "$line" | sed -E 's/^[a-z0-9]+: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/')
	tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3))
}

build() { make -s --no-print-directory "$@" >/dev/null || { echo "build failed: make $*"; return 1; }; }

host() { build tests && test/run.sh build/test; }
asan() { build O=build-asan SAN=asan tests build-asan/pmu && ASAN_OPTIONS=detect_leaks=1 test/run.sh build-asan/test; }
tsan() {
	t=$(marked tsan)
	build O=build-tsan SAN=tsan $(for x in $t; do echo build-tsan/test/$x; done) &&
		TESTS="$t" TSAN_OPTIONS=halt_on_error=1 test/run.sh build-tsan/test
}
vg() {
	if ! command -v valgrind >/dev/null; then
		echo "valgrind: 0 passed, 0 failed, 1 skipped (valgrind is not installed)"
		return
	fi
	build tests && TESTS="$(marked valgrind)" PMU_TEST_QUICK=1 test/run.sh build/test \
		valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
}
fuzz() {
	if [ -x test/fuzz/run.sh ]; then test/fuzz/run.sh
	else echo "fuzz: 0 passed, 0 failed, 1 skipped (no fuzzers)"; fi
}
riscv64() {
	if [ -x test/riscv64/run.sh ]; then
		test/riscv64/run.sh
		[ $? -ne 77 ] && return
		echo "# no riscv64 kernel tier here: the qemu-user subset instead"
	fi
	if ! command -v riscv64-linux-gnu-gcc >/dev/null || ! command -v qemu-riscv64-static >/dev/null; then
		echo "riscv64: 0 passed, 0 failed, 1 skipped (needs gcc-riscv64-linux-gnu and qemu-user-static)"
		return
	fi
	build O=build-riscv64 CC=riscv64-linux-gnu-gcc STATIC=1 tests &&
		TESTS="sim_math sim_page sim_stress event_parse event_encode event_format attr_size" PMU_TEST_QUICK=1 \
		test/run.sh build-riscv64/test qemu-riscv64-static
}
arm64() {
	if [ -x test/arm64/run.sh ]; then test/arm64/run.sh
	else echo "arm64: 0 passed, 0 failed, 1 skipped (no arm64 tier)"; fi
}

# One tier, in the process tier() started: its function, or its script.
if [ "$1" = --tier ]; then
	case $2 in
	host | asan | tsan | fuzz | riscv64 | arm64) $2 ;;
	valgrind) vg ;;
	*) exec test/$2.sh ;;
	esac
	exit
fi

for t in ${TIERS:-$ALL_TIERS}; do
	case " $ALL_TIERS " in *" $t "*) ;; *)
		echo "check: no tier $t (the tiers: $ALL_TIERS)"
		exit 2 ;;
	esac
done
limit=${TIER_TIMEOUT:-2400}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
tp=0 tf=0 ts=0
for t in ${TIERS:-$ALL_TIERS}; do
	tier "$t"
done
echo "$tp passed, $tf failed, $ts skipped"
[ $tf -eq 0 ]
