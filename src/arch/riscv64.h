/* SPDX-License-Identifier: MIT */
/* riscv64: the clock behind the page's times is the time CSR; the counters are read by pmu/arch-riscv64.h. */
#include <stdint.h>

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
#define PMU_ARCH_EVENT_NO_USER_READ(a) ((a)->type == PERF_TYPE_RAW && (a)->config >> 63)
#define PMU_ARCH_EVENT_WHY \
	"an SBI firmware event (config bit 63), counted by firmware, not by a counter the task may read"

static inline __attribute__((always_inline)) uint64_t pmu__arch_clock(void)
{
	uint64_t v;

	__asm__ __volatile__("csrr %0, time" : "=r"(v));
	return v;
}
