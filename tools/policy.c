/* SPDX-License-Identifier: MIT */
/* pmu check's table of the system policy: the sysctls and files, and what their values mean on this architecture (arch.h). */
#include <stdio.h>

#include "layers.h"
#include "policy.h"


static const char *paranoid_meaning(long p)
{
	return p <= -1 ? "no restrictions" :
	       p == 0 ? "kernel and CPU-wide counting allowed, no raw tracepoints" :
	       p == 1 ? "kernel counting allowed for own tasks" :
	       p == 2 ? "user-space counting of own tasks only (:k needs CAP_PERFMON)" :
			"perf_event_open restricted to CAP_PERFMON (Debian's level 3+)";
}

int policy_list(void (*cb)(void *arg, const char *name, const char *value, const char *meaning), void *arg)
{
	char value[32];
	long v;
	int n = 1;

	if (pmu__sysctl("kernel.perf_event_paranoid", &v)) {
		snprintf(value, sizeof(value), "%ld", v);
		cb(arg, "kernel.perf_event_paranoid", value, paranoid_meaning(v));
	} else {
		cb(arg, "kernel.perf_event_paranoid", NULL, "not found (no perf events in this kernel?)");
	}
#ifdef PMU_ARCH_RDPMC_FILE
	struct pmu__desc d[PMU_MAX_PMUS];
	char name[PMU_PMU_NAME + 16], path[160];
	int nc = pmu__core_pmus(d);

	if (nc < 0) {
		/* never a silent gap: out of memory, or the core PMUs are malformed */
		cb(arg, PMU_ARCH_RDPMC_FILE, NULL, pmu_errmsg());
		n++;
	}
	for (int i = 0; i < nc; i++) {
		v = pmu__pmu_number(d[i].name, PMU_ARCH_RDPMC_FILE, path, sizeof(path));
		if (v >= 0) {
			snprintf(name, sizeof(name), "%.47s/%s", d[i].name, PMU_ARCH_RDPMC_FILE);
			snprintf(value, sizeof(value), "%ld", v);
			cb(arg, name, value, PMU_ARCH_RDPMC_MEANING(v));
			n++;
		}
		pmu__desc_free(&d[i]);
	}
#endif
#ifdef PMU_ARCH_USER_SYSCTL
	if (pmu__sysctl(PMU_ARCH_USER_SYSCTL, &v)) {
		snprintf(value, sizeof(value), "%ld", v);
		cb(arg, PMU_ARCH_USER_SYSCTL, value, PMU_ARCH_USER_SYSCTL_MEANING(v));
		n++;
	}
#ifdef PMU_ARCH_USER_SYSCTL_SINCE
	else {
		cb(arg, PMU_ARCH_USER_SYSCTL, NULL, "not in this kernel: " PMU_ARCH_USER_SYSCTL_SINCE);
		n++;
	}
#endif
#endif
	return n;
}
