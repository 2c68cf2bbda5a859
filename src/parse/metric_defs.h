/* SPDX-License-Identifier: MIT */
/*
 * Metric definitions as perf's JSON has them (MetricName, MetricExpr in
 * expr.h's language, MetricGroup, ScaleUnit, BriefDescription), and
 * libpmu's built-in set over the generic events every kernel names: the one
 * table of metrics, for regions, reports and pmu stat. Pure.
 */
#ifndef PMU_METRIC_DEFS_H
#define PMU_METRIC_DEFS_H

#include <stdbool.h>

#include "base/internal.h"

struct pmu__metric_def {
	const char *name;	/* "IPC" */
	const char *expr;	/* "instructions / cycles" */
	const char *groups;	/* ';'-separated, as perf's MetricGroup: "Default;Pipeline" */
	const char *scale_unit;	/* perf's ScaleUnit: a factor, then the unit ("100%", "1GHz") */
	const char *desc;
	const char *key;	/* its key in region reports, NULL: name (0.4's "ipc" for IPC) */
	const char *label;	/* its heading in the region table, NULL: name */
	const char *comment;	/* pmu stat's comment on its first event's line, as perf stat's; NULL: none */
};

extern const struct pmu__metric_def pmu__metric_defs[];
extern const unsigned pmu__metric_ndefs;

/*
 * The topdown groups where the architecture defines them: Intel's
 * TopdownL1 and TopdownL2 over the kernel's topdown metric events, arm64's
 * SBSA TopdownL1. Apart from pmu__metric_defs: they count only where the
 * core PMU has their events.
 */
extern const struct pmu__metric_def pmu__metric_topdown[];
extern const unsigned pmu__metric_ntopdown;

/* Whether d is in group (any case). */
bool pmu__metric_def_in(const struct pmu__metric_def *d, const char *group);

/* The PMU a built-in metric's event (an identifier of its expression) lives on, for a refusal to name: NULL when the core's, or unknown. */
const char *pmu__metric_id_pmu(const char *id);

/*
 * A ScaleUnit's factor and unit ("100%": 100 and "%"; "" or NULL: 1 and ""):
 * 0, or -EINVAL with a message when it does not start with a number.
 */
int pmu__metric_scale_unit(const char *su, double *scale, const char **unit);

#endif
