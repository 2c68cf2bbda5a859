/* SPDX-License-Identifier: MIT */
/*
 * Tasks (pmu_task_*): a small scheduler hands 10,000 tasks between 4
 * threads, each task three steps that fault a known number of pages in
 * (1, 2 or 3, by task and step); every task's page faults come out exact
 * (pmu_task_read()), and so do the region's calls and total; misuse across
 * threads is refused, naming the threads, and leaves the task as it was;
 * pmu_task_read() writes no more than it is given room for, and from another
 * thread reads a consistent copy while the task's thread closes intervals
 * (TSan's tier runs it); an end that fails frees the task (ASan's tier, and
 * valgrind's, find a leak).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "pmu.h"
#include "test.h"

#define TASKS 10000	/* at most; PMU_TEST_QUICK (valgrind, emulation): a twentieth */
#define STEPS 3
#define WORKERS 4

static struct pmu_task *task[TASKS];
static unsigned done_steps[TASKS], queue[TASKS], qhead, qtail, qlen, finished, ntasks = TASKS;
static uint64_t expected_total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static long page;
static int exact = 1;	/* 0 under a sanitizer or valgrind: their shadow memory faults pages in too */

static unsigned pages_of(unsigned i, unsigned s)
{
	return 1 + (i + s) % 3;
}

static void push(unsigned i)
{
	pthread_mutex_lock(&lock);
	queue[qtail] = i;
	qtail = (qtail + 1) % ntasks;
	qlen++;
	pthread_cond_signal(&more);
	pthread_mutex_unlock(&lock);
}

/* The next task, or -1 when every task has finished. */
static int pop(void)
{
	int i = -1;

	pthread_mutex_lock(&lock);
	while (!qlen && finished < ntasks)
		pthread_cond_wait(&more, &lock);
	if (qlen) {
		i = (int)queue[qhead];
		qhead = (qhead + 1) % ntasks;
		qlen--;
	}
	pthread_mutex_unlock(&lock);
	return i;
}

/* Faults n pages of arena in (it was emptied after the last step: each touch is one fault). */
static void touch(char *arena, unsigned n)
{
	for (unsigned p = 0; p < n; p++)
		((volatile char *)arena)[p * page] = 1;
}

/* A task's step on this thread; its last: its faults checked, and ended here. */
static void step(unsigned i, char *arena)
{
	uint64_t ns, pf = 0, want = 0;
	/* Read before the interval: a first read of a page of .bss is a fault, the scheduler's own. */
	struct pmu_task *t = task[i];
	unsigned k = pages_of(i, done_steps[i]);

	CHECK(pmu_task_resume(t) == 0);
	touch(arena, k);
	CHECK(pmu_task_suspend(t) == 0);
	madvise(arena, 3 * (size_t)page, MADV_DONTNEED);
	if (++done_steps[i] < STEPS) {
		push(i);
		return;
	}
	for (unsigned s = 0; s < STEPS; s++)
		want += pages_of(i, s);
	CHECK(pmu_task_read(task[i], &ns, &pf, 1) == 1);
	CHECK_MSG(exact ? pf == want : pf >= want, "task %u: %llu page faults, %llu expected", i, (unsigned long long)pf,
		  (unsigned long long)want);
	CHECK(pmu_task_end(task[i]) == 0);
	pthread_mutex_lock(&lock);
	if (++finished == ntasks)
		pthread_cond_broadcast(&more);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	char *arena = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pmu_task *warm;
	int i;

	(void)arg;
	madvise(arena, 3 * (size_t)page, MADV_NOHUGEPAGE);
	/* Every path once, so that this thread's own first faults (stack, counters) fall in no task. */
	warm = pmu_task_begin("warm-up");
	CHECK(warm && pmu_task_suspend(warm) == 0 && pmu_task_resume(warm) == 0);
	touch(arena, 3);
	CHECK(pmu_task_suspend(warm) == 0 && pmu_task_end(warm) == 0);
	madvise(arena, 3 * (size_t)page, MADV_DONTNEED);
	while ((i = pop()) >= 0)
		step((unsigned)i, arena);
	munmap(arena, 3 * (size_t)page);
	return NULL;
}

static void *other_thread(void *arg)
{
	struct pmu_task *t = arg;

	CHECK(pmu_task_suspend(t) == -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "runs on thread") && strstr(pmu_errmsg(), "misused"), "%s", pmu_errmsg());
	CHECK(pmu_task_end(t) == -EBUSY);	/* left as it was: its thread ends it */
	CHECK_MSG(strstr(pmu_errmsg(), "left as it was"), "%s", pmu_errmsg());
	return NULL;
}

/* Reads t from another thread while its thread suspends and resumes it: the sums never go back, and
 * always hold whole steps (each interval faults 1 page in). */
static struct pmu_task *shared;
static int stop;

static void *reader(void *arg)
{
	uint64_t ns, pf, last = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		CHECK(pmu_task_read(shared, &ns, &pf, 1) == 1);
		CHECK_MSG(pf >= last, "%llu page faults after %llu", (unsigned long long)pf, (unsigned long long)last);
		last = pf;
		sched_yield();	/* the writer's turn, where threads take turns (valgrind) */
	}
	return NULL;
}

