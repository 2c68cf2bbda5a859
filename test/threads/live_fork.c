/* SPDX-License-Identifier: MIT */
/* A forked child never reads its parent's counters; it opens its own. */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

static int child(struct pmu_set *parent)
{
	struct pmu_reading rd[2];
	struct pmu_set *own;
	uint64_t v[2];
	const char *why;
	int fails = 0;

	fails += pmu_read(parent, v) != -ECHILD;
	fails += strstr(pmu_errmsg(), "fork") == NULL;
	fails += pmu_read_full(parent, rd) != -ECHILD;
	fails += pmu_enable(parent) != -ECHILD;
	fails += pmu_reset(parent) != -ECHILD;
	fails += pmu_user_read(parent, 0, &why) != 0;
	pmu_close(parent);	/* closes the child's copies of the descriptors */
	fails += pmu_open(&own, "task-clock,page-faults") != 0;
	if (!fails) {
		fails += pmu_read(own, v) != 0;
		fails += v[0] == 0;
		pmu_close(own);
	}
	return fails;
}

int main(void)
{
	struct pmu_set *s;
	uint64_t before[2], after[2];
	int status;

	CHECK(pmu_open(&s, "task-clock,page-faults") == 0);
	CHECK(pmu_read(s, before) == 0);
	int fds = t_fd_count();
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(s) ? 1 : 0);
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	/* The parent's set is untouched by the child's close. */
	CHECK(pmu_read(s, after) == 0);
	CHECK(after[0] >= before[0]);
	CHECK(t_fd_count() == fds);
	pmu_close(s);
	T_DONE();
}
