/* SPDX-License-Identifier: MIT */
/*
 * A PMU of the test's own in a sysfs tree (PMU_SYSFS_DEVICES): files written
 * under a directory, and a stand-in for a PMU that counts per CPU (RAPL,
 * uncore), which no machine of this project has: the software PMU's type,
 * a cpumask, and one event whose terms the test picks (event=0x0 is
 * cpu-clock, which counts time on its CPU whatever runs there).
 */
#ifndef PMU_TEST_CPU_PMU_H
#define PMU_TEST_CPU_PMU_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"

/* dir/sub/file holding text, sub made when missing (one level). */
static inline void t_put(const char *dir, const char *sub, const char *file, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, file);
	f = fopen(path, "w");
	CHECK_MSG(f != NULL, "%s: %s", path, strerror(errno));
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* PMU name in dir: the software PMU's type, cpumask mask ("0\n"), event alias with terms. */
static inline void t_cpu_pmu(const char *dir, const char *name, const char *mask, const char *alias,
			     const char *terms)
{
	char sub[PATH_MAX];

	t_put(dir, name, "type", "1\n");
	t_put(dir, name, "cpumask", mask);
	snprintf(sub, sizeof(sub), "%s/format", name);
	t_put(dir, sub, "event", "config:0-63\n");
	snprintf(sub, sizeof(sub), "%s/events", name);
	t_put(dir, sub, alias, terms);
}

#endif
