/* SPDX-License-Identifier: MIT */
/* Tasks and CPUs from /proc and /sys, for pmu stat's targets (procfs.c). */
#ifndef PMU_TOOL_PROCFS_H
#define PMU_TOOL_PROCFS_H

#include <stdbool.h>
#include <stddef.h>

/* The thread IDs of process pid (/proc/PID/task) as names, sorted; free with pmu__names_free. 0 or -errno. */
int pmu__task_threads(long pid, char ***tids, size_t *n);
/* Thread tid's name (comm): 0, or -errno (-ENOENT: no such thread). */
int pmu__task_comm(long tid, char *buf, size_t size);
/* Whether thread tid is there and has not exited (a zombie has). */
bool pmu__task_alive(long tid);
/* The kernel's list of online CPUs ("0-3,5"): 0, or -errno. */
int pmu__online_cpus(char *buf, size_t size);

#endif
