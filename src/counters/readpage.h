/* SPDX-License-Identifier: MIT */
/*
 * pmu_read()'s read of one event from its perf_event_mmap_page: the count,
 * and the times that scaling needs, through the one page reader
 * (pmu/inline.h's pmu_inl_read()). The counter and clock readers are
 * parameters so that the same code runs on hardware (src/counters/arch/) and over a
 * simulated page in the tests; always_inline makes them direct instructions.
 */
#ifndef PMU_READPAGE_H
#define PMU_READPAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "pmu.h"

/* The page's capability bits, by the library's short names. */
#define PMU_CAP_RDPMC PMU_INL_CAP_RDPMC
#define PMU_CAP_TIME PMU_INL_CAP_TIME
#define PMU_CAP_TIME_SHORT PMU_INL_CAP_TIME_SHORT

/* Why a page could not be read from user space; 0 means it was. */
enum pmu__page_status {
	PMU_PAGE_OK = PMU_INL_OK,
	PMU_PAGE_NO_RDPMC = PMU_INL_NO_RDPMC,
	PMU_PAGE_NO_INDEX = PMU_INL_NO_INDEX,
	PMU_PAGE_BAD_WIDTH = PMU_INL_BAD_WIDTH,
	PMU_PAGE_NO_TIME = PMU_INL_NO_TIME,
};

struct pmu__page_value {
	uint64_t count;
	uint64_t enabled;	/* ns, valid when times were asked for or differ */
	uint64_t running;
};

/*
 * count * enabled / running: the estimate for a multiplexed event. 0 when it
 * never ran (no division by zero), saturated when it would not fit.
 */
static inline uint64_t pmu__scale(uint64_t count, uint64_t enabled, uint64_t running)
{
	unsigned __int128 v;

	if (enabled == running)
		return count;
	if (!running)
		return 0;
	v = (unsigned __int128)count * enabled / running;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* What pmu__read_page() brings up to now besides the count. */
enum pmu__read_mode {
	PMU_READ_COUNT,	/* times only when the event was multiplexed (to scale it) */
	PMU_READ_TIMES,	/* always enabled and running */
};

/* The count of the event behind pc, with every check, and its times as mode says; v untouched on failure. */
static inline __attribute__((always_inline)) enum pmu__page_status
pmu__read_page(const struct perf_event_mmap_page *pc, enum pmu__read_mode mode,
	       uint64_t (*rdpmc)(uint32_t idx), uint64_t (*rdclock)(void),
	       struct pmu__page_value *v)
{
	unsigned m = PMU_INL_COUNT | PMU_INL_CAP | (mode == PMU_READ_TIMES ? PMU_INL_NOW : PMU_INL_SCALE);
	struct pmu_inl_value r;
	enum pmu_inl_status st = pmu_inl_read(pc, rdpmc, rdclock, m, &r);

	if (st == PMU_INL_OK)
		*v = (struct pmu__page_value){ r.count, r.enabled, r.running };
	return (enum pmu__page_status)st;
}

/*
 * Every other look at a page, also through pmu_inl_read(), under the page's
 * lock. The one field read outside it, pmc_width, is the counter's, fixed
 * for the event's life.
 */

/* The page's lock, index and capabilities, as one snapshot: whether a counter is read from user space now. */
static inline struct pmu_inl_value pmu__page_state(const struct perf_event_mmap_page *pc)
{
	struct pmu_inl_value v;

	(void)pmu_inl_read(pc, 0, 0, 0, &v);
	return v;
}

/* Whether the event behind pc ran less than all the time it was enabled. */
static inline bool pmu__page_multiplexed(const struct perf_event_mmap_page *pc)
{
	struct pmu_inl_value v;

	return pmu_inl_read(pc, 0, 0, PMU_INL_TIMES, &v) == PMU_INL_MULTIPLEXED;
}

/*
 * The page's lock still at seq (pmu_inl_read()'s v.seq): extends that read's
 * consistency to what was read after it, outside the loop (topdown's
 * metrics register), as the loop's own last check does.
 */
static inline __attribute__((always_inline)) bool pmu__page_unchanged(const struct perf_event_mmap_page *pc,
								       uint32_t seq)
{
	PMU_INL_BARRIER();
	return PMU_INL_LDV(pc, lock) == seq;
}

/*
 * The page's clock conversion (capabilities, time_mult, time_shift,
 * time_mask) copied into clk under its lock, for pmu_inl_ns_between(clk,
 * ...) later, without the page: fixed while cap_user_time holds.
 */
static inline void pmu__page_clock(const struct perf_event_mmap_page *pc, struct perf_event_mmap_page *clk)
{
	uint32_t seq;

	do {
		seq = PMU_INL_LDV(pc, lock);
		PMU_INL_BARRIER();
		clk->capabilities = PMU_INL_LD(pc, capabilities);
		clk->time_mult = PMU_INL_LD(pc, time_mult);
		clk->time_shift = PMU_INL_LD(pc, time_shift);
		clk->time_mask = PMU_INL_LD(pc, time_mask);
	} while ((seq & 1) || !pmu__page_unchanged(pc, seq));
}

#endif
