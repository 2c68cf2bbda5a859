/* SPDX-License-Identifier: MIT */
/* Events by their every spelling, for the metrics: see metrics.h. */
#include <string.h>

#include "parse/format.h"
#include "events/spellings.h"

#define CYCLES "cycles", "cpu-cycles", "cpu_cycles"
#define CLOCKS "task-clock", "cpu-clock"

/* The events the metrics name, with the other names kernels give them (arm64's sysfs aliases). */
static const char *const spellings[][PMU_METRIC_SPELLINGS] = {
	{ CYCLES },
	{ "instructions", "inst_retired" },
	{ "branch-misses", "br_mis_pred_retired" },
	{ "branches", "branch-instructions", "br_retired" },
	{ "L1-dcache-load-misses", "l1d_cache_refill" },
	{ "L1-dcache-loads", "l1d_cache" },
	{ CLOCKS },
};

const char *const *pmu__spellings(const char *id)
{
	for (size_t k = 0; k < PMU_ARRAY_SIZE(spellings); k++)
		for (unsigned j = 0; spellings[k][j]; j++)
			if (!strcmp(spellings[k][j], id))
				return spellings[k];
	return NULL;
}

const char *const pmu__metric_clocks[PMU_METRIC_SPELLINGS] = { CLOCKS };

/*
 * perf stat's events with a metric of their own: the first events of the
 * built-in metrics with a comment (metric_defs.c), and those perf stat
 * leaves blank without its other event.
 */
static const char *const own_metric[] = {
	CYCLES, "instructions", "inst_retired", "cache-misses", "branch-misses", "br_mis_pred_retired",
	"L1-dcache-load-misses", "l1d_cache_refill",
	"stalled-cycles-frontend", "idle-cycles-frontend", "stalled-cycles-backend", "idle-cycles-backend",
	"L1-icache-load-misses", "LLC-load-misses", "dTLB-load-misses", "iTLB-load-misses", NULL
};

bool pmu__metric_is(const char *name, const char *const *spellings)
{
	const char *s = name, *slash = strchr(name, '/');
	size_t len = pmu__mods_split(name, strlen(name), NULL);

	/* pmu/alias/ or pmu/alias/mods: the alias; pmu/event=.../ names nothing here. */
	if (slash) {
		s = slash + 1;
		len = strcspn(s, "/");
		if (!s[len] || strcspn(s, "=,") < len)
			return false;
	}
	for (; *spellings; spellings++)
		if (strlen(*spellings) == len && !strncmp(s, *spellings, len))
			return true;
	return false;
}

int pmu__metric_find(const char *const *events, unsigned n, const char *const *spellings)
{
	for (unsigned i = 0; i < n; i++)
		if (events[i] && pmu__metric_is(events[i], spellings))
			return (int)i;
	return -1;
}

bool pmu__metric_rated(const char *name)
{
	if (pmu__metric_is(name, pmu__metric_clocks) || pmu__metric_is(name, own_metric))
		return false;
	return true;
}
