/* SPDX-License-Identifier: MIT */
/*
 * A program as built against libpmu 0.4.0: compiled with 0.4.0's pmu.h (and
 * the system's linux/perf_event.h) and linked with 0.4.0's libpmu.so.0, then
 * run by test/abi.sh with that library and with the new one in its place.
 * It uses the API as 0.4 documented it, including what 0.5 tightened:
 * pmu_event_attr() with attr->size left 0, struct pmu_opts with rubbish in
 * its padding, the results structs, the inline read, the 0.1 names.
 * Exits 0 when every call behaves as 0.4 promised and nothing past the
 * program's structs was written.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include <pmu.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "old_caller: check failed: %s (%s)\n", #c, pmu_errmsg()); \
	failures++; } } while (0)

int main(void)
{
	struct { struct perf_event_attr a; unsigned char guard[64]; } at;
	struct { struct pmu_opts o; unsigned char guard[16]; } op;
	struct pmu_set *set;
	uint64_t v[2] = { 0 }, w = 0;
	const struct pmu_counter *c;
	struct pmu_results *r;
	struct pmu_region_result rr = { .size = sizeof(rr) };
	struct pmu_thread_result tr = { .size = sizeof(tr) };

	printf("built with libpmu %d.%d.%d headers, running with %s\n", PMU_VERSION_MAJOR, PMU_VERSION_MINOR,
	       PMU_VERSION_PATCH, pmu_version());

	/* 0.4 callers zeroed the struct and left size 0 (the header asked for nothing else). */
	memset(&at, 0, sizeof(at));
	memset(at.guard, 0x5a, sizeof(at.guard));
	CHECK(pmu_event_attr("task-clock", &at.a) == 0);
	CHECK(at.a.type == PERF_TYPE_SOFTWARE && at.a.config == PERF_COUNT_SW_TASK_CLOCK);
	CHECK(at.a.size >= PERF_ATTR_SIZE_VER0 && at.a.size <= sizeof(at.a));
	for (size_t i = 0; i < sizeof(at.guard); i++)
		CHECK(at.guard[i] == 0x5a);

	/* struct pmu_opts of 0.4, size set, its 4 bytes of padding left as the stack had them. */
	memset(&op, 0xa5, sizeof(op));
	op.o.size = sizeof(op.o);
	op.o.pid = 0;
	op.o.cpu = -1;
	op.o.flags = PMU_NO_GROUP;
	CHECK(pmu_open_opts(&set, "task-clock,page-faults", &op.o) == 0);
	if (set) {
		CHECK(pmu_count(set) == 2 && !strcmp(pmu_name(set, 1), "page-faults"));
		CHECK(pmu_read(set, v) == 0 && v[0] > 0);
		c = pmu_counter(set, 0);
		CHECK(c && c->set == set);
		CHECK(c && pmu_counter_read(c, &w) == 0 && w >= v[0]);
		pmu_close(set);
	}

	/* The per-thread layer under its 0.1 names, regions and their results. */
	CHECK(pmu_thread_init("task-clock") == 0);
	CHECK(pmu_thread_count() == 1 && !strcmp(pmu_thread_name(0), "task-clock"));
	CHECK(pmu_region_begin("work") == 0);
	for (volatile int i = 0; i < 100000; i++)
		;
	CHECK(pmu_region_end("work") == 0);
	r = pmu_results_take();
	CHECK(r != NULL);
	CHECK(pmu_results_regions(r, NULL) == 1 && pmu_results_threads(r) == 1);
	CHECK(pmu_results_get(r, 0, -1, &rr) == 0 && rr.calls == 1 && rr.nevents == 1 && !strcmp(rr.name, "work"));
	CHECK(pmu_results_thread(r, 0, &tr) == 0 && tr.tid > 0);
	pmu_results_free(r);
	CHECK(pmu_thread_fini() == 0);
	if (!failures)
		printf("old_caller: every 0.4.0 call behaved as 0.4.0 documented\n");
	return failures ? 1 : 0;
}
