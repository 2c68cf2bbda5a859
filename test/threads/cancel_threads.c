/* SPDX-License-Identifier: MIT */
/*
 * Threads cancelled as programs cancel them: 8 threads looping on a region
 * pair, cancelled right after pthread_create() (at their first region
 * call, as it sets the thread up), 20 rounds; and a thread blocked writing a
 * report, in each format, to a pipe nobody reads, cancelled there. Then the
 * main thread's region pair and report work, no descriptor is left behind,
 * and a cancelled thread's figures are those of a thread that exited: its
 * complete calls counted. A hang fails the test (an alarm) instead of the run.
 */
#include <fcntl.h>
#include <pmu.h>
#include <pthread.h>
#include <signal.h>

#include "test.h"

#define LIMIT_S 60

static void on_alarm(int sig)
{
	static const char m[] = "cancel_threads: hung (a lock held by a cancelled thread?)\n";

	(void)sig;
	if (write(2, m, sizeof(m) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void *looper(void *arg)
{
	(void)arg;
	for (;;) {
		pmu_region_begin("loop");
		pmu_region_end("loop");
	}
	return NULL;
}

static FILE *blocked;
static const char *format;
static int writing;	/* atomic */

static void *reporter(void *arg)
{
	(void)arg;
	pmu_region_begin("reporter");	/* a call of its own, complete */
	pmu_region_end("reporter");
	__atomic_store_n(&writing, 1, __ATOMIC_RELEASE);
	pmu_report(blocked, format);
	return NULL;
}

/* The main thread's calls still work: a pair, and a report. */
static void main_works(const char *after)
{
	FILE *nul = fopen("/dev/null", "w");

	CHECK_MSG(pmu_region_begin("main") == 0 && pmu_region_end("main") == 0, "after %s: %s", after, pmu_errmsg());
	CHECK_MSG(nul && pmu_report(nul, "json") == 0, "after %s: %s", after, pmu_errmsg());
	if (nul)
		fclose(nul);
}

/* A report in format to a pipe whose buffer is full: the thread blocks in write(2) and is cancelled there. */
static void report_blocked(const char *fmt)
{
	int p[2], fl;
	pthread_t t;
	void *ret;

	CHECK(pipe(p) == 0);
	fcntl(p[1], F_SETPIPE_SZ, 4096);
	fl = fcntl(p[1], F_GETFL);
	fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
	while (write(p[1], "xxxxxxxxxxxxxxxx", 16) > 0)	/* full */
		;
	fcntl(p[1], F_SETFL, fl);
	blocked = fdopen(p[1], "w");
	setvbuf(blocked, NULL, _IONBF, 0);	/* each write blocks at once, nothing left buffered */
	format = fmt;
	__atomic_store_n(&writing, 0, __ATOMIC_RELEASE);
	CHECK(pthread_create(&t, NULL, reporter, NULL) == 0);
	while (!__atomic_load_n(&writing, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(100000);	/* into its write */
	pthread_cancel(t);
	CHECK(pthread_join(t, &ret) == 0 && ret == PTHREAD_CANCELED);
	fclose(blocked);
	close(p[0]);
	main_works(fmt);
}

int main(void)
{
	static const char *const formats[] = { "table", "csv", "json", "html", "trace" };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct pmu_results *res;
	int fds;

	T_SKIP_CANCEL_UNDER_ASAN();
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	sigaction(SIGALRM, &sa, NULL);
	setenv("PMU_TRACE", "/dev/null", 1);
	setenv("PMU_TRACE_CALLS", "64", 1);
	if (pmu_thread_init("task-clock") < 0)
		T_SKIP("task-clock: %s", pmu_errmsg());
	main_works("set-up");
	fds = t_fd_count();
	alarm(LIMIT_S);
	for (int round = 0; round < 20; round++) {
		pthread_t t[8];

		for (int i = 0; i < 8; i++) {
			CHECK(pthread_create(&t[i], NULL, looper, NULL) == 0);
			pthread_cancel(t[i]);
		}
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
	main_works("20 rounds of cancelled threads");
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		report_blocked(formats[i]);
	alarm(0);
	CHECK_MSG(t_fd_count() == fds, "%d descriptors, %d before", t_fd_count(), fds);
	/* each cancelled reporter: an exited thread with its complete call */
	res = pmu_results_take();
	CHECK_MSG(res, "pmu_results_take: %s", pmu_errmsg());	/* a failure is one, never a skipped check */
	if (res) {
		const char *const *names;
		unsigned nr = pmu_results_regions(res, &names), found = 0;

		for (unsigned i = 0; i < nr; i++)
			if (!strcmp(names[i], "reporter")) {
				struct pmu_region_result rr = { .size = sizeof(rr) };

				CHECK(pmu_results_get(res, i, -1, &rr) == 0 && rr.calls == 5);
				found = 1;
			}
		CHECK(found);
		pmu_results_free(res);
	}
	pmu_thread_fini();
	printf("160 threads cancelled at their first region call, and 5 reports cancelled while blocked: no hang\n");
	T_DONE();
}
