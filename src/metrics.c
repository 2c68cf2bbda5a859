/* SPDX-License-Identifier: MIT */
/* The table of derived metrics: see metrics.h. */
#include <string.h>

#include "format.h"
#include "metrics.h"

#define CYCLES "cycles", "cpu-cycles", "cpu_cycles"
#define CLOCKS "task-clock", "cpu-clock"

/* Order matters to pmu stat: an event's line shows the first metric it is the numerator of. */
const struct pmu__metric pmu__metrics[PMU_NMETRICS] = {
	{ "ipc", "IPC", "insn per cycle", 1, { "instructions", "inst_retired" }, { CYCLES } },
	{ "cache_miss_ratio", "cache-miss%", "of all cache refs", 100,
	  { "cache-misses" }, { "cache-references" } },
	{ "branch_miss_ratio", "branch-miss%", "of all branches", 100,
	  { "branch-misses", "br_mis_pred_retired" }, { "branches", "branch-instructions", "br_retired" } },
	{ "l1d_miss_ratio", "L1d-miss%", "of all L1-dcache accesses", 100,
	  { "L1-dcache-load-misses", "l1d_cache_refill" }, { "L1-dcache-loads", "l1d_cache" } },
	/* cycles per ns of clock: GHz. Regions have no clock event of their own to divide by. */
	{ NULL, NULL, "GHz", 1, { CYCLES }, { CLOCKS } },
};

const char *const pmu__metric_clocks[PMU_METRIC_SPELLINGS] = { CLOCKS };

/* perf stat's other events with a metric of their own, left blank without its other event. */
static const char *const own_metric[] = {
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
	for (unsigned k = 0; k < PMU_NMETRICS; k++)
		if (pmu__metric_is(name, pmu__metrics[k].num))
			return false;
	return true;
}
