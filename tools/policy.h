/* SPDX-License-Identifier: MIT */
/* The system policy pmu check prints (policy.c). */
#ifndef PMU_TOOL_POLICY_H
#define PMU_TOOL_POLICY_H

/*
 * The settings that decide what may be counted and how it is read on this
 * machine (perf_event_paranoid; x86's rdpmc files; arm64's and riscv's
 * perf_user_access), each with its value and what that value means here.
 * Calls cb once per setting present. Returns how many.
 */
int policy_list(void (*cb)(void *arg, const char *name, const char *value, const char *meaning), void *arg);

#endif
