/* SPDX-License-Identifier: MIT */
/*
 * A thread refused its set counts again once the cause is gone: it tries again at its first call
 * after PMU_RETRY_CALLS (64) refused calls or PMU_RETRY_MS (100 ms), not at every call, and the
 * report says how many threads, which, how many calls went uncounted and how many count again.
 *   emfile  no descriptor free (RLIMIT_NOFILE at the lowest free number), then the limit restored
 *   enomem  the record's allocation fails (calloc wrapped), then succeeds
 *   time    refused again, then 120 ms later: the next call tries, and counts
 */
#include <pmu.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "report_capture.h"
#include "test.h"

static int fail_calloc;

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_calloc) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

/* Calls of pmu_thread_read() until one counts: how many failed with err first (at most 70). */
static int until_counted(int err)
{
	uint64_t v[1];
	int failed = 0, r;

	while ((r = pmu_thread_read(v)) != 0 && failed < 70) {
		CHECK_MSG(r == -err, "pmu_thread_read: %d, not %d: %s", r, -err, pmu_errmsg());
		failed++;
	}
	return failed;
}

/* The thread is refused (cause on, off), its calls go uncounted, then it counts again. */
static void refusal(const char *what, int err, void (*cause)(int on), unsigned threads, uint64_t calls)
{
	uint64_t v[1];
	char *rep, want[160];
	int r, failed;

	cause(1);
	r = pmu_thread_read(v);
	CHECK_MSG(r == -err, "%s: the first read gave %d: %s", what, r, pmu_errmsg());
	for (int i = 0; i < 10; i++)	/* not tried again at every call */
		CHECK_MSG(pmu_thread_read(v) == -err && strstr(pmu_errmsg(), "tries again within 64 calls or 100 ms"),
			  "%s: %s", what, pmu_errmsg());
	cause(0);
	failed = until_counted(err);
	printf("%s: 11 calls refused, then %d more before it counted again\n", what, failed);
	CHECK_MSG(11 + failed <= 64, "%s: %d calls before a try", what, 11 + failed);
	CHECK_MSG(pmu_thread_read(v) == 0, "%s: %s", what, pmu_errmsg());
	calls += 11 + (uint64_t)failed;
	rep = t_report("json");
	snprintf(want, sizeof(want), "\"not_counted\": {\"threads\": %u, \"counting_again\": %u, \"calls\": %llu, ",
		 threads, threads, (unsigned long long)calls);
	CHECK_MSG(strstr(rep, want), "%s: no %s in %s", what, want, rep);
	{
		const char *tids = strstr(rep, "\"tids\": [");
		const char *end = tids ? strchr(tids, ']') : NULL;

		snprintf(want, sizeof(want), "%d", (int)syscall(SYS_gettid));
		CHECK_MSG(end && strstr(tids, want) && strstr(tids, want) < end, "%s: tid %s not in %s", what, want, rep);
	}
	free(rep);
	rep = t_report("table");
	CHECK_MSG(strstr(rep, "not counted: ") && strstr(rep, "counting again"), "%s: %s", what, rep);
	free(rep);
}

static struct rlimit saved;

static void no_fd(int on)
{
	if (on) {
		struct rlimit rl = saved;
		int fd = dup(0);

		close(fd);
		rl.rlim_cur = (rlim_t)fd;	/* the lowest free number: none free */
		CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	} else {
		CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
	}
}

static void no_memory(int on)
{
	fail_calloc = on;
}

static uint64_t calls_so_far;

static void *second(void *arg)
{
	(void)arg;
	refusal("enomem", ENOMEM, no_memory, 2, calls_so_far);
	return NULL;
}

/* A third thread: refused, then past PMU_RETRY_MS its first call tries and counts. */
static void *by_time(void *arg)
{
	uint64_t v[1];
	int r;

	(void)arg;
	no_fd(1);
	r = pmu_thread_read(v);
	CHECK_MSG(r == -EMFILE, "time: the first read gave %d: %s", r, pmu_errmsg());
	no_fd(0);
	usleep(120000);
	r = pmu_thread_read(v);
	CHECK_MSG(r == 0, "time: 120 ms later, the first call gave %d: %s", r, pmu_errmsg());
	printf("time: refused once, then counted at the first call 120 ms later\n");
	return NULL;
}

int main(void)
{
	pthread_t t;
	char *rep;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
	if (pmu_thread_init("task-clock") < 0)
		T_SKIP("task-clock: %s", pmu_errmsg());
	refusal("emfile", EMFILE, no_fd, 1, 0);
	rep = t_report("json");
	{
		const char *p = strstr(rep, "\"calls\": ");

		calls_so_far = p ? strtoull(p + 9, NULL, 10) : 0;
	}
	free(rep);
	/* another thread: its first set refused for want of memory */
	CHECK(pthread_create(&t, NULL, second, NULL) == 0 && pthread_join(t, NULL) == 0);
	CHECK(pthread_create(&t, NULL, by_time, NULL) == 0 && pthread_join(t, NULL) == 0);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
