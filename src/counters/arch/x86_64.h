/* SPDX-License-Identifier: MIT */
/* x86-64: the clock behind the page's times is the TSC; the counters are read by pmu/arch-x86_64.h. */
#include <stdint.h>

/* Policy: each core PMU's sysfs file rdpmc gates the instruction (0 off, 1 tasks with a mapped event, 2 all). */
#define PMU_ARCH_RDPMC_FILE "rdpmc"
#define PMU_ARCH_RDPMC_FILE_OFF "x86 rdpmc is disabled"
#define PMU_ARCH_RDPMC_MEANING(v) ((v) == 0 ? "rdpmc disabled; write 1 to allow user-space reads" : \
	(v) == 2 ? "rdpmc allowed everywhere" : "rdpmc allowed for tasks with a mapped event (what libpmu does)")

static inline __attribute__((always_inline)) uint64_t pmu__arch_clock(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/*
 * An emulated count (libpmu-qemu, counters/emulated.c): the load of the
 * count, then a jump that ends QEMU's translation block, whose instructions
 * the plugin adds as the block starts. The count loaded is then exact up to
 * the load, but for the jump: PMU_ARCH_EMU_AFTER instructions, taken off.
 * Aligned, so that the two never straddle a page (which could end the block
 * between them).
 */
static inline uint64_t pmu__arch_emu_load(const uint64_t *p)
{
	uint64_t v;

	__asm__ volatile(".balign 8\n\tmovq %1, %0\n\tjmp 1f\n1:" : "=r"(v) : "m"(*p));
	return v;
}
#define PMU_ARCH_EMU_AFTER 1
