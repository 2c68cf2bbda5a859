/* SPDX-License-Identifier: MIT */
/*
 * A process that churns threads keeps bounded memory: each thread that
 * exited keeps a record of its own for the reports up to 256 of them, and
 * the later ones are folded into one, "(N exited)" with tid 0, whose
 * figures are their sums (calls, ns and events; min and max over them),
 * so that the totals stay exact. Their traced calls are counted as dropped
 * from the trace, never lost unsaid.
 */
#include <pmu.h>
#include <pthread.h>

#include "test.h"

#define THREADS 300
#define KEPT 256

static void *one(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		pmu_region_begin("work");
		pmu_region_end("work");
	}
	return NULL;
}

int main(void)
{
	struct pmu_results *r;
	const char *const *regs;
	unsigned nr, nt, folded = 0, kept = 0;
	uint64_t sum_calls = 0;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	setenv("PMU_TRACE", "/dev/null", 1);
	setenv("PMU_TRACE_CALLS", "16", 1);
	if (pmu_thread_init("task-clock") < 0)
		T_SKIP("task-clock: %s", pmu_errmsg());
	for (int i = 0; i < THREADS; i++) {
		pthread_t t;

		CHECK(pthread_create(&t, NULL, one, NULL) == 0 && pthread_join(t, NULL) == 0);
	}
	r = pmu_results_take();
	CHECK_MSG(r != NULL, "%s", pmu_errmsg());
	if (!r)
		T_DONE();
	nr = pmu_results_regions(r, &regs);
	nt = pmu_results_threads(r);
	CHECK_MSG(nr == 1 && !strcmp(regs[0], "work") && nt == KEPT + 1, "%u regions, %u threads", nr, nt);
	for (unsigned k = 0; k < nt; k++) {
		struct pmu_thread_result th = { .size = sizeof(th) };
		struct pmu_region_result rr = { .size = sizeof(rr) };

		CHECK(pmu_results_thread(r, k, &th) == 0 && th.exited);
		CHECK(pmu_results_get(r, 0, (int)k, &rr) == 0);
		sum_calls += rr.calls;
		if (th.tid == 0) {
			folded++;
			CHECK_MSG(!strcmp(th.name, "(44 exited)") && rr.calls == 2 * (THREADS - KEPT), "%s: %llu calls",
				  th.name, (unsigned long long)rr.calls);
		} else {
			kept++;
			CHECK_EQ(rr.calls, 2);
		}
	}
	CHECK(folded == 1 && kept == KEPT);
	{
		struct pmu_region_result tot = { .size = sizeof(tot) };

		CHECK(pmu_results_get(r, 0, -1, &tot) == 0 && tot.calls == 2 * THREADS && sum_calls == 2 * THREADS);
	}
	pmu_results_free(r);
	{
		/* the trace: the kept threads' calls, the folded ones' said dropped */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		CHECK(m && pmu_report(m, "trace") == 0);
		if (m)
			fclose(m);
		CHECK_MSG(buf && strstr(buf, "\"calls\": 512, \"dropped\": 88, \"folded\": 88}"), "%.200s", buf ? strstr(buf, "otherData") : "");
		free(buf);
	}
	pmu_thread_fini();
	printf("%d threads churned: %u kept apart, the rest folded into one record, the totals exact\n", THREADS, kept);
	T_DONE();
}
