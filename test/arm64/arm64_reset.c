/* SPDX-License-Identifier: MIT */
/*
 * arm64: pmu_reset() of a running set with a 32-bit counter. The kernel's
 * reset folds the counter into the event (its previous raw value, now
 * zero-extended) and publishes the page: read with the documented sign
 * extension, every user-space read was 2^32 short until the counter was next
 * started (a context switch). pmu_reset() now stops the set around the reset,
 * so every read path is right at once: checked before and after a forced
 * context switch, against read(2) of the same event.
 */
#include <sched.h>

#include "a64.h"

/* Each read path of event 0: pmu_read, pmu_read_full, pmu_counter_read, then read(2); all sane and in order. */
static void check_reads(const struct guest_set *as, const char *what)
{
	struct pmu_reading rd;
	uint64_t v, f, c;

	CHECK(pmu_read(as->s, &v) == 0);
	CHECK(pmu_read_full(as->s, &rd) == 0);
	f = rd.value;
	CHECK(pmu_counter_read(pmu_counter(as->s, 0), &c) == 0);
	printf("%s: pmu_read %" PRIu64 ", pmu_read_full %" PRIu64 ", pmu_counter_read %" PRIu64
	       " (index %u, width %u)\n", what, v, f, c, guest_index(as, 0), guest_width(as, 0));
	CHECK_MSG(v < (1ull << 31) && v <= f && f <= c, "%s: %" PRIu64 ", %" PRIu64 ", %" PRIu64 " after a reset",
		  what, v, f, c);
	CHECK(guest_sandwich(as, what) == 0);
}

static void check_event(const char *event)
{
	struct guest_set as;
	int r = guest_open(&as, event);

	CHECK_MSG(r == 0, "%s: %s", event, pmu_errmsg());
	if (r)
		return;
	/* Before 5.17 (no user access) the same, through read(2), where the kernel extends the counter. */
	if (!a64_before_user_access()) {
		CHECK_MSG(pmu_user_read(as.s, 0, NULL) == 1, "%s: not read from user space", event);
		CHECK_MSG(guest_width(&as, 0) == 32, "%s: pmc_width %u (expected a 32-bit counter)", event,
			  guest_width(&as, 0));
	}
	for (int round = 0; round < 3; round++) {
		/* The raw counter starts at 2^31 - 1: past 2^31 at once, where the two extensions differ. */
		guest_spin(1 << 18);
		CHECK(pmu_reset(as.s) == 0);
		check_reads(&as, "after the reset");
		guest_spin(1 << 16);
		check_reads(&as, "after more work");
		sched_yield();
		usleep(2000);	/* scheduled out and in: the counter is started again */
		check_reads(&as, "after a context switch");
	}
	guest_close(&as);
}

int main(void)
{
	char ev[128];

	a64_require();
	a64_require_user_access();
	/* Without long: 32 bits, on the cycle counter (a 64-bit register used as 32). */
	snprintf(ev, sizeof(ev), "%s/cpu_cycles,long=0/", a64_pmu_name());
	check_event(ev);
	/* cortex-a72: every event counter is 32-bit; a second cycles event lands on one. */
	if (!strcmp(guest_cpu(), "cortex-a72")) {
		struct guest_set first;

		CHECK(guest_open(&first, "cycles") == 0);
		check_event("cycles");
		guest_close(&first);
	}
	T_DONE();
}
