/* SPDX-License-Identifier: MIT */
/* Software events through the real syscall: counts, disable/enable/reset, read paths. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

int main(void)
{
	struct pmu_set *s = NULL;
	struct pmu_reading rd[2];
	uint64_t v[2], w[2];
	const char *why = NULL;
	double scale = 0;
	int r;

	r = pmu_open(&s, "page-faults,task-clock");
	if (r == -EACCES || r == -EPERM)
		T_SKIP("perf_event_open not permitted here: %s", pmu_errmsg());
	CHECK_MSG(r == 0, "%d %s", r, pmu_errmsg());
	if (r)
		T_DONE();
	CHECK_EQ(pmu_count(s), 2);
	CHECK(!strcmp(pmu_name(s, 0), "page-faults"));
	CHECK(!strcmp(pmu_name(s, 1), "task-clock"));
	CHECK(pmu_name(s, 2) == NULL);
	/* perf stat's units: the clock's ns shown in msec, a plain count as it is */
	CHECK(!strcmp(pmu_unit(s, 1, &scale), "msec") && scale == 1e-6);
	CHECK(!strcmp(pmu_unit(s, 0, &scale), "") && scale == 1);
	CHECK_EQ(pmu_user_read(s, 0, &why), 0);
	CHECK_MSG(why && strstr(why, "software"), "why: %s", why ? why : "(null)");

	/* page-faults after touching N new pages: at least N, not wildly more. */
	for (size_t n = 16; n <= 4096; n *= 4) {
		CHECK(pmu_read(s, v) == 0);
		t_touch_pages(n);
		CHECK(pmu_read(s, w) == 0);
		CHECK_MSG(w[0] - v[0] >= n && w[0] - v[0] <= n + n / 4 + 64,
			  "touched %zu pages, counted %" PRIu64, n, w[0] - v[0]);
		CHECK(w[1] > v[1]);	/* task-clock advances */
	}

	/* Disabled: nothing counts. */
	CHECK(pmu_disable(s) == 0);
	CHECK(pmu_read(s, v) == 0);
	t_touch_pages(256);
	CHECK(pmu_read(s, w) == 0);
	CHECK_EQ(w[0], v[0]);
	CHECK_EQ(w[1], v[1]);

	/* Enabled again: counts resume from where they were, the leader's and its sibling's. */
	CHECK(pmu_enable(s) == 0);
	t_touch_pages(256);
	CHECK(pmu_read(s, w) == 0);
	CHECK(w[0] >= v[0] + 256);
	CHECK(w[1] > v[1]);
	pmu_close(s);

	/* The same with page-faults as the sibling, disabled and enabled twice. */
	CHECK(pmu_open(&s, "task-clock,page-faults") == 0);
	for (int i = 0; i < 2; i++) {
		CHECK(pmu_disable(s) == 0);
		CHECK(pmu_enable(s) == 0);
	}
	CHECK(pmu_read(s, v) == 0);
	t_touch_pages(256);
	CHECK(pmu_read(s, w) == 0);
	CHECK_MSG(w[1] >= v[1] + 256, "sibling page-faults after disable/enable: %" PRIu64, w[1] - v[1]);
	pmu_close(s);
	CHECK(pmu_open(&s, "page-faults,task-clock") == 0);

	/* Reset: back to (nearly) zero. */
	CHECK(pmu_reset(s) == 0);
	CHECK(pmu_read(s, w) == 0);
	CHECK_MSG(w[0] < 16, "page-faults after reset: %" PRIu64, w[0]);

	/* Raw readings carry times; never multiplexed here, so running == enabled. */
	CHECK(pmu_read_full(s, rd) == 0);
	CHECK(rd[1].enabled > 0 && rd[1].running > 0);
	CHECK(rd[1].running <= rd[1].enabled);
	pmu_close(s);

	/* A single event is read without the group format. */
	CHECK(pmu_open(&s, "minor-faults") == 0);
	CHECK(pmu_read(s, v) == 0);
	t_touch_pages(100);
	CHECK(pmu_read(s, w) == 0);
	CHECK(w[0] - v[0] >= 100);
	CHECK(pmu_read_full(s, rd) == 0);
	CHECK(rd[0].value >= 100 && rd[0].enabled > 0);
	pmu_close(s);

	/* Context switches happen in the kernel: without a modifier they are counted there. */
	r = pmu_open(&s, "context-switches");
	if ((r == -EACCES || r == -EPERM) && geteuid() != 0) {
		/* an ordinary user at paranoid 2: refused with the reason and the way out */
		CHECK_MSG(strstr(pmu_errmsg(), "perf_event_paranoid is") && strstr(pmu_errmsg(), "context-switches:u"),
			  "%s", pmu_errmsg());
		printf("context-switches not counted: %s\n", pmu_errmsg());
	} else {
		CHECK_MSG(r == 0, "%s", pmu_errmsg());
		CHECK(pmu_read(s, v) == 0);
		/* Under emulation a sleep's timer may expire before the task blocks (5.10 under QEMU). */
		for (int i = 0; i < 5; i++)
			usleep(10000);
		CHECK(pmu_read(s, w) == 0);
		CHECK_MSG(w[0] - v[0] >= 1, "5 sleeps, %" PRIu64 " context switches", w[0] - v[0]);
		pmu_close(s);
	}

	/* A disabled set counts nothing until enabled, and an event alone was never running: no time at all. */
	struct pmu_opts o = { .size = sizeof(o), .cpu = -1, .flags = PMU_DISABLED };

	CHECK(pmu_open_opts(&s, "page-faults", &o) == 0);
	t_touch_pages(64);
	CHECK(pmu_read(s, v) == 0);
	CHECK_EQ(v[0], 0);
	CHECK(pmu_read_full(s, rd) == 0);
	CHECK_MSG(rd[0].enabled == 0 && rd[0].running == 0, "disabled since open: enabled %" PRIu64 ", running %"
		  PRIu64 " ns", rd[0].enabled, rd[0].running);
	CHECK(pmu_enable(s) == 0);
	t_touch_pages(64);
	CHECK(pmu_read_full(s, rd) == 0);
	CHECK_MSG(rd[0].value >= 64 && rd[0].running > 0, "enabled: %" PRIu64 " faults in %" PRIu64 " ns", rd[0].value,
		  rd[0].running);
	pmu_close(s);
	T_DONE();
}
