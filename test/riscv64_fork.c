/* SPDX-License-Identifier: MIT */
/*
 * riscv64: a forked child never reads its parent's counters through csrr (it
 * would read its own registers): pmu_read() returns -ECHILD there, and the
 * child's own sets use the user-space path. The parent is unaffected.
 */
#include <sys/wait.h>

#include "riscv64/rv64.h"

#define FAIL_IF(cond, ...) do { \
	if (cond) { \
		fprintf(stderr, "child: " __VA_ARGS__); \
		fputc('\n', stderr); \
		fails++; \
	} \
} while (0)

static int child(struct rv64_set *parent)
{
	struct pmu_reading rd[2];
	struct rv64_set own;
	uint64_t v[2];
	const char *why;
	int fails = 0, r;

	FAIL_IF(pmu_user_read(parent->s, 0, &why) != 0, "the parent's set is read from user space");
	r = pmu_read(parent->s, v);
	FAIL_IF(r != -ECHILD, "pmu_read of the parent's set returned %d (expected -ECHILD)", r);
	r = pmu_read_full(parent->s, rd);
	FAIL_IF(r != -ECHILD, "pmu_read_full of the parent's set returned %d (expected -ECHILD)", r);
	rv64_spin(1 << 16);
	r = pmu_read(parent->s, v);
	FAIL_IF(r != -ECHILD, "second pmu_read of the parent's set returned %d", r);

	/* The child's own set: its counters, its user-space path. */
	r = rv64_open(&own, "cycles,instructions");
	FAIL_IF(r != 0, "cycles,instructions: %s", pmu_errmsg());
	if (r == 0) {
		FAIL_IF(pmu_user_read(own.s, 0, &why) != 1, "own cycles not read from user space: %s", why);
		FAIL_IF(rv64_index(&own, 0) <= RV64_IDX_INSTRET, "own cycles on index %u", rv64_index(&own, 0));
		FAIL_IF(rv64_sandwich(&own, "child's own set") != 0, "own set: reads disagree");
		rv64_close(&own);
	}
	pmu_close(parent->s);	/* the child's copies of the descriptors */
	return fails > 100 ? 100 : fails;
}

int main(void)
{
	struct rv64_set as;
	const char *why;
	int status, r;
	pid_t pid;

	rv64_require();
	rv64_require_user_access();
	r = rv64_open(&as, "cycles,instructions");
	CHECK_MSG(r == 0, "cycles,instructions: %s", pmu_errmsg());
	if (r)
		T_DONE();
	CHECK_MSG(pmu_user_read(as.s, 0, &why) == 1, "cycles: %s", why);
	CHECK(rv64_sandwich(&as, "parent before fork") == 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(child(&as));
	CHECK(pid > 0);
	rv64_spin(1 << 16);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child: %s %d", WIFSIGNALED(status) ? "killed by signal" : "failures:",
		  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	/* The parent keeps its counters and its user-space path. */
	CHECK_MSG(pmu_user_read(as.s, 0, &why) == 1, "parent after fork: %s", why);
	CHECK(rv64_sandwich(&as, "parent after fork") == 0);
	rv64_close(&as);
	T_DONE();
}
