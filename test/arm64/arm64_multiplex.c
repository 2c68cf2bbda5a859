/* SPDX-License-Identifier: MIT */
/*
 * arm64: more events than counters, in separate sets, so that the kernel
 * multiplexes them: each set's scaled count of a loop of known instruction
 * count stays within 2% of the truth. Under QEMU -icount shift=0 the truth
 * is exact (2n + 1 instructions), so the test runs there.
 */
#include "a64.h"

#define MAX_SETS 40

int main(void)
{
	struct guest_set sets[MAX_SETS];
	struct pmu_reading a[MAX_SETS], b[MAX_SETS];
	uint64_t n = 100000000, truth = 2 * n + 1, scaled;
	int nctr, nsets, multiplexed = 0, r;

	a64_require_icount();
	nctr = a64_counters();
	CHECK_MSG(nctr >= 2, "the kernel log says %d PMU counters", nctr);
	nsets = nctr + 3 < MAX_SETS ? nctr + 3 : MAX_SETS;
	for (int k = 0; k < nsets; k++) {
		r = guest_open(&sets[k], "instructions");
		CHECK_MSG(r == 0, "set %d: %s", k, pmu_errmsg());
		if (r) {
			nsets = k;
			break;
		}
	}
	for (int k = 0; k < nsets; k++)
		CHECK(pmu_read_full(sets[k].s, &a[k]) == 0);
	guest_spin(n);
	for (int k = nsets - 1; k >= 0; k--)	/* reverse: the read overhead evens out */
		CHECK(pmu_read_full(sets[k].s, &b[k]) == 0);
	for (int k = 0; k < nsets; k++) {
		uint64_t dv = b[k].value - a[k].value, de = b[k].enabled - a[k].enabled;
		uint64_t dr = b[k].running - a[k].running;
		double err;

		scaled = dr ? (uint64_t)((double)dv * de / dr) : 0;
		err = ((double)scaled - (double)truth) / (double)truth;
		multiplexed += dr < de;
		printf("set %2d: %" PRIu64 " counted, running %.1f%% of the time, scaled %" PRIu64
		       " (%+.3f%%)\n", k, dv, de ? 100.0 * dr / de : 0.0, scaled, 100 * err);
		CHECK_MSG(err > -0.02 && err < 0.02, "set %d: scaled %" PRIu64 " for %" PRIu64
			  " instructions (%+.2f%%)", k, scaled, truth, 100 * err);
		CHECK(guest_sandwich(&sets[k], "multiplexed set") == 0);
		/* The inline read scales as pmu_read does (one read after the other: within 2%). */
		uint64_t p = 0, c = 0;

		CHECK(pmu_read(sets[k].s, &p) == 0 && pmu_counter_read(pmu_counter(sets[k].s, 0), &c) == 0);
		CHECK_MSG((double)(c > p ? c - p : p - c) < 0.02 * (double)p, "set %d: pmu_read %" PRIu64
			  ", then pmu_counter_read %" PRIu64, k, p, c);
	}
	CHECK_MSG(multiplexed > 0, "%d sets on %d counters, none multiplexed", nsets, nctr);
	for (int k = 0; k < nsets; k++)
		guest_close(&sets[k]);
	T_DONE();
}
