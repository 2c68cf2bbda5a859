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
#   --bench   only boot the -icount configurations with user access and print the benchmarks
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
#   tests: all = the whole suite, arm64 = test/arm64/arm64_*.c only, or a comma list of tests
#   (a name ending in -smp2 boots two CPUs)
#   perf_user_access "-": the kernel has none (before 5.17: no user access,
#   the arm64 tests check the read(2) path on the real counters)
MATRIX="
6.12-max     6.12 max        0 1 all   0 300
6.12-smp2    6.12 max        0 1 region_snapshot,region_threads,region_results_threads 0 180
6.1-max      6.1  max        0 1 all   0 300
6.12-a72     6.12 cortex-a72 0 1 arm64 0 120
6.1-a72      6.1  cortex-a72 0 1 arm64 0 120
6.12-icount  6.12 max        1 1 arm64 1 360
6.1-icount   6.1  max        1 1 arm64 0 180
6.12-nouser  6.12 max        0 0 arm64 0 120
6.1-nouser   6.1  max        0 0 arm64 0 120
5.10-max     5.10 max        0 - all   0 300
5.10-icount  5.10 max        1 - arm64 0 180
"

tier=arm64 TIER=ARM64 cross=aarch64-linux-gnu
qemu=qemu-system-aarch64 console=ttyAMA0
qemu_args() { :; }
pmu_config='pmus=.*armv8_' pmu_name="armv8 PMU"
qemu_cpu() { [ "$1" = max ] && echo max,pauth-impdef=on || echo "$1"; }
. test/qemu/tier.sh
