/* SPDX-License-Identifier: MIT */
/* Open/close cycles and failing opens leave no descriptor and no mapping behind. */
/* tier: valgrind */
#include <errno.h>

#include "pmu.h"
#include "test.h"

int main(void)
{
	int fds = t_fd_count(), maps = t_map_count();
	long n = t_scale(10000);
	struct pmu_set *s;
	uint64_t v[3];

	if (getenv("RUNNING_ON_VALGRIND") || getenv("VALGRIND_LAUNCHER"))
		n = 500;
	for (long i = 0; i < n; i++) {
		int r = pmu_open(&s, "task-clock,page-faults,context-switches");

		CHECK_MSG(r == 0, "cycle %ld: %s", i, pmu_errmsg());
		if (r)
			break;
		CHECK(pmu_read(s, v) == 0);
		pmu_close(s);
	}
	/* Failures part-way through a set: the events opened before are closed again. */
	for (long i = 0; i < n / 10; i++) {
		CHECK(pmu_open(&s, "task-clock,page-faults,no-such-event") == -ENOENT);
		CHECK(pmu_open(&s, "task-clock,cycles") < 0);
	}
	CHECK_MSG(t_fd_count() == fds, "descriptors: %d before, %d after", fds, t_fd_count());
	CHECK_MSG(t_map_count() == maps, "mappings: %d before, %d after", maps, t_map_count());
	T_DONE();
}
