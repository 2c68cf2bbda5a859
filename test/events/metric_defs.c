/* SPDX-License-Identifier: MIT */
/*
 * The built-in metric definitions: each parses in perf's expression
 * language, names the events it should, and gives the figure wanted on
 * given counts once scaled by its ScaleUnit; a zero denominator fails it.
 */
#include <errno.h>
#include <math.h>

#include "test.h"
#include "base/internal.h"
#include "parse/expr.h"
#include "parse/metric_defs.h"
#include "metrics/metric_use.h"	/* pmu__metric_builtin() */

static const struct {
	const char *event;
	double count;
} counts[] = {
	{ "instructions", 6000000 }, { "cycles", 3000000 },
	{ "branches", 1000000 }, { "branch-misses", 25000 },
	{ "cache-references", 400000 }, { "cache-misses", 100000 },
	{ "L1-dcache-loads", 2000000 }, { "L1-dcache-load-misses", 50000 },
	{ "stalled-cycles-frontend", 600000 }, { "stalled-cycles-backend", 300000 },
	{ "task-clock", 1000000 }, { "duration_time", 2000000 },
	/* 1 J and 0.5 J in RAPL's 2^-32 J; 1 MiB and 0.5 MiB of 64-byte CAS */
	{ "energy-pkg", 4294967296.0 }, { "energy-ram", 2147483648.0 },
	{ "cas_count_read", 16384 }, { "cas_count_write", 8192 },
};

static const char *zero;	/* this event counts 0 */

static int value(void *ctx, const char *id, bool source_count, double *out)
{
	(void)ctx, (void)source_count;
	for (size_t i = 0; i < PMU_ARRAY_SIZE(counts); i++)
		if (!strcmp(counts[i].event, id)) {
			*out = zero && !strcmp(zero, id) ? 0 : counts[i].count;
			return 0;
		}
	return -ENOENT;
}

static const struct pmu__expr_env env = { .value = value };

static const struct {
	const char *name, *events, *unit;
	double want;
} wants[] = {
	{ "IPC", "instructions cycles", "insn per cycle", 2 },
	{ "CPI", "cycles instructions", "cycles per insn", 0.5 },
	{ "branch_miss_rate", "branch-misses branches", "%", 2.5 },
	{ "cache_miss_rate", "cache-misses cache-references", "%", 25 },
	{ "l1d_miss_rate", "L1-dcache-load-misses L1-dcache-loads", "%", 2.5 },
	{ "frontend_cycles_idle", "stalled-cycles-frontend cycles", "%", 20 },
	{ "backend_cycles_idle", "stalled-cycles-backend cycles", "%", 10 },
	{ "GHz", "cycles task-clock", "GHz", 3 },
	{ "CPUs_utilized", "task-clock duration_time", "CPUs utilized", 0.5 },
	{ "energy_pkg", "energy-pkg", "Joules", 1 },
	{ "power_pkg", "energy-pkg duration_time", "Watts", 500 },	/* 1 J in 2 ms */
	{ "energy_dram", "energy-ram", "Joules", 0.5 },
	{ "power_dram", "energy-ram duration_time", "Watts", 250 },
	{ "mem_read_bw", "cas_count_read duration_time", "MiB/s", 500 },	/* 1 MiB in 2 ms */
	{ "mem_write_bw", "cas_count_write duration_time", "MiB/s", 250 },
	{ "mem_bw", "cas_count_read cas_count_write duration_time", "MiB/s", 750 },
	{ "mem_volume", "cas_count_read cas_count_write", "MiB", 1.5 },
};

int main(void)
{
	double scale, v;
	const char *unit;

	CHECK_EQ(pmu__metric_ndefs, PMU_ARRAY_SIZE(wants));
	for (size_t i = 0; i < PMU_ARRAY_SIZE(wants); i++) {
		const struct pmu__metric_def *d = pmu__metric_builtin(wants[i].name);
		struct pmu__expr *e;
		const char **ids;
		char got[256] = "";
		unsigned n;

		CHECK_MSG(d != NULL, "%s: not defined", wants[i].name);
		if (!d)
			continue;
		CHECK(d->desc && *d->desc && d->groups && *d->groups);
		CHECK_MSG(pmu__expr_parse(d->expr, &e) == 0, "%s: %s", d->name, pmu_errmsg());
		CHECK(pmu__expr_events(e, &env, &ids, &n) == 0);
		for (unsigned k = 0; k < n; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? " " : "", ids[k]);
		free(ids);
		CHECK_MSG(!strcmp(got, wants[i].events), "%s needs \"%s\", want \"%s\"", d->name, got, wants[i].events);
		CHECK(pmu__metric_scale_unit(d->scale_unit, &scale, &unit) == 0);
		CHECK_MSG(!strcmp(unit, wants[i].unit), "%s: unit \"%s\"", d->name, unit);
		CHECK_MSG(pmu__expr_eval(e, &env, &v) == 0, "%s: %s", d->name, pmu_errmsg());
		v *= scale;
		CHECK_MSG(fabs(v - wants[i].want) <= 1e-12 * wants[i].want, "%s = %.17g, want %g", d->name, v,
			  wants[i].want);
		/* without its denominator's count (its last event) a ratio has no value */
		zero = strrchr(wants[i].events, ' ') ? strrchr(wants[i].events, ' ') + 1 : NULL;
		if (strchr(d->expr, '/'))
			CHECK_MSG(zero && pmu__expr_eval(e, &env, &v) == -EDOM && strstr(pmu_errmsg(), "division by zero"),
				  "%s with %s 0: %s", d->name, zero ? zero : "nothing", pmu_errmsg());
		zero = NULL;
		pmu__expr_free(e);
		for (size_t k = 0; k < pmu__metric_ndefs; k++)	/* the name is d's alone */
			CHECK(&pmu__metric_defs[k] == d || strcasecmp(pmu__metric_defs[k].name, d->name));
	}
	CHECK(pmu__metric_builtin("ipc") == pmu__metric_builtin("IPC"));
	CHECK(pmu__metric_builtin("nope") == NULL);
	CHECK(pmu__metric_def_in(pmu__metric_builtin("IPC"), "default"));
	CHECK(pmu__metric_def_in(pmu__metric_builtin("IPC"), "Pipeline"));
	CHECK(!pmu__metric_def_in(pmu__metric_builtin("IPC"), "Pipe"));
	CHECK(!pmu__metric_def_in(pmu__metric_builtin("CPI"), "Default"));
	/* ScaleUnit as perf writes it */
	CHECK(pmu__metric_scale_unit("100%", &scale, &unit) == 0 && scale == 100 && !strcmp(unit, "%"));
	CHECK(pmu__metric_scale_unit("1e-9 s", &scale, &unit) == 0 && scale == 1e-9 && !strcmp(unit, "s"));
	CHECK(pmu__metric_scale_unit("", &scale, &unit) == 0 && scale == 1 && !*unit);
	CHECK(pmu__metric_scale_unit(NULL, &scale, &unit) == 0 && scale == 1 && !*unit);
	CHECK(pmu__metric_scale_unit("GHz", &scale, &unit) == -EINVAL && strstr(pmu_errmsg(), "\"GHz\""));
	CHECK(pmu__metric_scale_unit("nan%", &scale, &unit) == -EINVAL && scale == 1);
	T_DONE();
}
