/* SPDX-License-Identifier: MIT */
/* The options every subcommand takes alike (cmds.h): --sysfs. */
#include <stdio.h>
#include <string.h>

#include <pmu.h>

#include "layers.h"
#include "cmds.h"

/* Points the library at dir; -1 (said) when it could not copy it and would read this machine's. */
static int set_root(const char *cmd, const char *dir)
{
	pmu__set_sysfs_root(dir);
	if (!strcmp(pmu__sysfs_root(), dir))
		return 1;
	fprintf(stderr, "pmu %s: --sysfs %s: out of memory\n", cmd, dir);
	return -1;
}

int tool_sysfs_option(const char *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (!strncmp(a, "--sysfs=", 8))
		return set_root(cmd, a + 8);
	if (strcmp(a, "--sysfs"))
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "pmu %s: --sysfs needs a directory\n", cmd);
		return -1;
	}
	++*i;
	return set_root(cmd, argv[*i]);
}
int tool_perf_json_option(const char *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;

	if (!strncmp(a, "--perf-json=", 12))
		v = a + 12;
	else if (!strcmp(a, "--perf-json")) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "pmu %s: --perf-json needs a directory or a JSON file\n", cmd);
			return -1;
		}
		v = argv[++*i];
	} else
		return 0;
	if (!*v) {
		fprintf(stderr, "pmu %s: --perf-json needs a directory or a JSON file\n", cmd);
		return -1;
	}
	if (pmu__pj_add_path(v) < 0) {
		fprintf(stderr, "pmu %s: %s\n", cmd, pmu_errmsg());
		return -1;
	}
	return 1;
}

