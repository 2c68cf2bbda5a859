/* SPDX-License-Identifier: MIT */
/*
 * libpmu inline read, arm64: index 32 is the cycle counter PMCCNTR_EL0, 33
 * the instruction counter PMICNTR_EL0 (FEAT_PMUv3_ICNTR), 1..31 the event
 * counters PMEVCNTR<index-1>_EL0. The register is an immediate, hence a
 * jump table: the same few instructions for every counter.
 */
#ifndef PMU_ARCH_AARCH64_H
#define PMU_ARCH_AARCH64_H

#include <stdint.h>

#define PMU_INL_ARCH aarch64	/* its name, which also picks the library's file for it (src/counters/arch/aarch64.h) */
#define PMU_INL_USER_READ 1

/*
 * The other registers through a table of two-instruction entries (mrs, b),
 * indexed by idx & 63: one jump, no range check (entries past 33 read 0).
 * With BTI each entry starts with a landing pad.
 */
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define PMU_INL_E(insn) "bti j\n\t" insn "\n\tb 2f\n\tnop\n\t"
#define PMU_INL_ESHIFT "4"
#else
#define PMU_INL_E(insn) insn "\n\tb 2f\n\t"
#define PMU_INL_ESHIFT "3"
#endif
#define PMU_INL_EV(n) PMU_INL_E("mrs %[v], pmevcntr" #n "_el0")
#define PMU_INL_ZERO PMU_INL_E("mov %[v], xzr")
#define PMU_INL_ZERO2 PMU_INL_ZERO PMU_INL_ZERO
#define PMU_INL_ZERO6 PMU_INL_ZERO2 PMU_INL_ZERO2 PMU_INL_ZERO2

/*
 * GCC sizes an asm by its lines, and would not inline a read with 64 of
 * them: "asm inline" (GCC 9) has it counted as the few that run.
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9
#define PMU_INL_ASM_INLINE __inline__
#else
#define PMU_INL_ASM_INLINE
#endif

static inline __attribute__((always_inline)) uint64_t pmu_inl_rdpmc(uint32_t idx)
{
	uint64_t v, t;

	__asm__ __volatile__ PMU_INL_ASM_INLINE(
		"adr %[t], 1f\n\t"
		"add %[t], %[t], %[i], lsl #" PMU_INL_ESHIFT "\n\t"
		"br %[t]\n"
		"1:\n\t"
		PMU_INL_ZERO
		PMU_INL_EV(0) PMU_INL_EV(1) PMU_INL_EV(2) PMU_INL_EV(3) PMU_INL_EV(4) PMU_INL_EV(5) PMU_INL_EV(6)
		PMU_INL_EV(7) PMU_INL_EV(8) PMU_INL_EV(9) PMU_INL_EV(10) PMU_INL_EV(11) PMU_INL_EV(12) PMU_INL_EV(13)
		PMU_INL_EV(14) PMU_INL_EV(15) PMU_INL_EV(16) PMU_INL_EV(17) PMU_INL_EV(18) PMU_INL_EV(19) PMU_INL_EV(20)
		PMU_INL_EV(21) PMU_INL_EV(22) PMU_INL_EV(23) PMU_INL_EV(24) PMU_INL_EV(25) PMU_INL_EV(26) PMU_INL_EV(27)
		PMU_INL_EV(28) PMU_INL_EV(29) PMU_INL_EV(30)
		PMU_INL_E("mrs %[v], pmccntr_el0")
		PMU_INL_E("mrs %[v], s3_3_c9_c4_0")		/* 33: PMICNTR_EL0 */
		PMU_INL_ZERO6 PMU_INL_ZERO6 PMU_INL_ZERO6 PMU_INL_ZERO6 PMU_INL_ZERO6	/* 34..63 */
		"2:"
		: [v] "=r"(v), [t] "=&r"(t)
		: [i] "r"((uint64_t)(idx & 63)));
	return v;
}

#undef PMU_INL_E
#undef PMU_INL_ESHIFT
#undef PMU_INL_EV
#undef PMU_INL_ZERO
#undef PMU_INL_ZERO2
#undef PMU_INL_ZERO6
#undef PMU_INL_ASM_INLINE
#endif
