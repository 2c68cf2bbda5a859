/* SPDX-License-Identifier: MIT */
/*
 * pmu_results_*(): calls exactly, per-call min and max of a region whose
 * page faults per call are known (10, 20, 30 pages), min <= mean <= max,
 * the standard deviation of those three calls, recursion (spans), totals
 * as the sums of threads, bad inputs, a forked child, and a snapshot that
 * outlives pmu_thread_fini(). Only page faults and call counts are compared
 * exactly; times only in order.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>

#include "pmu.h"
#include "test.h"
#include "results_index.h"

#define PF 1	/* page-faults, event 1 */

static int get(const struct pmu_results *r, const char *name, int thread, struct pmu_region_result *out)
{
	out->size = sizeof(*out);
	return pmu_results_get(r, region_index(r, name), thread, out);
}

static void recurse(int n)
{
	CHECK(pmu_region_begin("recursive") == 0);
	if (n > 1)
		recurse(n - 1);
	CHECK(pmu_region_end("recursive") == 0);
}

static void *worker(void *arg)
{
	for (long i = 0; i < (long)(intptr_t)arg; i++) {
		CHECK(pmu_region_begin("steps") == 0);
		t_touch_pages(10);
		CHECK(pmu_region_end("steps") == 0);
	}
	return NULL;
}

