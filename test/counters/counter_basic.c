/* SPDX-License-Identifier: MIT */
/*
 * pmu_counter() and the inline pmu_counter_read() on events this machine
 * counts for real (software events, read through read(2) here): bad
 * arguments, values that agree with pmu_read() of the same set, a disabled
 * and a reset set, and -ECHILD in a forked child.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

#define EVENTS "task-clock,page-faults,context-switches:u,minor-faults"

static void bad_arguments(struct pmu_set *s)
{
	uint64_t v = 42;

	errno = 0;
	CHECK(pmu_counter(NULL, 0) == NULL && errno == EINVAL);
	CHECK(strstr(pmu_errmsg(), "NULL") != NULL);
	errno = 0;
	CHECK(pmu_counter(s, 4) == NULL && errno == EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "out of range") != NULL, "%s", pmu_errmsg());
	CHECK(pmu_counter(s, ~0u) == NULL);
	CHECK(pmu_counter_read(NULL, &v) == -EINVAL && v == 42);
	CHECK(pmu_counter_read(pmu_counter(s, 0), NULL) == -EINVAL);
	CHECK(pmu_counter_read_slow(NULL, &v) == -EINVAL);
	/* A handle stays the same while the set is open. */
	CHECK(pmu_counter(s, 1) == pmu_counter(s, 1));
	CHECK(pmu_counter(s, 0) != pmu_counter(s, 1));
}

/* pmu_read before <= pmu_counter_read <= pmu_read after, for each event. */
static void agrees(struct pmu_set *s, const char *what)
{
	uint64_t a[4], b[4], c[4];

	CHECK(pmu_read(s, a) == 0);
	for (unsigned i = 0; i < 4; i++)
		CHECK_MSG(pmu_counter_read(pmu_counter(s, i), &c[i]) == 0, "%s: %s", what, pmu_errmsg());
	CHECK(pmu_read(s, b) == 0);
	for (unsigned i = 0; i < 4; i++)
		CHECK_MSG(a[i] <= c[i] && c[i] <= b[i], "%s: %s: %" PRIu64 " <= %" PRIu64 " <= %" PRIu64,
			  what, pmu_name(s, i), a[i], c[i], b[i]);
}

static int child(struct pmu_set *parent)
{
	const struct pmu_counter *c = pmu_counter(parent, 0);
	uint64_t v = 7;
	int fails = 0;

	/* The handle lives in the set's pages that a child sees as zeros: no read of the parent's counters. */
	fails += c == NULL;
	fails += c && pmu_counter_read(c, &v) != -ECHILD;
	fails += strstr(pmu_errmsg(), "fork") == NULL;
	fails += v != 7;
	pmu_close(parent);
	return fails;
}

int main(void)
{
	struct pmu_set *s;
	uint64_t v0, v1;
	int status, r;
	pid_t pid;

	r = pmu_open(&s, EVENTS);
	CHECK_MSG(r == 0, "%s: %s", EVENTS, pmu_errmsg());
	if (r)
		T_DONE();
	bad_arguments(s);
	agrees(s, "running");

	/* Counting: task-clock advances between two inline reads. */
	CHECK(pmu_counter_read(pmu_counter(s, 0), &v0) == 0);
	for (volatile int i = 0; i < 1000000; i++)
		;
	CHECK(pmu_counter_read(pmu_counter(s, 0), &v1) == 0);
	CHECK_MSG(v1 > v0, "task-clock %" PRIu64 " then %" PRIu64, v0, v1);

	/* Disabled: values stand still; reset: from zero again. */
	CHECK(pmu_disable(s) == 0);
	CHECK(pmu_counter_read(pmu_counter(s, 0), &v0) == 0);
	for (volatile int i = 0; i < 1000000; i++)
		;
	CHECK(pmu_counter_read(pmu_counter(s, 0), &v1) == 0);
	CHECK_EQ(v0, v1);
	CHECK(pmu_reset(s) == 0);
	CHECK(pmu_counter_read(pmu_counter(s, 0), &v0) == 0);
	CHECK_EQ(v0, 0);
	CHECK(pmu_enable(s) == 0);
	agrees(s, "enabled again");

	/* One event of a set opened without user reads, and alone. */
	struct pmu_opts o = { .size = sizeof(o), .flags = PMU_NO_USER_READ };
	struct pmu_set *one;

	CHECK(pmu_open_opts(&one, "page-faults", &o) == 0);
	CHECK(pmu_counter(one, 0) && pmu_counter(one, 0)->page == NULL);
	CHECK(pmu_counter_read(pmu_counter(one, 0), &v0) == 0);
	pmu_close(one);

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(child(s) ? 1 : 0);
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	agrees(s, "parent after fork");
	pmu_close(s);
	T_DONE();
}
