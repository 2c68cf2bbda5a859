/* SPDX-License-Identifier: MIT */
/*
 * A snapshot counts the threads that have regions, then copies them: a
 * thread that begins its first region in between must not push the caller
 * out of its own snapshot (libpmu-likwid's GET read 0 calls so). The test
 * puts that moment where it hurts, through a wrap of pmu__region_used: the
 * main thread's first region comes after the count, ahead of the caller in
 * the thread list.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

struct pmu__thr;
bool __real_pmu__region_used(const struct pmu__thr *t);

static sem_t go, done;
static int armed, calls, waited = -1;

static int wait_for(sem_t *s)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += 10;
	while (sem_timedwait(s, &t) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* The second look (the count's end, with two threads): the main thread begins its first region now. */
bool __wrap_pmu__region_used(const struct pmu__thr *t)
{
	bool used = __real_pmu__region_used(t);

	if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE) && ++calls == 2) {
		sem_post(&go);
		waited = wait_for(&done);
	}
	return used;
}

static void *caller(void *arg)
{
	struct pmu_thread_result th = { .size = sizeof(th) };
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct pmu_results *res;
	bool found = false;

	(void)arg;
	CHECK(pmu_region_begin("r") == 0);
	CHECK(pmu_region_end("r") == 0);
	__atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
	res = pmu_results_take();
	__atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
	CHECK_MSG(res != NULL, "%s", pmu_errmsg());
	CHECK_MSG(waited == 0, "the main thread did not begin its region in time (%d)", waited);
	for (unsigned i = 0; res && i < pmu_results_threads(res); i++)
		if (pmu_results_thread(res, i, &th) == 0 && th.tid == tid)
			found = true;
	CHECK_MSG(found, "the caller is not in its own snapshot (%u threads in it)", res ? pmu_results_threads(res) : 0);
	CHECK_EQ(res ? pmu_results_threads(res) : 0, 2);
	pmu_results_free(res);
	return NULL;
}

int main(void)
{
	uint64_t v[1];
	pthread_t c;
	int r;

	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	r = pmu_thread_init("task-clock");
	if (r == -EACCES || r == -EPERM || r == -ENOSYS || r == -ENOENT)
		T_SKIP("task-clock does not open here: %s", pmu_errmsg());
	CHECK_MSG(r == 0, "%s", pmu_errmsg());
	CHECK_MSG(pmu_thread_read(v) == 0, "%s", pmu_errmsg());	/* the main thread's record, older than the caller's; no region yet */
	CHECK(pthread_create(&c, NULL, caller, NULL) == 0);
	if (wait_for(&go) == 0) {
		CHECK(pmu_region_begin("r") == 0);
		CHECK(pmu_region_end("r") == 0);
		sem_post(&done);
	}
	pthread_join(c, NULL);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
