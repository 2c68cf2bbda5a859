/* SPDX-License-Identifier: MIT */
/*
 * Long runs for make stress: OPENS pmu_open/pmu_read/pmu_close cycles and
 * THREADS threads created, read through the per-thread layer and joined, with
 * the descriptors, perf mappings and resident memory checked before and
 * after. Exits 1 when anything is left behind.
 *
 *   bench/stress [OPENS [THREADS]]   (default 1000 100, short enough for an
 *                                    emulated guest; make stress: 100000 10000)
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmu.h"
#include "../test/lib/fds.h"

#define RSS_SLACK_KB 1024	/* allocator and page-table noise, not a leak of one record per cycle */

static long grep_kb(const char *file, const char *key)
{
	char line[512];
	long v = -1;
	FILE *f = fopen(file, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key));
	if (f)
		fclose(f);
	return v;
}

static int perf_maps(void)
{
	char line[4096];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, "perf_event") != NULL;
	if (f)
		fclose(f);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int failed;

static void *reader(void *arg)
{
	uint64_t v[2];

	(void)arg;
	if (pmu_thread_read(v) != 0)
		__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int report(const char *what, long n, double t, int fds0, int fds1, int maps0, int maps1, long rss0, long rss1)
{
	int bad = fds1 != fds0 || maps1 != maps0 || rss1 - rss0 > RSS_SLACK_KB ||
		  __atomic_load_n(&failed, __ATOMIC_RELAXED);

	printf("%-8s %8ld cycles in %6.1f s: descriptors %d -> %d, perf mappings %d -> %d, RSS %ld -> %ld KiB, "
	       "%d failures: %s\n", what, n, t, fds0, fds1, maps0, maps1, rss0, rss1, failed, bad ? "FAIL" : "ok");
	return bad;
}

int main(int argc, char **argv)
{
	long opens = argc > 1 ? atol(argv[1]) : 1000, threads = argc > 2 ? atol(argv[2]) : 100;
	const char *events = "task-clock,page-faults,minor-faults";
	int fds0, maps0, bad = 0;
	long rss0;
	double t;

	/* warm up: lazy one-time state (libpfm4, stdio, the allocator's arenas) before measuring */
	for (int i = 0; i < 1000; i++) {
		struct pmu_set *s;
		uint64_t v[3];

		if (pmu_open(&s, events) != 0) {
			fprintf(stderr, "stress: %s\n", pmu_errmsg());
			return 1;
		}
		pmu_read(s, v);
		pmu_close(s);
	}
	fds0 = t_fd_count();
	maps0 = perf_maps();
	rss0 = grep_kb("/proc/self/status", "VmRSS:");
	t = now();
	for (long i = 0; i < opens; i++) {
		struct pmu_set *s;
		uint64_t v[3];

		if (pmu_open(&s, events) != 0 || pmu_read(s, v) != 0) {
			failed++;
			fprintf(stderr, "stress: cycle %ld: %s\n", i, pmu_errmsg());
			break;
		}
		pmu_close(s);
	}
	bad |= report("open", opens, now() - t, fds0, t_fd_count(), maps0, perf_maps(), rss0,
		      grep_kb("/proc/self/status", "VmRSS:"));

	if (pmu_thread_init("task-clock,page-faults") != 0) {
		fprintf(stderr, "stress: %s\n", pmu_errmsg());
		return 1;
	}
	for (int i = 0; i < 100; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, reader, NULL) == 0)
			pthread_join(th, NULL);
	}
	fds0 = t_fd_count();
	maps0 = perf_maps();
	rss0 = grep_kb("/proc/self/status", "VmRSS:");
	t = now();
	for (long i = 0; i < threads; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, reader, NULL) != 0) {
			failed++;
			break;
		}
		pthread_join(th, NULL);
	}
	bad |= report("thread", threads, now() - t, fds0, t_fd_count(), maps0, perf_maps(), rss0,
		      grep_kb("/proc/self/status", "VmRSS:"));
	pmu_thread_fini();
	return bad;
}
