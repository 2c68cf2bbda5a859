/* SPDX-License-Identifier: MIT */
/*
 * pmu_thread_fini() forgets the region names with the figures: after it,
 * a program that set up again names its regions afresh (handles from 1
 * again), and its report shows only the new ones.
 */
#include <errno.h>

#include "report_capture.h"

/* Names n distinct regions "prefix0", "prefix1"...; the first failure's return. */
static int name_regions(const char *prefix, int n)
{
	char name[32];

	for (int i = 0; i < n; i++) {
		int r;

		snprintf(name, sizeof(name), "%s%d", prefix, i);
		if ((r = pmu_region_begin(name)) < 0)
			return r;
		if ((r = pmu_region_end(name)) < 0)
			return r;
	}
	return 0;
}

int main(void)
{
	char *buf;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	for (int round = 0; round < 2; round++) {
		CHECK_MSG(pmu_thread_init("task-clock") == 0, "%s", pmu_errmsg());
		CHECK_MSG(name_regions(round ? "new" : "old", 300) == 0, "round %d: %s", round, pmu_errmsg());
		CHECK_EQ(pmu_region_register(round ? "new0" : "old0"), 1);
		if (round)
			break;
		CHECK(pmu_thread_fini() == 0);
	}
	buf = t_report("csv");
	CHECK_MSG(strstr(buf, "\nnew299,total,") && !strstr(buf, "\nold"), "%s", buf);
	free(buf);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
