/* SPDX-License-Identifier: MIT */
/*
 * arm64: every counter the PMU offers (the cycle counter, index 32, and each
 * event counter, indexes 1..N-1) is read by the library with mrs and agrees
 * with read(2) of the same events; widths are 64 bits on the cycle counter
 * and on -cpu max's event counters, 32 on cortex-a72's event counters.
 * On a kernel without user access (before 5.17) the same sets are read
 * through read(2) and must agree all the same.
 */
#include "a64.h"

#define MAX_CTRS 32

static bool icount;
static bool user;	/* the kernel has user access (5.17+): else the read(2) path is checked */

/*
 * Expected pmc_width of a counter, 0 when either is right: -cpu max has
 * 64-bit event counters; cortex-a72 32-bit ones, and a 64-bit cycle counter
 * that the library may also use as a 32-bit one (a second cycles event can
 * only be 32-bit there).
 */
static uint32_t want_width(uint32_t idx)
{
	if (!strcmp(guest_cpu(), "max"))
		return 64;
	if (!strcmp(guest_cpu(), "cortex-a72") && idx != A64_CYCLE_IDX)
		return 32;
	return 0;
}

/* Checks event i of as: read from user space, on a counter of the right width. Returns its index. */
static uint32_t check_counter(const struct guest_set *as, unsigned i, const char *what)
{
	const char *why;
	uint32_t idx = guest_index(as, i), w = guest_width(as, i);
	int u = pmu_user_read(as->s, i, &why);

	if (!user) {
		CHECK_MSG(u == 0, "%s: %s: read from user space on a kernel without user access", what,
			  pmu_name(as->s, i));
		CHECK_MSG(idx == 0, "%s: %s: index %u on a kernel without user access", what,
			  pmu_name(as->s, i), idx);
		return 0;
	}
	CHECK_MSG(u == 1, "%s: %s: not read from user space: %s", what, pmu_name(as->s, i), why);
	CHECK_MSG(idx == A64_CYCLE_IDX || (idx >= 1 && idx <= 31), "%s: %s: index %u",
		  what, pmu_name(as->s, i), idx);
	if (idx && want_width(idx))
		CHECK_MSG(w == want_width(idx), "%s: %s: index %u has pmc_width %u, expected %u on -cpu %s",
			  what, pmu_name(as->s, i), idx, w, want_width(idx), guest_cpu());
	else if (idx)
		CHECK_MSG(w == 32 || w == 64, "%s: %s: index %u has pmc_width %u", what, pmu_name(as->s, i),
			  idx, w);
	return idx;
}

/* The indexes seen are exactly the cycle counter and event counters 1..n-1. */
static void check_cover(const uint32_t *idx, int n, const char *what)
{
	bool seen[A64_CYCLE_IDX + 1] = { false };

	for (int k = 0; k < n; k++) {
		if (idx[k] > A64_CYCLE_IDX)
			continue;
		CHECK_MSG(!seen[idx[k]], "%s: index %u handed out twice", what, idx[k]);
		seen[idx[k]] = true;
	}
	CHECK_MSG(seen[A64_CYCLE_IDX], "%s: the cycle counter (index 32) was not used", what);
	for (int k = 1; k < n; k++)
		CHECK_MSG(seen[k], "%s: event counter index %d was not used", what, k);
}

/* Filler events for event counters: ones that count here, and ones QEMU never counts. */
static const char *filler(int k, bool cycles_ok)
{
	static const char *const plain[] = { "r3c", "r23", "r24" };

	if (icount && k % 2)
		return "instructions";
	if (cycles_ok && k % 2)
		return "cycles";
	return plain[k % 3];
}

