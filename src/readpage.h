/* SPDX-License-Identifier: MIT */
/*
 * The user-space read of one event from its perf_event_mmap_page, as
 * documented in linux/perf_event.h, with the times that scaling needs (the
 * plain count is pmu.h's pmu_inl_page_read()). The counter and clock readers are
 * parameters so that the same code runs on hardware (src/arch/) and over a
 * simulated page in the tests; always_inline makes them direct instructions.
 */
#ifndef PMU_READPAGE_H
#define PMU_READPAGE_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "pmu.h"

/* Why a page could not be read from user space; 0 means it was. */
enum pmu__page_status {
	PMU_PAGE_OK = 0,
	PMU_PAGE_NO_RDPMC,	/* cap_user_rdpmc is 0 */
	PMU_PAGE_NO_INDEX,	/* index is 0: not on a counter now, or user access off */
	PMU_PAGE_BAD_WIDTH,	/* pmc_width is 0 or above 64 */
	PMU_PAGE_NO_TIME,	/* times are needed but cap_user_time is 0 */
};

struct pmu__page_value {
	uint64_t count;
	uint64_t enabled;	/* ns, valid when times were asked for or differ */
	uint64_t running;
};

/* (a * mul) >> shift, computed in 128 bits as the kernel's mul_u64_u32_shr(). */
static inline uint64_t pmu__mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned shift)
{
	return (uint64_t)(((unsigned __int128)a * mul) >> (shift & 127));
}

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

/*
 * The page's capability bits, its loads and barriers, and the pmc_width
 * rule and sign extension are the inline read's (pmu/inline.h): one
 * definition for both reads.
 */
#define PMU_CAP_RDPMC PMU_INL_CAP_RDPMC
#define PMU_CAP_TIME PMU_INL_CAP_BIT(3)
#define PMU_CAP_TIME_SHORT PMU_INL_CAP_BIT(5)
#define PMU_LD PMU_INL_LD
#define PMU_LDV PMU_INL_LDV
#define PMU_BARRIER PMU_INL_BARRIER

/*
 * The ns to add to the page's time_enabled and time_running (of an event on
 * its counter now) at clock value cyc, as linux/perf_event.h computes them;
 * caps loaded under the page's lock, with cap_user_time.
 */
static inline __attribute__((always_inline)) uint64_t
pmu__page_time_delta(const struct perf_event_mmap_page *pc, uint64_t caps, uint64_t cyc)
{
	uint16_t tshift = PMU_LD(pc, time_shift);
	uint32_t mult = PMU_LD(pc, time_mult);

	if (caps & PMU_CAP_TIME_SHORT) {
		uint64_t base = PMU_LD(pc, time_cycles);

		cyc = base + ((cyc - base) & PMU_LD(pc, time_mask));
	}
	return PMU_LD(pc, time_offset) + pmu__mul_u64_u32_shr(cyc, mult, tshift);
}

/* What pmu__read_page() brings up to now besides the count. */
enum pmu__read_mode {
	PMU_READ_COUNT,	/* times only when the event was multiplexed (to scale it) */
	PMU_READ_TIMES,	/* always enabled and running */
};

/*
 * Reads the count of the event behind pc, and its times as mode says. The
 * event was multiplexed when time_enabled != time_running. rdpmc(idx) reads
 * the counter the page calls idx (1-based); rdclock() reads the clock behind
 * the time_* fields.
 */
static inline __attribute__((always_inline)) enum pmu__page_status
pmu__read_page(const struct perf_event_mmap_page *pc, enum pmu__read_mode mode,
	       uint64_t (*rdpmc)(uint32_t idx), uint64_t (*rdclock)(void),
	       struct pmu__page_value *v)
{
	uint32_t seq, idx, shift;
	uint64_t caps, count, pmc, enabled, running;

	for (;;) {
		seq = PMU_LDV(pc, lock);
		PMU_BARRIER();
		caps = PMU_LD(pc, capabilities);
		idx = PMU_LDV(pc, index);
		if (__builtin_expect(!(caps & PMU_CAP_RDPMC), 0))
			return PMU_PAGE_NO_RDPMC;
		/* A stale offset alone would be a wrong count: fall back. */
		if (__builtin_expect(!idx, 0))
			return PMU_PAGE_NO_INDEX;
		shift = pmu_inl_width_shift(PMU_LDV(pc, pmc_width));
		if (__builtin_expect(shift >= 64, 0))	/* pmc_width 0 or above 64 */
			return PMU_PAGE_BAD_WIDTH;
		pmc = rdpmc(idx);
		count = PMU_LD(pc, offset) + pmu_inl_sign_extend(pmc, shift);
		enabled = PMU_LD(pc, time_enabled);
		running = PMU_LD(pc, time_running);
		if (mode == PMU_READ_TIMES || __builtin_expect(enabled != running, 0)) {
			uint64_t delta;

			if (!(caps & PMU_CAP_TIME))
				return PMU_PAGE_NO_TIME;
			delta = pmu__page_time_delta(pc, caps, rdclock());
			enabled += delta;
			running += delta;	/* idx != 0: the event is running now */
		}
		PMU_BARRIER();
		/*
		 * The kernel changes the page only while the reader is not running;
		 * a writer on another CPU (a simulation) leaves lock odd meanwhile.
		 */
		if (__builtin_expect(PMU_LDV(pc, lock) == seq && !(seq & 1), 1))
			break;
	}

	v->count = count;
	v->enabled = enabled;
	v->running = running;
	return PMU_PAGE_OK;
}

#endif
