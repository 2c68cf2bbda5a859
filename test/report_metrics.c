/* SPDX-License-Identifier: MIT */
/*
 * The table of derived metrics (src/metrics.c), which the region report and
 * pmu stat share: each metric found under the spellings of every kernel's
 * sysfs, with modifiers and PMU names around them, and nowhere else.
 */
#include "metrics.h"
#include "test.h"

static const struct pmu__metric *by_key(const char *key)
{
	for (unsigned i = 0; i < PMU_NMETRICS; i++)
		if (pmu__metrics[i].key && !strcmp(pmu__metrics[i].key, key))
			return &pmu__metrics[i];
	return NULL;
}

/* The metric applies to events[0..n) with its numerator at num and denominator at den. */
static int uses(const char *key, const char *const *events, unsigned n, int num, int den)
{
	const struct pmu__metric *m = by_key(key);
	int un = m ? pmu__metric_find(events, n, m->num) : -1, ud = m ? pmu__metric_find(events, n, m->den) : -1;

	return un >= 0 && ud >= 0 && un == num && ud == den;
}

int main(void)
{
	static const char *const generic[] = { "cycles", "instructions", "branches", "branch-misses" };
	static const char *const arm64[] = { "cpu_cycles", "inst_retired", "br_retired", "br_mis_pred_retired" };
	static const char *const wrapped[] = { "armv8_pmuv3_0/cpu_cycles/", "armv8_pmuv3_0/inst_retired/u" };
	static const char *const mods[] = { "instructions:u", "cpu-cycles:uk" };
	static const char *const raw[] = { "cpu/event=0x3c/", "cpu/event=0xc0,inst_retired/" };
	static const char *const l1d[] = { "l1d_cache", "l1d_cache_refill", "L1-dcache-loads", NULL };
	double v = 0;

	CHECK(uses("ipc", generic, 4, 1, 0));
	CHECK(uses("branch_miss_ratio", generic, 4, 3, 2));
	CHECK(uses("ipc", arm64, 4, 1, 0));
	CHECK(uses("branch_miss_ratio", arm64, 4, 3, 2));
	CHECK(uses("ipc", wrapped, 2, 1, 0));
	CHECK(uses("ipc", mods, 2, 0, 1));
	CHECK(!uses("ipc", raw, 2, 1, 0));
	CHECK(!uses("cache_miss_ratio", generic, 4, -1, -1));
	/* NULL entries (events not counted) are passed over. */
	CHECK(uses("l1d_miss_ratio", l1d, 4, 1, 0));
	CHECK(pmu__metric_find(l1d, 4, (const char *const[]){ "nothing", NULL }) == -1);

	CHECK(pmu__metric_is("task-clock", pmu__metric_clocks));
	CHECK(pmu__metric_is("cpu-clock:u", pmu__metric_clocks));
	CHECK(!pmu__metric_is("task-clocks", pmu__metric_clocks));
	CHECK(pmu__metric_rated("cs") && pmu__metric_rated("sched:sched_switch") && pmu__metric_rated("r01c2"));
	CHECK(pmu__metric_rated("branches") && pmu__metric_rated("cpu/event=0x3c/"));
	CHECK(!pmu__metric_rated("cycles") && !pmu__metric_rated("instructions:u") && !pmu__metric_rated("task-clock"));
	CHECK(!pmu__metric_rated("dTLB-load-misses") && !pmu__metric_rated("armv8_pmuv3_0/cpu_cycles/"));

	/* Every metric of the report has its key and heading; pmu stat's have a unit. */
	for (unsigned i = 0; i < PMU_NMETRICS; i++) {
		CHECK(pmu__metrics[i].unit && pmu__metrics[i].num[0] && pmu__metrics[i].den[0]);
		CHECK(!pmu__metrics[i].key == !pmu__metrics[i].label);
	}
	/* GHz needs a clock, which regions have not: pmu stat only. */
	for (unsigned i = 0; i < PMU_NMETRICS; i++)
		if (!strcmp(pmu__metrics[i].unit, "GHz"))
			CHECK(!pmu__metrics[i].key &&
			      pmu__metric_find((const char *const[]){ "task-clock", "cycles" }, 2, pmu__metrics[i].num) == 1 &&
			      pmu__metric_find((const char *const[]){ "task-clock", "cycles" }, 2, pmu__metrics[i].den) == 0);

	CHECK(pmu__metric_value(3, 2, &v) && v == 1.5);
	CHECK(!pmu__metric_value(3, 0, &v));
	T_DONE();
}
