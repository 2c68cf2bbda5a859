/* SPDX-License-Identifier: MIT */
/*
 * A report cannot starve: a thread loops over 200 regions (by handle, as fast
 * as the read path allows: mrs in the arm64 guest, read(2) here) while this
 * one takes snapshots. Each snapshot ends (after a few lock-free tries the
 * writer is held still at its next call) and is of one instant: the writer
 * goes round the regions from the last to the first (against the order a
 * copy reads them in), so region i never has more calls than region i + 1,
 * nor the last more than one more than the first. The worst time a snapshot
 * took is printed, never compared.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "pmu.h"
#include "test.h"

#define NREG 200

static int h[NREG];
static atomic_int stop, started;

static void *writer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		for (int i = NREG - 1; i >= 0; i--) {
			CHECK(pmu_region_enter(h[i]) == 0);
			CHECK(pmu_region_exit(h[i]) == 0);
			atomic_store_explicit(&started, 1, memory_order_relaxed);
		}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One snapshot: its calls per region for the writer's thread, checked to be of one instant. */
static void snapshot(double *worst)
{
	double t0 = now(), dt;
	struct pmu_results *res = pmu_results_take();
	uint64_t calls[NREG] = { 0 };
	const char *const *names;
	unsigned nreg;

	dt = now() - t0;
	*worst = dt > *worst ? dt : *worst;
	CHECK_MSG(res != NULL, "%s", pmu_errmsg());
	if (!res)
		return;
	nreg = pmu_results_regions(res, &names);
	CHECK_EQ(nreg, (unsigned)NREG);
	for (unsigned i = 0; i < nreg && i < NREG; i++) {
		struct pmu_region_result r = { .size = sizeof(r) };

		if (pmu_results_get(res, i, -1, &r) == 0)
			calls[i] = r.calls;
	}
	for (int i = 0; i + 1 < NREG; i++)
		CHECK_MSG(calls[i] <= calls[i + 1] && calls[i + 1] <= calls[0] + 1,
			  "not one instant: %s %llu, %s %llu, first %llu", names[i], (unsigned long long)calls[i],
			  names[i + 1], (unsigned long long)calls[i + 1], (unsigned long long)calls[0]);
	pmu_results_free(res);
}

int main(void)
{
	int n = (int)t_scale(200);
	double worst = 0;
	pthread_t t;

	/* the writer on the user-space path where there is one */
	if (pmu_thread_init("cycles") < 0 && pmu_thread_init("task-clock") < 0)
		T_SKIP("neither cycles nor task-clock opens here: %s", pmu_errmsg());
	for (int i = 0; i < NREG; i++) {
		char name[16];

		snprintf(name, sizeof(name), "r%03d", i);
		h[i] = pmu_region_register(name);
		CHECK(h[i] >= 0);
	}
	CHECK(pthread_create(&t, NULL, writer, NULL) == 0);
	while (!atomic_load(&started))
		sched_yield();
	for (int k = 0; k < n && !t_failures; k++)
		snapshot(&worst);
	atomic_store(&stop, 1);
	CHECK(pthread_join(t, NULL) == 0);
	printf("# %d snapshots of %d regions against a thread looping over them (%s): worst %.3f ms\n", n, NREG,
	       pmu_thread_event_name(0), worst * 1e3);
	pmu_thread_fini();
	T_DONE();
}
