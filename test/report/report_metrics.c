/* SPDX-License-Identifier: MIT */
/*
 * The one table of metrics (src/metric_defs.c), which the region report and
 * pmu stat share, and the events' spellings (src/metrics.c): each metric
 * found under the spellings of every kernel's sysfs, with modifiers and PMU
 * names around them, and nowhere else.
 */
#include <errno.h>

#include "parse/expr.h"
#include "metrics/metric_use.h"
#include "events/spellings.h"
#include "test.h"

/* Where identifier i of the expression of the metric of that key is among events[0..n), or -1. */
static int find_id(const char *key, unsigned i, const char *const *events, unsigned n)
{
	const struct pmu__metric_def *d = pmu__metric_builtin(key);
	struct pmu__expr *e;
	int at = -1;

	if (!d || pmu__expr_parse(d->expr, &e) < 0)
		return -1;
	for (unsigned k = 0; i < pmu__expr_nids(e) && k < n && at < 0; k++)
		if (events[k] && pmu__metric_event_is(events[k], pmu__expr_id(e, i)))
			at = (int)k;
	pmu__expr_free(e);
	return at;
}

/* The metric applies to events[0..n) with its numerator at num and denominator at den. */
static int uses(const char *key, const char *const *events, unsigned n, int num, int den)
{
	int un = find_id(key, 0, events, n), ud = find_id(key, 1, events, n);

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

	/* 0.4's keys and headings; a comment's first event is not also shown per second. */
	CHECK(pmu__metric_builtin("cache_miss_ratio") == pmu__metric_builtin("cache_miss_rate"));
	CHECK(!strcmp(pmu__metric_builtin("ipc")->label, "IPC"));
	for (unsigned i = 0; i < pmu__metric_ndefs; i++) {
		const struct pmu__metric_def *d = &pmu__metric_defs[i];
		struct pmu__expr *e;

		CHECK(!d->key == !d->label);
		if (!d->comment)
			continue;
		CHECK_EQ(pmu__expr_parse(d->expr, &e), 0);
		CHECK_MSG(!pmu__metric_rated(pmu__expr_id(e, 0)), "%s: %s is rated", d->name, pmu__expr_id(e, 0));
		pmu__expr_free(e);
	}
	/* GHz needs a clock, which regions have not as an event: pmu stat's comment, no report key of its own. */
	CHECK(!pmu__metric_builtin("GHz")->key && pmu__metric_builtin("GHz")->comment);
	CHECK(uses("GHz", (const char *const[]){ "task-clock", "cycles" }, 2, 1, 0));
	CHECK(uses("GHz", (const char *const[]){ "cpu-clock", "cpu_cycles" }, 2, 1, 0));
	T_DONE();
}
