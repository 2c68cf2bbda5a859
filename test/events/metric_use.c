/* SPDX-License-Identifier: MIT */
/*
 * The built-in metrics where regions count (src/metric_use.c): which
 * metrics a snapshot's events give, under every kernel's spellings, with
 * 0.4's report keys kept and in their order; values from sums, undefined on
 * a zero denominator; metric names in an event list expanded into their
 * events, each once beside those named.
 */
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "metrics/metric_use.h"

/* The plan's keys, ' '-separated. */
static void keys(const char *const *ev, unsigned n, const char *named, const char *want)
{
	struct pmu__mplan p;
	char got[512] = "";

	CHECK_MSG(pmu__mplan_make(&p, ev, n, named) == 0, "%s", pmu_errmsg());
	for (unsigned i = 0; i < p.n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "", p.m[i].key);
	CHECK_MSG(!strcmp(got, want), "got \"%s\", want \"%s\"", got, want);
	pmu__mplan_free(&p);
}

static void expands(const char *events, const char *spec, const char *named)
{
	char *s, *m;

	CHECK_MSG(pmu__metric_expand(events, &s, &m) == 0, "%s: %s", events, pmu_errmsg());
	CHECK_MSG(s && !strcmp(s, spec), "%s: got \"%s\", want \"%s\"", events, s, spec);
	CHECK_MSG(named ? m && !strcmp(m, named) : !m, "%s: named \"%s\", want \"%s\"", events, m, named);
	free(s);
	free(m);
}

int main(void)
{
	static const char *const generic[] = { "cycles", "instructions", "branches", "branch-misses",
					       "cache-references", "cache-misses" };
	static const char *const arm64[] = { "armv8_pmuv3_0/cpu_cycles/", "inst_retired:u", "br_retired",
					     "br_mis_pred_retired" };
	static const char *const soft[] = { "page-faults", "task-clock" };
	static const uint64_t sums[] = { 4000, 6000, 1000, 30 };
	struct pmu__mplan p;
	double v;
	int i;

	/* 0.4's metrics first, under their keys and in their order, then the others */
	keys(generic, 6, NULL, "ipc cache_miss_ratio branch_miss_ratio CPI");
	keys(arm64, 4, NULL, "ipc branch_miss_ratio CPI");
	keys(soft, 2, NULL, "");
	/* named ones first; duration_time is the time, not an event */
	keys(soft, 2, "CPUs_utilized", "CPUs_utilized");
	keys(generic, 2, "CPI,cpi,nothing_known", "CPI ipc");

	CHECK(pmu__mplan_make(&p, arm64, 4, NULL) == 0);
	CHECK((i = pmu__mplan_find(&p, "IPC")) == 0 && pmu__mplan_find(&p, "ipc") == 0);
	CHECK(pmu__mplan_find(&p, "branch_miss_rate") == 1 && pmu__mplan_find(&p, "Branch_Miss_Ratio") == 1);
	CHECK(pmu__mplan_find(&p, "GHz") == -1);
	CHECK(pmu__mplan_value(&p, 0, arm64, 4, sums, 0, &v) && v == 6000.0 / 4000.0);
	CHECK(pmu__mplan_value(&p, 1, arm64, 4, sums, 0, &v) && v == 30.0 / 1000.0);
	CHECK(p.m[1].scale == 100 && !strcmp(p.m[1].label, "branch-miss%"));
	/* a zero denominator: undefined, and the caller's message left as it was */
	pmu__err(-EINVAL, "before");
	CHECK(!pmu__mplan_value(&p, 0, arm64, 4, (const uint64_t[]){ 0, 5, 0, 0 }, 0, &v));
	CHECK(!strcmp(pmu_errmsg(), "before"));
	pmu__mplan_free(&p);

	CHECK(pmu__mplan_make(&p, soft, 2, "CPUs_utilized") == 0 && p.n == 1);
	CHECK(pmu__mplan_value(&p, 0, soft, 2, (const uint64_t[]){ 7, 900 }, 1200, &v) && v == 900.0 / 1200.0);
	CHECK(!pmu__mplan_value(&p, 0, soft, 2, (const uint64_t[]){ 7, 900 }, 0, &v));
	pmu__mplan_free(&p);

	CHECK(pmu__metric_builtin("ipc") == pmu__metric_builtin("IPC") && pmu__metric_builtin("IPC"));
	CHECK(pmu__metric_builtin("cache_miss_ratio") == pmu__metric_builtin("cache_miss_rate"));
	CHECK(pmu__metric_builtin("tma_retiring") && !pmu__metric_builtin("cycles"));
	CHECK(pmu__metric_event_is("cpu_cycles", "cycles") && pmu__metric_event_is("cycles:u", "cycles"));
	CHECK(pmu__metric_event_is("cpu/topdown-retiring/", "topdown-retiring"));
	CHECK(!pmu__metric_event_is("cpu/event=0x3c/", "cycles") && !pmu__metric_event_is("task-clock", "cycles"));

	/* no metric named: the list as given, whatever it holds */
	expands("task-clock,page-faults", "task-clock,page-faults", NULL);
	expands("task-clock,,x", "task-clock,,x", NULL);
	expands("cpu/event=0x3c,umask=0/,no_such_metric", "cpu/event=0x3c,umask=0/,no_such_metric", NULL);
	/* a metric's events where it stands, none again of those named beside it */
	expands("IPC,cycles", "instructions,cycles", "IPC");
	expands("cycles:u,ipc", "cycles:u,instructions", "IPC");
	expands("page-faults,CPUs_utilized,CPI,IPC", "page-faults,task-clock,cycles,instructions",
		"CPUs_utilized,CPI,IPC");
	expands("CPUs_utilized,cpu-clock", "cpu-clock", "CPUs_utilized");

	/* LIKWID's groups where their PMUs are not: refused, naming the events and the PMUs */
	CHECK_MSG(access("test/fixtures/arm64", F_OK) == 0, "test/fixtures/arm64: not found from the working directory");
	{
		char *s, *m;

		setenv("PMU_SYSFS_DEVICES", "test/fixtures/arm64", 1);
		CHECK(pmu__metric_expand("ENERGY", &s, &m) == -EOPNOTSUPP);
		CHECK_MSG(strstr(pmu_errmsg(), "ENERGY: not supported here: the group's metrics need energy-pkg, "
			  "energy-ram, which test/fixtures/arm64 does not have: they are the power PMU's (RAPL)"), "%s",
			  pmu_errmsg());
		CHECK(pmu__metric_expand("MEM", &s, &m) == -EOPNOTSUPP);
		CHECK_MSG(strstr(pmu_errmsg(), "need cas_count_read, cas_count_write, which test/fixtures/arm64 does not "
			  "have: they are the uncore_imc PMUs' (the memory controllers)"), "%s", pmu_errmsg());
		unsetenv("PMU_SYSFS_DEVICES");
	}
	T_DONE();
}
