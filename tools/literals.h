/* SPDX-License-Identifier: MIT */
/* pmu stat's expression environment: the # literals of this machine (literals.c). */
#ifndef PMU_TOOL_LITERALS_H
#define PMU_TOOL_LITERALS_H

#include <stdbool.h>

#include "layers.h"

/* The expression environment's literals (#smt_on, #num_cpus, #slots ...) of this machine. */
int tool_metric_literal(void *ctx, enum pmu__expr_lit lit, double *out);
/* #core_wide: whether every CPU is counted (pmu stat -a without -C); false until said. */
void tool_metric_system_wide(bool every_cpu);

#endif
