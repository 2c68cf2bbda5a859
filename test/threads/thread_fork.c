/* SPDX-License-Identifier: MIT */
/*
 * After fork the child's threads count with fresh counters of their own,
 * never the parent's: through fork() (the atfork handler) and through a raw
 * fork system call (pmu_read()'s -ECHILD).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

static long pages;

static void *in_thread(void *arg)
{
	uint64_t *v = arg;

	return pmu_thread_read(v) == 0 ? NULL : (void *)1;
}

/* The child: its counts start at its own first read, far below what the parent counted. */
static int child(int fds_at_fork)
{
	uint64_t v[2], w[2];
	void *rv;
	pthread_t th;
	int bad = 0;

	if (pmu_thread_read(v) != 0) {
		fprintf(stderr, "child: %s\n", pmu_errmsg());
		return 1;
	}
	if (v[1] >= (uint64_t)pages) {
		fprintf(stderr, "child: page-faults %" PRIu64 ": the parent's counter\n", v[1]);
		bad++;
	}
	/* The inherited set was closed and one opened in its place (valgrind may hold one less). */
	if (t_fd_count() > fds_at_fork) {
		fprintf(stderr, "child: fds %d, at fork %d\n", t_fd_count(), fds_at_fork);
		bad++;
	}
	t_touch_pages(pages / 4);
	if (pmu_thread_read(w) != 0 || w[1] - v[1] < (uint64_t)pages / 4) {
		fprintf(stderr, "child: page-faults did not count\n");
		bad++;
	}
	/* A region begun in the parent is not open here. */
	if (pmu_region_end("outer") != -EINVAL) {
		fprintf(stderr, "child: a region of the parent is open\n");
		bad++;
	}
	if (pthread_create(&th, NULL, in_thread, w) || pthread_join(th, &rv) || rv || w[1] >= (uint64_t)pages) {
		fprintf(stderr, "child: a new thread's read failed\n");
		bad++;
	}
	CHECK(pmu_region_begin("c") == 0 && pmu_region_end("c") == 0);
	return bad + t_failures;
}

static int run(int raw)
{
	uint64_t v[2];
	int status, fds;
	pid_t pid;

	CHECK(pmu_thread_read(v) == 0);
	t_touch_pages(pages);
	CHECK(pmu_thread_read(v) == 0);
	CHECK(v[1] >= (uint64_t)pages);
	CHECK(pmu_region_begin("outer") == 0);
	fds = t_fd_count();
	fflush(NULL);
#ifdef SYS_fork
	pid = raw ? (pid_t)syscall(SYS_fork) : fork();
#else
	(void)raw;
	pid = fork();
#endif
	if (pid == 0)
		_exit(child(fds) ? 1 : 0);
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s child: status 0x%x",
		  raw ? "raw" : "fork()", status);
	/* The parent's counters and regions are as they were. */
	CHECK(pmu_region_end("outer") == 0);
	uint64_t w[2];
	CHECK(pmu_thread_read(w) == 0);
	CHECK(w[1] >= v[1]);
	CHECK(t_fd_count() == fds);
	return 0;
}

int main(void)
{
	pages = t_scale(4000);
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	run(0);
#ifdef SYS_fork
	run(1);
#endif
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
