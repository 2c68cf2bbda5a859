/* SPDX-License-Identifier: MIT */
/*
 * The one vocabulary of concurrency of the library and its plugins: every
 * access that another thread makes at the same time goes through these,
 * and no other file of src/, tools/ or compat/ names __atomic_*, stdatomic
 * or a barrier (the builds tier checks). The public header pmu/inline.h
 * keeps its own loads and barrier for the mmap page, which a caller's
 * program compiles without this one; the library reads pages through it
 * (counters/readpage.h).
 *
 *   PMU_READ_ONCE(x)          whole, once, in no order: a flag, a counter, a
 *   PMU_WRITE_ONCE(x, v)      pointer read where its writer is not awaited
 *   PMU_LOAD_ACQUIRE(x)       what is read after it is as new as what was
 *                             written before the PMU_STORE_RELEASE it read
 *   PMU_STORE_RELEASE(x, v)   publishes what was written before it
 *   PMU_ADD(x, v)             adds v, a full barrier (rare paths): the sum after it
 *   PMU_EXCHANGE(x, v)        stores v, giving what it replaced (acquire and release)
 *   PMU_ONCE(flag)            true for the first caller alone ("said once")
 *
 * Outside ThreadSanitizer the _ONCE accesses are volatile, the kernel's
 * READ_ONCE(): one instruction, addressed by offset, which the compiler
 * keeps beside its neighbours; under TSan (PMU_TSAN), relaxed atomics, which
 * it models.
 */
#ifndef PMU_ATOMIC_H
#define PMU_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#ifdef PMU_TSAN
#define PMU_READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define PMU_WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#else
#define PMU_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define PMU_WRITE_ONCE(x, v) ((void)(*(volatile __typeof__(x) *)&(x) = (v)))
#endif
#define PMU_LOAD_ACQUIRE(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define PMU_STORE_RELEASE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define PMU_ADD(x, v) __atomic_add_fetch(&(x), (v), __ATOMIC_SEQ_CST)
#define PMU_EXCHANGE(x, v) __atomic_exchange_n(&(x), (v), __ATOMIC_ACQ_REL)
#define PMU_ONCE(flag) (!PMU_EXCHANGE(flag, 1))

/*
 * A seqcount, the kernel's seqcount_t: a record one thread writes and
 * others copy whole, retrying when it changed meanwhile.
 *
 *   writer:  s = pmu_seq_write_begin(&seq);  PMU_SEQ_ST(field, v) ...;
 *            pmu_seq_write_end(&seq, s);
 *   reader:  do { s = pmu_seq_read_begin(&seq) (odd: the writer is in);
 *                 PMU_SEQ_LD(field) ...; } while (pmu_seq_read_retry(&seq, s));
 *
 * The writer's begin makes the count odd and fences, so that no field's
 * store is seen before it: one fence where arm64's release stores each want
 * their address in a register. Its end makes the count even with a release
 * store, after every field's. The reader's loads are acquire loads, each
 * before the next, so the retry's load of the count comes after them all.
 * Under TSan, which models no fence, the fields' stores are release stores.
 * Each record's protocol (who writes, who waits) is told beside its writer.
 */
#ifdef PMU_TSAN
#define PMU_SEQ_ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define PMU_SEQ_FENCE() do { } while (0)
#else
#define PMU_SEQ_ST(x, v) PMU_WRITE_ONCE(x, v)
#define PMU_SEQ_FENCE() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif
#define PMU_SEQ_LD(x) PMU_LOAD_ACQUIRE(x)

static inline __attribute__((always_inline)) uint64_t pmu_seq_write_begin(uint64_t *seq)
{
	uint64_t s = *seq;	/* the writer's own */

	__atomic_store_n(seq, s + 1, __ATOMIC_RELAXED);
	PMU_SEQ_FENCE();
	return s;
}

static inline __attribute__((always_inline)) void pmu_seq_write_end(uint64_t *seq, uint64_t s)
{
	__atomic_store_n(seq, s + 2, __ATOMIC_RELEASE);
}

static inline uint64_t pmu_seq_read_begin(const uint64_t *seq)
{
	return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

static inline bool pmu_seq_read_retry(const uint64_t *seq, uint64_t s)
{
	return __atomic_load_n(seq, __ATOMIC_RELAXED) != s;
}

#endif
