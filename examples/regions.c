/* SPDX-License-Identifier: MIT */
/*
 * Named regions over many calls in several threads, and the report:
 * per region, per thread and in total, with derived metrics (IPC, miss
 * ratios) when the events allow them.
 *   build: cc -pthread regions.c $(pkg-config --cflags --libs libpmu)
 *   run:   ./regions [table|csv|json] [EVENTS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmu.h>

#define THREADS 3

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	for (int round = 0; round < 50; round++) {
		size_t n = 20000;
		uint32_t *v;

		pmu_region_begin("round");
		pmu_region_begin("fill");
		v = malloc(n * sizeof(*v));
		for (size_t i = 0; v && i < n; i++)
			v[i] = (uint32_t)rand_r(&seed);
		pmu_region_end("fill");
		pmu_region_begin("sort");
		if (v)
			qsort(v, n, sizeof(*v), cmp);
		pmu_region_end("sort");
		free(v);
		pmu_region_end("round");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *format = argc > 1 ? argv[1] : "table";
	const char *events = argc > 2 ? argv[2] : NULL;
	pthread_t th[THREADS];

	/* Hardware events where the machine has a PMU, software events otherwise. */
	if (events ? pmu_thread_init(events) < 0
		   : pmu_thread_init("instructions,cycles,branches,branch-misses") < 0 &&
		     pmu_thread_init("task-clock,page-faults") < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		return 1;
	}
	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)(t + 1));
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	if (pmu_report(stdout, format) < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		return 1;
	}
	pmu_thread_fini();
	return 0;
}
