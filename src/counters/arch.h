/* SPDX-License-Identifier: MIT */
/*
 * The library's hooks for the architecture the installed inline read picked
 * (pmu/inline.h, the one place that chooses, -DPMU_ARCH_GENERIC included):
 * src/counters/arch/PMU_INL_ARCH.h. Each provides pmu__arch_clock(), the clock behind
 * the page's time_* fields; the counter instruction is the inline read's
 * pmu_inl_rdpmc(idx), and PMU_INL_USER_READ says whether there is one.
 *
 * And its policy, each optional (defaults below):
 *  PMU_ARCH_RDPMC_FILE, _OFF, _MEANING(v)  a core PMU's sysfs file gating user reads, what 0 means
 *  PMU_ARCH_USER_SYSCTL, PMU_ARCH_USER_SYSCTL_MEANING(v)  the sysctl gating user reads
 *  PMU_ARCH_USER_SYSCTL_SINCE  what to say when that sysctl is absent (an older kernel)
 *  PMU_ARCH_LONG_PROBE_CONFIG  an event needing an event counter, to ask whether those are 64-bit
 *  PMU_ARCH_EVENT_NO_USER_READ(attr)  an event of a hardware PMU that is never read from user
 *                                     space here; PMU_ARCH_EVENT_WHY says why
 */
#ifndef PMU_ARCH_H
#define PMU_ARCH_H

#include "pmu.h"
#include "base/atomic.h"

#define PMU_ARCH_STR_(x) #x
#define PMU_ARCH_STR(x) PMU_ARCH_STR_(x)
#include PMU_ARCH_STR(counters/arch/PMU_INL_ARCH.h)

/* "x86_64", "aarch64", "riscv64", "generic": for messages. */
#define PMU_ARCH_NAME PMU_ARCH_STR(PMU_INL_ARCH)

#ifndef PMU_ARCH_EVENT_NO_USER_READ
#define PMU_ARCH_EVENT_NO_USER_READ(a) ((void)(a), 0)
#define PMU_ARCH_EVENT_WHY NULL
#endif

#endif
