/* SPDX-License-Identifier: MIT */
/*
 * The built-in metrics (metric_defs.c) where regions count: metric and
 * group names in pmu_thread_init()'s list expanded into their events, and
 * the metrics a snapshot's events allow, computed from summed counts (the
 * region reports, the results API, pmu report merge).
 */
#ifndef PMU_METRIC_USE_H
#define PMU_METRIC_USE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/internal.h"
#include "parse/metric_defs.h"

struct pmu__expr;

/*
 * The built-in metric (pmu__metric_defs or pmu__metric_topdown) named name
 * in any case, or by the key a region report gives it ("cache_miss_ratio"
 * for cache_miss_rate): NULL when none.
 */
const struct pmu__metric_def *pmu__metric_builtin(const char *name);


/*
 * Whether a set's event (as pmu_name() gives it: "cycles:u",
 * "armv8_pmuv3_0/cpu_cycles/") counts what an expression's identifier names,
 * under every spelling of the kernels' sysfs (cpu_cycles for cycles).
 */
bool pmu__metric_event_is(const char *event, const char *id);

/* A metric a snapshot shows. */
struct pmu__mshow {
	const struct pmu__metric_def *d;
	struct pmu__expr *e;
	const char *key;	/* its name in reports and results ("ipc" for IPC, as 0.4's reports) */
	const char *label;	/* the table's heading */
	double scale;		/* its ScaleUnit's factor: the table shows value * scale */
};

struct pmu__mplan {
	unsigned n;
	struct pmu__mshow *m;
};

/*
 * The metrics for events[0..n) (a snapshot's names) and named (as
 * pmu__metric_expand() gives, or NULL): the metrics named, then every other
 * built-in one whose events are all among events. 0 or -ENOMEM (message set).
 */
int pmu__mplan_make(struct pmu__mplan *p, const char *const *events, unsigned n, const char *named);
void pmu__mplan_free(struct pmu__mplan *p);

/* The plan's metric of that key or name (any case), or -1. */
int pmu__mplan_find(const struct pmu__mplan *p, const char *name);

/*
 * Metric i's value, before its scale, from the events' summed counts
 * sums[0..n) and ns, the time summed (duration_time): false when undefined
 * (a division by zero, an event missing).
 */
bool pmu__mplan_value(const struct pmu__mplan *p, unsigned i, const char *const *events, unsigned n,
			       const uint64_t *sums, uint64_t ns, double *out);

#endif
