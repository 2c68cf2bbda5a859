/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the arm64 live tests (test/arm64_*.c), over test/lib/guest.h's:
 * they run in the QEMU guest of test/arm64/run.sh; elsewhere they skip.
 */
#ifndef PMU_TEST_A64_H
#define PMU_TEST_A64_H

#include "guest.h"
#include "counters/arch.h"

#define A64_CYCLE_IDX 32	/* PMCCNTR_EL0 in the page's 1-based index */

/* Skips unless this is an arm64 Linux with an armv8 PMU in sysfs. */
static inline void a64_require(void)
{
#ifndef __aarch64__
	T_SKIP("not arm64 (an arm64 tier test; test/arm64/run.sh runs it under QEMU)");
#else
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		found |= !strncmp(e->d_name, "armv8_", 6);
	if (d)
		closedir(d);
	if (!found)
		T_SKIP("no armv8 PMU in /sys/bus/event_source/devices");
#endif
}

/*
 * Linux before 5.17 has no kernel.perf_user_access and gives tasks no access
 * to the counters: there the arm64 tests check the read(2) path on the same
 * counters (pmu_user_read() 0, index 0, values agreeing with read(2)).
 */
static inline bool a64_before_user_access(void)
{
	return access("/proc/sys/kernel/perf_user_access", F_OK) != 0;
}

/* Skips unless kernel.perf_user_access is 1, or the kernel predates it (see above). */
static inline void a64_require_user_access(void)
{
	long v = guest_user_access();

	if (v != 1 && !a64_before_user_access())
		T_SKIP("kernel.perf_user_access is %ld here (the user-space path needs 1; "
		       "arm64_nouser covers 0)", v);
}

/* The exact tests' start: an armv8 PMU read from user space, and QEMU's -icount, else a skip saying so. */
static inline void a64_require_icount(void)
{
	a64_require();
	a64_require_user_access();
	if (!guest_icount())
		T_SKIP("needs QEMU -icount shift=0 for exact counts (the *-icount configurations run it)");
}

/* The armv8 PMU's sysfs name (armv8_pmuv3, armv8_pmuv3_0, ...). */
static inline const char *a64_pmu_name(void)
{
	static char name[256];
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;

	name[0] = '\0';
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "armv8_", 6) && !name[0])
			snprintf(name, sizeof(name), "%s", e->d_name);
	if (d)
		closedir(d);
	return name;
}

/*
 * Counters of the PMU, cycle counter included, as the driver announced at
 * boot ("hw perfevents: enabled with armv8_pmuv3 PMU driver, 7 counters
 * available"); 0 when the log does not say.
 */
static inline int a64_counters(void)
{
	return guest_klog_number("PMU driver, ");
}

#endif
