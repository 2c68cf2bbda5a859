/* SPDX-License-Identifier: MIT */
/* arm64: the clock behind the page's times is the virtual counter; the counters are read by pmu/arch-aarch64.h. */
#include <stdint.h>

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

static inline __attribute__((always_inline)) uint64_t pmu__arch_clock(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
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

	__asm__ volatile(".balign 8\n\tldr %0, %1\n\tb 1f\n1:" : "=r"(v) : "m"(*p));
	return v;
}
#define PMU_ARCH_EMU_AFTER 1
