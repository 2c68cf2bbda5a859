/* SPDX-License-Identifier: MIT */
/*
 * The user-space read of one event from its perf_event_mmap_page, as
 * documented in linux/perf_event.h. The counter and clock readers are
 * parameters so that the same code runs on hardware (src/arch/) and over a
 * simulated page in the tests; always_inline makes them direct instructions.
 */
#ifndef PMU_READPAGE_H
#define PMU_READPAGE_H

#include <stdint.h>
#include <linux/perf_event.h>

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

/* Sign-extends the low width bits of v (1 <= width <= 64) without shifts of signed values. */
static inline uint64_t pmu__sign_extend(uint64_t v, unsigned width)
{
	uint64_t sign = 1ull << (width - 1);

	v &= sign | (sign - 1);
	return (v ^ sign) - sign;
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

/* Capability bits of the page, derived from the kernel's own bitfield layout. */
static inline uint64_t pmu__cap_mask(int bit)
{
	struct perf_event_mmap_page p = { .capabilities = 0 };

	switch (bit) {
	case 0: p.cap_user_rdpmc = 1; break;
	case 1: p.cap_user_time = 1; break;
	default: p.cap_user_time_short = 1; break;
	}
	return p.capabilities;
}
#define PMU_CAP_RDPMC pmu__cap_mask(0)
#define PMU_CAP_TIME pmu__cap_mask(1)
#define PMU_CAP_TIME_SHORT pmu__cap_mask(2)

/*
 * Fields are loaded atomically (relaxed) so that a concurrent writer is not a
 * data race; an acquire fence orders them before the lock is read again.
 * TSan does not model fences: there every load is sequentially consistent.
 */
#ifdef PMU_TSAN
#define PMU_LD(pc, f) __atomic_load_n(&(pc)->f, __ATOMIC_SEQ_CST)
#define PMU_READ_FENCE() do { } while (0)
#else
#define PMU_LD(pc, f) __atomic_load_n(&(pc)->f, __ATOMIC_RELAXED)
#define PMU_READ_FENCE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

/*
 * Reads the count of the event behind pc. With want_times, or when the page
 * shows the event was multiplexed (time_enabled != time_running), also
 * brings enabled and running up to now. rdpmc(idx) reads the counter the
 * page calls idx (1-based); rdclock() reads the clock behind time_*.
 */
static inline __attribute__((always_inline)) enum pmu__page_status
pmu__read_page(const struct perf_event_mmap_page *pc, int want_times,
	       uint64_t (*rdpmc)(uint32_t idx), uint64_t (*rdclock)(void),
	       struct pmu__page_value *v)
{
	uint32_t seq, idx, width;
	uint64_t caps, count, enabled, running;

	do {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		caps = PMU_LD(pc, capabilities);
		idx = PMU_LD(pc, index);
		if (__builtin_expect(!(caps & PMU_CAP_RDPMC), 0))
			return PMU_PAGE_NO_RDPMC;
		/* A stale offset alone would be a wrong count: fall back. */
		if (__builtin_expect(!idx, 0))
			return PMU_PAGE_NO_INDEX;
		width = PMU_LD(pc, pmc_width);
		if (__builtin_expect(width - 1 >= 64, 0))
			return PMU_PAGE_BAD_WIDTH;
		count = PMU_LD(pc, offset) + pmu__sign_extend(rdpmc(idx), width);
		enabled = PMU_LD(pc, time_enabled);
		running = PMU_LD(pc, time_running);
		if (want_times || __builtin_expect(enabled != running, 0)) {
			uint64_t cyc, delta;
			uint16_t shift;
			uint32_t mult;

			if (!(caps & PMU_CAP_TIME))
				return PMU_PAGE_NO_TIME;
			cyc = rdclock();
			shift = PMU_LD(pc, time_shift);
			mult = PMU_LD(pc, time_mult);
			if (caps & PMU_CAP_TIME_SHORT) {
				uint64_t base = PMU_LD(pc, time_cycles);

				cyc = base + ((cyc - base) & PMU_LD(pc, time_mask));
			}
			delta = PMU_LD(pc, time_offset) + pmu__mul_u64_u32_shr(cyc, mult, shift);
			enabled += delta;
			running += delta;	/* idx != 0: the event is running now */
		}
		PMU_READ_FENCE();
	} while (__builtin_expect(PMU_LD(pc, lock) != seq, 0));

	v->count = count;
	v->enabled = enabled;
	v->running = running;
	return PMU_PAGE_OK;
}

#endif
