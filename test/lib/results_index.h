/* SPDX-License-Identifier: MIT */
/* The tests' lookup of a region in a snapshot by name. */
#ifndef PMU_TEST_RESULTS_INDEX_H
#define PMU_TEST_RESULTS_INDEX_H

#include <string.h>

#include "pmu.h"

/* Region name's number in snapshot r, or ~0u when it has none (pmu_results_get() then refuses it). */
static inline unsigned region_index(const struct pmu_results *r, const char *name)
{
	const char *const *names;
	unsigned n = pmu_results_regions(r, &names);

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return ~0u;
}

#endif
