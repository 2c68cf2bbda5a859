/* SPDX-License-Identifier: MIT */
/* libpmu's built-in metrics, written in perf's expression language: see metric_defs.h. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "metric_defs.h"

/*
 * The generic events' names, '-' escaped as the language wants. A division
 * by a zero count fails the metric: it is then not shown, as today's table
 * leaves it out.
 */
const struct pmu__metric_def pmu__metric_defs[] = {
	{ "IPC", "instructions / cycles", "Default;Pipeline", "1insn per cycle",
	  "Instructions per cycle" },
	{ "CPI", "cycles / instructions", "Pipeline", "1cycles per insn",
	  "Cycles per instruction" },
	{ "branch_miss_rate", "branch\\-misses / branches", "Default;Branches", "100%",
	  "Branches mispredicted, of all branches" },
	{ "cache_miss_rate", "cache\\-misses / cache\\-references", "Default;Cache", "100%",
	  "Cache misses, of all cache references" },
	{ "l1d_miss_rate", "L1\\-dcache\\-load\\-misses / L1\\-dcache\\-loads", "Default;Cache", "100%",
	  "L1 data cache load misses, of all L1 data cache loads" },
	{ "frontend_cycles_idle", "stalled\\-cycles\\-frontend / cycles", "Default;Stalls", "100%",
	  "Cycles the front end stalled, of all cycles" },
	{ "backend_cycles_idle", "stalled\\-cycles\\-backend / cycles", "Default;Stalls", "100%",
	  "Cycles the back end stalled, of all cycles" },
	/* cycles per ns of the task's clock */
	{ "GHz", "cycles / task\\-clock", "Default;Frequency", "1GHz",
	  "Cycles per second of the task's CPU time" },
	/* ns of CPU time per ns of wall time */
	{ "CPUs_utilized", "task\\-clock / duration_time", "Default", "1CPUs utilized",
	  "CPUs busy on average while counting" },
};

const unsigned pmu__metric_ndefs = PMU_ARRAY_SIZE(pmu__metric_defs);

const struct pmu__metric_def *pmu__metric_def_find(const char *name)
{
	for (unsigned i = 0; i < pmu__metric_ndefs; i++)
		if (!strcasecmp(pmu__metric_defs[i].name, name))
			return &pmu__metric_defs[i];
	return NULL;
}

bool pmu__metric_def_in(const struct pmu__metric_def *d, const char *group)
{
	size_t n = strlen(group);

	for (const char *g = d->groups; g && *g;) {
		size_t len = strcspn(g, ";");

		if (len == n && !strncasecmp(g, group, n))
			return true;
		g += len + (g[len] == ';');
	}
	return false;
}

int pmu__metric_scale_unit(const char *su, double *scale, const char **unit)
{
	locale_t c;
	char *end;

	*scale = 1;
	*unit = "";
	if (!su || !*su)
		return 0;
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!c)
		return pmu__err(-ENOMEM, "ScaleUnit \"%s\": no memory", su);
	*scale = strtod_l(su, &end, c);
	freelocale(c);
	if (end == su || !isfinite(*scale)) {
		*scale = 1;
		return pmu__err(-EINVAL, "ScaleUnit \"%s\": does not start with a number", su);
	}
	while (*end == ' ')
		end++;
	*unit = end;
	return 0;
}
