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
