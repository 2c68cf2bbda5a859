/* SPDX-License-Identifier: MIT */
/*
 * The events metrics name, under each spelling the kernels' sysfs uses
 * (the metrics themselves are metric_defs.c's), and pmu stat's rules for
 * the clocks. Pure: no state, no I/O.
 */
#ifndef PMU_METRICS_H
#define PMU_METRICS_H

#include <stdbool.h>

#include "base/internal.h"

#define PMU_METRIC_SPELLINGS 5	/* a NULL-ended list of names */

/* The spellings of the event id (a NULL-ended list: "cycles", "cpu-cycles", "cpu_cycles"), NULL when it has no other. */
const char *const *pmu__spellings(const char *id);

/* Clocks in ns (task-clock, cpu-clock). */
extern const char *const pmu__metric_clocks[PMU_METRIC_SPELLINGS];

/*
 * Whether pmu stat shows name per second of a clock: as perf stat, every
 * event but the clocks and those with a metric of their own (tracepoints
 * and raw events too).
 */
bool pmu__metric_rated(const char *name);

/*
 * name is one of spellings, compared without modifiers (cycles:u) or the
 * PMU around an alias (armv8_pmuv3_0/cpu_cycles/).
 */
bool pmu__metric_is(const char *name, const char *const *spellings);

/* The first of events[0..n) that is one of spellings (NULL entries skipped), or -1. */
int pmu__metric_find(const char *const *events, unsigned n, const char *const *spellings);

#endif
