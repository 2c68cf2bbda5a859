/* SPDX-License-Identifier: MIT */
/*
 * libpmu inline read, riscv64: the page's index - 1 is the counter CSR
 * number minus 0xc00 (cycle, time, instret, hpmcounter3..31). The CSR is an
 * immediate, hence a switch.
 */
#ifndef PMU_ARCH_RISCV64_H
#define PMU_ARCH_RISCV64_H

#include <stdint.h>

#define PMU_INL_ARCH riscv64	/* its name, which also picks the library's file for it (src/counters/arch/riscv64.h) */
#define PMU_INL_USER_READ 1

#define PMU_INL_CSRR(n) do { __asm__ __volatile__("csrr %0, %1" : "=r"(v) : "i"(0xc00 + (n))); } while (0)
#define PMU_INL_HPM(n) case (n) + 1: PMU_INL_CSRR(n); break

static inline __attribute__((always_inline)) uint64_t pmu_inl_rdpmc(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	PMU_INL_HPM(0); PMU_INL_HPM(1); PMU_INL_HPM(2); PMU_INL_HPM(3); PMU_INL_HPM(4); PMU_INL_HPM(5);
	PMU_INL_HPM(6); PMU_INL_HPM(7); PMU_INL_HPM(8); PMU_INL_HPM(9); PMU_INL_HPM(10); PMU_INL_HPM(11);
	PMU_INL_HPM(12); PMU_INL_HPM(13); PMU_INL_HPM(14); PMU_INL_HPM(15); PMU_INL_HPM(16); PMU_INL_HPM(17);
	PMU_INL_HPM(18); PMU_INL_HPM(19); PMU_INL_HPM(20); PMU_INL_HPM(21); PMU_INL_HPM(22); PMU_INL_HPM(23);
	PMU_INL_HPM(24); PMU_INL_HPM(25); PMU_INL_HPM(26); PMU_INL_HPM(27); PMU_INL_HPM(28); PMU_INL_HPM(29);
	PMU_INL_HPM(30); PMU_INL_HPM(31);
	default: break;
	}
	return v;
}

#undef PMU_INL_HPM
#undef PMU_INL_CSRR
#endif
