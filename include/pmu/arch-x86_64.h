/* SPDX-License-Identifier: MIT */
/* libpmu inline read, x86-64: rdpmc takes the page's index - 1 (the kernel sets bit 30 for fixed counters). */
#ifndef PMU_ARCH_X86_64_H
#define PMU_ARCH_X86_64_H

#include <stdint.h>

#define PMU_INL_ARCH x86_64	/* its name, which also picks the library's file for it (src/counters/arch/x86_64.h) */
#define PMU_INL_USER_READ 1

static inline __attribute__((always_inline)) uint64_t pmu_inl_rdpmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
	return (uint64_t)hi << 32 | lo;
}

#endif
