/*
 * For the side-by-side run of the real PAPI on a machine without a hardware
 * PMU (a VM): PAPI's perf_event component wants a core PMU from libpfm4 and
 * disables itself otherwise ("libpfm4 no default PMU found"), though the
 * perf:: software events it would count are there. Preloaded into the real
 * PAPI's run only, this presents libpfm4's perf PMU as the core PMU; PAPI's
 * own high-level code then runs and counts perf::TASK-CLOCK and the others.
 * libpfm4 is found as the next library in the lookup order, or, where a
 * dlopen() brought it in privately (RTLD_LOCAL: RTLD_NEXT cannot see it),
 * by its soname among the loaded libraries. Where neither reaches it, this
 * says so once and answers "no such PMU" (PFM_ERR_INVAL, which ends PAPI's
 * walk of the PMU numbers: PFM_ERR_NOTSUPP would have it walk forever), and
 * PAPI disables its component as without the stand-in.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <string.h>

typedef pfm_err_t (*info_fn)(pfm_pmu_t, pfm_pmu_info_t *);

static info_fn find_real(void)
{
	void *sym = dlsym(RTLD_NEXT, "pfm_get_pmu_info"), *h;

	if (!sym && (h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_NOLOAD))) {
		sym = dlsym(h, "pfm_get_pmu_info");
		dlclose(h);
	}
	if (!sym)
		fprintf(stderr, "pfm_core: libpfm4's pfm_get_pmu_info is not reachable from here: "
			"the stand-in refuses, and PAPI runs as without it\n");
	return (info_fn)sym;
}

pfm_err_t pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *info)
{
	static info_fn real;
	static int looked;
	pfm_err_t r;

	if (!looked) {
		real = find_real();
		looked = 1;
	}
	if (!real)
		return PFM_ERR_INVAL;
	r = real(pmu, info);
	if (r == PFM_SUCCESS && info->name && !strcmp(info->name, "perf"))
		info->type = PFM_PMU_TYPE_CORE;
	return r;
}
