/* SPDX-License-Identifier: MIT */
/*
 * Every descriptor the library holds is close-on-exec: a program that
 * execs while it counts (sets open, the per-thread layer reading, zero-code
 * mode set up) passes none of them on. The test runs itself: with
 * PMU_EVENTS set (zero-code mode), it opens what it can and execs itself
 * again, which lists the descriptors it inherited beyond 0, 1 and 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>

#include "pmu.h"
#include "test.h"

/* The exec'd side: descriptors beyond stdio, one line each; exits 0 when none. */
static int inherited(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 2;
	while ((e = readdir(d))) {
		char path[64], target[256];
		int fd = atoi(e->d_name);
		ssize_t k;

		if (e->d_name[0] == '.' || fd <= 2 || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		k = readlink(path, target, sizeof(target) - 1);
		target[k > 0 ? k : 0] = '\0';
		printf("inherited descriptor %d: %s\n", fd, target);
		n++;
	}
	closedir(d);
	return n ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct pmu_set *a, *b;
	uint64_t v[4];
	int status = 0;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "--inherited"))
		return inherited();
	if (argc > 1 && !strcmp(argv[1], "--counting")) {
		/* zero-code mode is set up (PMU_EVENTS); open more, then exec */
		CHECK_MSG(pmu_open(&a, "task-clock,page-faults") == 0, "%s", pmu_errmsg());
		CHECK_MSG(pmu_open(&b, "minor-faults") == 0, "%s", pmu_errmsg());
		CHECK(pmu_read(a, v) == 0);
		CHECK_MSG(pmu_thread_read(v) == 0, "%s", pmu_errmsg());	/* the layer zero-code mode set up */
		CHECK(pmu_region_begin("exec") == 0);
		if (t_failures)
			return 1;
		fflush(NULL);
		unsetenv("PMU_EVENTS");	/* the exec'd program opens nothing of its own */
		execv("/proc/self/exe", (char *[]){ argv[0], "--inherited", NULL });
		perror("execv");
		return 1;
	}
	/* the runner's own descriptors (a pipe, a log) must not be taken for the library's */
	for (int fd = 3; fd < 1024; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setenv("PMU_EVENTS", "task-clock,page-faults", 1);
		setenv("PMU_REPORT", "stderr", 1);
		execv("/proc/self/exe", (char *[]){ argv[0], "--counting", NULL });
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x (descriptors listed above)", status);
	T_DONE();
}
