/* SPDX-License-Identifier: MIT */
/*
 * Many threads: each reads its own counters, 1,000 threads started and
 * joined leave no descriptor and no mapping behind, threads that never read
 * open nothing.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

static long ps;
static int failed;	/* atomic */

/* Touches pages[k] new pages between two reads: the difference is this thread's. */
static void *toucher(void *arg)
{
	long pages = (long)(intptr_t)arg;
	uint64_t a[2], b[2];
	char *m;

	if (pmu_thread_read(a) != 0) {
		__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	m = mmap(NULL, (size_t)(pages * ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; m != MAP_FAILED && i < pages; i++)
		m[i * ps] = 1;
#ifdef T_SANITIZED
	long most = pages * 8;	/* the sanitizer's shadow memory faults too */
#else
	long most = pages + pages / 2 + 50;
#endif
	if (pmu_thread_read(b) != 0 || m == MAP_FAILED || b[1] - a[1] < (uint64_t)pages ||
	    b[1] - a[1] > (uint64_t)most) {
		fprintf(stderr, "thread with %ld pages: page-faults %" PRIu64 "\n", pages, b[1] - a[1]);
		__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
	}
	if (m != MAP_FAILED)
		munmap(m, (size_t)(pages * ps));
	return NULL;
}

static void *reader(void *arg)
{
	uint64_t v[2];

	(void)arg;
	if (pmu_thread_read(v) != 0 || pmu_thread_read(v) != 0)
		__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
	return NULL;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate);
	pthread_mutex_unlock(&gate);
	return NULL;
}

/* n threads at a time, rounds times, each reading twice. */
static void rounds(int rounds, int n)
{
	pthread_t th[16];

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++)
			CHECK(pthread_create(&th[i], NULL, reader, NULL) == 0);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
	}
}

int main(void)
{
	pthread_t th[8];
	int fds, maps, n = (int)t_scale(1000);

	ps = sysconf(_SC_PAGESIZE);
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());

	/* 8 threads at once, each sees its own page faults only. */
	for (int i = 0; i < 8; i++)
		CHECK(pthread_create(&th[i], NULL, toucher, (void *)(intptr_t)(t_scale(400) * (i + 1))) == 0);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(__atomic_load_n(&failed, __ATOMIC_RELAXED), 0);

	/* Warm up (the C library caches thread stacks), then count; one malloc arena, whose
	 * number would otherwise grow with contention. */
	mallopt(M_ARENA_MAX, 1);
	rounds(4, 16);
	fds = t_fd_count();
	maps = t_map_count();
	rounds(n / 16, 16);
	CHECK_EQ(__atomic_load_n(&failed, __ATOMIC_RELAXED), 0);
	CHECK_MSG(t_fd_count() == fds, "fds %d -> %d", fds, t_fd_count());
	/* Under valgrind the mappings are its own: there only the fd count tells. */
	const char *pre = getenv("LD_PRELOAD");
	if (!pre || !strstr(pre, "valgrind"))
		CHECK_MSG(t_map_count() == maps, "maps %d -> %d", maps, t_map_count());

	/* Threads that never read open nothing. */
	pthread_mutex_lock(&gate);
	for (int i = 0; i < 8; i++)
		CHECK(pthread_create(&th[i], NULL, idle, NULL) == 0);
	CHECK(t_fd_count() == fds);
	pthread_mutex_unlock(&gate);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);

	/* The main thread's set goes with pmu_thread_fini(). */
	uint64_t v[2];
	int before = t_fd_count();
	CHECK(pmu_thread_read(v) == 0);
	CHECK(t_fd_count() > before);
	CHECK(pmu_thread_fini() == 0);
	CHECK(t_fd_count() == before);
	T_DONE();
}
