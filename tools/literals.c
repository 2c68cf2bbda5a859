/* SPDX-License-Identifier: MIT */
/* The values of perf's expressions' # literals on this machine, for pmu stat's metrics: see literals.h. */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "literals.h"
#include "events/perf_cpu.h"
#include "layers.h"

/* A file of /sys/devices/system/cpu holding a number. */
static bool cpu_sys_num(const char *file, long *v)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", file);
	if (pmu__read_file(path, buf, sizeof(buf)) < 0)
		return false;
	*v = strtol(buf, NULL, 0);
	return true;
}

/* Distinct values of a topology file over the online CPUs (cores: per package and die). */
static double distinct(const char *what)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), seen[1024], ns = 0;

	for (long c = 0; c < ncpu && c < 1024; c++) {
		char f[128];
		long v, pkg = 0, die = 0;

		snprintf(f, sizeof(f), "cpu%ld/topology/%s", c, what);
		if (!cpu_sys_num(f, &v))
			continue;
		if (!strcmp(what, "core_id")) {
			snprintf(f, sizeof(f), "cpu%ld/topology/physical_package_id", c);
			cpu_sys_num(f, &pkg);
			snprintf(f, sizeof(f), "cpu%ld/topology/die_id", c);
			cpu_sys_num(f, &die);
			v = v | pkg << 40 | die << 32;
		}
		long k = 0;

		while (k < ns && seen[k] != v)
			k++;
		if (k == ns)
			seen[ns++] = v;
	}
	return ns ? (double)ns : 1;
}

static bool system_wide;

void tool_metric_system_wide(bool every_cpu)
{
	system_wide = every_cpu;
}

int tool_metric_literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	long v;

	(void)ctx;
	switch (lit) {
	case PMU_EXPR_SMT_ON:
		*out = cpu_sys_num("smt/active", &v) && v > 0;
		return 0;
	case PMU_EXPR_NUM_CPUS:
		*out = (double)sysconf(_SC_NPROCESSORS_ONLN);
		return 0;
	case PMU_EXPR_NUM_CORES:
		*out = distinct("core_id");
		return 0;
	case PMU_EXPR_NUM_DIES:
		*out = distinct("die_id");
		return 0;
	case PMU_EXPR_NUM_PACKAGES:
		*out = distinct("physical_package_id");
		return 0;
	case PMU_EXPR_CORE_WIDE:
		/* perf 6.1's core_wide(): counting every CPU (-a without -C), and then trivially without SMT */
		*out = system_wide;
		return 0;
	case PMU_EXPR_SLOTS: {
		char path[PATH_MAX], buf[64];

		const char *core = pmu__pj_core_pmu();

		if (core) {
			snprintf(path, sizeof(path), "%s/%s/caps/slots", pmu__sysfs_root(), core);
			if (pmu__read_file(path, buf, sizeof(buf)) >= 0 && (*out = strtod(buf, NULL)) > 0)
				return 0;
		}
		*out = NAN;	/* the evaluation says "#slots is not a number" */
		return 0;
	}
	case PMU_EXPR_SYSTEM_TSC_FREQ:
	default:
		*out = NAN;
		return 0;
	}
}
