/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's metrics come from the merged sums, never from the
 * processes' ratios: two reports whose IPC differ (3 and 1/3) merge to
 * sum(instructions) / sum(cycles), not the mean of the two; a metric the
 * inputs gave that needs the region's time (CPUs_utilized) to sum(task-clock)
 * / sum(ns); a merge of merged reports to the same figures; reports without
 * metrics to no "metrics" at all, as before.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>

#include "test.h"
#include "tool_run.h"

/* A process's report of one thread and region "step": cycles, instructions, task-clock and ns. */
static void write_report(const char *path, int pid, unsigned long long cyc, unsigned long long ins,
			 unsigned long long tc, unsigned long long ns, bool metrics)
{
	FILE *f = fopen(path, "w");
	char m[256] = "{}";

	CHECK(f != NULL);
	if (!f)
		return;
	if (metrics)
		snprintf(m, sizeof(m), "{\"ipc\": %.17g, \"CPI\": %.17g, \"GHz\": %.17g, \"CPUs_utilized\": %.17g}",
			 (double)ins / (double)cyc, (double)cyc / (double)ins, (double)cyc / (double)tc,
			 (double)tc / (double)ns);
	fprintf(f, "{\n  \"library\": \"libpmu 0.5.0\",\n  \"pid\": %d,\n  \"hostname\": \"node\",\n"
		"  \"command\": \"./app\",\n  \"start\": \"2026-12-01T03:00:00Z\",\n  \"start_ns\": 1796094000000000000,\n"
		"  \"events\": [\"cycles\", \"instructions\", \"task-clock\"],\n  \"regions\": [\n"
		"    {\"name\": \"step\", \"calls\": 4, \"ns\": %llu, \"ns_per_call\": %.1f, "
		"\"counts\": {\"cycles\": %llu, \"instructions\": %llu, \"task-clock\": %llu}, \"metrics\": %s,\n"
		"      \"threads\": [\n        {\"tid\": %d, \"name\": \"app\", \"exited\": false, \"calls\": 4, "
		"\"ns\": %llu, \"ns_per_call\": %.1f, \"counts\": {\"cycles\": %llu, \"instructions\": %llu, "
		"\"task-clock\": %llu}, \"metrics\": %s}]}\n  ]\n}\n",
		pid, ns, ns / 4.0, cyc, ins, tc, m, pid, ns, ns / 4.0, cyc, ins, tc, m);
	fclose(f);
}

/* The number after "key": in the "metrics" of out's first region; NAN when absent. */
static double metric(const char *key)
{
	char pat[64];
	const char *m = strstr(out, "\"metrics\": {"), *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = m ? strstr(m, pat) : NULL;
	return p && p < strchr(m, '}') ? strtod(p + strlen(pat), NULL) : NAN;
}

int main(void)
{
	char dir[256], a[300], b[300], c[300], ab[300], plain1[300], plain2[300];
	FILE *f;

	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");
	CHECK(t_tmpdir(dir, sizeof(dir), "merge-metric") == 0);
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	snprintf(c, sizeof(c), "%s/c.json", dir);
	snprintf(ab, sizeof(ab), "%s/ab.json", dir);
	snprintf(plain1, sizeof(plain1), "%s/p1.json", dir);
	snprintf(plain2, sizeof(plain2), "%s/p2.json", dir);
	/* IPC 3 and 1/3: the merge's is 4000 / 4000 = 1, the mean of the two would be 5/3 */
	write_report(a, 11, 1000, 3000, 500000, 2000000, true);
	write_report(b, 12, 3000, 1000, 1500000, 1000000, true);
	write_report(c, 13, 7000, 2100, 700000, 3500000, true);

	CHECK_MSG(PMU("report", "merge", "--format", "json", a, b) == 0, "%s", err);
	CHECK_MSG(metric("ipc") == 4000.0 / 4000.0, "ipc %.17g\n%s", metric("ipc"), out);
	CHECK(metric("ipc") != (3.0 + 1.0 / 3.0) / 2);
	CHECK_MSG(metric("CPI") == 4000.0 / 4000.0, "%s", out);
	CHECK_MSG(metric("GHz") == 4000.0 / 2000000.0, "%s", out);
	CHECK_MSG(metric("CPUs_utilized") == 2000000.0 / 3000000.0, "%s", out);
	f = fopen(ab, "w");
	CHECK(f && fputs(out, f) >= 0);
	if (f)
		fclose(f);

	/* a merge of the merged with a third: the figures of merging all three at once */
	CHECK_MSG(PMU("report", "merge", "--format", "json", ab, c) == 0, "%s", err);
	CHECK_MSG(metric("ipc") == 6100.0 / 11000.0, "ipc %.17g\n%s", metric("ipc"), out);
	CHECK_MSG(metric("CPUs_utilized") == 2700000.0 / 6500000.0, "%s", out);
	char tree[512];
	const char *tm = strstr(out, "\"metrics\": {");

	CHECK(tm && strchr(tm, '}'));
	snprintf(tree, sizeof(tree), "%s", tm ? tm : "}");
	CHECK_MSG(PMU("report", "merge", "--format", "json", a, b, c) == 0, "%s", err);
	CHECK_MSG(strstr(out, "\"metrics\": {") && !strncmp(strstr(out, "\"metrics\": {"), tree,
		  (size_t)(strchr(tree, '}') - tree)), "%s\n%s", tree, out);

	/* inputs without metrics: still those the common events give, duration_time's only when named */
	write_report(plain1, 21, 1000, 3000, 500000, 2000000, false);
	write_report(plain2, 22, 3000, 1000, 1500000, 1000000, false);
	CHECK_MSG(PMU("report", "merge", "--format", "json", plain1, plain2) == 0, "%s", err);
	CHECK_MSG(metric("ipc") == 1.0 && isnan(metric("CPUs_utilized")), "%s", out);

	unlink(a), unlink(b), unlink(c), unlink(ab), unlink(plain1), unlink(plain2);
	rmdir(dir);
	T_DONE();
}
