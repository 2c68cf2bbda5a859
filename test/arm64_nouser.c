/* SPDX-License-Identifier: MIT */
/*
 * arm64 with kernel.perf_user_access 0: hardware events are read through
 * read(2), correctly, and pmu_user_read() names the sysctl as the reason.
 * The same on a kernel without the sysctl (before 5.17, no user access),
 * where the reason says that user-space reads need Linux 5.17. pmu check
 * says the same in its policy lines.
 */
#include <limits.h>

#include "arm64/a64.h"

static void check_set(const char *events)
{
	struct a64_set as;
	uint64_t v0[4], v1[4];
	const char *why;
	int r = a64_open(&as, events);

	CHECK_MSG(r == 0, "%s: %s", events, pmu_errmsg());
	if (r)
		return;
	for (unsigned i = 0; i < as.n; i++) {
		CHECK_MSG(pmu_user_read(as.s, i, &why) == 0, "%s: %s read from user space", events,
			  pmu_name(as.s, i));
		/* Before 5.17 the sysctl does not exist: the reason says which kernel is needed. */
		if (!a64_before_user_access())
			CHECK_MSG(strstr(why, "perf_user_access") != NULL, "%s: %s: reason \"%s\" does not "
				  "name kernel.perf_user_access", events, pmu_name(as.s, i), why);
		else
			CHECK_MSG(strstr(why, "Linux 5.17") != NULL, "%s: %s: reason \"%s\" does not say "
				  "that user-space reads need Linux 5.17", events, pmu_name(as.s, i), why);
		/* The kernel hands no counter to user space: the page's index is 0. */
		CHECK_MSG(a64_index(&as, i) == 0, "%s: %s: index %u with perf_user_access 0", events,
			  pmu_name(as.s, i), a64_index(&as, i));
	}
	CHECK(a64_sandwich(&as, events) == 0);
	CHECK(pmu_read(as.s, v0) == 0);
	a64_spin(1 << 18);
	CHECK(pmu_read(as.s, v1) == 0);
	CHECK_MSG(v1[0] > v0[0], "%s: cycles did not advance (%" PRIu64 " then %" PRIu64 ")", events,
		  v0[0], v1[0]);
	CHECK(a64_sandwich(&as, events) == 0);
	a64_close(&as);
}

/* pmu check, as a user would run it: its policy line names the sysctl or the kernel needed. */
static void check_tool(void)
{
	char exe[PATH_MAX], cmd[PATH_MAX + 64], line[512], *p;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int policy = 0, readpath = 0;
	FILE *f;

	if (n <= 0)
		return;
	exe[n] = '\0';
	if (!(p = strrchr(exe, '/')))
		return;
	*p = '\0';
	snprintf(cmd, sizeof(cmd), "%s/../pmu", exe);
	if (access(cmd, X_OK)) {
		printf("pmu check not run: no %s\n", cmd);
		return;
	}
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " check -e cycles 2>&1");
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		if (!strncmp(line + strspn(line, " "), "kernel.perf_user_access", 23))
			policy += strstr(line, a64_before_user_access() ? "Linux 5.17" : "= 0") != NULL;
		if (strstr(line, "cycles") && strstr(line, "yes"))
			readpath += strstr(line, "read(2)") != NULL;
	}
	CHECK(pclose(f) == 0);
	CHECK_MSG(policy == 1, "pmu check: no policy line for kernel.perf_user_access saying %s",
		  a64_before_user_access() ? "that user-space reads need Linux 5.17" : "0");
	CHECK_MSG(readpath == 1, "pmu check: cycles not shown on the read(2) path");
}

int main(void)
{
	long ua;

	a64_require();
	ua = a64_user_access();
	if (ua != 0 && !a64_before_user_access())
		T_SKIP("kernel.perf_user_access is %ld here (the *-nouser configurations set 0)", ua);
	check_set("cycles");
	check_set("cycles,r3c");
	check_tool();
	T_DONE();
}
