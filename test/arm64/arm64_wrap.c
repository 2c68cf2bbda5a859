/* SPDX-License-Identifier: MIT */
/*
 * arm64: a 32-bit event counter read from user space across its wrap. The
 * kernel starts such a counter near 2^31 so that it overflows (and the
 * kernel folds the overflow into the page's offset) after about 2^31
 * events; the library's reads must stay monotonic and agree with read(2)
 * before, around and after it. Under -icount shift=0, where cycles count
 * instructions exactly, the whole span is checked against a 64-bit
 * instructions counter to the instruction (give or take the reads).
 */
#include "a64.h"

#define TWO31 (1ull << 31)

/* A 32-bit counting event on an event counter, or NULL with the reasons in why. */
static const char *open_32bit(struct guest_set *as, char *why, size_t len)
{
	static char ev[300];
	const char *cands[3];
	int nc = 0;

	snprintf(ev, sizeof(ev), "%s/cpu_cycles,long=0/", a64_pmu_name());
	cands[nc++] = ev;
	if (!strcmp(guest_cpu(), "cortex-a72")) {
		/* Only the cycle counter is 64-bit there: event counters are 32-bit. */
		cands[nc++] = "cycles";
		if (guest_icount())
			cands[nc++] = "instructions";
	}
	why[0] = '\0';
	for (int i = 0; i < nc; i++) {
		int r = guest_open(as, cands[i]);

		if (r == 0 && guest_width(as, 0) == 32 && guest_index(as, 0) &&
		    guest_index(as, 0) != A64_CYCLE_IDX)
			return cands[i];
		snprintf(why + strlen(why), len - strlen(why), "%s%s: %s", why[0] ? "; " : "", cands[i],
			 r ? pmu_errmsg() : "not a 32-bit event counter");
		if (r == 0)
			snprintf(why + strlen(why), len - strlen(why), " (index %u, pmc_width %u)",
				 guest_index(as, 0), guest_width(as, 0));
		if (r == 0)
			guest_close(as);
	}
	return NULL;
}

int main(void)
{
	struct guest_set cyc, as, ref;
	uint64_t ref0 = 0, ref1 = 0;
	bool exact = false;
	char why[1024];
	const char *ev;
	uint64_t start, prev, v, limit;
	uint32_t idx, raw0, rawprev;
	int wraps = 0, reads = 0, sandwiches = 0;
	long it;

	a64_require();
	a64_require_user_access();
	if (a64_before_user_access())
		T_SKIP("no user access on this kernel (before 5.17): 32-bit counters are read and "
		       "extended by the kernel, through read(2)");

	/* Take the cycle counter, so that cycles go to an event counter. */
	CHECK_MSG(guest_open(&cyc, "cycles") == 0, "cycles: %s", pmu_errmsg());
	CHECK_EQ(guest_index(&cyc, 0), A64_CYCLE_IDX);
	/* 64 bits, but on cortex-a72 the library may count cycles in 32 (see arm64_counters). */
	if (strcmp(guest_cpu(), "cortex-a72"))
		CHECK_EQ(guest_width(&cyc, 0), 64);

	ev = open_32bit(&as, why, sizeof(why));
	if (!ev) {
		guest_close(&cyc);
		T_SKIP("no 32-bit counting event counter: %s", why);
	}
	idx = guest_index(&as, 0);
	if (guest_icount()) {
		CHECK_MSG(guest_open(&ref, "instructions") == 0, "instructions: %s", pmu_errmsg());
		exact = ref.s && guest_width(&ref, 0) == 64 && strstr(ev, "cycles");
		if (ref.s && !exact)
			guest_close(&ref);
	}
	if (exact)
		CHECK(pmu_read(ref.s, &ref0) == 0);
	CHECK(pmu_read(as.s, &start) == 0);
	raw0 = rawprev = (uint32_t)pmu_inl_rdpmc(idx);
	printf("%s: index %u, pmc_width 32, register starts at 0x%08x\n", ev, idx, raw0);
	prev = start;
	limit = start + TWO31 + (TWO31 >> 3);
	/* Bounded: an event counting ~1 per instruction passes the limit well before. */
	for (it = 0; it < 40000 && prev < limit; it++) {
		uint32_t raw;

		guest_spin(1 << 19);
		CHECK(pmu_read(as.s, &v) == 0);
		reads++;
		CHECK_MSG(v >= prev, "%s: went back from %" PRIu64 " to %" PRIu64 " (register 0x%08x)",
			  ev, prev, v, (uint32_t)pmu_inl_rdpmc(idx));
		if (guest_index(&as, 0) == idx) {
			raw = (uint32_t)pmu_inl_rdpmc(idx);
			wraps += raw < rawprev;
			rawprev = raw;
		}
		if (it % 8 == 0 || prev - start > TWO31 - (TWO31 >> 4)) {
			CHECK(guest_sandwich(&as, ev) == 0);
			sandwiches++;
		}
		prev = v;
		if (t_failures > 20)
			break;
	}
	if (exact) {
		int64_t d;

		CHECK(pmu_read(ref.s, &ref1) == 0);
		d = (int64_t)((ref1 - ref0) - (prev - start));
		printf("icount: %" PRIu64 " instructions (64-bit), %" PRIu64 " cycles (32-bit), %+" PRId64 "\n",
		       ref1 - ref0, prev - start, d);
		/* Both count every user instruction; the 64-bit one also the two reads in between. */
		CHECK_MSG(d >= 0 && d <= 2000, "icount: %" PRIu64 " instructions but %" PRIu64
			  " cycles across the wrap", ref1 - ref0, prev - start);
		guest_close(&ref);
	}
	printf("%s: %" PRIu64 " events in %d reads (%d checked against read(2)), register wrapped %d times\n",
	       ev, prev - start, reads, sandwiches, wraps);
	CHECK_MSG(prev >= limit, "%s: only %" PRIu64 " events counted", ev, prev - start);
	CHECK_MSG(wraps >= 1, "%s: the 32-bit register never wrapped (from 0x%08x)", ev, raw0);
	CHECK(guest_sandwich(&as, ev) == 0);
	CHECK(guest_sandwich(&cyc, "cycles (64-bit)") == 0);
	guest_close(&as);
	guest_close(&cyc);
	T_DONE();
}
