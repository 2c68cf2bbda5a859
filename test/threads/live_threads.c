/* SPDX-License-Identifier: MIT */
/* 8 threads each count only themselves. */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

#define NTHREADS 8

static pthread_barrier_t start;
static uint64_t counted[NTHREADS];
static int status[NTHREADS];

static void *worker(void *arg)
{
	long k = (long)arg;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), n = 64 * (size_t)(k + 1);
	struct pmu_set *s;
	uint64_t a = 0, b = 0;

	status[k] = pmu_open(&s, "page-faults");
	pthread_barrier_wait(&start);	/* everyone counts at the same time */
	if (status[k])
		return NULL;
	status[k] = pmu_read(s, &a);
	volatile char *p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		madvise((void *)p, n * ps, MADV_NOHUGEPAGE);	/* one fault per page, whatever the THP mode */
		for (size_t i = 0; i < n; i++)
			p[i * ps] = 1;
		munmap((void *)p, n * ps);
	}
	if (!status[k])
		status[k] = pmu_read(s, &b);
	counted[k] = b - a;
	pmu_close(s);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	double per_page;

	/* Faults per touched page alone (sanitizers add their own faults), from one thread. */
	pthread_barrier_init(&start, NULL, 1);
	worker((void *)(NTHREADS - 1));
	pthread_barrier_destroy(&start);
	CHECK_MSG(status[NTHREADS - 1] == 0, "calibration: %s", pmu_errmsg());
	per_page = (double)counted[NTHREADS - 1] / (64.0 * NTHREADS);
	CHECK(per_page >= 1.0);

	pthread_barrier_init(&start, NULL, NTHREADS);
	for (long k = 0; k < NTHREADS; k++)
		CHECK(pthread_create(&t[k], NULL, worker, (void *)k) == 0);
	for (int k = 0; k < NTHREADS; k++)
		pthread_join(t[k], NULL);
	for (int k = 0; k < NTHREADS; k++) {
		uint64_t n = 64 * (uint64_t)(k + 1);

		CHECK_MSG(status[k] == 0, "thread %d: %d", k, status[k]);
		/* Its own faults, none of the 7 others' (which total far more than the slack). */
		CHECK_MSG(counted[k] >= n && counted[k] <= n * per_page * 1.2 + 48, "thread %d touched %"
			  PRIu64 " pages, counted %" PRIu64 " (%.2f faults per page alone)", k, n,
			  counted[k], per_page);
	}
	pthread_barrier_destroy(&start);
	T_DONE();
}
