/* SPDX-License-Identifier: MIT */
/*
 * What a forked child pays for its parent's history: the parent churns N
 * threads (each begins its counters with one region pair, then exits; 64
 * alive at a time), then forks 9 times; each child makes one region pair
 * and exits. Printed per N: the median ns from fork() in the parent to the
 * end of the child's first pair (the fork itself, the library's child
 * handler, the pair), and the parent's RSS; and the churn's time per
 * thread beside as many threads that never call libpmu (a thread's first
 * use and exit). Figures only, never compared.
 *   bench/fork [N...]   (default 10 100 1000 10000)
 */
#include <pmu.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FORKS 9

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *one_pair(void *arg)
{
	if (arg)	/* a thread that never calls libpmu: the churn's own cost */
		return NULL;
	pmu_region_begin("churn");
	pmu_region_end("churn");
	return NULL;
}

/* n threads (plain: without a region pair), at most 64 alive at once. */
static int churn(long n, void *plain)
{
	pthread_t t[64];

	for (long done = 0; done < n;) {
		int k = n - done < 64 ? (int)(n - done) : 64;

		for (int i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, one_pair, plain))
				return -1;
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		done += k;
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* ns from fork() to the end of the child's first region pair. */
static uint64_t fork_once(void)
{
	int p[2];
	uint64_t t0, t1 = 0;
	pid_t pid;

	if (pipe(p))
		return 0;
	t0 = now();
	pid = fork();
	if (pid == 0) {
		pmu_region_begin("child");
		pmu_region_end("child");
		t1 = now();
		_exit(write(p[1], &t1, sizeof(t1)) != sizeof(t1));
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &t1, sizeof(t1)) != sizeof(t1))
		t1 = t0;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return t1 - t0;
}

int main(int argc, char **argv)
{
	static const long dflt[] = { 10, 100, 1000, 10000 };
	long total = 0;

	if (pmu_thread_init("task-clock") < 0) {
		fprintf(stderr, "task-clock: %s\n", pmu_errmsg());
		return 1;
	}
	printf("fork after N threads churned (each one region pair, then gone): ns from fork() to the child's "
	       "first pair, median of %d\n", FORKS);
	for (int a = 0; a < (argc > 1 ? argc - 1 : 4); a++) {
		long n = argc > 1 ? atol(argv[a + 1]) : dflt[a];
		uint64_t ns[FORKS], t0, t1, t2;
		struct rusage ru;

		t0 = now();
		if (n < total || churn(n - total, NULL) < 0)
			return 1;
		t1 = now();
		churn(n - total, "plain");
		t2 = now();
		if (n > total)	/* a thread's first use of libpmu (its counters, its records) and its exit (the fold) */
			printf("  %6ld threads: %.1f us a thread with one region pair, %.1f us without: +%.1f us\n",
			       n - total, (double)(t1 - t0) / 1e3 / (double)(n - total),
			       (double)(t2 - t1) / 1e3 / (double)(n - total), ((double)(t1 - t0) - (double)(t2 - t1)) /
			       1e3 / (double)(n - total));
		total = n;
		for (int f = 0; f < FORKS; f++)
			ns[f] = fork_once();
		qsort(ns, FORKS, sizeof(ns[0]), cmp);
		getrusage(RUSAGE_SELF, &ru);
		printf("  %6ld threads churned: %9llu ns   (parent's max RSS %ld MB)\n", n,
		       (unsigned long long)ns[FORKS / 2], ru.ru_maxrss / 1024);
	}
	return 0;
}
