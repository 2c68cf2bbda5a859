/* SPDX-License-Identifier: MIT */
/* Subcommands of the pmu tool: each returns the process exit status. */
#ifndef PMU_TOOL_CMDS_H
#define PMU_TOOL_CMDS_H
#include <stdbool.h>
/* The exit status of a usage error, everywhere (git's and perf's). */
#define TOOL_USAGE 129

int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_emulate(int argc, char **argv);

/*
 * "--sysfs DIR" or "--sysfs=DIR" at argv[*i]: points the library at DIR
 * (pmu__set_sysfs_root) and moves *i past it. 1 when taken, 0 when argv[*i]
 * is another argument, -1 (message printed) when DIR is missing.
 */
int tool_sysfs_option(const char *cmd, int argc, char **argv, int *i);
/* "--perf-json PATH" or "--perf-json=PATH" at argv[*i] (pmu__pj_add_path), as tool_sysfs_option. */
int tool_perf_json_option(const char *cmd, int argc, char **argv, int *i);
/* pmu report diff BASE NEW (diff.c): the exit status. */
int cmd_diff(int argc, char **argv);
/* Its usage to f: 0 for stdout, else 129. */
int diff_usage(FILE *f);
/* pmu list metric (groups: metricgroup), as text or json (list_metric.c): the exit status. */
int list_metrics(bool groups, bool json);
#endif
