/* SPDX-License-Identifier: MIT */
/*
 * An event of a PMU that counts per CPU (a cpumask in sysfs: RAPL, uncore)
 * opened for a thread: the refusal says so and names the ways to count it
 * (PMU_SOCKET_WIDE among them).
 * The PMU is a sysfs tree of the test's whose type is the software PMU's,
 * with an event the kernel refuses, as it refuses RAPL for a task.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_pmu.h"
#include "pmu.h"
#include "test.h"

int main(void)
{
	char dir[] = "/tmp/pmu-cpu-only.XXXXXX", sub[PATH_MAX + 32];
	struct pmu_set *s = NULL;
	int r;

	if (!mkdtemp(dir))
		T_SKIP("mkdtemp: %s", strerror(errno));
	t_cpu_pmu(dir, "power", "0\n", "energy-pkg", "event=0x99\n");	/* a config the software PMU has not */
	setenv("PMU_SYSFS_DEVICES", dir, 1);

	r = pmu_open(&s, "power/energy-pkg/");
	CHECK_MSG(r < 0 && s == NULL, "%d", r);
	CHECK_MSG(strstr(pmu_errmsg(), "power/energy-pkg/: the power PMU counts per CPU (its cpumask: 0), not per "
			 "thread") && strstr(pmu_errmsg(), "pmu stat -a") && strstr(pmu_errmsg(), "PMU_SOCKET_WIDE") &&
		  strstr(pmu_errmsg(), "PMU_ON_CPU"),
		  "%s", pmu_errmsg());
	/* pmu_thread_init() opens it socket-wide (PMU_SOCKET_WIDE): the kernel's answer then, naming the PMU */
	r = pmu_thread_init("task-clock,power/energy-pkg/");
	CHECK_MSG(r < 0 && strstr(pmu_errmsg(), "power/energy-pkg/: ") && strstr(pmu_errmsg(), "the power PMU"), "%d %s",
		  r, pmu_errmsg());
	pmu_thread_fini();
	snprintf(sub, sizeof(sub), "rm -rf '%s'", dir);
	CHECK(system(sub) == 0);
	T_DONE();
}
