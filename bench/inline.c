/* SPDX-License-Identifier: MIT */
/*
 * Cost of the inline read in a caller's loop: a noinline function looping
 * pmu_counter_read(c, &v) with an empty asm that keeps v, less the same
 * loop without the read; against a hand-written read of the same page with
 * the checks the inline read makes on the page (cap_user_rdpmc and its
 * pmc_width, index 0, a multiplexed event, an odd or changed lock), given
 * the page, in the same loop.
 *
 *   bench/inline [EVENT]   (default cycles)
 *
 * Each figure is the fewest instructions (user and kernel, from a counter of
 * this thread's; ns where none opens) per read over 5 batches of 20,000.
 * Under QEMU with -icount shift=0 the counts are exact guest instructions.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "pmu.h"

#define BATCHES 5
#define N 20000

/* The loop alone. */
static __attribute__((noinline)) void loop_empty(const struct pmu_counter *c, long n)
{
	uint64_t v = 0;

	for (long i = 0; i < n; i++)
		__asm__ volatile("" : : "r"(v), "r"(c));
}

static __attribute__((noinline)) void loop_read(const struct pmu_counter *c, long n)
{
	uint64_t v = 0;

	for (long i = 0; i < n; i++) {
		pmu_counter_read(c, &v);
		__asm__ volatile("" : : "r"(v));
	}
}

/* As a caller's code gets it: the memory clobber leaves nothing of the handle in registers across reads. */
static __attribute__((noinline)) void loop_caller(const struct pmu_counter *c, long n)
{
	uint64_t v = 0;

	for (long i = 0; i < n; i++) {
		pmu_counter_read(c, &v);
		__asm__ volatile("" : : "r"(c), "r"(v) : "memory");
	}
}

/* The reference: the inline read's checks on the page, the page given; ~0 where the library would answer. */
static __attribute__((noinline)) void loop_ref(const struct perf_event_mmap_page *pc, long n)
{
	for (long i = 0; i < n; i++) {
		uint64_t v, pmc;
		uint32_t seq, idx, shift;

		do {
			seq = *(volatile uint32_t *)&pc->lock;
			__asm__ volatile("" ::: "memory");
			idx = *(volatile uint32_t *)&pc->index;
			shift = 64 - (uint32_t)pc->pmc_width;
			if (!idx || !(pc->capabilities & (1ull << 2)) || shift >= 64 ||
			    pc->time_enabled != pc->time_running) {
				v = ~0ull;
				goto out;
			}
			pmc = pmu_inl_rdpmc(idx);
			v = pc->offset + (uint64_t)((int64_t)(pmc << shift) >> shift);
			__asm__ volatile("" ::: "memory");
		} while (*(volatile uint32_t *)&pc->lock != seq || (seq & 1));
out:
		__asm__ volatile("" : : "r"(v));
	}
}

static int ins_fd = -1;

static uint64_t measure_now(void)
{
	struct timespec ts;
	uint64_t v;

	if (ins_fd >= 0 && read(ins_fd, &v, sizeof(v)) == sizeof(v))
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define FEWEST(expr) ({ \
	double b_ = 1e300; \
	for (int k_ = 0; k_ < BATCHES; k_++) { \
		uint64_t t_ = measure_now(); \
		expr; \
		double r_ = (double)(measure_now() - t_) / N; \
		if (r_ < b_) \
			b_ = r_; \
	} \
	b_; \
})

int main(int argc, char **argv)
{
	const char *ev = argc > 1 ? argv[1] : "cycles";
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_hv = 1 };
	const struct pmu_counter *c;
	struct pmu_set *s;
	const char *why = "";

	if (pmu_open(&s, ev) < 0) {
		printf("SKIP: %s\n", pmu_errmsg());
		return 0;
	}
	c = pmu_counter(s, 0);
	ins_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	printf("inline read in a caller's loop (%s, %s): the fewest %s per read over %d batches of %d\n", ev,
	       pmu_user_read(s, 0, &why) == 1 && c && c->page ? "user-space read" : why,
	       ins_fd >= 0 ? "instructions (user + kernel)" : "ns", BATCHES, N);
	loop_read(c, N / 10);
	double empty = FEWEST(loop_empty(c, N));
	double rd = FEWEST(loop_read(c, N)) - empty;

	printf("  %-52s %7.1f\n", "pmu_counter_read(c, &v), less the loop", rd);
	loop_caller(c, N / 10);
	printf("  %-52s %7.1f\n", "the same, memory clobbered (a caller's loop)",
	       FEWEST(loop_caller(c, N)) - empty);
	if (c && c->page) {
		loop_ref(c->page, N / 10);
		printf("  %-52s %7.1f\n", "hand-written, the same checks, page given, less the loop",
		       FEWEST(loop_ref(c->page, N)) - empty);
	}
	printf("  %-52s %7.1f\n", "the loop", empty);
	pmu_close(s);
	return 0;
}
