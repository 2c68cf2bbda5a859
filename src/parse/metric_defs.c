/* SPDX-License-Identifier: MIT */
/* libpmu's built-in metrics, written in perf's expression language: see metric_defs.h. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/internal.h"
#include "parse/metric_defs.h"

/*
 * The generic events' names, '-' escaped as the language wants. A division
 * by a zero count fails the metric: it is then not shown, as today's table
 * leaves it out.
 */
const struct pmu__metric_def pmu__metric_defs[] = {
	/* 0.4's region metrics first, in their order, with their keys and headings */
	{ "IPC", "instructions / cycles", "Default;Pipeline", "1insn per cycle",
	  "Instructions per cycle", "ipc", "IPC", "insn per cycle" },
	{ "cache_miss_rate", "cache\\-misses / cache\\-references", "Default;Cache", "100%",
	  "Cache misses, of all cache references", "cache_miss_ratio", "cache-miss%", "of all cache refs" },
	{ "branch_miss_rate", "branch\\-misses / branches", "Default;Branches", "100%",
	  "Branches mispredicted, of all branches", "branch_miss_ratio", "branch-miss%", "of all branches" },
	{ "l1d_miss_rate", "L1\\-dcache\\-load\\-misses / L1\\-dcache\\-loads", "Default;Cache", "100%",
	  "L1 data cache load misses, of all L1 data cache loads", "l1d_miss_ratio", "L1d-miss%",
	  "of all L1-dcache accesses" },
	{ "CPI", "cycles / instructions", "Pipeline", "1cycles per insn",
	  "Cycles per instruction" },
	{ "frontend_cycles_idle", "stalled\\-cycles\\-frontend / cycles", "Default;Stalls", "100%",
	  "Cycles the front end stalled, of all cycles" },
	{ "backend_cycles_idle", "stalled\\-cycles\\-backend / cycles", "Default;Stalls", "100%",
	  "Cycles the back end stalled, of all cycles" },
	/* cycles per ns of the task's clock */
	{ "GHz", "cycles / task\\-clock", "Default;Frequency", "1GHz",
	  "Cycles per second of the task's CPU time", NULL, NULL, "GHz" },
	/* ns of CPU time per ns of wall time */
	{ "CPUs_utilized", "task\\-clock / duration_time", "Default", "1CPUs utilized",
	  "CPUs busy on average while counting" },
	/*
	 * LIKWID's ENERGY and MEM groups over RAPL's power PMU and the memory
	 * controllers' uncore PMUs, counted socket-wide. Counts are raw, as
	 * perf 6.1's expressions take them: RAPL's in 2^-32 J, as the kernel
	 * scales every domain; a CAS moves 64 bytes (2^-14 MiB). Per second:
	 * over duration_time's ns (x 1e9).
	 */
	{ "energy_pkg", "energy\\-pkg", "ENERGY", "2.3283064365386962890625e-10Joules",
	  "Energy of the package (RAPL), socket-wide" },
	{ "power_pkg", "energy\\-pkg / duration_time", "ENERGY", "0.23283064365386962890625Watts",
	  "Power of the package (RAPL), socket-wide" },
	{ "energy_dram", "energy\\-ram", "ENERGY", "2.3283064365386962890625e-10Joules",
	  "Energy of the DRAM (RAPL), socket-wide" },
	{ "power_dram", "energy\\-ram / duration_time", "ENERGY", "0.23283064365386962890625Watts",
	  "Power of the DRAM (RAPL), socket-wide" },
	{ "mem_read_bw", "cas_count_read / duration_time", "MEM", "61035.15625MiB/s",
	  "Memory read bandwidth (the memory controllers' read CAS), socket-wide" },
	{ "mem_write_bw", "cas_count_write / duration_time", "MEM", "61035.15625MiB/s",
	  "Memory write bandwidth (the memory controllers' write CAS), socket-wide" },
	{ "mem_bw", "(cas_count_read + cas_count_write) / duration_time", "MEM", "61035.15625MiB/s",
	  "Memory bandwidth, read and write, socket-wide" },
	{ "mem_volume", "cas_count_read + cas_count_write", "MEM", "6.103515625e-5MiB",
	  "Memory data read and written, socket-wide" },
};

