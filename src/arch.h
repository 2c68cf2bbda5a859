/* SPDX-License-Identifier: MIT */
/*
 * One architecture file is picked here. Each provides PMU_ARCH_NAME and
 * pmu__arch_clock(), the clock behind the page's time_* fields; the counter
 * instruction, pmu__arch_rdpmc(idx) for the page's 1-based index, is the
 * inline read's (include/pmu/arch-*.h, picked by the same chain there).
 * -DPMU_ARCH_GENERIC forces the generic files.
 *
 * And its policy, each optional (defaults below):
 *  PMU_ARCH_RDPMC_FILE, _OFF, _MEANING(v)  a core PMU's sysfs file gating user reads, what 0 means
 *  PMU_ARCH_USER_SYSCTL, PMU_ARCH_USER_SYSCTL_MEANING(v)  the sysctl gating user reads
 *  PMU_ARCH_USER_SYSCTL_SINCE  what to say when that sysctl is absent (an older kernel)
 *  PMU_ARCH_LONG_PROBE_CONFIG  an event needing an event counter, to ask whether those are 64-bit
 *  PMU_ARCH_EVENT_BLOCKER(attr)  why an event is never read from user space here, or NULL
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

#include "pmu.h"
#define PMU_ARCH_USER_READ PMU_INL_USER_READ	/* 1 when counters can be read from user space */
#define pmu__arch_rdpmc pmu_inl_rdpmc

#ifndef PMU_ARCH_EVENT_BLOCKER
#define PMU_ARCH_EVENT_BLOCKER(a) ((void)(a), (const char *)0)
#endif

#endif
