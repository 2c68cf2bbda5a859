/* SPDX-License-Identifier: MIT */
/*
 * How region.c's end paths add a call to a region's figures (sum, min, max,
 * sum of squares, times), under its region's seqcount; for region.c alone.
 */
#ifndef PMU_REGION_FIG_H
#define PMU_REGION_FIG_H

#include <stdbool.h>
#include <stdint.h>

#include "region_int.h"

/* PMU_TIMES_FULL: each event's enabled times read at slot (a depth, or PMU_REGION_DEPTH at end); running follow. */
static inline uint64_t *times_at(struct pmu__region_thr *t, unsigned slot)
{
	return &t->tm[slot * t->n];
}

/*
 * Stores the sum of squares (16-aligned): outside TSan a plain store, which
 * the compiler makes one store pair with no copy between registers (a
 * volatile one costs two). Between the seqcount's fence and its release
 * store, as every figure's.
 */
#ifdef PMU_TSAN
#define PMU_FIG_ST128(p, v) (PMU_FIG_ST((p)[0], (uint64_t)(v)), PMU_FIG_ST((p)[1], (uint64_t)((v) >> 64)))
#else
typedef unsigned __int128 __attribute__((may_alias)) pmu__u128;
#define PMU_FIG_ST128(p, v) (*(pmu__u128 *)(void *)(p) = (v))
#endif

/* Adds x, one outermost call's figure, to f: no first call differs (min starts at UINT64_MAX, max at 0). */
static inline __attribute__((always_inline)) void fig_add(struct pmu__fig *f, uint64_t x)
{
	uint64_t sum = f->sum, min = f->min, max = f->max;	/* the owner's: plain loads */
	unsigned __int128 sq = (unsigned __int128)f->sq[1] << 64 | f->sq[0];

	PMU_FIG_ST(f->sum, sum + x);
	/* Stored only when they change, which few calls do. */
	if (unlikely(x < min))
		PMU_FIG_ST(f->min, x);
	if (unlikely(x > max))
		PMU_FIG_ST(f->max, x);
	PMU_FIG_ST128(f->sq, sq + (unsigned __int128)x * x);
}

/* An event's figure of a call: its values at begin and end. Scaled estimates of a multiplexed event may step back: never wrap. */
static inline uint64_t ev_delta(uint64_t v0, uint64_t v1)
{
	return likely(v1 > v0) ? v1 - v0 : 0;
}

/* Adds each event's times of the call begun at depth d to a's events. */
static __attribute__((noinline)) void add_times(struct pmu__region_thr *t, struct pmu__acc *a, unsigned d)
{
	unsigned n = t->n;
	const uint64_t *e0 = times_at(t, d), *r0 = e0 + (PMU_REGION_DEPTH + 1) * n;
	const uint64_t *e1 = times_at(t, PMU_REGION_DEPTH), *r1 = e1 + (PMU_REGION_DEPTH + 1) * n;

	for (unsigned i = 0; i < n; i++) {
		PMU_FIG_ST(a->f[1 + i].en, a->f[1 + i].en + (e1[i] - e0[i]));
		PMU_FIG_ST(a->f[1 + i].run, a->f[1 + i].run + (r1[i] - r0[i]));
	}
}

/*
 * Closes t's top frame fr, a call ns long with the values v1 at its end,
 * adding it to its region's figures under their seqcount; with_times:
 * t->times may want times (not on the one-sequence read, see push()).
 */
static inline __attribute__((always_inline)) void add_call(struct pmu__region_thr *t, struct pmu__frame *fr,
							   uint64_t ns, const uint64_t *v1, unsigned n, bool with_times)
{
	struct pmu__acc *a = fr->a;
	unsigned d = depth_of(t) - 1;	/* fr's */

	/*
	 * A region nested in itself counts every call, but its time and events
	 * over the outermost one: that is the call its per-call figures are of.
	 */
	if (likely(--a->depth == 0)) {
		uint64_t seq = a->seq;

		__atomic_store_n(&a->seq, seq + 1, __ATOMIC_RELAXED);
		PMU_FIG_FENCE();
		fig_add(&a->f[0], ns);
		for (unsigned i = 0; i < n; i++)
			fig_add(&a->f[1 + i], ev_delta(fr->v[i], v1[i]));
		/*
		 * One group's times are every event's: they go to figure 0's
		 * (ns has none of its own), taken from the thread's first begin
		 * on. Each event's start when multiplexing is first seen: a call
		 * begun before (below times_from) has none.
		 */
		if (!with_times) {
		} else if (t->times == PMU_TIMES_GROUP) {
			PMU_FIG_ST(a->f[0].en, a->f[0].en + (t->grp_en[PMU_REGION_DEPTH] - t->grp_en[d]));
			PMU_FIG_ST(a->f[0].run, a->f[0].run + (t->grp_run[PMU_REGION_DEPTH] - t->grp_run[d]));
		} else if (unlikely(t->times == PMU_TIMES_FULL) && d >= t->times_from) {
			add_times(t, a, d);
		}
		__atomic_store_n(&a->seq, seq + 2, __ATOMIC_RELEASE);
	} else {
		uint64_t seq = a->seq;

		__atomic_store_n(&a->seq, seq + 1, __ATOMIC_RELAXED);
		PMU_FIG_FENCE();
		PMU_FIG_ST(a->nested, a->nested + 1);
		__atomic_store_n(&a->seq, seq + 2, __ATOMIC_RELEASE);
	}
	if (with_times && unlikely(d < t->times_from))	/* what begins at d from now on has times */
		t->times_from = d;
	t->sp = frame_down(fr, t->n);
}

/* add_call() of the one-sequence read's values v1 when add_call_hot() cannot. */
static __attribute__((noinline)) int add_call_rare(struct pmu__region_thr *t, struct pmu__frame *fr, uint64_t ns,
						   const uint64_t *v1, unsigned n)
{
	add_call(t, fr, ns, v1, n, false);
	return 0;
}

/*
 * add_call() of the one-sequence read's values v1 (no times) in its usual
 * case, the region not nested in itself: then no call, and so no stack
 * frame. n: a constant where the caller knows it.
 */
static inline __attribute__((always_inline)) int add_call_hot(struct pmu__region_thr *t, struct pmu__frame *fr,
							      uint64_t ns, const uint64_t *v1, unsigned n)
{
	struct pmu__acc *a = fr->a;
	uint64_t seq = a->seq;

	if (unlikely(a->depth != 1)) {
		/* v1 may be registers (or t->scratch itself: no address compare, which would keep them in memory). */
		PMU_UNROLL
		for (unsigned i = 0; i < n; i++)
			t->scratch[i] = v1[i];
		return add_call_rare(t, fr, ns, t->scratch, n);
	}
	__atomic_store_n(&a->seq, seq + 1, __ATOMIC_RELAXED);
	PMU_FIG_FENCE();
	fig_add(&a->f[0], ns);
	PMU_UNROLL
	for (unsigned i = 0; i < n; i++)
		fig_add(&a->f[1 + i], ev_delta(fr->v[i], v1[i]));
	__atomic_store_n(&a->seq, seq + 2, __ATOMIC_RELEASE);
	a->depth = 0;
	t->sp = frame_down(fr, n);
	return 0;
}

#endif
