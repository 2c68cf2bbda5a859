/* SPDX-License-Identifier: MIT */
/*
 * The table of emulated counts: libpmu-qemu (emulation/qemu.c), a plugin of
 * QEMU's user-mode emulation, or libpmu-valgrind (emulation/valgrind/tool.c),
 * a Valgrind tool, keeps it in a memfd for the program it runs;
 * the library reads it there (counters/emulated.c), and pmu stat --emulate
 * (the launcher, which makes the first one) reads the whole run's total.
 *
 * One slot per vCPU, which user-mode QEMU gives each thread (or per
 * Valgrind thread): the instructions of the thread, added as each block starts,
 * written by that thread alone. A thread that ends adds its count to ended,
 * in its own process's table and in the launcher's, which a forked child
 * keeps mapped beside its own. Fixed-size little-endian fields: one layout
 * for a guest of x86-64, arm64 or riscv64 on any of them.
 */
#ifndef PMU_EMU_TABLE_H
#define PMU_EMU_TABLE_H

#include <stdint.h>

#include "base/atomic.h"

#define PMU_EMU_MAGIC 0x31554d45554d50ull	/* "PMUEMU1" */
#define PMU_EMU_SLOTS 1024			/* threads alive at once that are counted */
#define PMU_EMU_FD_VAR "PMU_EMULATED_FD"	/* the guest's environment: the table's descriptor */

struct pmu__emu_slot {
	uint64_t count;		/* the thread's instructions, its current block's whole */
	int32_t tid;		/* the thread, set by its first block; 0: none yet */
	uint32_t pad[13];	/* a cache line each: threads write their own */
};

struct pmu__emu_table {
	uint64_t magic;		/* PMU_EMU_MAGIC */
	uint32_t size;		/* sizeof(struct pmu__emu_table) */
	uint32_t nslots;	/* PMU_EMU_SLOTS */
	int32_t pid;		/* the process the table is for (0: the launcher's, before QEMU runs) */
	uint32_t api;		/* QEMU's plugin API version the plugin runs with */
	uint64_t ended;		/* instructions of the threads that ended (the launcher's: of every process) */
	char target[24];	/* QEMU's target: "x86_64", "aarch64", "riscv64" */
	char version[40];	/* the backend's version, as the launcher found it ("7.2.22"); "" when unknown */
	char backend[16];	/* "qemu" or "valgrind": what counts, as the launcher chose it */
	uint8_t pad[16];
	struct pmu__emu_slot slot[PMU_EMU_SLOTS];
};

_Static_assert(sizeof(struct pmu__emu_slot) == 64, "a slot is a cache line");
_Static_assert(sizeof(struct pmu__emu_table) == 128 + 64 * PMU_EMU_SLOTS, "the table's layout is fixed");

/* The live threads' instructions in t: every slot's count, each written by its own thread. */
static inline uint64_t pmu__emu_live(const struct pmu__emu_table *t)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < PMU_EMU_SLOTS; i++)
		n += PMU_READ_ONCE(t->slot[i].count);
	return n;
}

#endif
