/* SPDX-License-Identifier: MIT */
/*
 * One architecture file is picked here. Each provides PMU_ARCH_NAME,
 * PMU_ARCH_USER_READ (1 when it can read counters from user space),
 * pmu__arch_rdpmc(idx) for the page's 1-based index and pmu__arch_clock()
 * for the clock behind the page's time_* fields. -DPMU_ARCH_GENERIC forces
 * the generic file.
 */
#ifndef PMU_ARCH_H
#define PMU_ARCH_H

#if defined(PMU_ARCH_GENERIC)	/* forced, to test the read(2)-only build */
#include "arch/generic.h"
#elif defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__aarch64__)
#include "arch/aarch64.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "arch/riscv64.h"
#else
#include "arch/generic.h"
#endif

#endif
