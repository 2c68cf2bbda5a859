/* SPDX-License-Identifier: MIT */
/* libpmu inline read, any other architecture: no user-space counter read; every read calls the library. */
#ifndef PMU_ARCH_GENERIC_H
#define PMU_ARCH_GENERIC_H

#include <stdint.h>

#define PMU_INL_ARCH generic	/* its name, which also picks the library's file for it (src/counters/arch/generic.h) */
#define PMU_INL_USER_READ 0

static inline uint64_t pmu_inl_rdpmc(uint32_t idx)
{
	(void)idx;
	return 0;
}

#endif
