/* SPDX-License-Identifier: MIT */
/*
 * Zero-code mode: this program only marks regions. With PMU_EVENTS in the
 * environment the library sets itself up before main() and writes the
 * report at exit (PMU_REPORT: a file name, .csv or .json for those formats,
 * or stderr, the default); without it the marks cost a failed call each.
 *   build: cc -pthread zero_code.c $(pkg-config --cflags --libs libpmu)
 *   run:   PMU_EVENTS=task-clock,page-faults PMU_REPORT=stderr ./zero_code
 * A program that does not use libpmu at all can still be measured as a
 * whole, by preloading the shared library:
 *   PMU_EVENTS=task-clock,page-faults LD_PRELOAD=libpmu.so.0 ls
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <pmu.h>

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++) {
		pmu_region_begin("alloc");
		volatile char *p = malloc(1 << 20);

		for (int k = 0; p && k < 1 << 20; k += 4096)
			p[k] = (char)i;
		free((void *)p);
		pmu_region_end("alloc");
	}
	return NULL;
}

int main(void)
{
	pthread_t th[2];

	if (!getenv("PMU_EVENTS"))
		fprintf(stderr, "zero_code: set PMU_EVENTS (e.g. task-clock,page-faults) to get a report\n");
	for (int t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, worker, NULL);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	return 0;
}
