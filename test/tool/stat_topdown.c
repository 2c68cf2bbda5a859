/* SPDX-License-Identifier: MIT */
/*
 * Topdown: the built-in TopdownL1/L2 formulas (Intel's topdown metric
 * events, arm64's SBSA with caps/slots) evaluated on figures whose answer
 * is known, and pmu stat --topdown and -M TopdownL2 on fixture sysfs trees
 * (Ice Lake-like, Sapphire Rapids-like, Neoverse-like, and ones without
 * topdown): the metrics' events chosen with slots leading, or a refusal
 * naming what is missing. This machine has no such PMU: opening them fails,
 * and that failure is what the runs show.
 */
#include <math.h>
#include <stdbool.h>

#include "layers.h"
#include "test.h"
#include "tool_run.h"

static const struct { const char *id; double v; } counts[] = {
	{ "topdown-retiring", 40 }, { "topdown-fe-bound", 20 }, { "topdown-bad-spec", 10 },
	{ "topdown-be-bound", 30 }, { "topdown-heavy-ops", 5 }, { "topdown-br-mispredict", 8 },
	{ "topdown-fetch-lat", 12 }, { "topdown-mem-bound", 18 }, { "slots", 400 },
	/* SBSA: 5 slots a cycle over 1000 cycles */
	{ "cpu_cycles", 1000 }, { "stall_slot_frontend", 1000 }, { "stall_slot_backend", 1500 },
	{ "stall_slot", 2500 }, { "op_retired", 1500 }, { "op_spec", 2000 },
};

static int value(void *ctx, const char *id, bool sc, double *out)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (!strcmp(counts[i].id, id)) {
			*out = sc ? 1 : counts[i].v;
			return 0;
		}
	return -ENOENT;
}

static int literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	(void)ctx;
	*out = lit == PMU_EXPR_SLOTS ? 5 : NAN;
	return 0;
}

static const struct { const char *name; double want; } wants[] = {
	{ "tma_retiring", 0.4 }, { "tma_frontend_bound", 0.2 }, { "tma_bad_speculation", 0.1 },
	{ "tma_backend_bound", 0.3 }, { "tma_heavy_operations", 0.05 }, { "tma_branch_mispredicts", 0.08 },
	{ "tma_fetch_latency", 0.12 }, { "tma_memory_bound", 0.18 },
	/* frontend 1000 / 5000; backend 1500 / 5000; issued 1 - 2500 / 5000 = 0.5 of it, 3/4 retired */
	{ "frontend_bound", 0.2 }, { "backend_bound", 0.3 }, { "retiring", 0.375 }, { "bad_speculation", 0.125 },
};

