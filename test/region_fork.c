/* SPDX-License-Identifier: MIT */
/*
 * A child made by a raw fork system call (no atfork handler) whose first call
 * into the layer is a region begin or end: the layer starts afresh there
 * without writing into the parent's records it has just freed.
 */
/* tier: valgrind */
#include <errno.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

static int child_begin(void)
{
	int bad = 0;

	if (pmu_region_begin("c") != 0) {
		fprintf(stderr, "child: begin: %s\n", pmu_errmsg());
		bad++;
	}
	if (pmu_region_end("c") != 0) {
		fprintf(stderr, "child: end: %s\n", pmu_errmsg());
		bad++;
	}
	return bad;
}

static int child_end(void)
{
	int bad = 0;

	/* The parent's open region is not open here. */
	if (pmu_region_end("outer") != -EINVAL) {
		fprintf(stderr, "child: the parent's region ended in the child\n");
		bad++;
	}
	if (pmu_region_begin("c") != 0 || pmu_region_end("c") != 0) {
		fprintf(stderr, "child: %s\n", pmu_errmsg());
		bad++;
	}
	return bad;
}

static void run(int (*child)(void), const char *what)
{
	int status;
	pid_t pid;

	fflush(NULL);
#ifdef SYS_fork
	pid = (pid_t)syscall(SYS_fork);
#else
	pid = -1;
#endif
	if (pid == 0)
		_exit(child() ? 1 : 0);
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child status 0x%x", what, status);
}

int main(void)
{
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
#ifndef SYS_fork
	T_SKIP("no fork system call on this architecture");
#endif
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	CHECK(pmu_region_begin("outer") == 0);
	run(child_begin, "begin first");
	run(child_end, "end first");
	CHECK(pmu_region_end("outer") == 0);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
