/* SPDX-License-Identifier: MIT */
/*
 * arm64 under QEMU -icount shift=0, where instruction counts are exact:
 * regions that leave out their own cost (pmu_region_compensate()). An outer
 * region around 10^4 inner pairs, by name and by handle, with an empty body
 * and with a body of 1,001 instructions, counts instructions:u raw, then
 * compensated; the same loop without the pairs is the base. Compensation
 * must remove at least 95% of what the pairs add: |compensated - base| within
 * 5% of raw - base. Prints the figures (bench/README.md quotes them).
 */
#include "a64.h"

#define PAIRS 10000

static int handle;

/* One outer call around PAIRS loops of body (0: empty), each in an inner pair when kind >= 0: inlined, kind a constant. */
static inline __attribute__((always_inline)) void outer(const char *name, int kind, unsigned body)
{
	CHECK(pmu_region_begin(name) == 0);
	for (unsigned i = 0; i < PAIRS; i++) {
		if (kind == 0)
			pmu_region_begin("inner");
		else if (kind == 1)
			pmu_region_enter(handle);
		if (body)
			guest_spin(body / 2);
		else
			__asm__ volatile("" ::: "memory");
		if (kind == 0)
			pmu_region_end("inner");
		else if (kind == 1)
			pmu_region_exit(handle);
	}
	CHECK(pmu_region_end(name) == 0);
}

/* Region name's instructions and clamped calls in the snapshot r. */
static uint64_t figure(struct pmu_results *r, const char *name, uint64_t *clamped)
{
	const char *const *names;
	unsigned n = pmu_results_regions(r, &names);

	for (unsigned id = 0; id < n; id++) {
		struct pmu_region_result e = { .size = sizeof(e) };

		if (strcmp(names[id], name))
			continue;
		CHECK(pmu_results_get(r, id, -1, &e) == 0);
		*clamped = e.clamped;
		return e.sum[0];
	}
	CHECK_MSG(0, "region %s not in the results", name);
	return 0;
}

static void check(unsigned body)
{
	static const char *const kinds[] = { "by name", "by handle" };
	char nb[32], nr[2][32], nc[2][32];
	struct pmu_results *r;
	uint64_t base, raw, comp, cl;

	snprintf(nb, sizeof(nb), "base%u", body);
	for (int k = 0; k < 2; k++) {
		snprintf(nr[k], sizeof(nr[k]), "raw%u_%d", body, k);
		snprintf(nc[k], sizeof(nc[k]), "comp%u_%d", body, k);
	}
	CHECK(pmu_region_compensate(0) == 0);
	outer(nb, -1, body);
	for (int k = 0; k < 2; k++)
		outer(nr[k], k, body);
	CHECK(pmu_region_compensate(1) == 0);
	for (int k = 0; k < 2; k++)
		outer(nc[k], k, body);
	r = pmu_results_take();
	CHECK(r != NULL);
	if (!r)
		return;
	base = figure(r, nb, &cl);
	for (int k = 0; k < 2; k++) {
		int64_t added, left;

		raw = figure(r, nr[k], &cl);
		comp = figure(r, nc[k], &cl);
		added = (int64_t)(raw - base);
		left = (int64_t)(comp - base);
		printf("compensation, %u pairs %s around a body of %u instructions: base %" PRIu64 ", raw %" PRIu64
		       " (the pairs add %.1f each), compensated %" PRIu64 " (%+.1f a pair left, %.2f%% of their cost; "
		       "%.3f%% of the base)\n", PAIRS, kinds[k], body ? body + 1 : 0, base, raw,
		       (double)added / PAIRS, comp, (double)left / PAIRS, 100.0 * (double)left / (double)added,
		       100.0 * (double)left / (double)base);
		CHECK_MSG(added > 0 && (left < 0 ? -left : left) * 20 <= added,
			  "%s, body %u: compensated %" PRIu64 " against base %" PRIu64 ": more than 5%% of the pairs' "
			  "%" PRId64 " left", kinds[k], body, comp, base, added);
		CHECK_MSG(cl == 0, "%s, body %u: %" PRIu64 " calls clamped", kinds[k], body, cl);
	}
	pmu_results_free(r);
}

int main(void)
{
	a64_require_icount();
	if (pmu_thread_init("instructions:u") < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		return 1;
	}
	handle = pmu_region_register("inner");
	CHECK(handle >= 0);
	check(0);
	check(1000);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