int main(void)
{
	struct guest_set one, sets[MAX_CTRS + 1];
	uint32_t idx[MAX_CTRS];
	char list[1024], what[64];
	int n, r;

	a64_require();
	a64_require_user_access();
	icount = guest_icount();
	user = !a64_before_user_access();
	n = a64_counters();
	CHECK_MSG(n >= 2 && n <= MAX_CTRS, "the kernel log says %d PMU counters", n);
	if (n < 2 || n > MAX_CTRS)
		T_DONE();
	printf("%s: %d counters, -cpu %s%s%s\n", a64_pmu_name(), n, guest_cpu(), icount ? ", icount" : "",
	       user ? "" : ", no user access (read(2) path)");

	/* The cycle counter. */
	r = guest_open(&one, "cycles");
	CHECK_MSG(r == 0, "cycles: %s", pmu_errmsg());
	if (r == 0) {
		CHECK_EQ(one.n, 1);
		CHECK_EQ(check_counter(&one, 0, "cycles alone"), user ? A64_CYCLE_IDX : 0);
		for (int k = 0; k < 3; k++) {
			CHECK(guest_sandwich(&one, "cycles alone") == 0);
			guest_spin(10000);
		}
		guest_close(&one);
	}

	/*
	 * One set per counter, opened one after another with work in between,
	 * so that each counter holds a different count: a read of the wrong
	 * register shows. Every "cycles" after the first is on an event counter.
	 */
	for (int k = 0; k < n; k++) {
		const char *ev = k == 0 ? "cycles" : k % 2 ? "cycles" : filler(k, false);

		snprintf(what, sizeof(what), "set %d of %d (%s)", k + 1, n, ev);
		r = guest_open(&sets[k], ev);
		CHECK_MSG(r == 0, "%s: %s", what, pmu_errmsg());
		if (r) {
			while (k-- > 0)
				guest_close(&sets[k]);
			T_DONE();
		}
		idx[k] = check_counter(&sets[k], 0, what);
		guest_spin(1 << 18);
	}
	int before = t_failures;
	if (user) {
		CHECK_EQ(idx[0], A64_CYCLE_IDX);
		check_cover(idx, n, "one set per counter");
	}
	if (user && (t_failures != before || idx[0] != A64_CYCLE_IDX)) {
		/* Where every set is now: the kernel may have moved them since. */
		fprintf(stderr, "indexes now (width):");
		for (int k = 0; k < n; k++)
			fprintf(stderr, " %s=%u(%u)", pmu_name(sets[k].s, 0), guest_index(&sets[k], 0),
				guest_width(&sets[k], 0));
		fputc('\n', stderr);
	}
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < n; k++) {
			snprintf(what, sizeof(what), "set %d of %d, round %d", k + 1, n, round);
			CHECK(guest_sandwich(&sets[k], what) == 0);
		}
		guest_spin(1 << 16);
	}

	guest_one_more(sets, n, 20);
	for (int k = 0; k < n; k++)
		guest_close(&sets[k]);

	/* All counters in one set (one group): every index again, read together. */
	snprintf(list, sizeof(list), "cycles");
	for (int k = 1; k < n; k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ",%s",
			 filler(k, !strcmp(guest_cpu(), "max")));
	r = guest_open(&one, list);
	CHECK_MSG(r == 0, "%s: %s", list, pmu_errmsg());
	if (r == 0) {
		CHECK_EQ(one.n, (unsigned)n);
		for (int k = 0; k < n && k < (int)one.n; k++)
			idx[k] = check_counter(&one, (unsigned)k, "one set of all counters");
		if (user)
			check_cover(idx, n, "one set of all counters");
		for (int round = 0; round < 3; round++) {
			CHECK(guest_sandwich(&one, "one set of all counters") == 0);
			guest_spin(1 << 16);
		}
		guest_close(&one);
	}

	/*
	 * One event more than counters in one group can never be scheduled:
	 * the open must fail and say so (the leader is opened enabled, so
	 * the kernel validates the whole group).
	 */
	snprintf(list + strlen(list), sizeof(list) - strlen(list), ",r3c");
	r = guest_open(&one, list);
	CHECK_MSG(r < 0 && strstr(pmu_errmsg(), "counters") != NULL, "%d events on %d counters: %d %s",
		  n + 1, n, r, pmu_errmsg());
	if (r == 0)
		guest_close(&one);
	T_DONE();
}
