/* SPDX-License-Identifier: MIT */
/* Open/close cycles and failing opens leave no descriptor and no mapping behind. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <sys/resource.h>

#include "pmu.h"
#include "test.h"

int main(void)
{
	struct pmu_set *s;
	/* An unknown name loads libpfm.so.4 (where installed) once, for good: before the counts. */
	int warm = pmu_open(&s, "no-such-event"), fds = t_fd_count(), maps = t_map_count();
	long n = t_scale(10000);
	uint64_t v[3];

	CHECK(warm == -ENOENT);
	if (t_under_valgrind())
		n = 500;
	for (long i = 0; i < n; i++) {
		int r = pmu_open(&s, "task-clock,page-faults,minor-faults");

		CHECK_MSG(r == 0, "cycle %ld: %s", i, pmu_errmsg());
		if (r)
			break;
		CHECK(pmu_read(s, v) == 0);
		pmu_close(s);
	}
	/* A name that does not resolve fails before anything is opened. */
	for (long i = 0; i < n / 10; i++)
		CHECK(pmu_open(&s, "task-clock,page-faults,no-such-event") == -ENOENT);
	/* Failures part-way through a set: the events opened before are closed again. */
	struct rlimit old, lim;
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	lim = old;
	int low = dup(0);	/* the lowest free descriptor number: the next open gets it */
	close(low);
	if (fcntl(low + 1, F_GETFD) == -1)
		lim.rlim_cur = (rlim_t)low + 2;	/* room for two of the three */
	else
		lim.rlim_cur = (rlim_t)low + 1;	/* room for one */
	CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0);
	for (long i = 0; i < n / 10; i++) {
		CHECK(pmu_open(&s, "task-clock,page-faults,minor-faults") == -EMFILE);
		CHECK(strstr(pmu_errmsg(), "minor-faults") != NULL);
	}
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
	CHECK_MSG(t_fd_count() == fds, "descriptors: %d before, %d after", fds, t_fd_count());
	CHECK_MSG(t_map_count() == maps, "mappings: %d before, %d after", maps, t_map_count());
	T_DONE();
}
