/* SPDX-License-Identifier: MIT */
/*
 * perf_event_open refused by a seccomp filter (a container's default
 * profile) is not blamed on kernel.perf_event_paranoid: pmu_errmsg(),
 * pmu check and pmu stat name the filter and its fixes. The filter here
 * refuses the call with EPERM, as Docker's does; the tool runs under it
 * too (a filter is inherited).
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "pmu.h"
#include "test.h"
#include "tool_run.h"

static int refuse_perf_event_open(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(void)
{
	struct pmu_set *s;
	int st;

	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");
	if (pmu_open(&s, "task-clock:u") < 0)
		T_SKIP("task-clock:u does not open here without a filter: %s", pmu_errmsg());
	pmu_close(s);
	if (refuse_perf_event_open() < 0)
		T_SKIP("no seccomp filter can be installed here: %s", strerror(errno));

	CHECK(pmu_open(&s, "task-clock:u") == -EPERM);
	CHECK_MSG(strstr(pmu_errmsg(), "task-clock:u: permission denied by this process's seccomp filter") &&
		  strstr(pmu_errmsg(), "--cap-add PERFMON") && strstr(pmu_errmsg(), "pmu emulate") &&
		  !strstr(pmu_errmsg(), "any counting needs"), "%s", pmu_errmsg());
	/* task-clock counts the kernel too: paranoid 2 refuses that anyway, and the filter is said as well */
	if (pmu_open(&s, "task-clock") < 0)
		CHECK_MSG(strstr(pmu_errmsg(), "seccomp"), "%s", pmu_errmsg());

	st = run("", tool, "check -e task-clock:u");
	CHECK_RUN(strstr(out, "task-clock:u: permission denied by this process's seccomp filter") &&
		  strstr(out, "  seccomp: a filter is on this process"),
		  "pmu check: exit %d", st);
	st = run("", tool, "stat -e task-clock:u -- true");
	CHECK_RUN(st != 0 && strstr(err, "task-clock:u: permission denied by this process's seccomp filter") &&
		  !strstr(err, "traceable"), "pmu stat: exit %d", st);
	return t_failures ? 1 : 0;
}
