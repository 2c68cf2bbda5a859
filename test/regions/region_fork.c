/* SPDX-License-Identifier: MIT */
/*
 * A child made by a raw fork system call (no atfork handler) whose first call
 * into the layer is a region begin or end, by name or by handle: the layer
 * starts afresh there without writing into the parent's records it has just
 * freed, and never reads the parent's pages (which the child does not have)
 * where the counters are read from user space (cycles, in the arm64 and
 * riscv64 tiers).
 */
#include <errno.h>
#include <signal.h>
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

static int handle;	/* "outer"'s */

static int child_exit(void)
{
	int bad = 0;

	if (pmu_region_exit(handle) != -EINVAL) {
		fprintf(stderr, "child: the parent's region exited in the child\n");
		bad++;
	}
	if (pmu_region_enter(handle) != 0 || pmu_region_exit(handle) != 0) {
		fprintf(stderr, "child: %s\n", pmu_errmsg());
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
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);	/* the same, where fork is clone only */
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
	/* A hardware event where there is one (read from user space in the QEMU tiers), else software ones. */
	if (pmu_thread_init("cycles") != 0)
		CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	CHECK((handle = pmu_region_register("outer")) >= 0);
	CHECK(pmu_region_begin("outer") == 0);
	run(child_begin, "begin first");
	run(child_end, "end first");
	run(child_exit, "exit first");
	CHECK(pmu_region_end("outer") == 0);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
