/* SPDX-License-Identifier: MIT */
/*
 * libpmu: the inline read of one counter, included by pmu.h. What is named
 * pmu_inl_* here is not API: it may change with any release.
 *
 * The read is the sequence-locked read of the event's perf_event_mmap_page
 * that linux/perf_event.h documents, with every check it needs: the
 * user-read capability and its pmc_width, index 0 (not on a counter now, or
 * user reads off), pmc_width's sign extension, an odd or changed lock, and
 * a multiplexed event (whose value needs scaling). Whatever it cannot answer
 * it leaves to pmu_counter_read_slow(), which gives the library's full answer.
 *
 * It needs only the program's own <linux/perf_event.h>, whichever kernel's:
 * the fields of perf_event_mmap_page it reads (lock, index, offset,
 * time_enabled, time_running, pmc_width and the capabilities word with
 * cap_user_rdpmc) are all there since Linux 3.12, so any 4.x or later
 * header will do; pmu.h itself only declares struct perf_event_attr. The
 * library builds against its own copy of the header (src/uapi).
 */
#ifndef PMU_INLINE_H
#define PMU_INLINE_H

#include <stdint.h>
#include <linux/perf_event.h>

/*
 * The one place the architecture is picked, for this header and for the
 * library's own hooks (src/counters/arch.h includes src/counters/arch/PMU_INL_ARCH.h). Each
 * file defines PMU_INL_ARCH (its name as a token), PMU_INL_USER_READ and
 * pmu_inl_rdpmc(idx), the counter instruction for the page's 1-based index.
 */
#if defined(PMU_ARCH_GENERIC)	/* forced: the read(2)-only build */
#include "arch-generic.h"
#elif defined(__x86_64__)
#include "arch-x86_64.h"
#elif defined(__aarch64__)
#include "arch-aarch64.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "arch-riscv64.h"
#else
#include "arch-generic.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bit n of the page's capabilities bitfield (allocated from the low bit on little-endian ABIs). */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PMU_INL_CAP_BIT(n) (1ull << (63 - (n)))
#else
#define PMU_INL_CAP_BIT(n) (1ull << (n))
#endif
#define PMU_INL_CAP_RDPMC PMU_INL_CAP_BIT(2)
#define PMU_INL_CAP_TIME PMU_INL_CAP_BIT(3)
#define PMU_INL_CAP_TIME_SHORT PMU_INL_CAP_BIT(5)

/*
 * The kernel changes the page only between two instructions of this task on
 * its CPU, so compiler barriers suffice; lock and index, which steer
 * control, are loaded once. The library's ThreadSanitizer build, whose tests
 * write pages from another thread, uses atomics.
 */
#ifdef PMU_TSAN
#define PMU_INL_LD(p, f) __atomic_load_n(&(p)->f, __ATOMIC_SEQ_CST)
#define PMU_INL_LDV(p, f) PMU_INL_LD(p, f)
#define PMU_INL_BARRIER() do { } while (0)
#else
#define PMU_INL_LD(p, f) ((p)->f)
#define PMU_INL_LDV(p, f) (*(const volatile __typeof__((p)->f) *)&(p)->f)
#define PMU_INL_BARRIER() __asm__ __volatile__("" ::: "memory")
#endif

/*
 * pmc_width as the shift that sign-extends a counter from it: 64 - width.
 * linux/perf_event.h sets the width whenever cap_user_rdpmc is set; a page
 * without one (0), or with more than 64 bits, gives a shift of 64 or more
 * and is not read from user space (read(2) answers), like cap_user_rdpmc 0.
 */
static inline __attribute__((always_inline)) uint32_t pmu_inl_width_shift(uint16_t width)
{
	return 64 - (uint32_t)width;
}

/*
 * Sign-extends pmc from 64 - shift bits (shift below 64; the kernel starts
 * counters at -period). The & 63 keeps the shifts defined whatever the
 * page says and costs nothing where the instruction masks its count (x86,
 * arm64, riscv). GCC and clang define the conversion and the arithmetic
 * right shift of a negative value: no undefined behaviour.
 */
static inline __attribute__((always_inline)) uint64_t pmu_inl_sign_extend(uint64_t pmc, uint32_t shift)
{
#if defined(__aarch64__) && defined(PMU_INL_LIBRARY)
	/*
	 * In the library's own reads, where GCC keeps the & 63: arm64's shifts
	 * take their count mod 64, and shift - 64 is one negation of the width.
	 * One instruction an event read (8 of 342 a region pair of 4 events).
	 */
	uint64_t r;

	__asm__("lsl %0, %1, %2\n\tasr %0, %0, %2" : "=&r"(r) : "r"(pmc), "r"((uint64_t)(uint32_t)(shift - 64)));
	return r;
#else
	shift &= 63;
	return (uint64_t)((int64_t)(pmc << shift) >> shift);
#endif
}

