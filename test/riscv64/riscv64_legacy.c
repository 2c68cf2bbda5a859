/* SPDX-License-Identifier: MIT */
/*
 * riscv64 with kernel.perf_user_access 2 (legacy): the kernel lets every task
 * read the cycle and instret CSRs, and puts cycles and instructions events on
 * them (page index 1 and 3, cap_user_rdpmc 1, 64 bits). The library reads
 * those from user space, with csrr cycle / csrr instret, and they agree with
 * read(2); every other event has cap_user_rdpmc 0 and goes through read(2),
 * and so does a set that mixes both. Only one event can sit on each fixed
 * CSR: a second concurrent cycles event takes turns with the first (the
 * kernel multiplexes them every few ms), and reads of both agree with read(2)
 * whichever holds the CSR at the time.
 */
#include "rv64.h"

static void check_fixed(const char *ev, uint32_t want_idx)
{
	struct guest_set as, second;
	struct pmu_reading rd;
	uint64_t v0, v1;
	const char *why;
	int r = guest_open(&as, ev);

	CHECK_MSG(r == 0, "%s: %s", ev, pmu_errmsg());
	if (r)
		return;
	CHECK_MSG(pmu_user_read(as.s, 0, &why) == 1, "%s: not read from user space: %s", ev, why);
	CHECK_MSG(guest_index(&as, 0) == want_idx, "%s: index %u, expected %u", ev, guest_index(&as, 0), want_idx);
	CHECK_MSG(as.c[0].pg && as.c[0].pg->cap_user_rdpmc, "%s: cap_user_rdpmc is 0", ev);
	CHECK_EQ(guest_width(&as, 0), 64);
	for (int k = 0; k < 3; k++) {
		CHECK(guest_sandwich(&as, ev) == 0);
		guest_spin(1 << 16);
	}
	CHECK(pmu_read(as.s, &v0) == 0);
	guest_spin(1 << 18);
	CHECK(pmu_read(as.s, &v1) == 0);
	CHECK_MSG(v1 > v0, "%s: %" PRIu64 " then %" PRIu64, ev, v0, v1);

	/* The CSR is taken: the two take turns on it; either is on it or on none. */
	r = guest_open(&second, ev);
	CHECK_MSG(r == 0, "second %s: %s", ev, pmu_errmsg());
	if (r == 0) {
		for (int k = 0; k < 20; k++) {
			uint32_t i1 = guest_index(&as, 0), i2 = guest_index(&second, 0);

			CHECK_MSG((i1 == 0 || i1 == want_idx) && (i2 == 0 || i2 == want_idx),
				  "two %s events: indexes %u and %u", ev, i1, i2);
			CHECK(guest_sandwich(&as, "first of two") == 0);
			CHECK(guest_sandwich(&second, "second of two") == 0);
			guest_spin(1 << 16);
		}
		CHECK(pmu_read_full(second.s, &rd) == 0);
		CHECK_MSG(rd.running <= rd.enabled && rd.enabled > 0, "second %s: running %" PRIu64
			  ", enabled %" PRIu64, ev, rd.running, rd.enabled);
		guest_close(&second);
	}
	/* Alone again (back on the CSR at the kernel's next rotation or switch). */
	guest_spin(1 << 16);
	CHECK(guest_sandwich(&as, ev) == 0);
	guest_close(&as);
}

/* Events not on cycle or instret: cap_user_rdpmc 0, read(2), and the whole set with them. */
static void check_read2(const char *events)
{
	struct guest_set as;

	if (guest_open_user(&as, events, 0))
		return;
	for (int k = 0; k < 3; k++) {
		CHECK(guest_sandwich(&as, events) == 0);
		guest_spin(1 << 16);
	}
	guest_close(&as);
}

int main(void)
{
	struct guest_set as;
	long ua;

	rv64_require();
	ua = guest_user_access();
	if (ua != 2)
		T_SKIP("kernel.perf_user_access is %ld here (the 6.12-legacy configuration sets 2)", ua);
	check_fixed("cycles", RV64_IDX_CYCLE);
	check_fixed("instructions", RV64_IDX_INSTRET);

	/* Both at once, in one group: both CSRs, read together from user space. */
	CHECK_MSG(guest_open(&as, "cycles,instructions") == 0, "cycles,instructions: %s", pmu_errmsg());
	if (as.s) {
		CHECK_EQ(guest_index(&as, 0), RV64_IDX_CYCLE);
		CHECK_EQ(guest_index(&as, 1), RV64_IDX_INSTRET);
		CHECK_EQ(pmu_user_read(as.s, 0, NULL), 1);
		CHECK_EQ(pmu_user_read(as.s, 1, NULL), 1);
		CHECK(guest_sandwich(&as, "cycles,instructions") == 0);
		guest_close(&as);
	}
	check_read2("dTLB-load-misses");
	check_read2("cycles,instructions,dTLB-load-misses,iTLB-load-misses");

	/* pmu check, as a user would run it: legacy mode, cycles from user space, dTLB through read(2). */
	{
		static char out[8192];
		const char *l;

		CHECK_MSG(guest_tool("check -e cycles,dTLB-load-misses", out, sizeof(out)) == 0,
			  "pmu check failed:\n%s", out);
		l = guest_line(out, "kernel.perf_user_access");
		CHECK_MSG(l && strstr(l, "= 2") && strstr(l, "legacy") && strstr(l, "legacy") < strchr(l, '\n'),
			  "pmu check: no policy line for legacy mode:\n%s", out);
		l = guest_line(out, "cycles");
		CHECK_MSG(l && strstr(l, "user space") && strstr(l, "user space") < strchr(l, '\n'),
			  "pmu check: cycles not read from user space:\n%s", out);
		l = guest_line(out, "dTLB-load-misses");
		CHECK_MSG(l && strstr(l, "read(2)") && strstr(l, "read(2)") < strchr(l, '\n'),
			  "pmu check: dTLB-load-misses not read through read(2):\n%s", out);
	}
	T_DONE();
}
