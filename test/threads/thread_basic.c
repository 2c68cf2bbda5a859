/* SPDX-License-Identifier: MIT */
/* The per-thread layer in one thread: set-up errors, names, reads that count this thread. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

int main(void)
{
	uint64_t a[2], b[2];
	long pages = t_scale(2000), ps = sysconf(_SC_PAGESIZE);
	int fds;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	fds = t_fd_count();
	/* Nothing works before pmu_thread_init(). */
	CHECK(pmu_thread_event_count() == 0);
	CHECK(pmu_thread_event_name(0) == NULL);
	CHECK(pmu_thread_read(a) == -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "pmu_thread_init") != NULL, "%s", pmu_errmsg());
	CHECK(pmu_region_begin("x") == -EINVAL);

	/* Bad events fail in pmu_thread_init() with a message naming them. */
	CHECK(pmu_thread_init(NULL) == -EINVAL);
	CHECK(pmu_thread_init("task-clock,no-such-event") == -ENOENT);
	CHECK_MSG(strstr(pmu_errmsg(), "no-such-event") != NULL, "%s", pmu_errmsg());
	CHECK(pmu_thread_init("") < 0);
	CHECK(pmu_thread_event_count() == 0);
	CHECK(t_fd_count() == fds);

	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	CHECK(t_fd_count() == fds);	/* validated, nothing left open */
	CHECK(pmu_thread_event_count() == 2);
	CHECK(pmu_thread_event_name(0) && !strcmp(pmu_thread_event_name(0), "task-clock"));
	CHECK(pmu_thread_event_name(1) && !strcmp(pmu_thread_event_name(1), "page-faults"));
	CHECK(pmu_thread_event_name(2) == NULL);
	/* Same list again: fine. Another list: busy until pmu_thread_fini(). */
	CHECK(pmu_thread_init("task-clock,page-faults") == 0);
	CHECK(pmu_thread_init("task-clock") == -EBUSY);
	CHECK_MSG(strstr(pmu_errmsg(), "pmu_thread_fini") != NULL, "%s", pmu_errmsg());
	CHECK(pmu_thread_read(NULL) == -EINVAL);

	CHECK_MSG(pmu_thread_read(a) == 0, "%s", pmu_errmsg());
	int open_fds = t_fd_count();
	CHECK(open_fds > fds);
	char *m = mmap(NULL, (size_t)(pages * ps), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	for (long i = 0; m != MAP_FAILED && i < pages; i++)
		m[i * ps] = 1;
	CHECK(pmu_thread_read(b) == 0);
	CHECK(b[0] > a[0]);
	CHECK_MSG(b[1] - a[1] >= (uint64_t)pages && b[1] - a[1] < (uint64_t)pages * 2 + 100,
		  "page-faults %" PRIu64 " for %ld pages", b[1] - a[1], pages);
	CHECK(t_fd_count() == open_fds);	/* later reads open nothing */
	munmap(m, (size_t)(pages * ps));

	CHECK(pmu_thread_fini() == 0);
	CHECK(t_fd_count() == fds);
	CHECK(pmu_thread_event_count() == 0);
	CHECK(pmu_thread_read(a) == -EINVAL);
	/* Another event list after fini. */
	CHECK(pmu_thread_init("page-faults") == 0);
	CHECK(pmu_thread_event_count() == 1);
	CHECK(pmu_thread_read(a) == 0);
	CHECK(pmu_thread_fini() == 0);
	CHECK(pmu_thread_fini() == 0);
	CHECK(t_fd_count() == fds);
	T_DONE();
}
