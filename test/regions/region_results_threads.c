/* SPDX-License-Identifier: MIT */
/*
 * Snapshots taken while threads run regions: in each, every thread's calls
 * and spans agree with its min <= mean <= max, and the totals are the sums
 * of the threads of that same snapshot; calls never go back between
 * snapshots. At the end the calls are exact.
 */
#include <pthread.h>
#include <string.h>

#include "pmu.h"
#include "test.h"

#define NTHR 3

static long iters;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		CHECK(pmu_region_begin("work") == 0);
		CHECK(pmu_region_begin("inner") == 0);
		CHECK(pmu_region_end("inner") == 0);
		CHECK(pmu_region_end("work") == 0);
	}
	return NULL;
}

/* Checks one snapshot; returns the total calls of "work" (0 when not there yet). */
static uint64_t check_snapshot(void)
{
	struct pmu_results *r = pmu_results_take();
	struct pmu_region_result tot = { .size = sizeof(tot) }, t = { .size = sizeof(t) };
	uint64_t calls = 0, ns = 0, sum = 0;

	CHECK_MSG(r, "%s", pmu_errmsg());
	if (!r || pmu_results_regions(r, NULL) == 0 || pmu_results_get(r, 0, -1, &tot) != 0) {
		pmu_results_free(r);
		return 0;
	}
	for (unsigned k = 0; k < pmu_results_threads(r); k++) {
		if (pmu_results_get(r, 0, (int)k, &t) != 0)
			continue;
		CHECK(t.calls == t.spans);
		CHECK(t.ns_min <= t.ns / t.spans && t.ns / t.spans <= t.ns_max);
		CHECK(t.min[0] <= t.max[0]);
		calls += t.calls;
		ns += t.ns;
		sum += t.sum[0];
	}
	CHECK_EQ(tot.calls, calls);
	CHECK_EQ(tot.ns, ns);
	CHECK_EQ(tot.sum[0], sum);
	pmu_results_free(r);
	return calls;
}

int main(void)
{
	pthread_t th[NTHR];
	uint64_t last = 0, now;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	iters = t_scale(20000);
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	for (int i = 0; i < NTHR; i++)
		CHECK(pthread_create(&th[i], NULL, worker, NULL) == 0);
	for (int i = 0; i < 50; i++) {
		now = check_snapshot();
		CHECK(now >= last);
		last = now;
	}
	for (int i = 0; i < NTHR; i++)
		CHECK(pthread_join(th[i], NULL) == 0);
	CHECK_EQ(check_snapshot(), (uint64_t)NTHR * (uint64_t)iters);
	pmu_thread_fini();
	T_DONE();
}
