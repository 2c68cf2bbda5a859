/* SPDX-License-Identifier: MIT */
/*
 * Metrics through regions, over software events: pmu_thread_init() given a
 * built-in metric's name (CPUs_utilized: task-clock / duration_time, the
 * region's ns) counts its events beside those named (each once); the
 * results give the metric per thread and in total as the sums the same
 * results give, divided; the json, csv and table reports show it, its
 * value in the json and csv equal to that of the counts they print. An
 * unknown name keeps pmu_open()'s refusal; a group this machine lacks the
 * events of is refused naming it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pmu.h"
#include "test.h"

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		CHECK(pmu_region_begin("work") == 0);
		t_touch_pages(8);
		CHECK(pmu_region_end("work") == 0);
	}
	return NULL;
}

/* The metric's value in the results: the sums of the same results, divided. */
static void check_results(unsigned *calls_out)
{
	struct pmu_results *r = pmu_results_take();
	const char *const *names, *const *ev;
	unsigned nm, n, tc = 9;
	double v;

	CHECK_MSG(r, "%s", pmu_errmsg());
	if (!r)
		return;
	n = pmu_results_events(r, &ev);
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(ev[i], "task-clock"))
			tc = i;
	CHECK(tc < n);
	nm = pmu_results_metrics(r, &names);
	CHECK(nm >= 1 && !strcmp(names[0], "CPUs_utilized") && names[nm] == NULL);
	for (int k = -1; k < (int)pmu_results_threads(r) && tc < n; k++) {
		struct pmu_region_result g = { .size = sizeof(g) };

		CHECK(pmu_results_get(r, 0, k, &g) == 0);
		CHECK_MSG(pmu_results_metric(r, 0, k, "CPUs_utilized", &v) == 0, "%s", pmu_errmsg());
		CHECK_MSG(v == (double)g.sum[tc] / (double)g.ns, "thread %d: %g, want %" PRIu64 " / %" PRIu64, k, v,
			  g.sum[tc], g.ns);
		CHECK(pmu_results_metric(r, 0, k, "cpus_UTILIZED", &v) == 0);
		if (k < 0)
			*calls_out = (unsigned)g.calls;
	}
	CHECK(pmu_results_metric(r, 0, -1, "IPC", &v) == -ENOENT && strstr(pmu_errmsg(), "IPC"));
	CHECK(pmu_results_metric(r, 0, -1, NULL, &v) == -EINVAL);
	CHECK(pmu_results_metric(r, 0, -1, "CPUs_utilized", NULL) == -EINVAL);
	CHECK(pmu_results_metric(r, 7, -1, "CPUs_utilized", &v) == -EINVAL);
	CHECK(pmu_results_metric(r, 0, 9, "CPUs_utilized", &v) == -EINVAL);
	CHECK(pmu_results_metric(NULL, 0, -1, "CPUs_utilized", &v) == -EINVAL);
	CHECK(pmu_results_metrics(NULL, &names) == 0 && names == NULL);
	pmu_results_free(r);
}

static char *report(const char *format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f && pmu_report(f, format) == 0);
	if (f)
		fclose(f);
	return buf;
}

/* The json's total of region "work": its metric equals its task-clock count over its ns. */
static void check_json(void)
{
	char *j = report("json"), *p, *end;
	unsigned long long ns = 0, tc = 0;
	double v;

	p = j ? strstr(j, "\"name\": \"work\"") : NULL;
	CHECK_MSG(p, "%s", j);
	if (!p)
		goto out;
	CHECK(sscanf(strstr(p, "\"ns\": "), "\"ns\": %llu", &ns) == 1);
	CHECK(sscanf(strstr(p, "\"counts\": {"), "\"counts\": {\"task-clock\": %llu", &tc) == 1 ||
	      sscanf(strstr(strstr(p, "\"counts\": {"), "\"task-clock\": "), "\"task-clock\": %llu", &tc) == 1);
	p = strstr(p, "\"metrics\": {\"CPUs_utilized\": ");
	CHECK_MSG(p, "%s", j);
	if (!p)
		goto out;
	v = strtod(p + strlen("\"metrics\": {\"CPUs_utilized\": "), &end);
	CHECK_MSG(ns && v == (double)tc / (double)ns, "%g, want %llu / %llu", v, tc, ns);
out:
	free(j);
}

int main(void)
{
	struct pmu_set *probe;
	unsigned calls = 0;
	pthread_t th;
	char *s;
	int r;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	/* the metric's events beside those named: task-clock once */
	CHECK_MSG(pmu_thread_init("page-faults,CPUs_utilized,task-clock") == 0, "%s", pmu_errmsg());
	CHECK_EQ(pmu_thread_event_count(), 2);
	CHECK(!strcmp(pmu_thread_event_name(0), "page-faults") && !strcmp(pmu_thread_event_name(1), "task-clock"));
	/* the same list again is the same configuration */
	CHECK(pmu_thread_init("page-faults,CPUs_utilized,task-clock") == 0);
	CHECK(pmu_thread_init("page-faults,task-clock") == -EBUSY);

	CHECK(pthread_create(&th, NULL, worker, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	worker(NULL);
	check_results(&calls);
	CHECK_EQ(calls, 6);
	check_json();
	s = report("csv");
	CHECK_MSG(s && strstr(s, "region,thread,tid,calls,ns,ns_per_call,page-faults,task-clock,CPUs_utilized,ns_min,"),
		  "%s", s);
	free(s);
	s = report("table");
	CHECK_MSG(s && strstr(s, "CPUs_utilized") && strstr(s, "events: page-faults, task-clock\n"), "%s", s);
	free(s);
	CHECK(pmu_thread_fini() == 0);

	/* a metric alone: its events; any case */
	CHECK_MSG(pmu_thread_init("cpus_utilized") == 0, "%s", pmu_errmsg());
	CHECK_EQ(pmu_thread_event_count(), 1);
	CHECK(!strcmp(pmu_thread_event_name(0), "task-clock"));
	CHECK(pmu_thread_fini() == 0);

	/* an unknown name: pmu_open()'s refusal, naming it */
	CHECK(pmu_thread_init("task-clock,no_such_metric") < 0);
	CHECK_MSG(strstr(pmu_errmsg(), "no_such_metric"), "%s", pmu_errmsg());
	CHECK_EQ(pmu_thread_event_count(), 0);

	/* a group: those of its metrics that count here; without a hardware PMU, CPUs_utilized alone of Default's */
	if (pmu_open(&probe, "cycles") == 0) {
		pmu_close(probe);
	} else {
		CHECK_MSG(pmu_thread_init("default") == 0, "%s", pmu_errmsg());
		CHECK(pmu_thread_event_count() == 1 && !strcmp(pmu_thread_event_name(0), "task-clock"));
		worker(NULL);
		struct pmu_results *res = pmu_results_take();
		const char *const *names;

		CHECK(res && pmu_results_metrics(res, &names) == 1 && !strcmp(names[0], "CPUs_utilized"));
		pmu_results_free(res);
		CHECK(pmu_thread_fini() == 0);
	}

	/* a group: refused, naming it and what it lacks, where this machine has none of its events */
	r = pmu_thread_init("TopdownL1");
	if (r < 0)
		CHECK_MSG(r == -EOPNOTSUPP && strstr(pmu_errmsg(), "TopdownL1: not supported here") &&
			  strstr(pmu_errmsg(), "(pmu_thread_init)"), "%d %s", r, pmu_errmsg());
	else
		printf("TopdownL1 opens here: %d events\n", pmu_thread_event_count());
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
