/* SPDX-License-Identifier: MIT */
/*
 * pmu stat -M, --metric-only and --topdown end to end on software events: a
 * metric file written for the test (page faults per ms of task-clock and
 * others), each value checked against the counts printed beside it, in
 * perf 6.1's table, -x and -j layouts (stat-display.c: a metric after an
 * event's own comment goes on a line of its own); the built-in set;
 * refusals; and perf 6.1's stat options pmu stat lacks, each refused by name.
 */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>

#include "test.h"
#include "tool_run.h"

static char file[PATH_MAX + 64], env[PATH_MAX + 128];

/* Whether this machine's sysfs has an armv8 PMU (the arm64 guest). */
static bool armv8_core(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		found |= !strncmp(e->d_name, "armv8_", 6) || !strncmp(e->d_name, "armv9_", 6);
	if (d)
		closedir(d);
	return found;
}

/* The -x, line of event name (":u" when the kernel refused kernel counting): its count, or NAN. */
static double csv_count(const char *text, const char *name)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), ",%s,", name);
	if (!strstr(text, key))
		snprintf(key, sizeof(key), ",%s:u,", name);
	for (p = text; (p = strstr(p, key)); p++) {
		const char *bol = p;

		while (bol > text && bol[-1] != '\n')
			bol--;
		if (bol[0] != ',')
			return strtod(bol, NULL);
	}
	return NAN;
}

/* The value of the -x, metric line whose unit ends with unit, or NAN. */
static double csv_metric(const char *text, const char *unit)
{
	char key[160];
	const char *p;

	snprintf(key, sizeof(key), ",%s\n", unit);
	if (!(p = strstr(text, key)))
		return NAN;
	while (p > text && p[-1] != ',')
		p--;
	return strtod(p, NULL);
}

