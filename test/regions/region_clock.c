/* SPDX-License-Identifier: MIT */
/*
 * Region times agree with CLOCK_MONOTONIC durations, whichever clock the
 * region takes (the set's counter where the events are read from user
 * space, CLOCK_MONOTONIC otherwise): each region's ns lie between the
 * CLOCK_MONOTONIC span read inside its begin and end and the one read
 * around them, within the drift NTP may put between the two clocks (500
 * ppm) and a conversion's rounding.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "pmu.h"
#include "test.h"

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin(uint64_t ns)
{
	uint64_t t0 = mono();

	while (mono() - t0 < ns)
		;
}

/* The region's ns over its calls, in total. */
static uint64_t region_ns(const char *name, uint64_t *calls)
{
	struct pmu_results *r = pmu_results_take();
	const char *const *names;
	struct pmu_region_result o = { .size = sizeof(o) };
	unsigned n;
	uint64_t ns = 0;

	CHECK_MSG(r != NULL, "%s", pmu_errmsg());
	if (!r)
		return 0;
	n = pmu_results_regions(r, &names);
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name) && pmu_results_get(r, i, -1, &o) == 0)
			ns = o.ns, *calls = o.calls;
	pmu_results_free(r);
	return ns;
}

/* inner <= ns <= outer, with the drift and a few ns of rounding per call. */
static void within(const char *what, uint64_t ns, uint64_t inner, uint64_t outer, uint64_t calls)
{
	uint64_t slack_lo = inner / 2000 + 16 * calls, slack_hi = outer / 2000 + 16 * calls;

	CHECK_MSG(ns + slack_lo >= inner && ns <= outer + slack_hi,
		  "%s: %" PRIu64 " ns, CLOCK_MONOTONIC %" PRIu64 " inside, %" PRIu64 " around (%" PRIu64 " calls)",
		  what, ns, inner, outer, calls);
}

static void one(const char *events)
{
	uint64_t t0, t1, t2, t3, ns, calls = 0, inner = 0, outer;
	int h;

	if (pmu_thread_init(events) < 0) {
		printf("%s: %s: not tried\n", events, pmu_errmsg());
		return;
	}
	h = pmu_region_register("span");
	CHECK(h >= 0);
	/* Warm: the counters open on first use. */
	CHECK(pmu_region_enter(h) == 0 && pmu_region_exit(h) == 0);
	pmu_thread_fini();
	CHECK(pmu_thread_init(events) == 0);
	h = pmu_region_register("span");

	/* A long span, by name and by handle, then many short ones. */
	t0 = mono();
	CHECK(pmu_region_begin("span") == 0);
	t1 = mono();
	spin(20 * 1000 * 1000);
	t2 = mono();
	CHECK(pmu_region_exit(h) == 0);
	t3 = mono();
	ns = region_ns("span", &calls);
	CHECK_EQ(calls, 1);
	within(events, ns, t2 - t1, t3 - t0, 1);

	outer = mono();
	for (int i = 0; i < 1000; i++) {
		uint64_t a, b;

		CHECK(pmu_region_enter(h) == 0);
		a = mono();
		spin(2000);
		b = mono();
		CHECK(pmu_region_end("span") == 0);
		inner += b - a;
	}
	outer = mono() - outer;
	ns = region_ns("span", &calls) - ns;
	CHECK_EQ(calls, 1001);
	within(events, ns, inner, outer, 1000);
	printf("%s: 1 span of %" PRIu64 " ns and 1000 of %" PRIu64 " ns in all (CLOCK_MONOTONIC %" PRIu64
	       " inside, %" PRIu64 " around)\n", events, region_ns("span", &calls) - ns, ns, inner, outer);
	pmu_thread_fini();
}

int main(void)
{
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	one("task-clock");	/* read(2): CLOCK_MONOTONIC */
	one("cycles");		/* read from user space where the kernel allows it: the set's clock */
	one("cycles,instructions");
	T_DONE();
}
