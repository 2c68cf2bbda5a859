/* SPDX-License-Identifier: MIT */
/*
 * test/counters/emu_exact.c's checks on arm64's PMU under QEMU -icount shift=0: a
 * loop counts 2 an iteration exactly, as under qemu-aarch64 with
 * libpmu-qemu (the emulated tier); each prints its read paths' constants.
 */
#define EMU_EXACT_PMU 1
#include "../counters/emu_exact.c"
