#!/bin/bash
# The riscv64 tier: cross-builds the tests and benchmarks statically, packs
# them with busybox into an initramfs, and boots Debian trixie's riscv64 kernel
# under qemu-system-riscv64 (TCG, -cpu rv64,sscofpmf=true, OpenSBI 1.6 as
# firmware, whose SBI PMU the kernel's riscv-pmu-sbi driver uses) in a matrix
# of configurations. Every result line is prefixed with its configuration
# ("PASS 6.12-icount/riscv64_counters"); the last line is
# "riscv64: N passed, N failed, N skipped". Exit: 0 all passed, 1 a failure,
# 77 the tier cannot run here (the closing line says why).
# QEMU 7.2 hangs with -smp 2 and -icount together: every guest has one hart.
#
# usage: test/riscv64/run.sh [--bench] [-v] [-j N] [--list]
#   --bench   only boot the -icount configuration and print the benchmarks
#   -v        also show every test's own output (each test runs twice)
#   --list    print the configuration matrix and exit
# environment:
#   PMU_RISCV64_CACHE    download cache (default ~/.cache/libpmu-riscv64)
#   PMU_RISCV64_CONFIGS  names of the configurations to run (default: all)
#   PMU_RISCV64_TIMEOUT  seconds before a guest counts as hung (default per config)
#   O                    cross build directory (default build/riscv64)
set -u
cd "$(dirname "$0")/../.." || exit 1

# name kernel cpu icount perf_user_access tests bench timeout(s)
#   tests: all = the whole suite, riscv64 = test/riscv64/riscv64_*.c only
#   perf_user_access: 1 user reads of the event's counter, 0 none, 2 legacy
#   (cycle and instret readable by every task)
MATRIX="
6.12         6.12 rv64 0 1 all     0 400
6.12-icount  6.12 rv64 1 1 riscv64 1 420
6.12-nouser  6.12 rv64 0 0 riscv64 0 120
6.12-legacy  6.12 rv64 0 2 riscv64 0 120
"

tier=riscv64 TIER=RISCV64 cross=riscv64-linux-gnu
qemu=qemu-system-riscv64 console=ttyS0
pmu_config='sbi_pmu=1' pmu_name="riscv-pmu-sbi PMU"
# Without sscofpmf the kernel cannot exclude the kernel: user-only events fail with EINVAL.
qemu_cpu() { [ "$1" = rv64 ] && echo rv64,sscofpmf=true || echo "$1"; }
# OpenSBI 1.6: QEMU's own 1.1 never schedules cycles or instret in legacy mode (2).
qemu_args() { echo "-bios $cache/fw_dynamic.bin"; }
. test/qemu/tier.sh
