/* SPDX-License-Identifier: MIT */
/*
 * An event on several counters (a hybrid machine's generic events: one
 * counter per core PMU, the thread on one core type at a time) reads as
 * their sum, scaled once: running times add up, enabled times overlap (the
 * greatest). Counters side by side (an uncore family's boxes, a socket's
 * CPUs) add both times, as perf sums them. pmu__sum_events() over readings
 * made here, since no machine of this project has two core PMUs.
 */
#include <string.h>

#include "counters/set_ops.h"
#include "test.h"

int main(void)
{
	struct pmu__perf_counter ctr[3] = { { .event = 0 }, { .event = 0 }, { .event = 1 } };
	/* event 0 on two counters: 40 ns on the P cores and 60 on the E cores of 100 enabled */
	struct pmu_reading rd[3 + 2] = {
		{ .value = 1000, .enabled = 100, .running = 40 },
		{ .value = 500, .enabled = 90, .running = 60 },
		{ .value = 70, .enabled = 100, .running = 50 },
	};
	struct pmu__attr attr[3] = { { .alt = true }, { .alt = true }, { .alt = false } };
	struct pmu__cold c = { .nev = 2, .nctr = 3, .ctr = ctr, .attr = attr };
	struct pmu_reading out[2];
	uint64_t v[2];

	pmu__sum_events(&c, rd, v, out);
	CHECK_EQ(out[0].value, 1500u);
	CHECK_EQ(out[0].enabled, 100u);		/* the greatest, not the sum */
	CHECK_EQ(out[0].running, 100u);		/* the sum */
	CHECK_EQ(v[0], 1500u);			/* ran all the time: not scaled */
	CHECK_EQ(out[1].value, 70u);
	CHECK_EQ(v[1], 140u);			/* half the time: scaled once */
	/* without out: the per-event readings go after the counters' */
	memset(v, 0, sizeof(v));
	pmu__sum_events(&c, rd, v, NULL);
	CHECK(rd[3].value == 1500 && rd[3].running == 100 && v[0] == 1500 && v[1] == 140);
	/* side by side: two boxes, each counted half its 100 ns: both times add, scaled as one (x2) */
	attr[0].alt = attr[1].alt = false;
	rd[0] = (struct pmu_reading){ .value = 1000, .enabled = 100, .running = 50 };
	rd[1] = (struct pmu_reading){ .value = 500, .enabled = 100, .running = 50 };
	pmu__sum_events(&c, rd, v, out);
	CHECK(out[0].value == 1500 && out[0].enabled == 200 && out[0].running == 100 && v[0] == 3000);
	T_DONE();
}
