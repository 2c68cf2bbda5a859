/* SPDX-License-Identifier: MIT */
/* riscv64: the page's index - 1 is the counter CSR number minus 0xc00 (cycle, time, instret, hpmcounter3..31). */
#include <stdint.h>

#define PMU_ARCH_NAME "riscv64"
#define PMU_ARCH_USER_READ 1

/*
 * Policy: the sysctl kernel.perf_user_access gates user reads (0 off, 1 for
 * tasks with a mapped event, 2 legacy: cycle, time and instret for every
 * task); when off the page shows cap_user_rdpmc 0. SBI firmware events
 * (raw config bit 63) are counted by firmware: their page's index names no
 * counter the task may read.
 */
#define PMU_ARCH_USER_SYSCTL "kernel.perf_user_access"
#define PMU_ARCH_USER_SYSCTL_MEANING(v) ((v) == 0 ? \
	"user-space reads off; sysctl kernel.perf_user_access=1 allows them" : \
	(v) == 2 ? "legacy mode: cycle, time and instret for every task; other events through read(2)" : \
	"user-space reads allowed for tasks with a mapped event")
#define PMU_ARCH_EVENT_BLOCKER(a) ((a)->type == PERF_TYPE_RAW && (a)->config >> 63 ? \
	"an SBI firmware event (config bit 63), counted by firmware, not by a counter the task may read" : NULL)

#define PMU_CSRR(csr) ({ uint64_t v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })
#define PMU_HPM(n) case n + 1: return PMU_CSRR(0xc00 + n)

static inline __attribute__((always_inline)) uint64_t pmu__arch_rdpmc(uint32_t idx)
{
	switch (idx) {
	PMU_HPM(0); PMU_HPM(1); PMU_HPM(2); PMU_HPM(3); PMU_HPM(4); PMU_HPM(5);
	PMU_HPM(6); PMU_HPM(7); PMU_HPM(8); PMU_HPM(9); PMU_HPM(10); PMU_HPM(11);
	PMU_HPM(12); PMU_HPM(13); PMU_HPM(14); PMU_HPM(15); PMU_HPM(16); PMU_HPM(17);
	PMU_HPM(18); PMU_HPM(19); PMU_HPM(20); PMU_HPM(21); PMU_HPM(22); PMU_HPM(23);
	PMU_HPM(24); PMU_HPM(25); PMU_HPM(26); PMU_HPM(27); PMU_HPM(28); PMU_HPM(29);
	PMU_HPM(30); PMU_HPM(31);
	default: return 0;
	}
}

static inline __attribute__((always_inline)) uint64_t pmu__arch_clock(void)
{
	return PMU_CSRR(time);
}
