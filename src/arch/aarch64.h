/* SPDX-License-Identifier: MIT */
/*
 * arm64: index 32 is the cycle counter PMCCNTR_EL0, 33 the instruction
 * counter PMICNTR_EL0 (FEAT_PMUv3_ICNTR), 1..31 the event counters
 * PMEVCNTR<index-1>_EL0. The register is an immediate, hence the switch;
 * the cycle counter, the most read, is tested first.
 */
#include <stdint.h>

#define PMU_ARCH_NAME "aarch64"
#define PMU_ARCH_USER_READ 1

#define PMU_MRS(reg) ({ uint64_t v_; __asm__ volatile("mrs %0, " reg : "=r"(v_)); v_; })
#define PMU_EVCNT(n) case n + 1: return PMU_MRS("pmevcntr" #n "_el0")
#define PMU_NONE4(n) case n: case n + 1: case n + 2: case n + 3: return 0

static inline __attribute__((always_inline)) uint64_t pmu__arch_rdpmc(uint32_t idx)
{
	if (__builtin_expect(idx == 32, 1))
		return PMU_MRS("pmccntr_el0");
	/* Every value of idx & 63 has a case: no range check before the jump. */
	switch (idx & 63) {
	PMU_EVCNT(0); PMU_EVCNT(1); PMU_EVCNT(2); PMU_EVCNT(3); PMU_EVCNT(4);
	PMU_EVCNT(5); PMU_EVCNT(6); PMU_EVCNT(7); PMU_EVCNT(8); PMU_EVCNT(9);
	PMU_EVCNT(10); PMU_EVCNT(11); PMU_EVCNT(12); PMU_EVCNT(13); PMU_EVCNT(14);
	PMU_EVCNT(15); PMU_EVCNT(16); PMU_EVCNT(17); PMU_EVCNT(18); PMU_EVCNT(19);
	PMU_EVCNT(20); PMU_EVCNT(21); PMU_EVCNT(22); PMU_EVCNT(23); PMU_EVCNT(24);
	PMU_EVCNT(25); PMU_EVCNT(26); PMU_EVCNT(27); PMU_EVCNT(28); PMU_EVCNT(29);
	PMU_EVCNT(30);
	case 32: return PMU_MRS("pmccntr_el0");
	case 33: return PMU_MRS("s3_3_c9_c4_0");	/* PMICNTR_EL0 */
	case 0: case 34: case 35: PMU_NONE4(36); PMU_NONE4(40); PMU_NONE4(44); PMU_NONE4(48);
	PMU_NONE4(52); PMU_NONE4(56); PMU_NONE4(60);
	}
	return 0;	/* not reached: every value has a case */
}

static inline __attribute__((always_inline)) uint64_t pmu__arch_clock(void)
{
	return PMU_MRS("cntvct_el0");
}
