/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the riscv64 live tests (test/riscv64_*.c), over test/lib/guest.h's:
 * they run in the QEMU guest of test/riscv64/run.sh; elsewhere they skip.
 */
#ifndef PMU_TEST_RV64_H
#define PMU_TEST_RV64_H

#include "guest.h"
#include "counters/arch.h"

/* The page's index is 1 + the counter's CSR number - 0xc00: 1 cycle, 3 instret, 4.. hpmcounter3.. */
#define RV64_IDX_CYCLE 1
#define RV64_IDX_INSTRET 3
#define RV64_IDX_MAX 32

/* SBI firmware events: config bit 63 on PMU cpu (format "firmware"). */
#define RV64_FIRMWARE (1ull << 63)

/* Skips unless this is a riscv64 Linux whose SBI PMU driver registered PMU "cpu". */
static inline void rv64_require(void)
{
#if !(defined(__riscv) && __riscv_xlen == 64)
	T_SKIP("not riscv64 (a riscv64 tier test; test/riscv64/run.sh runs it under QEMU)");
#else
	if (access("/sys/bus/event_source/devices/cpu/format/firmware", F_OK))
		T_SKIP("no riscv-pmu-sbi PMU (cpu with a firmware term) in /sys/bus/event_source/devices");
#endif
}

/* Skips unless kernel.perf_user_access is 1. */
static inline void rv64_require_user_access(void)
{
	long v = guest_user_access();

	if (v != 1)
		T_SKIP("kernel.perf_user_access is %ld here (the user-space path needs 1; "
		       "riscv64_nouser covers 0, riscv64_legacy 2)", v);
}

/*
 * Hardware counters the SBI PMU offers, as the driver announced at boot
 * ("riscv-pmu-sbi: 16 firmware and 18 hardware counters"); 0 when the log
 * does not say.
 */
static inline int rv64_hw_counters(void)
{
	return guest_klog_number(" firmware and ");
}

#endif
