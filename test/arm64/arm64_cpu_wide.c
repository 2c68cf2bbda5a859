/* SPDX-License-Identifier: MIT */
/*
 * arm64: an event counting every task on a CPU (pid -1, PMU_ON_CPU) opens.
 * The kernel gives user access (config1's rdpmc bit, which the library sets
 * by itself) only to events tied to a task and refuses it on others with
 * EINVAL, so the library leaves the bit off there. pmu stat -a counts too.
 */
#include "a64.h"

int main(void)
{
	static char out[8192];
	PMU_OPTS(o, .pid = -1, .cpu = 0, .flags = PMU_ON_CPU);
	struct pmu_set *set = NULL;
	const char *why = NULL;
	uint64_t v[2] = { 0, 0 };
	int r;

	a64_require();
	if (geteuid() != 0)
		T_SKIP("counting every task on a CPU needs root here");
	r = pmu_open_opts(&set, "cycles,r11", &o);
	CHECK_MSG(r == 0, "cycles,r11 on cpu 0 for every task: %s", pmu_errmsg());
	if (r == 0) {
		for (volatile unsigned i = 0; i < 1000000; i++)
			;
		CHECK(pmu_read(set, v) == 0);
		CHECK_MSG(v[0] > 0 && v[1] > 0, "cpu 0 counted %llu and %llu cycles", (unsigned long long)v[0],
			  (unsigned long long)v[1]);
		/* Another CPU's counters are never read from user space. */
		CHECK(pmu_user_read(set, 0, &why) == 0);
		CHECK(why != NULL);
		pmu_close(set);
	}
	CHECK_MSG(guest_tool("stat -a -x, -e cycles -- true", out, sizeof(out)) == 0, "pmu stat -a:\n%s", out);
	CHECK_MSG(strstr(out, ",cycles") != NULL, "pmu stat -a printed no cycles line:\n%s", out);
	T_DONE();
}
