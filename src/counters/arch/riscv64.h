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

	__asm__ volatile(".balign 8\n\tld %0, %1\n\tj 1f\n1:" : "=r"(v) : "m"(*p));
	return v;
}
#define PMU_ARCH_EMU_AFTER 1
