/* SPDX-License-Identifier: MIT */
/*
 * riscv64: SBI firmware events (config bit 63 of PMU cpu) are counted by the
 * firmware and have no counter CSR, yet QEMU 7.2 with OpenSBI shows them on
 * their page as cap_user_rdpmc 1 with a user index (1, the cycle CSR): a
 * user-space read returns garbage. The library must read them through
 * read(2), and say why: a user-space read of one fails the test.
 */
#include "rv64.h"

static const char *const events[] = {
	"cpu/config=0x8000000000000000/",	/* SBI_PMU_FW_MISALIGNED_LOAD */
	"cpu/config=0x8000000000000001/",	/* SBI_PMU_FW_MISALIGNED_STORE */
};

int main(void)
{
	rv64_require();
	rv64_require_user_access();
	for (size_t e = 0; e < sizeof(events) / sizeof(events[0]); e++) {
		const char *ev = events[e], *why;
		struct guest_set as;
		uint64_t lib[1] = { 0 }, raw[1] = { 0 };
		int r = guest_open(&as, ev);

		CHECK_MSG(r == 0, "%s: %s", ev, pmu_errmsg());
		if (r)
			continue;
		/* the regression guarded: a firmware event read from user space */
		if (pmu_user_read(as.s, 0, &why) == 1) {
			CHECK(guest_read_lib(&as, lib) == 0);
			CHECK(guest_read_raw(&as, raw) == 0);
			CHECK_MSG(0, "%s: read from user space (cap_user_rdpmc %u, index %u): the library reads %"
				  PRIu64 ", read(2) %" PRIu64 "; a firmware event has no counter CSR", ev,
				  as.c[0].pg ? (unsigned)as.c[0].pg->cap_user_rdpmc : 0, guest_index(&as, 0), lib[0],
				  raw[0]);
			guest_close(&as);
			continue;
		}
		CHECK_MSG(strstr(why, "firmware") != NULL, "%s: reason \"%s\" does not say it is a firmware event",
			  ev, why);
		for (int k = 0; k < 3; k++) {
			CHECK(guest_sandwich(&as, ev) == 0);
			guest_spin(1 << 16);
		}
		guest_close(&as);
	}
	T_DONE();
}