const unsigned pmu__metric_ndefs = PMU_ARRAY_SIZE(pmu__metric_defs);

const char *pmu__metric_id_pmu(const char *id)
{
	/* The events of the built-in groups that live on one PMU, not the core's */
	static const struct { const char *prefix, *pmu; } on[] = {
		{ "energy-", "the power PMU's (RAPL)" },
		{ "cas_count_", "the uncore_imc PMUs' (the memory controllers)" },
	};

	for (unsigned i = 0; i < PMU_ARRAY_SIZE(on); i++)
		if (!strncmp(id, on[i].prefix, strlen(on[i].prefix)))
			return on[i].pmu;
	return NULL;
}

/* Intel's topdown metric events, as fractions of their sum (the kernel's slots-scaled counts). */
#define TD_SUM "(topdown\\-fe\\-bound + topdown\\-bad\\-spec + topdown\\-retiring + topdown\\-be\\-bound)"
/* arm64's slots not issued for any reason, of all (SBSA: #slots per cycle from the PMU's caps/slots) */
#define SBSA_USED "(1 - stall_slot / (#slots * cpu_cycles))"

const struct pmu__metric_def pmu__metric_topdown[] = {
	/*
	 * Intel Ice Lake and later (slots and topdown-* in the core PMU's
	 * sysfs events, Linux 5.9+): perf 6.1's icelake-metrics.json writes
	 * "+ 0 * slots" to bring slots into the metric's group, which it leads.
	 */
	{ "tma_retiring", "topdown\\-retiring / " TD_SUM " + 0 * slots", "TopdownL1", "100%",
	  "Slots retiring uops, of all slots" },
	{ "tma_bad_speculation", "topdown\\-bad\\-spec / " TD_SUM " + 0 * slots", "TopdownL1", "100%",
	  "Slots wasted on uops that do not retire, of all slots" },
	{ "tma_frontend_bound", "topdown\\-fe\\-bound / " TD_SUM " + 0 * slots", "TopdownL1", "100%",
	  "Slots the front end left without uops, of all slots" },
	{ "tma_backend_bound", "topdown\\-be\\-bound / " TD_SUM " + 0 * slots", "TopdownL1", "100%",
	  "Slots the back end could not accept uops in, of all slots" },
	/* Sapphire Rapids: level 2 (event 0x00, umasks 0x84-0x87) */
	{ "tma_heavy_operations", "topdown\\-heavy\\-ops / " TD_SUM " + 0 * slots", "TopdownL2", "100%",
	  "Slots retiring heavy (microcoded or multi-uop) operations, of all slots" },
	{ "tma_branch_mispredicts", "topdown\\-br\\-mispredict / " TD_SUM " + 0 * slots", "TopdownL2", "100%",
	  "Slots wasted on mispredicted branches, of all slots" },
	{ "tma_fetch_latency", "topdown\\-fetch\\-lat / " TD_SUM " + 0 * slots", "TopdownL2", "100%",
	  "Slots the front end stalled on fetch latency, of all slots" },
	{ "tma_memory_bound", "topdown\\-mem\\-bound / " TD_SUM " + 0 * slots", "TopdownL2", "100%",
	  "Slots the back end stalled on memory, of all slots" },
	/* arm64: Arm's SBSA topdown (perf's arch/arm64/sbsa.json, Linux 6.4+), the PMU's caps/slots */
	{ "frontend_bound", "stall_slot_frontend / (#slots * cpu_cycles)", "TopdownL1", "100%",
	  "Slots the front end did not fill, of all slots" },
	{ "backend_bound", "stall_slot_backend / (#slots * cpu_cycles)", "TopdownL1", "100%",
	  "Slots the back end did not accept operations in, of all slots" },
	{ "bad_speculation", "(1 - op_retired / op_spec) * " SBSA_USED, "TopdownL1", "100%",
	  "Slots of operations speculated that did not retire, of all slots" },
	{ "retiring", "(op_retired / op_spec) * " SBSA_USED, "TopdownL1", "100%",
	  "Slots of operations that retired, of all slots" },
};

const unsigned pmu__metric_ntopdown = PMU_ARRAY_SIZE(pmu__metric_topdown);

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
