/* SPDX-License-Identifier: MIT */
/*
 * perf's JSON metrics where regions count (PMU_PERF_JSON read by the
 * library): a metric of the files named in pmu_thread_init()'s list opens
 * its events, a file's own events by the core PMU's terms (the intel
 * fixture tree, perf's x86 model directory), and its value comes from the
 * counts of those events; a refused metric says why; a live software
 * metric (page faults per ms of task-clock) gets its key in the report.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "metrics/metric_use.h"
#include "test.h"
#include "tool_run.h"

/* Sets the environment before the library reads it (once per process, as zero-code mode does). */
static void files(const char *sysfs, const char *json)
{
	char path[PATH_MAX + 64];

	if (sysfs) {
		snprintf(path, sizeof(path), "%s/%s", fix, sysfs);
		setenv("PMU_SYSFS_DEVICES", path, 1);
	}
	snprintf(path, sizeof(path), "%s/%s", fix, json);
	setenv("PMU_PERF_JSON", path, 1);
}

/* A software metric of the files, counted for real in a region, and one they refuse. */
static void live(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	files(NULL, "perf_json/sw_metrics.json");
	CHECK_MSG(pmu_thread_init("page_faults_per_ms,faults_per_sec") == 0, "%s", pmu_errmsg());
	CHECK(pmu_region_begin("touch") == 0);
	for (int i = 0; i < 64; i++) {
		char *m = malloc(1 << 16);

		if (m)
			memset(m, i, 1 << 16);
		free(m);
	}
	CHECK(pmu_region_end("touch") == 0);
	f = open_memstream(&buf, &len);
	CHECK(f && pmu_report(f, "json") == 0);
	if (f)
		fclose(f);
	CHECK_MSG(buf && strstr(buf, "\"page_faults_per_ms\": ") && strstr(buf, "\"faults_per_sec\": "), "%s",
		  buf ? buf : "(none)");
	free(buf);
	/* a metric the files refuse: named, with why */
	pmu_thread_fini();
	CHECK(pmu_thread_init("unknown_event") == -EINVAL &&
	      strstr(pmu_errmsg(), "unknown_event: a metric of ") &&
	      strstr(pmu_errmsg(), "'no_such_event' names no event"));
}

int main(void)
{
	char *spec = NULL, *named = NULL;
	const char *ev[4];
	struct pmu__mplan p;
	unsigned n = 0;
	pid_t pid;
	int st;
	double v;

	if (find())
		T_SKIP("the fixtures not found next to this test");
	pid = fork();
	if (pid == 0) {
		live();
		_exit(t_failures ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* perf's x86 model directory over the intel fixture: its events by the core PMU's terms */
	files("intel", "perf_json/x86model");
	CHECK_MSG(pmu__metric_expand("IPC", &spec, &named) == 0, "%s", pmu_errmsg());
	/* INST_RETIRED.ANY and CPU_CLK_UNHALTED.THREAD, fixed counters, by their architectural codes as perf */
	CHECK_MSG(spec && named && !strcmp(named, "IPC") && !strcmp(spec, "cpu/event=0xc0/,cpu/event=0x3c/"),
		  "IPC: %s", spec ? spec : "(none)");
	for (char *s = spec, *save = NULL, *t; s && n < 4 && (t = strtok_r(n ? NULL : s, ",", &save)); n++)
		ev[n] = t;
	CHECK_MSG(pmu__mplan_make(&p, ev, n, named) == 0 && pmu__mplan_find(&p, "IPC") == 0, "%s", pmu_errmsg());
	/* INST_RETIRED.ANY counted 300, CPU_CLK_UNHALTED.THREAD 100: IPC 3 */
	{
		uint64_t sums[4];

		for (unsigned i = 0; i < n; i++)
			sums[i] = strstr(ev[i], "event=0xc0") ? 300 : 100;
		CHECK(pmu__mplan_value(&p, 0, ev, n, sums, 1000, &v) && v == 3.0);
	}
	pmu__mplan_free(&p);
	free(spec);
	free(named);
	/*
	 * A file's group: found, then counted where the fixture's cpu type opens (4 is PERF_TYPE_RAW: an
	 * arm64 or riscv64 guest has a raw event 0xc0), else refused naming why (no core PMU here).
	 */
	{
		int r = pmu__metric_expand("Pipeline", &spec, &named);

		CHECK_MSG((r == 0 && named && strstr(named, "IPC")) ||
			  (r == -EOPNOTSUPP && strstr(pmu_errmsg(), "Pipeline: not supported here") &&
			   strstr(pmu_errmsg(), "IPC: cpu/event=0xc0/")), "%d %s: %s", r, named ? named : "-", pmu_errmsg());
		free(spec);
		free(named);
	}
	/* the built-in metrics stay, after the files' */
	CHECK(pmu__metric_builtin("cache_miss_rate") != NULL);
	T_DONE();
}
