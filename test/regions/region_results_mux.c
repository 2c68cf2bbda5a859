/* SPDX-License-Identifier: MIT */
/*
 * Running percentages of multiplexed counters, on a machine whose software
 * events never multiplex: this program's read() answers the library's
 * read(2) of the thread's group (interposed, as x86_rdpmc_emu does) with the
 * group running half the time it is enabled and counting half as much. The
 * regions must show about 50% running, and page faults scaled back to the
 * truth; without the halving, 100%. Then the same with each event's own
 * times (pmu_read_full(), what a set of several groups or a multiplexed
 * user-space read takes), forced on the thread's region record, and a region open
 * while the thread starts taking times, which has none.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "pmu.h"
#include "test.h"
#include "regions/region.h"

static int halve;

/* read(2), with a perf group's running time and counts halved when asked. */
ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t got = syscall(SYS_read, fd, buf, count);
	uint64_t *b = buf;

	/* The group's read: nr, enabled, running, nr values (task-clock, page-faults). */
	if (halve && got == (ssize_t)(5 * sizeof(uint64_t)) && count == (size_t)got && b[0] == 2) {
		b[2] /= 2;
		b[3] /= 2;
		b[4] /= 2;
	}
	return got;
}

static void region(const char *name, long pages)
{
	CHECK(pmu_region_begin(name) == 0);
	t_touch_pages(pages);
	CHECK(pmu_region_end(name) == 0);
}

int main(void)
{
	struct pmu_region_result g = { .size = sizeof(g) };
	struct pmu_results *r;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	region("plain", 100);
	halve = 1;
	for (int i = 0; i < 5; i++)
		region("mux", 100);
	halve = 0;
	r = pmu_results_take();
	CHECK_MSG(r, "%s", pmu_errmsg());
	if (!r)
		T_DONE();
	CHECK(pmu_results_get(r, 0, -1, &g) == 0 && !strcmp(g.name, "plain"));
	CHECK(g.running_pct[0] == 100.0 && g.running_pct[1] == 100.0);
	CHECK(pmu_results_get(r, 1, -1, &g) == 0 && !strcmp(g.name, "mux"));
	for (int i = 0; i < 2; i++)
		CHECK_MSG(g.running_pct[i] > 49 && g.running_pct[i] < 51, "event %d running %.2f%%", i,
			  g.running_pct[i]);
	/* Scaled by enabled / running: the page faults as counted, give or take the halving's rounding. */
	CHECK_MSG(g.sum[1] >= 500 && g.sum[1] < 600, "page-faults %" PRIu64, g.sum[1]);
	CHECK(pmu_results_get(r, 1, 0, &g) == 0 && g.running_pct[1] > 49 && g.running_pct[1] < 51);
	pmu_results_free(r);

	/* The reports show it: a running% column in the table, running_pct in json. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f && pmu_report(f, "table") == 0 && pmu_report(f, "json") == 0);
	fclose(f);
	CHECK_MSG(buf && strstr(buf, "page-faults run%") && strstr(buf, "\"running_pct\": {\"task-clock\": 100.00, "
								   "\"page-faults\": 100.00}") &&
		  (strstr(buf, "\"running_pct\": {\"task-clock\": 50.0") ||
		   strstr(buf, "\"running_pct\": {\"task-clock\": 49.9")), "%s", buf);
	free(buf);
	pmu_thread_fini();

	/* Each event's times, from pmu_read_full(). */
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	CHECK(pmu_region_begin("before") == 0);	/* sets the record up, taking the group's times */
	struct pmu__region_thr *rt = pmu__tls.thr->upper;	/* the thread's region record */
	rt->times = PMU_TIMES_NONE;	/* as a user-space read never multiplexed so far */
	CHECK(pmu_region_end("before") == 0);
	CHECK(pmu_region_begin("before") == 0);	/* begun without times */
	rt->times = PMU_TIMES_FULL;	/* what begin does once it sees multiplexing */
	rt->times_from = depth_of(rt);
	halve = 1;
	for (int i = 0; i < 5; i++)
		region("full", 100);
	halve = 0;
	CHECK(pmu_region_end("before") == 0);
	region("after", 10);
	r = pmu_results_take();
	CHECK_MSG(r, "%s", pmu_errmsg());
	if (!r)
		T_DONE();
	CHECK(pmu_results_get(r, 1, -1, &g) == 0 && !strcmp(g.name, "full"));
	for (int i = 0; i < 2; i++)
		CHECK_MSG(g.running_pct[i] > 49 && g.running_pct[i] < 51, "event %d running %.2f%%", i,
			  g.running_pct[i]);
	CHECK_MSG(g.sum[1] >= 500 && g.sum[1] < 600, "page-faults %" PRIu64, g.sum[1]);
	/* Begun before the times: its calls are left out, none is left. */
	CHECK(pmu_results_get(r, 0, -1, &g) == 0 && !strcmp(g.name, "before") && g.calls == 2);
	CHECK(g.running_pct[0] == 100.0 && g.running_pct[1] == 100.0 && g.sum[1] >= 500);
	CHECK(pmu_results_get(r, 2, -1, &g) == 0 && !strcmp(g.name, "after") && g.running_pct[1] == 100.0);
	pmu_results_free(r);
	pmu_thread_fini();
	T_DONE();
}
