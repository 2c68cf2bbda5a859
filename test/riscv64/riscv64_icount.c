/* SPDX-License-Identifier: MIT */
/*
 * riscv64 under QEMU -icount shift=0, where counts are exact: a loop of known
 * instruction count (2n + 1) is measured through the user-space path with
 * instructions and with cycles (one cycle per instruction there), alone and
 * in one set. Where an interrupt falls in the loop, the two differ by a few
 * thousand (QEMU does not count the interrupt's instructions alike for
 * both), so each is checked against the loop, not against the other.
 * QEMU 7.2 ignores exclude_kernel: user-only events also count the kernel's
 * instructions, so a timer interrupt during the loop adds its handler. The
 * kernel's share is bounded (at most one tick per 4M instructions at HZ 250)
 * and the count can never be below the loop's.
 */
#include "rv64.h"

#define MAXEV 4
/* Instructions of a timer tick's handling, generously; ticks come every 4M instructions or more. */
#define TICK_COST 60000

static void check_set(const char *events)
{
	static const uint64_t ns[] = { 1, 1000, 100000, 2000000 };
	uint64_t base[MAXEV], d[MAXEV], best[MAXEV];
	struct guest_set as;

	if (guest_open_user(&as, events, 1))
		return;
	/* The read's own instructions: the smallest of a few, free of interrupts. */
	for (unsigned i = 0; i < as.n; i++)
		best[i] = UINT64_MAX;
	for (int k = 0; k < 5; k++) {
		CHECK(guest_measure(&as, 1, base) == 0);
		for (unsigned i = 0; i < as.n; i++)
			if (base[i] - 3 < best[i])
				best[i] = base[i] - 3;
	}
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		uint64_t n = ns[k], want = 2 * n + 1, slack = 64 + TICK_COST * (1 + want / 4000000);

		CHECK(guest_measure(&as, n, d) == 0);
		for (unsigned i = 0; i < as.n; i++) {
			const char *name = pmu_name(as.s, i);
			uint64_t net = d[i] - best[i];

			if (k == sizeof(ns) / sizeof(ns[0]) - 1 || net < want || net > want + slack)
				printf("%s: %s: %" PRIu64 " for a loop of %" PRIu64 " instructions "
				       "(read overhead %" PRIu64 ", %+" PRId64 ")\n", events, name, d[i], want,
				       best[i], (int64_t)(net - want));
			/* Never fewer than the loop; more only by the kernel's interrupts (QEMU counts them). */
			CHECK_MSG(net + 8 >= want && net <= want + slack,
				  "%s: %s: %" PRIu64 " for %" PRIu64 " instructions (read overhead %" PRIu64 ")",
				  events, name, d[i], want, best[i]);
		}
	}
	guest_close(&as);
}

int main(void)
{
	rv64_require();
	rv64_require_user_access();
	if (!guest_icount())
		T_SKIP("needs QEMU -icount shift=0 for exact counts (the 6.12-icount configuration runs it)");
	check_set("instructions");
	check_set("instructions:u");
	check_set("cycles");
	check_set("cycles,instructions");
	T_DONE();
}
