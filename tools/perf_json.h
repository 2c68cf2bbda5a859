/* SPDX-License-Identifier: MIT */
/*
 * perf's event and metric files read at run time (--perf-json PATH,
 * PMU_PERF_JSON=PATH[:PATH...]): a pmu-events/arch tree, whose mapfile.csv
 * picks the running CPU's directory, a model directory of it, or one JSON
 * list. Their events become the core PMU's format terms; their metrics
 * replace the built-in set. Without a path, the built-in set.
 */
#ifndef PMU_TOOL_PERF_JSON_H
#define PMU_TOOL_PERF_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "private.h"

/* A metric offered: its definition, its parse, or why it is refused. */
struct tool_metric {
	struct pmu__metric_def d;
	struct pmu__expr *e;	/* NULL when refused */
	char *why;		/* why refused, NULL when offered */
	const char *file;	/* where it was read, NULL: built in */
};

/* "--perf-json PATH" or "--perf-json=PATH" at argv[*i], as tool_sysfs_option. */
int tool_perf_json_option(const char *cmd, int argc, char **argv, int *i);

/*
 * Reads PMU_PERF_JSON's paths, then the options', once: 0, or -errno with
 * tool_errmsg() naming the path. Without any, the built-in set is offered.
 */
int tool_metrics_load(void);
/* Whether metrics come from perf files. */
bool tool_metrics_from_files(void);
/* The metrics offered (and refused), in the order read. */
const struct tool_metric *tool_metrics(size_t *n);
/* The offered metric of that name (any case), or NULL. */
const struct tool_metric *tool_metric_find(const char *name);
/* The directory or files the metrics came from, for messages. */
const char *tool_metrics_source(void);

/*
 * The event an expression's identifier names, in the form pmu stat opens:
 * a perf JSON event's pmu/terms/, "pmu@ev@" as pmu/ev/, an Arm common event
 * the armv8 core PMU does not list as a raw rNN, else id itself.
 * NULL (tool_errmsg() says) when a file's event cannot be expressed here.
 * The string is malloc'd.
 */
char *tool_metric_event(const char *id);

/*
 * The number of an Arm architected common event that the built-in metrics
 * name (stall_slot, op_spec, ...), where the core PMU is an armv8 one whose
 * sysfs events lack it (tool_metric_event then opens it raw, by number); else -1.
 */
int tool_arm_common_event(const char *id);

/* The expression environment's literals (#smt_on, #num_cpus, #slots ...) of this machine. */
int tool_metric_literal(void *ctx, enum pmu__expr_lit lit, double *out);
/* #core_wide: whether every CPU is counted (pmu stat -a without -C); false until said. */
void tool_metric_system_wide(bool every_cpu);
/* The parsed metric an identifier names (env->metric), or NULL. */
const struct pmu__expr *tool_metric_ref(void *ctx, const char *id);

void tool_metrics_free(void);

#endif