/*
 * (a * mul) >> shift, the product in 128 bits as the kernel's
 * mul_u64_u32_shr() computes it; shifted by halves, for a variable 128-bit
 * shift is a libgcc call on arm64.
 */
static inline __attribute__((always_inline)) uint64_t pmu_inl_mul_shr(uint64_t a, uint32_t mul, unsigned shift)
{
	__extension__ unsigned __int128 p = (unsigned __int128)a * mul;
	uint64_t lo = (uint64_t)p, hi = (uint64_t)(p >> 64);

	shift &= 127;
	if (shift >= 64)
		return hi >> (shift - 64);
	return shift ? lo >> shift | hi << (64 - shift) : lo;
}

/*
 * The ns of d ticks of the clock behind the page's times, by its time_mult
 * and time_shift (loaded under its lock). Below 2^32 ticks (seconds) the
 * product fits in 64 bits: two instructions.
 */
static inline __attribute__((always_inline)) uint64_t
pmu_inl_ticks_ns(const struct perf_event_mmap_page *pc, uint64_t d)
{
	uint16_t shift = PMU_INL_LD(pc, time_shift) & 63;

	if (__builtin_expect(!(d >> 32), 1))
		return (d * PMU_INL_LD(pc, time_mult)) >> shift;
	return pmu_inl_mul_shr(d, PMU_INL_LD(pc, time_mult), shift);
}

/*
 * ns from clock value c0 to c1. time_mask (cap_user_time_short) matters only
 * when the clock wrapped, which leaves c1 - c0 at 2^64 - 2^width or more.
 */
static inline __attribute__((always_inline)) uint64_t
pmu_inl_ns_between(const struct perf_event_mmap_page *pc, uint64_t caps, uint64_t c0, uint64_t c1)
{
	uint64_t d = c1 - c0;

	if (__builtin_expect(d >> 32, 0) && (caps & PMU_INL_CAP_TIME_SHORT))
		d &= PMU_INL_LD(pc, time_mask);
	return pmu_inl_ticks_ns(pc, d);
}

/* The ns to add to time_enabled and time_running at clock value cyc, as linux/perf_event.h computes it. */
static inline __attribute__((always_inline)) uint64_t
pmu_inl_time_delta(const struct perf_event_mmap_page *pc, uint64_t caps, uint64_t cyc)
{
	if (caps & PMU_INL_CAP_TIME_SHORT) {
		uint64_t base = PMU_INL_LD(pc, time_cycles);

		cyc = base + ((cyc - base) & PMU_INL_LD(pc, time_mask));
	}
	return PMU_INL_LD(pc, time_offset) + pmu_inl_ticks_ns(pc, cyc);
}

/*
 * pmu_inl_read()'s mode, a constant, so that it keeps only what is asked.
 * Without PMU_INL_COUNT it reads the page's lock, index and capabilities
 * (and the clock, with PMU_INL_SINCE) as one consistent snapshot.
 */
#define PMU_INL_CAP 1	/* check cap_user_rdpmc and its pmc_width (the library knows them at open) */
#define PMU_INL_TIMES 2	/* a multiplexed event (time_enabled != time_running) fails: its value needs scaling */
#define PMU_INL_COUNT 4	/* read the counter: count, raw */
#define PMU_INL_SCALE 8	/* enabled and running up to now when multiplexed (cap_user_time) */
#define PMU_INL_NOW 16	/* enabled and running up to now always (cap_user_time) */
#define PMU_INL_SINCE 32	/* ns: from clock value ns to now, the clock read after the counter (cap_user_time) */

/* Why pmu_inl_read() failed; 0 is success. */
enum pmu_inl_status {
	PMU_INL_OK = 0,
	PMU_INL_NO_RDPMC,	/* cap_user_rdpmc is 0 */
	PMU_INL_NO_INDEX,	/* index is 0: not on a counter now, or user access off */
	PMU_INL_BAD_WIDTH,	/* pmc_width is 0 or above 64 */
	PMU_INL_NO_TIME,	/* times or the clock are needed but cap_user_time is 0 */
	PMU_INL_MULTIPLEXED,	/* with PMU_INL_TIMES */
};

struct pmu_inl_value {
	uint64_t count;		/* offset + the counter sign-extended from pmc_width */
	uint64_t raw;		/* the counter within pmc_width */
	uint64_t enabled;	/* ns: with PMU_INL_NOW, or PMU_INL_SCALE when they differ */
	uint64_t running;
	uint64_t ns;		/* PMU_INL_SINCE: a clock value in, ns since it out */
	uint64_t caps;		/* the page's lock, index and capabilities the values are of */
	uint32_t seq;
	uint32_t idx;
};