int main(void)
{
	bool nohw;
	const struct pmu__expr_env env = { value, literal, NULL, NULL };
	char e[PATH_MAX + 128];

	for (size_t k = 0; k < sizeof(wants) / sizeof(wants[0]); k++) {
		const struct pmu__metric_def *d = NULL;
		struct pmu__expr *x;
		double v = NAN;

		for (unsigned i = 0; i < pmu__metric_ntopdown; i++)
			if (!strcmp(pmu__metric_topdown[i].name, wants[k].name))
				d = &pmu__metric_topdown[i];
		CHECK_RUN(d && pmu__expr_parse(d->expr, &x) == 0, "%s parses", wants[k].name);
		if (!d || !x)
			continue;
		CHECK_RUN(pmu__expr_eval(x, &env, &v) == 0 && fabs(v - wants[k].want) < 1e-12, "%s = %g, want %g",
		       wants[k].name, v, wants[k].want);
		CHECK_RUN(!strcmp(d->scale_unit, "100%") && (pmu__metric_def_in(d, "TopdownL1") ||
							  pmu__metric_def_in(d, "TopdownL2")), "%s's group", d->name);
		pmu__expr_free(x);
	}
	if (find() < 0) {
		printf("SKIP: the pmu tool or the fixtures not found (the formulas pass)\n");
		return t_failures ? 1 : 77;
	}
	/*
	 * The events a fixture names open only where no PMU of this machine has the
	 * fixture's type: with a hardware PMU here (the arm64 and riscv64 guests),
	 * the checks that they fail to open are left out.
	 */
	{
		struct pmu_set *hs;

		nohw = pmu_open(&hs, "cycles") < 0;
		if (!nohw) {
			pmu_close(hs);
			printf("a hardware PMU opens here: the fixtures' events may too; their open failures are not checked\n");
		}
	}
	/* Ice Lake-like: TopdownL1's events, slots leading its group; they do not open on this machine */
	snprintf(e, sizeof(e), "PMU_SYSFS_DEVICES=%s/intel_icl", fix);
	CHECK_RUN(!nohw || (run(e, tool, "stat --topdown true") == 1 && strstr(err, "no event could be counted:\n  slots: ")),
	       "Ice Lake-like --topdown");
	/* Sapphire Rapids-like: level 2 too */
	snprintf(e, sizeof(e), "PMU_SYSFS_DEVICES=%s/intel_spr", fix);
	CHECK_RUN(!nohw || (run(e, tool, "stat -M TopdownL2 true") == 1 && strstr(err, "  slots: ") &&
	       strstr(err, "topdown-br-mispredict") && strstr(err, "topdown-mem-bound")), "Sapphire Rapids-like L2");
	/* Skylake-like (the old topdown events only): refused, naming what is missing */
	snprintf(e, sizeof(e), "PMU_SYSFS_DEVICES=%s/intel", fix);
	CHECK_RUN(run(e, tool, "stat --topdown true") == 1 &&
	       strstr(err, "not supported here: --topdown: TopdownL1 needs topdown-retiring") &&
	       strstr(err, "slots"), "Skylake-like --topdown");
	/* No core PMU (a VM without a virtual PMU): said so, not every architecture's events */
	snprintf(e, sizeof(e), "PMU_SYSFS_DEVICES=%s/powerpc", fix);
	CHECK_RUN(run(e, tool, "stat --topdown true") == 1 && strstr(err, "has no core PMU") && !strstr(err, "stall_slot"),
	       "no core PMU --topdown");
	/* AMD Zen: no built-in topdown (perf 6.1 has none for it either) */
	snprintf(e, sizeof(e), "PMU_SYSFS_DEVICES=%s/amd_zen", fix);
	CHECK_RUN(run(e, tool, "stat --topdown true") == 1 &&
	       strstr(err, "not supported here: --topdown: TopdownL1 needs topdown-retiring") &&
	       strstr(err, "amd_zen does not have"), "AMD Zen-like --topdown");
	snprintf(e, sizeof(e), "PMU_SYSFS_DEVICES=%s/intel_icl", fix);
	CHECK_RUN(run(e, tool, "stat -M TopdownL2 true") == 1 &&
	       strstr(err, "not supported here: -M TopdownL2: TopdownL2 needs topdown-heavy-ops"), "Ice Lake-like L2");
	/* Neoverse-like arm64: SBSA's events and caps/slots */
	snprintf(e, sizeof(e), "PMU_SYSFS_DEVICES=%s/arm64_neoverse", fix);
	CHECK_RUN(!nohw || (run(e, tool, "stat --topdown true") == 1 && strstr(err, "no event could be counted:") &&
	       strstr(err, "stall_slot_frontend") && !strstr(err, "not supported here")), "Neoverse-like --topdown");
	/*
	 * an arm64 PMU without caps/slots nor the STALL_SLOT events: those open by
	 * their architected numbers, the metrics blank for want of caps/slots
	 */
	snprintf(e, sizeof(e), "PMU_SYSFS_DEVICES=%s/arm64", fix);
	CHECK_RUN((run(e, tool, "stat --topdown true") == 1 || !nohw) &&
	       strstr(err, "pmu stat: stall_slot_frontend, stall_slot_backend, op_retired, op_spec, stall_slot: not "
		      "among armv8_pmuv3_0's events") &&
	       strstr(err, "pmu stat: frontend_bound, backend_bound, bad_speculation, retiring: not computable here: "
		      "#slots, the core PMU's caps/slots, is not in "), "arm64 without topdown");
	/* the listing offers both architectures' groups */
	CHECK_RUN(run_argv((const char *[]){ "list", "metricgroup", NULL }) == 0 &&
	       strstr(out, "  TopdownL1: tma_retiring tma_bad_speculation tma_frontend_bound tma_backend_bound "
		      "frontend_bound backend_bound bad_speculation retiring\n"), "TopdownL1 listed");
	T_DONE();
}
