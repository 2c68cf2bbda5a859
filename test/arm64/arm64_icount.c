/* SPDX-License-Identifier: MIT */
/*
 * arm64 under QEMU -icount shift=0, where counts are exact: a loop of known
 * instruction count (2n + 1) is measured through the user-space path to the
 * instruction, alone and in a set of several events. On a kernel without
 * user access (before 5.17) the same through read(2).
 */
#include "a64.h"

#define MAXEV 8

static void check_set(const char *events)
{
	static const uint64_t ns[] = { 1, 1000, 100000, 2000000 };
	uint64_t base[MAXEV], d[MAXEV];
	struct guest_set as;

	if (guest_open_user(&as, events, !a64_before_user_access()))
		return;
	/* The read's own instructions, counted once per measurement: the same every time. */
	CHECK(guest_measure(&as, 1, base) == 0);
	CHECK(guest_measure(&as, 1, base) == 0);
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		uint64_t n = ns[k], want = 2 * n + 1;

		CHECK(guest_measure(&as, n, d) == 0);
		for (unsigned i = 0; i < as.n; i++) {
			const char *name = pmu_name(as.s, i);
			int64_t extra = (int64_t)(d[i] - (base[i] - 3));

			if (strncmp(name, "instructions", 12) && strcmp(name, "cycles"))
				continue;
			if (k == sizeof(ns) / sizeof(ns[0]) - 1)
				printf("%s: %s: %" PRIu64 " for a loop of %" PRIu64 " instructions "
				       "(read overhead %" PRIu64 ")\n", events, name, d[i], want, base[i] - 3);
			if (!strncmp(name, "instructions", 12))
				/* Exact, give or take a seqlock retry. */
				CHECK_MSG(extra + 64 >= (int64_t)want && extra <= (int64_t)want + 64,
					  "%s: %s: %" PRIu64 " for %" PRIu64 " instructions (read overhead %"
					  PRIu64 ")", events, name, d[i], want, base[i] - 3);
			else
				/* cycles: one per instruction under icount shift=0, in steps of the clock. */
				CHECK_MSG(d[i] + 64 >= want && d[i] <= want + want / 100 + 4096,
					  "%s: cycles: %" PRIu64 " for %" PRIu64 " instructions", events, d[i], want);
		}
	}
	guest_close(&as);
}

int main(void)
{
	a64_require_icount();
	check_set("instructions");
	check_set("instructions:u");
	check_set("cycles,instructions");
	check_set("instructions,r3c,cycles,instructions");
	T_DONE();
}
