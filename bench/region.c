/* SPDX-License-Identifier: MIT */
/*
 * Cost of a pmu_region_begin()/pmu_region_end() pair, against what a pair
 * cannot avoid: two reads of the same counters (pmu_read() of a set opened
 * the same way) and two clock_gettime(). The difference is the library's own
 * work per pair.
 *
 *   bench/region [EVENTS...]   ns per pair for each event list (default:
 *                              hardware lists when they open, else software)
 *   bench/region --only pairs|floor N EVENTS
 *                              N pairs (or N floors) only, for callgrind:
 *     valgrind --tool=callgrind --toggle-collect=bench_pairs \
 *         build/bench/region --only pairs 100000 task-clock
 *   instructions per pair = Ir / N (the kernel's share of read(2) is not in Ir).
 *
 * Under QEMU with -icount shift=0 the guest clock advances 1 ns per guest
 * instruction: there the ns figures are instructions, kernel included.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmu.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void bench_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		pmu_region_begin("bench");
		pmu_region_end("bench");
	}
}

/* The floor: what begin and end must do anyway. */
__attribute__((noinline)) void bench_floor(struct pmu_set *s, long n)
{
	uint64_t v[2][64];

	for (long i = 0; i < n; i++) {
		now_ns();
		pmu_read(s, v[0]);
		pmu_read(s, v[1]);
		now_ns();
	}
	__asm__ volatile("" : : "r"(v) : "memory");
}

__attribute__((noinline)) void bench_reads(struct pmu_set *s, long n)
{
	uint64_t v[64];

	for (long i = 0; i < n; i++)
		pmu_read(s, v);
	__asm__ volatile("" : : "r"(v) : "memory");
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median over 7 runs of n iterations, ns per iteration. */
#define MEDIAN(expr, n) ({ \
	double r_[7]; \
	for (int k_ = 0; k_ < 7; k_++) { \
		uint64_t t_ = now_ns(); \
		expr; \
		r_[k_] = (double)(now_ns() - t_) / (double)(n); \
	} \
	qsort(r_, 7, sizeof(r_[0]), cmp); \
	r_[3]; \
})

static int measure(const char *events, long n)
{
	struct pmu_set *s;
	const char *why = "";
	int user;

	if (pmu_thread_init(events) < 0 || pmu_open(&s, events) < 0) {
		fprintf(stderr, "%s: %s\n", events, pmu_errmsg());
		pmu_thread_fini();
		return -1;
	}
	if (pmu_count(s) > 64) {
		fprintf(stderr, "%s: more than 64 events\n", events);
		return -1;
	}
	user = pmu_user_read(s, 0, &why);
	bench_pairs(n / 10);	/* warm up: opens this thread's counters, interns the name */
	double pair = MEDIAN(bench_pairs(n), n);
	double floor_ = MEDIAN(bench_floor(s, n), n);
	double read1 = MEDIAN(bench_reads(s, n), n);
	printf("%-56s %8.1f %8.1f %8.1f %8.1f   %s\n", events, pair, floor_, pair - floor_, read1,
	       user == 1 ? "user-space read" : why);
	pmu_close(s);
	pmu_thread_fini();
	return 0;
}

int main(int argc, char **argv)
{
	const char *q = getenv("PMU_TEST_QUICK");
	long n = q && *q && *q != '0' ? 2000 : 100000;
	static const char *const hw[] = { "cycles", "cycles,instructions", NULL };
	static const char *const sw[] = { "task-clock", "task-clock,page-faults,context-switches,cpu-migrations",
					  NULL };
	const char *const *lists = hw;

	if (argc == 5 && !strcmp(argv[1], "--only")) {
		struct pmu_set *s;

		n = atol(argv[3]);
		if (pmu_thread_init(argv[4]) < 0 || pmu_open(&s, argv[4]) < 0) {
			fprintf(stderr, "%s\n", pmu_errmsg());
			return 1;
		}
		bench_pairs(1);
		if (!strcmp(argv[2], "pairs"))
			bench_pairs(n);
		else
			bench_floor(s, n);
		pmu_close(s);
		return 0;
	}
	printf("region begin/end pair, ns (median of 7 runs of %ld)\n", n);
	printf("%-56s %8s %8s %8s %8s   %s\n", "events", "pair", "floor", "library", "1 read", "read path");
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			measure(argv[i], n);
		return 0;
	}
	if (measure(hw[0], n) < 0)
		lists = sw;
	for (int i = lists == hw ? 1 : 0; lists[i]; i++)
		measure(lists[i], n);
	if (lists == hw)	/* software events too, for comparison with the host */
		for (int i = 0; sw[i]; i++)
			measure(sw[i], n);
	return 0;
}
