/* SPDX-License-Identifier: MIT */
/*
 * libpmu: the inline read of one counter, included by pmu.h. What is named
 * pmu_inl_* here is not API: it may change with any release.
 *
 * The read is the sequence-locked read of the event's perf_event_mmap_page
 * that linux/perf_event.h documents, with every check it needs: the
 * user-read capability, index 0 (not on a counter now, or user reads off),
 * pmc_width's sign extension, an odd or changed lock, and a multiplexed
 * event (whose value needs scaling). Whatever it cannot answer it leaves to
 * pmu_counter_read_slow(), which gives the library's full answer.
 */
#ifndef PMU_INLINE_H
#define PMU_INLINE_H

#include <stdint.h>
#include <linux/perf_event.h>

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

/* What pmu_inl_page_read() checks besides index 0 and the lock; the library knows some at open. */
#define PMU_INL_CAP 1	/* cap_user_rdpmc */
#define PMU_INL_TIMES 2	/* a multiplexed event (time_enabled != time_running) */

/*
 * The count of the event behind pc, read with rdpmc(index): 0 with *value
 * set, or 1 when the page cannot answer (no user reads, index 0,
 * multiplexed). rdpmc is a parameter so that tests can run this same code
 * over a simulated page.
 */
static inline __attribute__((always_inline)) int
pmu_inl_page_read(const struct perf_event_mmap_page *pc, uint64_t (*rdpmc)(uint32_t), unsigned checks,
		  uint64_t *value)
{
	uint64_t pmc, count;
	uint32_t seq, idx, shift;

	for (;;) {
		seq = PMU_INL_LDV(pc, lock);
		PMU_INL_BARRIER();
		idx = PMU_INL_LDV(pc, index);
		if (__builtin_expect(!idx, 0))
			return 1;	/* and never a stale offset */
		if ((checks & PMU_INL_CAP) && __builtin_expect(!(PMU_INL_LD(pc, capabilities) & PMU_INL_CAP_RDPMC), 0))
			return 1;
		/* The kernel publishes pmc_width with the index: 1..64 (64 - 64 is a shift of 0). */
		shift = (64 - (uint32_t)PMU_INL_LD(pc, pmc_width)) & 63;
		pmc = rdpmc(idx);
		/* Sign-extend from pmc_width bits: the kernel starts counters at -period. */
		count = PMU_INL_LD(pc, offset) + (uint64_t)((int64_t)(pmc << shift) >> shift);
		if ((checks & PMU_INL_TIMES) &&
		    __builtin_expect(PMU_INL_LD(pc, time_enabled) != PMU_INL_LD(pc, time_running), 0))
			return 1;	/* multiplexed: scaled by the library */
		PMU_INL_BARRIER();
		if (__builtin_expect(PMU_INL_LDV(pc, lock) == seq && !(seq & 1), 1))
			break;
	}
	*value = count;
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
