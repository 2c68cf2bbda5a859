/* SPDX-License-Identifier: MIT */
/*
 * riscv64 with kernel.perf_user_access 1: every hardware counter the SBI PMU
 * offers (hpmcounter3.., page indexes 4..) is read by the library with csrr
 * and agrees with read(2) of the same event; widths are 64 bits. A group of
 * 4 events is read from user space too.
 * QEMU 7.2 counts each kind of event on one counter only: a second
 * concurrent cycles (or instructions, ...) event gets a counter that stays
 * at 0. Such counters still have to read the same through csrr and read(2).
 */
#include "rv64.h"

#define MAX_SETS 40

/* The events QEMU counts (its device tree maps them to hpmcounters). */
static const char *const kinds[] = {
	"cycles", "instructions", "dTLB-load-misses", "dTLB-store-misses", "iTLB-load-misses",
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Checks event i of as: read from user space, on an hpmcounter, 64 bits wide. Returns its index. */
static uint32_t check_counter(const struct guest_set *as, unsigned i, const char *what)
{
	const char *why;
	uint32_t idx = guest_index(as, i), w = guest_width(as, i);
	int u = pmu_user_read(as->s, i, &why);

	CHECK_MSG(u == 1, "%s: %s: not read from user space: %s", what, pmu_name(as->s, i), why);
	CHECK_MSG(idx > RV64_IDX_INSTRET && idx <= RV64_IDX_MAX, "%s: %s: index %u (not an hpmcounter)",
		  what, pmu_name(as->s, i), idx);
	CHECK_MSG(w == 64, "%s: %s: index %u has pmc_width %u", what, pmu_name(as->s, i), idx, w);
	return idx;
}

/* Counts event 0 of as over a loop; 0 when the read fails. */
static uint64_t advance(const struct guest_set *as)
{
	uint64_t a[8], b[8];

	if (guest_read_lib(as, a))
		return 0;
	guest_spin(1 << 16);
	if (guest_read_lib(as, b))
		return 0;
	return b[0] - a[0];
}

int main(void)
{
	struct guest_set sets[MAX_SETS + 1], one;
	uint32_t idx[MAX_SETS];
	bool seen[RV64_IDX_MAX + 1] = { false };
	char what[96];
	int hw, n, r;

	rv64_require();
	rv64_require_user_access();
	hw = rv64_hw_counters();
	/* cycle and instret are not handed out in mode 1: the rest are hpmcounters. */
	n = hw - 2;
	CHECK_MSG(n >= 4 && n <= MAX_SETS && n <= RV64_IDX_MAX - RV64_IDX_INSTRET,
		  "the kernel log says %d hardware counters", hw);
	if (t_failures)
		T_DONE();
	printf("%d hardware counters, %d hpmcounters%s\n", hw, n, guest_icount() ? ", icount" : "");

	/*
	 * One set per hpmcounter, opened one after another with work in
	 * between, so that each counting counter holds a different count: a
	 * read of the wrong register shows.
	 */
	for (int k = 0; k < n; k++) {
		const char *ev = kinds[k % NKINDS];

		snprintf(what, sizeof(what), "set %d of %d (%s)", k + 1, n, ev);
		r = guest_open(&sets[k], ev);
		CHECK_MSG(r == 0, "%s: %s", what, pmu_errmsg());
		if (r) {
			while (k-- > 0)
				guest_close(&sets[k]);
			T_DONE();
		}
		idx[k] = check_counter(&sets[k], 0, what);
		guest_spin(1 << 16);
	}
	for (int k = 0; k < n; k++) {
		if (idx[k] <= RV64_IDX_MAX) {
			CHECK_MSG(!seen[idx[k]], "index %u handed out twice", idx[k]);
			seen[idx[k]] = true;
		}
	}
	for (int i = RV64_IDX_INSTRET + 1; i <= RV64_IDX_INSTRET + n; i++)
		CHECK_MSG(seen[i], "index %d (hpmcounter%d) was not used by %d sets", i, i - 1, n);
	/* The first set of cycles and of instructions count. */
	CHECK_MSG(advance(&sets[0]) > 0, "cycles (index %u) did not advance", idx[0]);
	CHECK_MSG(advance(&sets[1]) > 0, "instructions (index %u) did not advance", idx[1]);
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < n; k++) {
			snprintf(what, sizeof(what), "set %d of %d (%s, index %u), round %d", k + 1, n,
				 kinds[k % NKINDS], idx[k], round);
			CHECK(guest_sandwich(&sets[k], what) == 0);
		}
		guest_spin(1 << 16);
	}

	guest_one_more(sets, n, 10);
	for (int k = 0; k < n; k++)
		guest_close(&sets[k]);

	/* A group of 4: each on its own hpmcounter, read together from user space. */
	r = guest_open(&one, "cycles,instructions,dTLB-load-misses,iTLB-load-misses");
	CHECK_MSG(r == 0, "group of 4: %s", pmu_errmsg());
	if (r == 0) {
		uint64_t a[4], b[4];

		CHECK_EQ(one.n, 4);
		for (unsigned i = 0; i < one.n; i++)
			idx[i] = check_counter(&one, i, "group of 4");
		for (unsigned i = 0; i < one.n; i++)
			for (unsigned j = 0; j < i; j++)
				CHECK_MSG(idx[i] != idx[j], "group of 4: events %u and %u both on index %u",
					  j, i, idx[i]);
		for (int round = 0; round < 3; round++) {
			CHECK(guest_sandwich(&one, "group of 4") == 0);
			guest_spin(1 << 16);
		}
		CHECK(pmu_read(one.s, a) == 0);
		guest_spin(1 << 18);
		CHECK(pmu_read(one.s, b) == 0);
		CHECK_MSG(b[0] > a[0] && b[1] > a[1],
			  "group of 4: cycles %" PRIu64 " -> %" PRIu64 ", instructions %" PRIu64 " -> %" PRIu64,
			  a[0], b[0], a[1], b[1]);
		guest_close(&one);
	}
	T_DONE();
}