int main(void)
{
	double pf, tc, v;

	if (find() < 0) {
		printf("SKIP: the pmu tool or the fixtures not found\n");
		return 77;
	}
	snprintf(file, sizeof(file), "%s/perf_json/sw_metrics.json", fix);
	/* probe: software counting allowed here? */
	if (run_argv((const char *[]){ "stat", "-e", "page-faults", "true", NULL }) != 0 || strstr(out, "<not")) {
		printf("SKIP: software events do not count here: %.200s\n", err);
		return 77;
	}

	/* -x: page_faults_per_ms = page-faults / (task-clock ns / 1e6), "%8.1f" as perf */
	CHECK_RUN(run_argv((const char *[]){ "stat", "--perf-json", file, "-M", "page_faults_per_ms", "-x,", "true", NULL })
	       == 0, "-x run");
	pf = csv_count(err, "page-faults");
	tc = csv_count(err, "task-clock");
	v = csv_metric(err, "faults/ms  page_faults_per_ms");
	/* task-clock is printed to 0.01 ms */
	CHECK_RUN(pf > 0 && tc > 0.005 && v >= pf / (tc + 0.005) - 0.05 && v <= pf / (tc - 0.005) + 0.05,
	       "%g faults / %g ms = %g", pf, tc, v);
	/* perf's new_line_csv: the metric on a line of its own (page-faults has its rate), 3 fields blank */
	CHECK_RUN(strstr(err, "\n,,,,") && strstr(err, ",faults/ms  page_faults_per_ms\n"), "-x layout");
	/* no default events with -M, as perf: only the metric's */
	CHECK_RUN(!strstr(err, "context-switches") && !strstr(err, "cpu-migrations"), "-M without the defaults");

	/* the same from PMU_PERF_JSON, in the table */
	snprintf(env, sizeof(env), "PMU_PERF_JSON='%s'", file);
	CHECK_RUN(run(env, tool, "stat -M page_faults_per_ms true") == 0, "PMU_PERF_JSON run");
	{
		const char *l = strstr(err, "faults/ms  page_faults_per_ms");
		const char *bol = l;

		while (bol && bol > err && bol[-1] != '\n')
			bol--;
		/* perf's do_new_line_std: 49 blanks, then " # ", the value as %8.1f, the unit */
		CHECK_RUN(l && l - bol == 49 + 3 + 8 + 1 && !strncmp(bol, "                                                  # ",
								  52), "table layout");
		CHECK_RUN((strstr(err, " page-faults ") || strstr(err, " page-faults:u ")) &&
		       (strstr(err, " msec task-clock ") || strstr(err, " msec task-clock:u ")), "table events");
	}

	/* -j: the value beside the counts */
	CHECK_RUN(run_argv((const char *[]){ "stat", "--perf-json", file, "-M", "Software", "-j", "true", NULL }) == 0,
	       "-j run");
	CHECK_RUN(strstr(err, "{\"metric-value\" : ") && strstr(err, "\"metric-unit\" : \"faults/ms  page_faults_per_ms\"}")
	       && strstr(err, "\"metric-unit\" : \"cs_per_fault\"}") &&
	       /* 0 context switches: cpu-migrations / 0 is left blank, as perf */
	       (strstr(err, "migrations_per_cs") || strstr(err, "{\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}")),
	       "-j metrics");

	/* a metric naming another, and a group: every one of its metrics */
	CHECK_RUN(run_argv((const char *[]){ "stat", "--perf-json", file, "-M", "faults_per_sec,Software", "-x,", "true",
		NULL }) == 0, "reference run");
	pf = csv_count(err, "page-faults");
	tc = csv_count(err, "task-clock");
	v = csv_metric(err, "faults_per_sec");
	CHECK_RUN(tc > 0.005 && v >= pf / (tc + 0.005) * 1000 - 0.005 && v <= pf / (tc - 0.005) * 1000 + 0.005,
	       "faults_per_sec %g from %g / %g", v, pf, tc);

	/* --metric-only: headings, then the values */
	CHECK_RUN(run_argv((const char *[]){ "stat", "--perf-json", file, "-M", "page_faults_per_ms,cs_per_fault",
		"--metric-only", "true", NULL }) == 0, "--metric-only run");
	CHECK_RUN(strstr(err, "\nfaults/ms  page_faults_per_ms         cs_per_fault \n"), "metric-only headings");
	CHECK_RUN(run_argv((const char *[]){ "stat", "--perf-json", file, "-M", "page_faults_per_ms", "--metric-only", "-x,",
		"true", NULL }) == 0 && strstr(err, "faults/ms  page_faults_per_ms,\n"), "metric-only -x");
	CHECK_RUN(run_argv((const char *[]){ "stat", "--perf-json", file, "-M", "page_faults_per_ms", "--metric-only", "-j",
		"true", NULL }) == 0 && strstr(err, "{\"unit\" : \"faults/ms  page_faults_per_ms\"}\n{\"metric-value\" : \""),
	       "metric-only -j");
	CHECK_RUN(run_argv((const char *[]){ "stat", "--metric-only", "-I", "100", "true", NULL }) == 129 &&
	       strstr(err, "not supported: --metric-only with -I"), "metric-only -I");

	/* the built-in set: CPUs_utilized = task-clock / duration_time */
	CHECK_RUN(run_argv((const char *[]){ "stat", "-M", "CPUs_utilized", "-x,", "true", NULL }) == 0, "built-in run");
	v = csv_metric(err, "CPUs utilized  CPUs_utilized");
	CHECK_RUN(v > 0 && v < 64, "CPUs_utilized %g", v);

	/* refusals */
	CHECK_RUN(run_argv((const char *[]){ "stat", "--perf-json", file, "-M", "unknown_event", "true", NULL }) == 1 &&
	       strstr(err, "metric unknown_event: 'no_such_event' names no event"), "a refused metric");
	CHECK_RUN(run_argv((const char *[]){ "stat", "-M", "nothing_named_so", "true", NULL }) == 1 &&
	       strstr(err, "-M nothing_named_so: no metric or metric group"), "an unknown metric");
	/* a metric's event this machine lacks (all but Intel's Ice Lake and later): named whole, not written over */
	{
		static const char want[] = "pmu stat: metric tma_retiring: slots: unknown event";
		int rc = run_argv((const char *[]){ "stat", "-M", "tma_retiring", "true", NULL });

		CHECK_RUN(rc == 0 || (rc == 1 && !strncmp(err, want, sizeof(want) - 1)), "a built-in metric's missing event");
	}
	/* an armv8 core PMU (the arm64 guest) has SBSA's events by number: counted, blank without caps/slots */
	if (armv8_core())
		CHECK_RUN(run_argv((const char *[]){ "stat", "--topdown", "true", NULL }) == 0 &&
		       strstr(err, "not computable here: #slots, the core PMU's caps/slots, "), "--topdown on armv8");
	else
		CHECK_RUN(run_argv((const char *[]){ "stat", "--topdown", "true", NULL }) == 1 &&
		       strstr(err, "not supported here: --topdown"), "--topdown without TopdownL1");
	snprintf(file, sizeof(file), "%s/perf_json/x86model", fix);
	CHECK_RUN(run_argv((const char *[]){ "stat", "--perf-json", file, "--topdown", "true", NULL }) == 1 &&
	       strstr(err, "not supported here: --topdown: TopdownL1 needs topdown-retiring, topdown-fe-bound"),
	       "--topdown naming what is missing");

	/* LIKWID's ENERGY group, where RAPL is missing: its events named, no core PMU blamed */
	if (access("/sys/bus/event_source/devices/power", F_OK))
		CHECK_RUN(run_argv((const char *[]){ "stat", "-a", "-M", "ENERGY", "true", NULL }) == 1 &&
		       strstr(err, "not supported here: -M ENERGY: ENERGY needs energy-pkg, energy-ram, which ") &&
		       !strstr(err, "core PMU"), "ENERGY without RAPL: %s", err);

	/* perf 6.1's stat options that pmu stat lacks: each refused by name */
	static const char *const perf_only[] = {
		"-T", "--transaction", "--filter=x", "-i", "--no-inherit", "-b1", "--bpf-prog=1", "--bpf-counters",
		"--bpf-attr-map=x", "-g", "--group", "--scale", "--table", "-n", "--null", "-d", "--detailed", "-S",
		"--sync", "-B", "--big-num", "--no-big-num", "--hybrid-merge", "-Gx", "--cgroup=x",
		"--for-each-cgroup=x", "--log-fd=3", "--pre=x", "--post=x", "--interval-count=1", "--interval-clear",
		"--timeout=1", "--per-socket", "--per-die", "--per-core", "--per-node", "--metric-no-merge",
		"--td-level=2", "--smi-cost", "--all-kernel", "--all-user", "--percore-show-thread", "--summary",
		"--no-csv-summary", "-q", "--quiet", "--cputype=x", "--pfm-events=x", "--control=x", "--iostat",
	};
	for (size_t i = 0; i < sizeof(perf_only) / sizeof(perf_only[0]); i++) {
		char name[64];
		const char *a = perf_only[i];

		if (a[1] == '-')
			snprintf(name, sizeof(name), "%.*s (a perf stat option", (int)strcspn(a, "="), a);
		else
			snprintf(name, sizeof(name), "not supported: -%c/--", a[1]);
		CHECK_RUN(run_argv((const char *[]){ "stat", a, "true", NULL }) == 129 && strstr(err, name) &&
		       strstr(err, "pmu stat: not supported: "), "%s", a);
	}
	T_DONE();
}
