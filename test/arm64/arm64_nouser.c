/* SPDX-License-Identifier: MIT */
/*
 * arm64 with kernel.perf_user_access 0: hardware events are read through
 * read(2), correctly, and pmu_user_read() names the sysctl as the reason.
 * The same on a kernel without the sysctl (before 5.17, no user access),
 * where the reason says that user-space reads need Linux 5.17. pmu check
 * says the same in its policy lines.
 */
#include "a64.h"

/* pmu check, as a user would run it: its policy line names the sysctl or the kernel needed. */
static void check_tool(void)
{
	static char out[8192];
	bool old = a64_before_user_access();

	CHECK_MSG(guest_tool("check -e cycles", out, sizeof(out)) == 0, "pmu check failed:\n%s", out);
	CHECK_MSG(guest_line_has(out, "kernel.perf_user_access", old ? "Linux 5.17" : "= 0"),
		  "pmu check: no policy line for kernel.perf_user_access saying %s:\n%s",
		  old ? "that user-space reads need Linux 5.17" : "0", out);
	CHECK_MSG(guest_line_has(out, "cycles", "read(2)"), "pmu check: cycles not shown on the read(2) "
		  "path:\n%s", out);
}

int main(void)
{
	const char *reason;
	long ua;

	a64_require();
	ua = guest_user_access();
	if (ua != 0 && !a64_before_user_access())
		T_SKIP("kernel.perf_user_access is %ld here (the *-nouser configurations set 0)", ua);
	/* Before 5.17 the sysctl does not exist: the reason says which kernel is needed. */
	reason = a64_before_user_access() ? "Linux 5.17" : "perf_user_access";
	guest_nouser_set("cycles", reason, false, 1);
	guest_nouser_set("cycles,r3c", reason, false, 1);
	check_tool();
	T_DONE();
}
