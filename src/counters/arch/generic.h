/* SPDX-License-Identifier: MIT */
/* Any other architecture: no user-space counter read; every read goes through read(2). */
#include <stdint.h>

static inline uint64_t pmu__arch_clock(void) { return 0; }

/* An emulated count, loaded plainly: exact to QEMU's translation block only (the three ISAs above end it). */
static inline uint64_t pmu__arch_emu_load(const uint64_t *p)
{
	return PMU_READ_ONCE(*p);
}
#define PMU_ARCH_EMU_AFTER 0
