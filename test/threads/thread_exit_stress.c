/* SPDX-License-Identifier: MIT */
/*
 * Threads that exit while others exit, report and fork: the lists of records that threads share
 * stay consistent. Run by the tsan tier, which fails on any data race, and by the host tier, which
 * checks the counts: every call of every thread is in the results.
 *   exits_inside  16 threads at a time read their set inside a region and pthread_exit() there
 *   report        the same, while another thread takes results and writes reports
 *   fork          the same, while another thread forks (the child checks its own fresh count)
 * The fork round is not run under ASan: GCC 12's libasan takes no allocator lock at fork, so a
 * child forked while another thread allocates can wait forever on that lock in its first malloc
 * (google/sanitizers#1814; seen here, 1 run in 30). The host, tsan and valgrind tiers run it.
 */
#include <pmu.h>
#include <pthread.h>
#include <sys/wait.h>

#include "test.h"

#define THREADS 16
#define ROUNDS 12

static int stop;
#define STOP() __atomic_load_n(&stop, __ATOMIC_ACQUIRE)
#define SET_STOP(v) __atomic_store_n(&stop, v, __ATOMIC_RELEASE)

static void *inside(void *arg)
{
	uint64_t v[1];

	(void)arg;
	pmu_region_begin("outer");
	pmu_region_begin("inside");
	if (pmu_thread_read(v) != 0)
		fprintf(stderr, "pmu_thread_read: %s\n", pmu_errmsg());
	pmu_region_end("inside");
	pthread_exit(NULL);	/* inside "outer", left open */
}

static void *reporter(void *arg)
{
	FILE *null = fopen("/dev/null", "w");

	(void)arg;
	while (!STOP() && null) {
		struct pmu_results *r = pmu_results_take();

		pmu_results_free(r);
		pmu_report(null, "json");
	}
	if (null)
		fclose(null);
	return NULL;
}

#ifndef T_ASAN	/* see the top: not run under ASan */
static void *forker(void *arg)
{
	(void)arg;
	while (!STOP()) {
		pid_t c = fork();
		uint64_t v[1];

		if (c == 0)	/* the child's own thread counts afresh */
			_exit(pmu_thread_read(v) == 0 ? 0 : 3);
		if (c > 0) {
			int st;

			CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
	}
	return NULL;
}
#endif

/*
 * ROUNDS rounds of THREADS threads exiting inside a region, beside a thread running other (or
 * none); "inside" then has had want calls in all.
 */
static void round_with(void *(*other)(void *), const char *what, uint64_t want)
{
	pthread_t o, t[THREADS];
	struct pmu_region_result tot = { .size = sizeof(tot) };
	struct pmu_results *r;
	const char *const *names;
	int h = -1;

	SET_STOP(0);
	if (other)
		CHECK(pthread_create(&o, NULL, other, NULL) == 0);
	for (int k = 0; k < ROUNDS; k++) {
		for (int i = 0; i < THREADS; i++)
			CHECK(pthread_create(&t[i], NULL, inside, NULL) == 0);
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
	}
	SET_STOP(1);
	if (other)
		pthread_join(o, NULL);
	r = pmu_results_take();
	CHECK_MSG(r != NULL, "%s", pmu_errmsg());
	for (unsigned i = 0, n = r ? pmu_results_regions(r, &names) : 0; i < n; i++)
		if (!strcmp(names[i], "inside"))
			h = (int)i;
	CHECK_MSG(h >= 0 && pmu_results_get(r, (unsigned)h, -1, &tot) == 0, "%s: no region \"inside\"", what);
	CHECK_MSG(tot.calls == want, "%s: %llu calls of \"inside\", not %llu", what, (unsigned long long)tot.calls,
		  (unsigned long long)want);
	printf("%s: %llu calls of \"inside\"\n", what, (unsigned long long)tot.calls);
	pmu_results_free(r);
}

int main(void)
{
	const uint64_t n = ROUNDS * THREADS;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	if (pmu_thread_init("task-clock") < 0)
		T_SKIP("task-clock: %s", pmu_errmsg());
	round_with(NULL, "exits_inside", n);
	round_with(reporter, "report", 2 * n);
#ifdef T_ASAN
	printf("fork: not run under ASan (its allocator is not fork-safe; the other tiers run it)\n");
#else
	round_with(forker, "fork", 3 * n);
#endif
	T_DONE();
}
