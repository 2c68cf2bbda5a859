/* SPDX-License-Identifier: MIT */
/* What perf_json.c asks perf_cpu.c about this machine. */
#ifndef PMU_TOOL_PERF_CPU_H
#define PMU_TOOL_PERF_CPU_H

#include <stdbool.h>
#include <stddef.h>

#include "base/internal.h"

/* This CPU's model directory under archdir (mapfile.csv) into model: 0, or -errno with a message. */
int pmu__pj_pick_model(const char *archdir, bool arm, char *model, size_t size);
/* Whether dir is inside an arch/ARCH directory of a pmu-events tree, that directory into out. */
bool pmu__pj_arch_above(const char *dir, char *out, size_t size);
/* Whether dir's files are arm64's. */
bool pmu__pj_arm_machine(const char *dir);
/* perf_events.c: the core PMU's name (NULL when the sysfs root has none), and whether p is a regular file. */
const char *pmu__pj_core_pmu(void);
bool pmu__pj_is_file(const char *p);

#endif
