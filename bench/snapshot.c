/* SPDX-License-Identifier: MIT */
/*
 * What a report taken while threads count costs them: 2 threads run region
 * pairs by handle for a second, each pair timed; once alone, once with a
 * third thread writing pmu_report() to /dev/null without pause. Prints, per
 * run, the pairs done and the pair's median, 99.9th percentile and longest
 * time in ns (a pair's time includes whatever the scheduler did: on a loaded
 * machine the longest is the machine's, not libpmu's).
 *   bench/snapshot [SECONDS] [EVENTS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmu.h>

#define MAXN 4000000

static volatile int stop;
static double secs = 1.0;

static uint64_t now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

struct hot {
	uint32_t *ns;
	size_t n;
};

static void *hot(void *arg)
{
	struct hot *h = arg;
	int r = pmu_region_register("hot");

	while (!stop && h->n < MAXN) {
		uint64_t t0 = now();

		pmu_region_enter(r);
		pmu_region_exit(r);
		h->ns[h->n++] = (uint32_t)(now() - t0);
	}
	return NULL;
}

static void *reporter(void *arg)
{
	FILE *f = fopen("/dev/null", "w");
	long *n = arg;

	while (f && !stop) {
		pmu_report(f, "json");
		++*n;
	}
	if (f)
		fclose(f);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void run(int with_reports)
{
	struct hot h[2];
	pthread_t t[3];
	long reports = 0;
	size_t n = 0;
	uint32_t *all;
	struct timespec d = { (time_t)secs, (long)((secs - (long)secs) * 1e9) };

	stop = 0;
	for (int i = 0; i < 2; i++) {
		h[i] = (struct hot){ malloc(MAXN * sizeof(uint32_t)), 0 };
		pthread_create(&t[i], NULL, hot, &h[i]);
	}
	if (with_reports)
		pthread_create(&t[2], NULL, reporter, &reports);
	nanosleep(&d, NULL);
	stop = 1;
	for (int i = 0; i < 2 + with_reports; i++)
		pthread_join(t[i], NULL);
	all = malloc(2 * MAXN * sizeof(uint32_t));
	for (int i = 0; i < 2; i++) {
		memcpy(all + n, h[i].ns, h[i].n * sizeof(uint32_t));
		n += h[i].n;
		free(h[i].ns);
	}
	qsort(all, n, sizeof(*all), cmp);
	printf("%-28s %10zu %8u %10u %10u %8ld\n", with_reports ? "2 hot threads + reports" : "2 hot threads alone", n,
	       all[n / 2], all[n - 1 - n / 1000], all[n - 1], reports);
	free(all);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		secs = atof(argv[1]);
	if (pmu_thread_init(argc > 2 ? argv[2] : "task-clock") < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		return 1;
	}
	printf("%-28s %10s %8s %10s %10s %8s\n", "run", "pairs", "p50 ns", "p99.9 ns", "max ns", "reports");
	run(0);
	run(1);
	pmu_thread_fini();
	return 0;
}