static void check_concurrent_read(void)
{
	char *arena = mmap(NULL, 200 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t ns, pf;
	pthread_t th;

	CHECK(arena != MAP_FAILED && (shared = pmu_task_begin("read while running")) != NULL);
	CHECK(pmu_task_suspend(shared) == 0);
	CHECK(pthread_create(&th, NULL, reader, NULL) == 0);
	for (int i = 0; i < 200; i++) {
		CHECK(pmu_task_resume(shared) == 0);
		arena[(size_t)i * (size_t)page] = 1;
		CHECK(pmu_task_suspend(shared) == 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CHECK(pmu_task_read(shared, &ns, &pf, 1) == 1 && pf >= 200);
	CHECK(pmu_task_end(shared) == 0);
	munmap(arena, 200 * (size_t)page);
}

/* A suspended task ended by a thread that never ran a region: one call of it there. */
static void *fresh_end(void *arg)
{
	CHECK_MSG(pmu_task_end(arg) == 0, "%s", pmu_errmsg());
	return NULL;
}

static void check_misuse(void)
{
	struct pmu_task *t = pmu_task_begin("misused");
	uint64_t ns, v[3] = { 7, 7, 7 };
	pthread_t th;

	CHECK(t != NULL);
	CHECK(pmu_task_resume(t) == -EINVAL && strstr(pmu_errmsg(), "suspend() it there first"));
	CHECK(pthread_create(&th, NULL, other_thread, t) == 0 && pthread_join(th, NULL) == 0);
	CHECK(pmu_task_suspend(t) == 0);	/* the refused end left it as it was */
	CHECK(pmu_task_suspend(t) == -EINVAL && strstr(pmu_errmsg(), "is suspended"));
	CHECK(pmu_task_read(t, &ns, v, 0) == 1 && v[0] == 7);	/* room for none: none written */
	CHECK(pmu_task_read(t, &ns, v, 3) == 1 && v[1] == 7);
	/* suspended: any thread ends it, one new to regions too */
	CHECK(pthread_create(&th, NULL, fresh_end, t) == 0 && pthread_join(th, NULL) == 0);
	errno = 0;
	CHECK(pmu_task_begin(NULL) == NULL && errno == EINVAL);
	CHECK(pmu_task_suspend(NULL) == -EINVAL && pmu_task_resume(NULL) == -EINVAL && pmu_task_end(NULL) == -EINVAL);
	CHECK(pmu_task_read(NULL, &ns, v, 1) == -EINVAL);
}

int main(void)
{
	struct pmu_region_result g = { .size = sizeof(g) };
	const char *const *names;
	struct pmu_results *r;
	pthread_t th[WORKERS];
	unsigned n, id;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	page = sysconf(_SC_PAGESIZE);
	ntasks = (unsigned)t_scale(TASKS);
#ifdef T_SANITIZED
	exact = 0;
#endif
	if (t_under_valgrind())
		exact = 0;
	CHECK_MSG(pmu_thread_init("page-faults") == 0, "%s", pmu_errmsg());
	errno = 0;
	check_misuse();
	check_concurrent_read();
	/* Written once before: the store of a task begun, inside its first interval, faults no page of .bss in. */
	memset(task, 0xff, sizeof(task));
	memset(done_steps, 0, sizeof(done_steps));
	for (unsigned i = 0; i < ntasks; i++) {
		CHECK((task[i] = pmu_task_begin("request")) != NULL);
		CHECK(pmu_task_suspend(task[i]) == 0);
		for (unsigned s = 0; s < STEPS; s++)
			expected_total += pages_of(i, s);
	}
	for (unsigned i = 0; i < ntasks; i++)
		push(i);
	for (int k = 0; k < WORKERS; k++)
		CHECK(pthread_create(&th[k], NULL, worker, NULL) == 0);
	for (int k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	r = pmu_results_take();
	CHECK_MSG(r, "%s", pmu_errmsg());
	n = pmu_results_regions(r, &names);
	for (id = 0; id < n && strcmp(names[id], "request"); id++)
		;
	CHECK(id < n && pmu_results_get(r, id, -1, &g) == 0);
	CHECK_MSG(g.calls == ntasks && (exact ? g.sum[0] == expected_total : g.sum[0] >= expected_total), "region request: %llu calls, %llu page faults; "
		  "%u and %llu expected", (unsigned long long)g.calls, (unsigned long long)g.sum[0], ntasks,
		  (unsigned long long)expected_total);
	printf("%u tasks of %d steps over %d threads: %llu page faults in all, each task's checked (%s)\n", ntasks, STEPS,
	       WORKERS, (unsigned long long)g.sum[0], exact ? "exactly" : "at least: shadow memory faults too");
	pmu_results_free(r);
	/* An end that fails (the layer gone under a running task) frees the task, and says its counts are lost. */
	CHECK((r = NULL, task[0] = pmu_task_begin("orphan")) != NULL);
	pmu_thread_fini();
	CHECK(pmu_task_end(task[0]) < 0);
	CHECK_MSG(strstr(pmu_errmsg(), "(the task is freed, its counts not added)"), "%s", pmu_errmsg());
	T_DONE();
}
