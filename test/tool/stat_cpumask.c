/* SPDX-License-Identifier: MIT */
/*
 * pmu stat -a and an event of a PMU that counts per CPU (a cpumask, as RAPL
 * and the uncore PMUs have): opened on the CPUs of its mask alone, as perf,
 * so that a socket's count is not summed once per CPU; -A shows those CPUs'
 * lines alone. The PMU is a sysfs tree of the test's: the software PMU's
 * type, cpu-clock as its event (shown in msec, as the clocks are), with
 * mask "0". Two instances of a family (fam_0, fam_1) sum on one line, and
 * --no-merge shows each. pmu stat prints on stderr, as perf stat.
 */
#include <errno.h>
#include <sys/stat.h>

#include "cpu_pmu.h"
#include "test.h"
#include "tool_run.h"

static unsigned lines_with(const char *s, const char *what, const char *start)
{
	unsigned n = 0;

	for (const char *l = s; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		size_t len = strcspn(l, "\n");
		const char *hit = strstr(l, what);

		if (hit && hit < l + len && (!start || !strncmp(l, start, strlen(start))))
			n++;
	}
	return n;
}

int main(void)
{
	char dir[] = "/tmp/pmu-cpumask.XXXXXX", sub[PATH_MAX + 32], env[PATH_MAX + 64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int st;

	if (find())
		T_SKIP("the pmu tool not found next to this test");
	if (!mkdtemp(dir))
		T_SKIP("mkdtemp: %s", strerror(errno));
	t_cpu_pmu(dir, "cpuclk", "0\n", "clk", "event=0x0\n");
	snprintf(env, sizeof(env), "PMU_SYSFS_DEVICES='%s'", dir);

	st = run(env, tool, "stat -a -A -x, -e cpuclk/clk/,cpu-clock sleep 0.05");
	if (st != 0 && (strstr(err, "permission") || strstr(err, "CAP_PERFMON")))
		T_SKIP("counting CPUs is not allowed here: %s", err);
	CHECK_MSG(st == 0, "exit %d: %s", st, err);
	CHECK_MSG(lines_with(err, ",msec,cpuclk/clk/,", NULL) == 1 &&
		  lines_with(err, ",msec,cpuclk/clk/,", "CPU0,") == 1, "the per-CPU PMU's event, on CPU 0 alone:\n%s", err);
	CHECK_MSG(lines_with(err, ",msec,cpu-clock,", NULL) == (unsigned)ncpu, "cpu-clock on each of %ld CPUs:\n%s",
		  ncpu, err);
	/* summed: one CPU's ms over 0.05 s, not one per CPU (which would be at least 0.1 s with 2) */
	st = run(env, tool, "stat -a -x, -e cpuclk/clk/,cpu-clock sleep 0.05");
	CHECK_MSG(st == 0 && lines_with(err, ",msec,cpuclk/clk/,", NULL) == 1, "exit %d: %s", st, err);
	CHECK_MSG(atof(err) > 40 && atof(err) < 0.9 * atof(strstr(err, "\n") + 1) + (ncpu == 1 ? 1e9 : 0),
		  "one CPU's ms, less than all CPUs':\n%s", err);
	/* a family: summed on one line, each instance on its own with --no-merge, as perf */
	t_cpu_pmu(dir, "fam_0", "0\n", "clk", "event=0x0\n");
	t_cpu_pmu(dir, "fam_1", "0\n", "clk", "event=0x0\n");
	st = run(env, tool, "stat -a -x, -e fam/clk/,clk:u sleep 0.05");
	CHECK_MSG(st == 0 && lines_with(err, ",msec,fam/clk/,", NULL) == 1 && lines_with(err, ",msec,clk:u,", NULL) == 1,
		  "the family's sum on one line each:\n%s", err);
	CHECK_MSG(atof(err) > 80, "fam_0 and fam_1 summed (two clocks of 0.05 s):\n%s", err);
	st = run(env, tool, "stat -a --no-merge -x, -e fam/clk/,clk:u sleep 0.05");
	CHECK_MSG(st == 0 && lines_with(err, ",msec,fam_0/clk/,", NULL) == 1 &&
		  lines_with(err, ",msec,fam_1/clk/,", NULL) == 1 && lines_with(err, ",msec,fam_0/clk/u,", NULL) == 1 &&
		  lines_with(err, ",msec,fam_1/clk/u,", NULL) == 1 && lines_with(err, ",msec,cpuclk/clk/u,", NULL) == 1 &&
		  lines_with(err, "fam/", NULL) == 0,
		  "--no-merge: a line per instance:\n%s", err);
	CHECK_MSG(atof(err) > 40 && atof(err) < 80, "one instance's clock:\n%s", err);
	snprintf(sub, sizeof(sub), "rm -rf '%s'", dir);
	CHECK(system(sub) == 0);
	T_DONE();
}
