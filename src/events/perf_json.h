/* SPDX-License-Identifier: MIT */
/*
 * perf's event and metric files read at run time (PMU_PERF_JSON=PATH[:PATH...],
 * the tool's --perf-json PATH): a pmu-events/arch tree, whose mapfile.csv
 * picks the running CPU's directory, a model directory of it, or one JSON
 * list. Their events become the core PMU's format terms; their metrics
 * replace the built-in set in pmu stat, and come before it where regions
 * count (metric_use.c). Without a path, the built-in set.
 */
#ifndef PMU_PERF_JSON_H
#define PMU_PERF_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "parse/expr.h"
#include "base/internal.h"
#include "parse/metric_defs.h"

/* A metric offered: its definition, its parse, or why it is refused. */
struct pmu__pj_metric {
	struct pmu__metric_def d;
	struct pmu__expr *e;	/* NULL when refused */
	char *why;		/* why refused, NULL when offered */
	const char *file;	/* where it was read, NULL: built in */
};

/* One more path to read after PMU_PERF_JSON's (the tool's --perf-json), before pmu__pj_load(). 0 or -ENOMEM. */
int pmu__pj_add_path(const char *path);

/*
 * Reads PMU_PERF_JSON's paths (none in a privileged program), then those
 * added, once: 0, or -errno with a message naming the path. Without any,
 * the built-in set is offered.
 */
int pmu__pj_load(void);
/* Whether metrics come from perf files. */
bool pmu__pj_from_files(void);
/* The metrics offered (and refused), in the order read. */
const struct pmu__pj_metric *pmu__pj_metrics(size_t *n);
/* The offered metric of that name (any case), or NULL. */
const struct pmu__pj_metric *pmu__pj_metric_find(const char *name);
/* The directory or files the metrics came from, for messages. */
const char *pmu__pj_source(void);

/*
 * The event an expression's identifier names, in the form that opens: a
 * perf JSON event's pmu/terms/, "pmu@ev@" as pmu/ev/, an Arm common event
 * the armv8 core PMU does not list as a raw rNN, else id itself. NULL (with
 * a message, errno EINVAL) when a file's event cannot be expressed here, or
 * (ENOMEM) out of memory. The string is malloc'd.
 */
char *pmu__pj_metric_event(const char *id);

/*
 * The number of an Arm architected common event that the built-in metrics
 * name (stall_slot, op_spec, ...), where the core PMU is an armv8 one whose
 * sysfs events lack it (pmu__pj_metric_event then opens it raw); else -1.
 */
int pmu__pj_arm_common_event(const char *id);

/* The parsed metric an identifier names (env->metric), or NULL. */
const struct pmu__expr *pmu__pj_metric_ref(void *ctx, const char *id);

void pmu__pj_free(void);

#endif
