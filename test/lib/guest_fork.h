/* SPDX-License-Identifier: MIT */
/*
 * The fork test of each kernel tier: a forked child never reads its
 * parent's counters with the user-space instruction (it would read its own
 * registers): pmu_read(), pmu_read_full() and pmu_counter_read() return
 * -ECHILD there, and the child's own sets use the user-space path. The
 * parent is unaffected. On a kernel without user access the same holds of
 * the read(2) path.
 */
#ifndef PMU_TEST_GUEST_FORK_H
#define PMU_TEST_GUEST_FORK_H

#include <sys/wait.h>

#include "guest.h"

struct guest_fork {
	const char *events;		/* counter 0 is the cycles */
	int user;			/* the kernel gives user access */
	bool (*own_index)(uint32_t idx);	/* the child's own cycles are on a right index */
};

#define GF_FAIL_IF(cond, ...) do { \
	if (cond) { \
		fprintf(stderr, "child: " __VA_ARGS__); \
		fputc('\n', stderr); \
		fails++; \
	} \
} while (0)

static inline int guest_fork_child(const struct guest_fork *f, struct guest_set *parent)
{
	struct pmu_reading rd[2];
	struct guest_set own;
	uint64_t v[2];
	const char *why;
	int fails = 0, r;

	GF_FAIL_IF(pmu_user_read(parent->s, 0, &why) != 0, "the parent's set is read from user space");
	r = pmu_read(parent->s, v);
	GF_FAIL_IF(r != -ECHILD, "pmu_read of the parent's set returned %d (expected -ECHILD)", r);
	r = pmu_read_full(parent->s, rd);
	GF_FAIL_IF(r != -ECHILD, "pmu_read_full of the parent's set returned %d (expected -ECHILD)", r);
	guest_spin(1 << 16);
	r = pmu_read(parent->s, v);
	GF_FAIL_IF(r != -ECHILD, "second pmu_read of the parent's set returned %d", r);
	/* The inline read: its handle reads as zeros here, so no instruction on the parent's counter. */
	r = pmu_counter_read(pmu_counter(parent->s, 0), &v[0]);
	GF_FAIL_IF(r != -ECHILD, "pmu_counter_read of the parent's cycles returned %d (expected -ECHILD)", r);
	GF_FAIL_IF(pmu_counter(parent->s, 0) && pmu_counter(parent->s, 0)->page,
		   "the parent's page is in the child's handle");

	/* The child's own set: its counters, its user-space path. */
	r = guest_open(&own, f->events);
	GF_FAIL_IF(r != 0, "%s: %s", f->events, pmu_errmsg());
	if (r == 0) {
		GF_FAIL_IF(pmu_user_read(own.s, 0, &why) != f->user, "own cycles: user read %d: %s",
			   !f->user, why);
		GF_FAIL_IF(!f->own_index(guest_index(&own, 0)), "own cycles on index %u", guest_index(&own, 0));
		GF_FAIL_IF(guest_sandwich(&own, "child's own set") != 0, "own set: reads disagree");
		guest_close(&own);
	}
	pmu_close(parent->s);	/* the child's copies of the descriptors */
	return fails > 100 ? 100 : fails;
}

static inline int guest_fork_main(const struct guest_fork *f)
{
	struct guest_set as;
	const char *why;
	int status, r;
	pid_t pid;

	r = guest_open(&as, f->events);
	CHECK_MSG(r == 0, "%s: %s", f->events, pmu_errmsg());
	if (r)
		T_DONE();
	CHECK_MSG(pmu_user_read(as.s, 0, &why) == f->user, "cycles: %s", why);
	CHECK(guest_sandwich(&as, "parent before fork") == 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(guest_fork_child(f, &as));
	CHECK(pid > 0);
	guest_spin(1 << 16);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child: %s %d", WIFSIGNALED(status) ? "killed by signal" : "failures:",
		  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	/* The parent keeps its counters and its user-space path. */
	CHECK_MSG(pmu_user_read(as.s, 0, &why) == f->user, "parent after fork: %s", why);
	CHECK(guest_sandwich(&as, "parent after fork") == 0);
	guest_close(&as);
	T_DONE();
}

#endif
