/* SPDX-License-Identifier: MIT */
/*
 * A region's total over threads: its min is the least of every thread's
 * mins and its max the greatest, whichever thread ran first. The first
 * thread (main) touches many pages a call, the second few, the third most:
 * the total's min comes from a later thread, its max from the last.
 */
#include <pthread.h>
#include <stdlib.h>

#include "pmu.h"
#include "test.h"

static long pages_of[3] = { 20, 3, 40 };

static void calls(long pages)
{
	for (int i = 0; i < 2; i++) {
		CHECK(pmu_region_begin("r") == 0);
		t_touch_pages(pages);
		CHECK(pmu_region_end("r") == 0);
	}
}

static void *worker(void *arg)
{
	calls(*(long *)arg);
	return NULL;
}

int main(void)
{
	struct pmu_region_result tot = { .size = sizeof(tot) };
	struct pmu_results *res;
	uint64_t min_pf = UINT64_MAX, max_pf = 0, min_ns = UINT64_MAX, max_ns = 0;
	const char *const *names;
	unsigned nthr;

	if (pmu_thread_init("page-faults") < 0)
		T_SKIP("page-faults does not open here: %s", pmu_errmsg());
	calls(pages_of[0]);
	for (int k = 1; k < 3; k++) {
		pthread_t t;

		CHECK(pthread_create(&t, NULL, worker, &pages_of[k]) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	}
	res = pmu_results_take();
	CHECK(res != NULL);
	if (!res)
		T_DONE();
	CHECK(pmu_results_regions(res, &names) == 1);
	nthr = pmu_results_threads(res);
	CHECK_EQ(nthr, 3u);
	for (unsigned k = 0; k < nthr; k++) {
		struct pmu_region_result t = { .size = sizeof(t) };

		CHECK(pmu_results_get(res, 0, (int)k, &t) == 0);
		min_pf = t.min[0] < min_pf ? t.min[0] : min_pf;
		max_pf = t.max[0] > max_pf ? t.max[0] : max_pf;
		min_ns = t.ns_min < min_ns ? t.ns_min : min_ns;
		max_ns = t.ns_max > max_ns ? t.ns_max : max_ns;
	}
	CHECK(pmu_results_get(res, 0, -1, &tot) == 0);
	CHECK_EQ(tot.calls, 6u);
	CHECK_EQ(tot.min[0], min_pf);
	CHECK_EQ(tot.max[0], max_pf);
	CHECK_EQ(tot.ns_min, min_ns);
	CHECK_EQ(tot.ns_max, max_ns);
	/* the pages touched, within the few faults of a thread's first call */
	CHECK_MSG(min_pf >= (uint64_t)pages_of[1] && min_pf < (uint64_t)pages_of[0], "min %llu",
		  (unsigned long long)min_pf);
	CHECK_MSG(max_pf >= (uint64_t)pages_of[2], "max %llu", (unsigned long long)max_pf);
	pmu_results_free(res);
	pmu_thread_fini();
	T_DONE();
}
