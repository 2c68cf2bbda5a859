/* SPDX-License-Identifier: MIT */
/*
 * riscv64 with kernel.perf_user_access 0: hardware events are read through
 * read(2), correctly, and pmu_user_read() names the sysctl as the reason.
 * riscv shows the setting as cap_user_rdpmc 0 and index 0.
 */
#include "rv64.h"

int main(void)
{
	static char out[8192];
	long ua;

	rv64_require();
	ua = guest_user_access();
	if (ua != 0)
		T_SKIP("kernel.perf_user_access is %ld here (the 6.12-nouser configuration sets 0)", ua);
	/* riscv shows the setting as cap_user_rdpmc 0 too */
	guest_nouser_set("cycles", "perf_user_access", true, 1);
	guest_nouser_set("instructions", "perf_user_access", true, 1);
	guest_nouser_set("cycles,instructions,dTLB-load-misses,iTLB-load-misses", "perf_user_access", true, 2);

	/* pmu check, as a user would run it, says the same. */
	CHECK_MSG(guest_tool("check -e cycles", out, sizeof(out)) == 0, "pmu check failed:\n%s", out);
	CHECK_MSG(guest_line_has(out, "kernel.perf_user_access", "kernel.perf_user_access = 0"),
		  "pmu check: no policy line kernel.perf_user_access = 0:\n%s", out);
	CHECK_MSG(guest_line_has(out, "cycles", "read(2): kernel.perf_user_access is 0"),
		  "pmu check: cycles not on the read(2) path for perf_user_access 0:\n%s", out);
	T_DONE();
}
