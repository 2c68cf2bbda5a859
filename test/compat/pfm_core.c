/*
 * For the side-by-side run of the real PAPI on a machine without a hardware
 * PMU (a VM): PAPI's perf_event component wants a core PMU from libpfm4 and
 * disables itself otherwise ("libpfm4 no default PMU found"), though the
 * perf:: software events it would count are there. Preloaded into the real
 * PAPI's run only, this presents libpfm4's perf PMU as the core PMU; PAPI's
 * own high-level code then runs and counts perf::TASK-CLOCK and the others.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <perfmon/pfmlib.h>
#include <string.h>

pfm_err_t pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *info)
{
	static pfm_err_t (*real)(pfm_pmu_t, pfm_pmu_info_t *);
	pfm_err_t r;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pfm_get_pmu_info");
	if (!real)
		return PFM_ERR_NOTSUPP;
	r = real(pmu, info);
	if (r == PFM_SUCCESS && info->name && !strcmp(info->name, "perf"))
		info->type = PFM_PMU_TYPE_CORE;
	return r;
}
