/* SPDX-License-Identifier: MIT */
/*
 * arm64: a forked child never reads its parent's counters through mrs (it
 * would read its own registers): pmu_read() and pmu_counter_read() return
 * -ECHILD there, and the
 * child's own sets use the user-space path. The parent is unaffected.
 * On a kernel without user access (before 5.17) the same holds of the
 * read(2) path.
 */
#include <sys/wait.h>

#include "arm64/a64.h"

/* The kernel has user access (5.17+); before, the sets are read through read(2). */
static int user;

#define FAIL_IF(cond, ...) do { \
	if (cond) { \
		fprintf(stderr, "child: " __VA_ARGS__); \
		fputc('\n', stderr); \
		fails++; \
	} \
} while (0)

static int child(struct a64_set *parent)
{
	struct pmu_reading rd[2];
	struct a64_set own;
	uint64_t v[2];
	const char *why;
	int fails = 0, r;

	FAIL_IF(pmu_user_read(parent->s, 0, &why) != 0, "the parent's set is read from user space");
	r = pmu_read(parent->s, v);
	FAIL_IF(r != -ECHILD, "pmu_read of the parent's set returned %d (expected -ECHILD)", r);
	r = pmu_read_full(parent->s, rd);
	FAIL_IF(r != -ECHILD, "pmu_read_full of the parent's set returned %d (expected -ECHILD)", r);
	a64_spin(1 << 16);
	r = pmu_read(parent->s, v);
	FAIL_IF(r != -ECHILD, "second pmu_read of the parent's set returned %d", r);
	/* The inline read: its handle reads as zeros here, so no mrs on the parent's counter. */
	r = pmu_counter_read(pmu_counter(parent->s, 0), &v[0]);
	FAIL_IF(r != -ECHILD, "pmu_counter_read of the parent's cycles returned %d (expected -ECHILD)", r);
	FAIL_IF(pmu_counter(parent->s, 0) && pmu_counter(parent->s, 0)->page, "the parent's page is in the child's handle");

	/* The child's own set: its counters, its user-space path. */
	r = a64_open(&own, "cycles,r3c");
	FAIL_IF(r != 0, "cycles,r3c: %s", pmu_errmsg());
	if (r == 0) {
		FAIL_IF(pmu_user_read(own.s, 0, &why) != user, "own cycles: user read %d: %s",
			!user, why);
		FAIL_IF(a64_index(&own, 0) != (user ? A64_CYCLE_IDX : 0), "own cycles on index %u",
			a64_index(&own, 0));
		FAIL_IF(a64_sandwich(&own, "child's own set") != 0, "own set: reads disagree");
		a64_close(&own);
	}
	pmu_close(parent->s);	/* the child's copies of the descriptors */
	return fails > 100 ? 100 : fails;
}

int main(void)
{
	struct a64_set as;
	const char *why;
	int status, r;
	pid_t pid;

	a64_require();
	a64_require_user_access();
	user = !a64_before_user_access();
	r = a64_open(&as, "cycles,r3c");
	CHECK_MSG(r == 0, "cycles,r3c: %s", pmu_errmsg());
	if (r)
		T_DONE();
	CHECK_MSG(pmu_user_read(as.s, 0, &why) == user, "cycles: %s", why);
	CHECK(a64_sandwich(&as, "parent before fork") == 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(child(&as));
	CHECK(pid > 0);
	a64_spin(1 << 16);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child: %s %d", WIFSIGNALED(status) ? "killed by signal" : "failures:",
		  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	/* The parent keeps its counters and its user-space path. */
	CHECK_MSG(pmu_user_read(as.s, 0, &why) == user, "parent after fork: %s", why);
	CHECK(a64_sandwich(&as, "parent after fork") == 0);
	a64_close(&as);
	T_DONE();
}
