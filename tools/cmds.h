/* SPDX-License-Identifier: MIT */
/* Subcommands of the pmu tool: each returns the process exit status. */
#ifndef PMU_TOOL_CMDS_H
#define PMU_TOOL_CMDS_H
int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_stat(int argc, char **argv);
#endif