int main(void)
{
	struct pmu_region_result g, t0, t1;
	struct pmu_thread_result th;
	struct pmu_results *r;
	const char *const *ev;
	pthread_t tid;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	errno = 0;
	CHECK(pmu_results_take() == NULL && errno == EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "pmu_thread_init"), "%s", pmu_errmsg());
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());

	/* Three calls touching 10, 20 and 30 fresh pages: a fault each, and a few others (more under valgrind). */
	for (int k = 1; k <= 3; k++) {
		CHECK(pmu_region_begin("pages") == 0);
		t_touch_pages(10 * k);
		CHECK(pmu_region_end("pages") == 0);
	}
	recurse(4);
	CHECK(pmu_region_begin("open") == 0);	/* named, never ended */
	r = pmu_results_take();
	CHECK_MSG(r, "%s", pmu_errmsg());
	if (!r)
		T_DONE();
	CHECK_EQ(pmu_results_events(r, &ev), 2);
	CHECK(!strcmp(ev[0], "task-clock") && !strcmp(ev[PF], "page-faults"));
	CHECK_EQ(pmu_results_regions(r, NULL), 3);
	CHECK_EQ(pmu_results_threads(r), 1);
	th.size = sizeof(th);
	CHECK(pmu_results_thread(r, 0, &th) == 0 && th.tid == (pid_t)gettid() && !th.exited && th.name);

	CHECK_MSG(get(r, "pages", -1, &g) == 0, "%s", pmu_errmsg());
	CHECK(!strcmp(g.name, "pages"));
	CHECK_EQ(g.calls, 3);
	CHECK_EQ(g.spans, 3);
	CHECK_EQ(g.nevents, 2);
	CHECK_MSG(g.min[PF] >= 10 && g.min[PF] < 20, "min page-faults %" PRIu64, g.min[PF]);
	CHECK_MSG(g.max[PF] >= 30 && g.max[PF] < 40, "max page-faults %" PRIu64, g.max[PF]);
	CHECK_MSG(g.sum[PF] >= 60 && g.sum[PF] < 90, "sum %" PRIu64 " min %" PRIu64 " max %" PRIu64, g.sum[PF], g.min[PF], g.max[PF]);
	/* 10, 20, 30: a population deviation of 8.16; a fault or two more per call moves it little. */
	CHECK_MSG(g.stddev[PF] > 6 && g.stddev[PF] < 11, "stddev page-faults %f", g.stddev[PF]);
	CHECK(g.ns_min > 0 && g.ns_min <= g.ns / g.spans && g.ns / g.spans <= g.ns_max);
	CHECK(g.ns_stddev >= 0 && g.ns_stddev <= (double)(g.ns_max - g.ns_min));
	CHECK(g.min[0] <= g.sum[0] / 3 && g.sum[0] / 3 <= g.max[0]);
	CHECK(g.running_pct[0] == 100.0 && g.running_pct[PF] == 100.0);	/* software events: never multiplexed */
	/* One thread: its figures are the total. */
	CHECK(get(r, "pages", 0, &t0) == 0);
	CHECK(t0.calls == g.calls && t0.ns == g.ns && t0.sum[PF] == g.sum[PF] && t0.min[PF] == g.min[PF] &&
	      t0.max[PF] == g.max[PF] && t0.ns_stddev == g.ns_stddev);

	/* Recursion: every call counts, the figures are of the one outermost call. */
	CHECK(get(r, "recursive", -1, &g) == 0);
	CHECK_EQ(g.calls, 4);
	CHECK_EQ(g.spans, 1);
	CHECK(g.ns_min == g.ns && g.ns_max == g.ns && g.ns_stddev == 0);

	/* Bad inputs: clear errors, nothing written past what is asked. */
	CHECK(get(r, "open", -1, &g) == -ENOENT);
	CHECK_MSG(strstr(pmu_errmsg(), "open"), "%s", pmu_errmsg());
	CHECK(get(r, "open", 0, &g) == -ENOENT);
	CHECK(pmu_results_get(r, 3, -1, &g) == -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "region 3"), "%s", pmu_errmsg());
	CHECK(pmu_results_get(r, 0, 1, &g) == -EINVAL);
	CHECK(pmu_results_get(r, 0, -2, &g) == -EINVAL);
	CHECK(pmu_results_get(NULL, 0, -1, &g) == -EINVAL);
	CHECK(pmu_results_get(r, 0, -1, NULL) == -EINVAL);
	g.size = offsetof(struct pmu_region_result, clamped) - 1;	/* below 0.4's */
	CHECK(pmu_results_get(r, 0, -1, &g) == -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "size"), "%s", pmu_errmsg());
	CHECK(pmu_results_thread(r, 1, &th) == -EINVAL);
	th.size = 0;
	CHECK(pmu_results_thread(r, 0, &th) == -EINVAL);
	CHECK(pmu_results_thread(NULL, 0, &th) == -EINVAL);
	CHECK(pmu_results_events(NULL, &ev) == 0 && ev == NULL);
	CHECK(pmu_results_regions(NULL, NULL) == 0 && pmu_results_threads(NULL) == 0);
	/* A newer caller's larger struct: the tail it does not know of is zeroed. */
	{
		struct { struct pmu_region_result r; uint64_t more[4]; } big;

		memset(&big, 0xff, sizeof(big));
		big.r.size = sizeof(big);
		CHECK(pmu_results_get(r, 0, -1, &big.r) == 0);
		CHECK(big.r.size == sizeof(big) && big.more[0] == 0 && big.more[3] == 0 && big.r.calls == 3);
	}
	pmu_results_free(r);
	pmu_results_free(NULL);
	CHECK(pmu_region_end("open") == 0);

	/* Totals are the sums of the threads, from the same snapshot. */
	CHECK(pthread_create(&tid, NULL, worker, (void *)(intptr_t)5) == 0);
	CHECK(pthread_join(tid, NULL) == 0);
	worker((void *)(intptr_t)3);
	r = pmu_results_take();
	CHECK(r && pmu_results_threads(r) == 2);
	CHECK(get(r, "steps", -1, &g) == 0 && get(r, "steps", 0, &t0) == 0 && get(r, "steps", 1, &t1) == 0);
	CHECK(get(r, "pages", 1, &t1) == -ENOENT);	/* the worker never ran it */
	CHECK(get(r, "steps", 1, &t1) == 0);
	th.size = sizeof(th);
	CHECK(pmu_results_thread(r, 1, &th) == 0 && th.exited == 1);	/* the worker has exited */
	CHECK_EQ(g.calls, 8);
	CHECK_EQ(t0.calls + t1.calls, 8);
	CHECK_EQ(g.ns, t0.ns + t1.ns);
	CHECK_EQ(g.sum[PF], t0.sum[PF] + t1.sum[PF]);
	CHECK_EQ(g.min[PF], t0.min[PF] < t1.min[PF] ? t0.min[PF] : t1.min[PF]);
	CHECK_EQ(g.max[PF], t0.max[PF] > t1.max[PF] ? t0.max[PF] : t1.max[PF]);
	CHECK_EQ(g.ns_min, t0.ns_min < t1.ns_min ? t0.ns_min : t1.ns_min);
	CHECK_EQ(g.ns_max, t0.ns_max > t1.ns_max ? t0.ns_max : t1.ns_max);
	CHECK(g.ns_stddev <= (double)(g.ns_max - g.ns_min));

	/* A forked child has none of its parent's regions; the parent's snapshot is still its own. */
	pid_t pid = fork();

	if (pid == 0) {
		struct pmu_results *c = pmu_results_take();
		int ok = c && pmu_results_threads(c) == 0;

		pmu_region_begin("child");
		pmu_region_end("child");
		pmu_results_free(c);
		c = pmu_results_take();
		struct pmu_region_result x;

		/* The names stay interned; the figures are the child's only. */
		ok = ok && c && pmu_results_threads(c) == 1 && get(c, "child", -1, &x) == 0 && x.calls == 1 &&
		     get(c, "steps", -1, &x) == -ENOENT;
		pmu_results_free(c);
		pmu_results_free(r);	/* the child's copy of the parent's snapshot */
		_exit(ok ? 0 : 1);
	}
	int st = 0;

	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* After pmu_thread_fini() the snapshot keeps its figures and names; a new one cannot be taken. */
	CHECK(pmu_thread_fini() == 0);
	CHECK(get(r, "steps", -1, &g) == 0 && g.calls == 8 && !strcmp(g.name, "steps"));
	pmu_results_free(r);
	errno = 0;
	CHECK(pmu_results_take() == NULL && errno == EINVAL);
	T_DONE();
}