/*
 * The one read of a perf_event_mmap_page, in its sequence lock as
 * linux/perf_event.h documents it: everything else reads a page through
 * this. rdpmc(idx) reads the counter the page calls idx (1-based), rdclock()
 * the clock behind the time_* fields: parameters, so that tests run this same
 * code over a simulated page. 0 (PMU_INL_OK) with *v set, or why not.
 */
static inline __attribute__((always_inline)) enum pmu_inl_status
pmu_inl_read(const struct perf_event_mmap_page *pc, uint64_t (*rdpmc)(uint32_t), uint64_t (*rdclock)(void),
	     unsigned mode, struct pmu_inl_value *v)
{
	uint64_t caps, pmc = 0, count = 0, enabled = 0, running = 0, ns = 0;
	uint32_t seq, idx, shift = 0;

	for (;;) {
		seq = PMU_INL_LDV(pc, lock);
		PMU_INL_BARRIER();
		caps = PMU_INL_LD(pc, capabilities);
		idx = PMU_INL_LDV(pc, index);
		if (mode & PMU_INL_COUNT) {
			if ((mode & PMU_INL_CAP) && __builtin_expect(!(caps & PMU_INL_CAP_RDPMC), 0))
				return PMU_INL_NO_RDPMC;
			if (__builtin_expect(!idx, 0))
				return PMU_INL_NO_INDEX;	/* and never a stale offset */
			shift = pmu_inl_width_shift(PMU_INL_LD(pc, pmc_width));
			if ((mode & PMU_INL_CAP) && __builtin_expect(shift >= 64, 0))
				return PMU_INL_BAD_WIDTH;
		}
		if ((mode & (PMU_INL_NOW | PMU_INL_SINCE)) && __builtin_expect(!(caps & PMU_INL_CAP_TIME), 0))
			return PMU_INL_NO_TIME;
		if (mode & PMU_INL_COUNT) {
			pmc = rdpmc(idx);
			count = PMU_INL_LD(pc, offset) + pmu_inl_sign_extend(pmc, shift);
		}
		if (mode & PMU_INL_SINCE)
			ns = pmu_inl_ns_between(pc, caps, v->ns, rdclock());
		if (mode & (PMU_INL_TIMES | PMU_INL_SCALE | PMU_INL_NOW)) {
			enabled = PMU_INL_LD(pc, time_enabled);
			running = PMU_INL_LD(pc, time_running);
			if ((mode & PMU_INL_TIMES) && __builtin_expect(enabled != running, 0))
				return PMU_INL_MULTIPLEXED;
		}
		if ((mode & PMU_INL_NOW) || ((mode & PMU_INL_SCALE) && __builtin_expect(enabled != running, 0))) {
			uint64_t delta;

			if (!(caps & PMU_INL_CAP_TIME))
				return PMU_INL_NO_TIME;
			delta = pmu_inl_time_delta(pc, caps, rdclock());
			enabled += delta;
			running += delta;	/* idx != 0: the event is running now */
		}
		PMU_INL_BARRIER();
		/* A writer on another CPU (a simulation) leaves the lock odd meanwhile. */
		if (__builtin_expect(PMU_INL_LDV(pc, lock) == seq && !(seq & 1), 1))
			break;
	}
	v->count = count;
	v->raw = pmc & (~0ull >> (shift & 63));
	v->enabled = enabled;
	v->running = running;
	v->ns = ns;
	v->caps = caps;
	v->seq = seq;
	v->idx = idx;
	return PMU_INL_OK;
}

/* The count of the event behind pc: 0 with *value set, or 1 when the page cannot answer (checks: _CAP, _TIMES). */
static inline __attribute__((always_inline)) int
pmu_inl_page_read(const struct perf_event_mmap_page *pc, uint64_t (*rdpmc)(uint32_t), unsigned checks,
		  uint64_t *value)
{
	struct pmu_inl_value v;

	if (__builtin_expect(pmu_inl_read(pc, rdpmc, 0, PMU_INL_COUNT | checks, &v) != PMU_INL_OK, 0))
		return 1;
	*value = v.count;
	return 0;
}

int pmu_counter_read_slow(const struct pmu_counter *c, uint64_t *value);

static inline int pmu_counter_read(const struct pmu_counter *c, uint64_t *value)
{
#if PMU_INL_USER_READ
	const struct perf_event_mmap_page *pc;

	if (__builtin_expect(c && value && (pc = c->page) &&
			     !pmu_inl_page_read(pc, pmu_inl_rdpmc, PMU_INL_CAP | PMU_INL_TIMES, value), 1))
		return 0;
#endif
	return pmu_counter_read_slow(c, value);
}

#ifdef __cplusplus
}
#endif
#endif
