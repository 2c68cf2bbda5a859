/* SPDX-License-Identifier: MIT */
/*
 * A descriptor budget: 200 live threads with 4 events under ulimit -n 256.
 * Threads are counted while the program keeps its reserve (an eighth of the
 * limit, at most 64: 32 here); the others count nothing, fail their region
 * calls with EMFILE and a message, and the report says how many, so no gap
 * is silent. Counted and refused add up to every thread, the calls to the
 * counted threads', and the program can still open its reserve.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "report_capture.h"

#define THREADS 200

static pthread_barrier_t bar;
static int ok, refused;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	int r = pmu_region_begin("r");

	(void)arg;
	if (r == 0)
		CHECK(pmu_region_end("r") == 0);
	else
		CHECK_MSG(r == -EMFILE && strstr(pmu_errmsg(), "not counted"), "%d %s", r, pmu_errmsg());
	CHECK(r != 0 || pmu_region_begin("r") == 0);	/* a refused thread is not tried again: fast */
	if (r == 0)
		pmu_region_end("r");
	pthread_mutex_lock(&m);
	*(r == 0 ? &ok : &refused) += 1;
	pthread_mutex_unlock(&m);
	pthread_barrier_wait(&bar);	/* all alive at once */
	pthread_barrier_wait(&bar);
	return NULL;
}

int main(void)
{
	struct rlimit rl = { 256, 256 };
	pthread_t t[THREADS];
	int fds[32], n = 0;
	char *rep, want[64];

	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		T_SKIP("setrlimit(RLIMIT_NOFILE, 256): %s", strerror(errno));
	/* :u: what any user may count (kernel.perf_event_paranoid 2) */
	if (pmu_thread_init("task-clock:u,page-faults:u,context-switches:u,cpu-migrations:u") < 0) {
		CHECK_MSG(0, "%s", pmu_errmsg());
		T_DONE();
	}
	pthread_barrier_init(&bar, NULL, THREADS + 1);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
	pthread_barrier_wait(&bar);
	for (; n < 32 && (fds[n] = dup(0)) >= 0; n++)
		;
	CHECK_MSG(n == 32, "the program opened %d of its 32 kept descriptors", n);
	while (n > 0)
		close(fds[--n]);
	rep = t_report("json");
	printf("%d counted, %d not\n", ok, refused);
	CHECK(ok > 0 && refused > 0 && ok + refused == THREADS);
	snprintf(want, sizeof(want), "\"not_counted\": {\"threads\": %d, ", refused);
	CHECK_MSG(strstr(rep, want) && strstr(rep, "libpmu keeps 32 of its 256 file descriptors"), "%s", rep);
	snprintf(want, sizeof(want), "{\"name\": \"r\", \"parent\": null, \"calls\": %d,", 2 * ok);
	CHECK_MSG(strstr(rep, want), "%s", rep);
	free(rep);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pmu_thread_fini();
	T_DONE();
}
