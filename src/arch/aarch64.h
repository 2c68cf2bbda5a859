/* SPDX-License-Identifier: MIT */
/*
 * arm64: index 32 is the cycle counter PMCCNTR_EL0, 33 the instruction
 * counter PMICNTR_EL0 (FEAT_PMUv3_ICNTR), 1..31 the event counters
 * PMEVCNTR<index-1>_EL0. The register is an immediate, hence a jump table;
 * the cycle counter, the most read, is tested first.
 */
#include <stdint.h>

#define PMU_ARCH_NAME "aarch64"
#define PMU_ARCH_USER_READ 1

/*
 * Policy: the sysctl kernel.perf_user_access (Linux 5.17+) gates user reads;
 * when 0 the page keeps cap_user_rdpmc but shows index 0. Where only the
 * cycle counter is 64-bit (Cortex-A72), a 64-bit event on an event counter
 * is refused: INST_RETIRED (0x08), which needs one, probes for it.
 */
#define PMU_ARCH_USER_SYSCTL "kernel.perf_user_access"
#define PMU_ARCH_USER_SYSCTL_SINCE "user-space reads on arm64 need Linux 5.17 or later"
#define PMU_ARCH_USER_SYSCTL_MEANING(v) ((v) == 0 ? \
	"user-space reads off; sysctl kernel.perf_user_access=1 allows them" : \
	"user-space reads allowed for tasks with a mapped event")
#define PMU_ARCH_LONG_PROBE_CONFIG 0x08

#define PMU_MRS(reg) ({ uint64_t v_; __asm__ volatile("mrs %0, " reg : "=r"(v_)); v_; })
/*
 * The other registers through a table of two-instruction entries (mrs, b),
 * indexed by idx & 63: one jump, no range check (entries past 33 read 0).
 * With BTI each entry starts with a landing pad.
 */
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define PMU_E(insn) "bti j\n\t" insn "\n\tb 2f\n\tnop\n\t"
#define PMU_ESHIFT "4"
#else
#define PMU_E(insn) insn "\n\tb 2f\n\t"
#define PMU_ESHIFT "3"
#endif
#define PMU_EV(n) PMU_E("mrs %[v], pmevcntr" #n "_el0")
#define PMU_ZERO PMU_E("mov %[v], xzr")
#define PMU_ZERO2 PMU_ZERO PMU_ZERO
#define PMU_ZERO6 PMU_ZERO2 PMU_ZERO2 PMU_ZERO2

static inline __attribute__((always_inline)) uint64_t pmu__arch_rdpmc(uint32_t idx)
{
	uint64_t v, t;

	if (__builtin_expect(idx == 32, 1))
		return PMU_MRS("pmccntr_el0");
	__asm__ volatile(
		"adr %[t], 1f\n\t"
		"add %[t], %[t], %[i], lsl #" PMU_ESHIFT "\n\t"
		"br %[t]\n"
		"1:\n\t"
		PMU_ZERO
		PMU_EV(0) PMU_EV(1) PMU_EV(2) PMU_EV(3) PMU_EV(4) PMU_EV(5) PMU_EV(6)
		PMU_EV(7) PMU_EV(8) PMU_EV(9) PMU_EV(10) PMU_EV(11) PMU_EV(12) PMU_EV(13)
		PMU_EV(14) PMU_EV(15) PMU_EV(16) PMU_EV(17) PMU_EV(18) PMU_EV(19) PMU_EV(20)
		PMU_EV(21) PMU_EV(22) PMU_EV(23) PMU_EV(24) PMU_EV(25) PMU_EV(26) PMU_EV(27)
		PMU_EV(28) PMU_EV(29) PMU_EV(30)
		PMU_E("mrs %[v], pmccntr_el0")
		PMU_E("mrs %[v], s3_3_c9_c4_0")		/* 33: PMICNTR_EL0 */
		PMU_ZERO6 PMU_ZERO6 PMU_ZERO6 PMU_ZERO6 PMU_ZERO6	/* 34..63 */
		"2:"
		: [v] "=r"(v), [t] "=&r"(t)
		: [i] "r"((uint64_t)(idx & 63)));
	return v;
}

static inline __attribute__((always_inline)) uint64_t pmu__arch_clock(void)
{
	return PMU_MRS("cntvct_el0");
}
