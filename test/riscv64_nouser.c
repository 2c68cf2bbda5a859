/* SPDX-License-Identifier: MIT */
/*
 * riscv64 with kernel.perf_user_access 0: hardware events are read through
 * read(2), correctly, and pmu_user_read() names the sysctl as the reason.
 * riscv shows the setting as cap_user_rdpmc 0 and index 0.
 */
#include "riscv64/rv64.h"

static void check_set(const char *events)
{
	struct rv64_set as;
	uint64_t v0[4], v1[4];
	const char *why;
	int r = rv64_open(&as, events);

	CHECK_MSG(r == 0, "%s: %s", events, pmu_errmsg());
	if (r)
		return;
	for (unsigned i = 0; i < as.n; i++) {
		CHECK_MSG(pmu_user_read(as.s, i, &why) == 0, "%s: %s read from user space", events,
			  pmu_name(as.s, i));
		CHECK_MSG(strstr(why, "perf_user_access") != NULL, "%s: %s: reason \"%s\" does not name "
			  "kernel.perf_user_access", events, pmu_name(as.s, i), why);
		CHECK_MSG(rv64_index(&as, i) == 0, "%s: %s: index %u with perf_user_access 0", events,
			  pmu_name(as.s, i), rv64_index(&as, i));
		CHECK_MSG(as.c[i].pg && !as.c[i].pg->cap_user_rdpmc, "%s: %s: cap_user_rdpmc is not 0",
			  events, pmu_name(as.s, i));
	}
	CHECK(rv64_sandwich(&as, events) == 0);
	CHECK(pmu_read(as.s, v0) == 0);
	rv64_spin(1 << 18);
	CHECK(pmu_read(as.s, v1) == 0);
	for (unsigned i = 0; i < as.n && i < 2; i++)
		CHECK_MSG(v1[i] > v0[i], "%s: %s did not advance (%" PRIu64 " then %" PRIu64 ")", events,
			  pmu_name(as.s, i), v0[i], v1[i]);
	CHECK(rv64_sandwich(&as, events) == 0);
	rv64_close(&as);
}

int main(void)
{
	long ua;

	rv64_require();
	ua = rv64_user_access();
	if (ua != 0)
		T_SKIP("kernel.perf_user_access is %ld here (the 6.12-nouser configuration sets 0)", ua);
	check_set("cycles");
	check_set("instructions");
	check_set("cycles,instructions,dTLB-load-misses,iTLB-load-misses");

	/* pmu check, as a user would run it, says the same. */
	{
		static char out[8192];
		const char *l;

		CHECK_MSG(rv64_tool("check -e cycles", out, sizeof(out)) == 0, "pmu check failed:\n%s", out);
		l = rv64_line(out, "kernel.perf_user_access");
		CHECK_MSG(l && !strncmp(strstr(l, "kernel.perf_user_access"), "kernel.perf_user_access = 0", 27),
			  "pmu check: no policy line kernel.perf_user_access = 0:\n%s", out);
		l = rv64_line(out, "cycles");
		CHECK_MSG(l && strstr(l, "read(2): kernel.perf_user_access is 0") < strchr(l, '\n') &&
			  strstr(l, "read(2): kernel.perf_user_access is 0"),
			  "pmu check: cycles not on the read(2) path for perf_user_access 0:\n%s", out);
	}
	T_DONE();
}
