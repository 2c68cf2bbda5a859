/* SPDX-License-Identifier: MIT */
/* perf's generic event names: hardware, software and hardware-cache tables. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "events/event.h"

const struct pmu__name_id pmu__hw_names[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES, "CPU cycles" },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES, "CPU cycles" },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS, "instructions retired" },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES, "cache accesses (usually the last level)" },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES, "cache misses (usually the last level)" },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch instructions retired" },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch instructions retired" },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branches" },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES, "bus cycles" },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles the front end stalled" },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles the front end stalled" },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles the back end stalled" },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles the back end stalled" },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, "reference cycles (constant rate)" },
};
const size_t pmu__n_hw_names = PMU_ARRAY_SIZE(pmu__hw_names);

const struct pmu__name_id pmu__sw_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK, "CPU clock in ns" },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK, "time the task ran, in ns" },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults" },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults" },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches" },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches" },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "moves to another CPU" },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "moves to another CPU" },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O" },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that needed I/O" },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment fixups" },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, "emulated instructions" },
	{ "dummy", PERF_COUNT_SW_DUMMY, "counts nothing" },
	{ "bpf-output", PERF_COUNT_SW_BPF_OUTPUT, "BPF output (for bpf_perf_event_output)" },
	{ "cgroup-switches", PERF_COUNT_SW_CGROUP_SWITCHES, "switches between cgroups (Linux 5.13)" },
};
const size_t pmu__n_sw_names = PMU_ARRAY_SIZE(pmu__sw_names);

/* perf's evsel__hw_cache* tables: first name of each row is the one perf list shows. */
struct cache_alias {
	const char *name;
	unsigned idx;
};

static const struct cache_alias cache_type[] = {
	{ "L1-dcache", 0 }, { "l1-d", 0 }, { "l1d", 0 }, { "L1-data", 0 },
	{ "L1-icache", 1 }, { "l1-i", 1 }, { "l1i", 1 }, { "L1-instruction", 1 },
	{ "LLC", 2 }, { "L2", 2 },
	{ "dTLB", 3 }, { "d-tlb", 3 }, { "Data-TLB", 3 },
	{ "iTLB", 4 }, { "i-tlb", 4 }, { "Instruction-TLB", 4 },
	{ "branch", 5 }, { "branches", 5 }, { "bpu", 5 }, { "btb", 5 }, { "bpc", 5 },
	{ "node", 6 },
};

static const struct cache_alias cache_op[] = {
	{ "load", 0 }, { "loads", 0 }, { "read", 0 },
	{ "store", 1 }, { "stores", 1 }, { "write", 1 },
	{ "prefetch", 2 }, { "prefetches", 2 }, { "speculative-read", 2 }, { "speculative-load", 2 },
};

static const struct cache_alias cache_result[] = {
	{ "refs", 0 }, { "Reference", 0 }, { "ops", 0 }, { "access", 0 },
	{ "misses", 1 }, { "miss", 1 },
};

#define R (1u << PERF_COUNT_HW_CACHE_OP_READ)
#define W (1u << PERF_COUNT_HW_CACHE_OP_WRITE)
#define P (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH)
/* Ops each cache has (perf's evsel__hw_cache_stat). */
static const unsigned cache_ops_ok[] = { R | W | P, R | P, R | W | P, R | W | P, R, R, R | W | P };
#undef R
#undef W
#undef P

static const char *const type_name[] = { "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node" };
static const char *const op_name[][2] = {
	{ "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" },
};

/* The longest alias at s followed by '-' or the end; -1 if none. */
static int longest(const struct cache_alias *t, size_t n, const char *s, size_t len, size_t *used)
{
	int best = -1;
	size_t bl = 0;

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(t[i].name);

		if (l <= len && l > bl && !strncasecmp(s, t[i].name, l) && (l == len || s[l] == '-')) {
			best = (int)t[i].idx;
			bl = l;
		}
	}
	*used = bl;
	return best;
}

int pmu__cache_parse(const char *s, size_t len, uint64_t *config)
{
	int type, op = -1, res = -1, x;
	size_t pos, used;

	type = longest(cache_type, PMU_ARRAY_SIZE(cache_type), s, len, &used);
	if (type < 0)
		return 0;
	pos = used;
	for (int k = 0; k < 2 && pos < len; k++) {
		pos++;	/* the '-' */
		if (op < 0 && (x = longest(cache_op, PMU_ARRAY_SIZE(cache_op), s + pos, len - pos, &used)) >= 0)
			op = x;
		else if (res < 0 &&
			 (x = longest(cache_result, PMU_ARRAY_SIZE(cache_result), s + pos, len - pos, &used)) >= 0)
			res = x;
		else
			return 0;
		pos += used;
	}
	if (pos < len)
		return 0;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (res < 0)
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_ops_ok[type] & (1u << op)))
		return -EINVAL;
	*config = (uint64_t)type | (uint64_t)op << 8 | (uint64_t)res << 16;
	return 1;
}

int pmu__cache_name(unsigned i, char *buf, size_t size, uint64_t *config)
{
	for (unsigned t = 0; t < PMU_ARRAY_SIZE(type_name); t++)
		for (unsigned op = 0; op < 3; op++) {
			if (!(cache_ops_ok[t] & (1u << op)))
				continue;
			for (unsigned res = 0; res < 2; res++) {
				if (i--)
					continue;
				if (res)
					snprintf(buf, size, "%s-%s-misses", type_name[t], op_name[op][0]);
				else
					snprintf(buf, size, "%s-%s", type_name[t], op_name[op][1]);
				*config = t | op << 8 | res << 16;
				return 1;
			}
		}
	return 0;
}

const struct pmu__name_id *pmu__find_name(const struct pmu__name_id *t, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(t[i].name) == len && !memcmp(t[i].name, s, len))
			return &t[i];
	return NULL;
}

int pmu__generic_name(struct pmu__ctx *c, const char *s, size_t len, uint32_t *type, uint64_t *config)
{
	const struct pmu__name_id *id = pmu__find_name(pmu__hw_names, pmu__n_hw_names, s, len);
	struct pmu__shown b;
	int r;

	if (id) {
		*type = PERF_TYPE_HARDWARE;
		*config = id->id;
		return 1;
	}
	r = pmu__cache_parse(s, len, config);
	if (r < 0)
		return pmu__err(-EINVAL, "%s: '%s' names an operation this cache does not have "
				"(the valid cache events: pmu list cache)", c->ev, pmu__show(&b, s, len));
	if (r > 0)
		*type = PERF_TYPE_HW_CACHE;
	return r;
}
