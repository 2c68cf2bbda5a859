/* SPDX-License-Identifier: MIT */
/*
 * Derived metrics: which events divide into which figure, under each
 * spelling the kernels' sysfs uses. Pure: no state, no I/O. Used by the
 * region report and by pmu stat.
 */
#ifndef PMU_METRICS_H
#define PMU_METRICS_H

#include <stdbool.h>

#include "internal.h"

#define PMU_METRIC_SPELLINGS 5	/* a NULL-ended list of names */

struct pmu__metric {
	const char *key;	/* csv/json key of region reports; NULL: pmu stat only */
	const char *label;	/* heading of the region table */
	const char *unit;	/* pmu stat's comment on the numerator's line */
	double scale;		/* 100: shown as a percentage */
	const char *num[PMU_METRIC_SPELLINGS];	/* numerator event, any spelling */
	const char *den[PMU_METRIC_SPELLINGS];	/* denominator event */
};

#define PMU_NMETRICS 5
PMU_TOOL extern const struct pmu__metric pmu__metrics[PMU_NMETRICS];

/* Clocks in ns (task-clock, cpu-clock). */
PMU_TOOL extern const char *const pmu__metric_clocks[PMU_METRIC_SPELLINGS];

/*
 * Whether pmu stat shows name per second of a clock: as perf stat, every
 * event but the clocks and those with a metric of their own (tracepoints
 * and raw events too).
 */
PMU_TOOL bool pmu__metric_rated(const char *name);

/*
 * name is one of spellings, compared without modifiers (cycles:u) or the
 * PMU around an alias (armv8_pmuv3_0/cpu_cycles/).
 */
PMU_TOOL bool pmu__metric_is(const char *name, const char *const *spellings);

/* The first of events[0..n) that is one of spellings (NULL entries skipped), or -1. */
PMU_TOOL int pmu__metric_find(const char *const *events, unsigned n, const char *const *spellings);

/* num / den, the metric's value (scale not applied); false when den is 0. */
static inline bool pmu__metric_value(double num, double den, double *out)
{
	if (den == 0)
		return false;
	*out = num / den;
	return true;
}

#endif
