/* SPDX-License-Identifier: MIT */
/*
 * How region.c's end paths add a call to a region's figures (sum, min, max,
 * sum of squares, times), under the thread's seqcount; for region.c alone.
 */
#ifndef PMU_REGION_FIG_H
#define PMU_REGION_FIG_H

#include <stdbool.h>
#include <stdint.h>

#include "region_int.h"

/* PMU_TIMES_FULL: each event's enabled times read at slot (a depth, or PMU_REGION_DEPTH at end); running follow. */
static inline uint64_t *times_at(struct pmu__region_thr *t, unsigned slot)
{
	return &t->stk_v[(PMU_REGION_DEPTH + slot) * t->n];
}

/* Adds x, one outermost call's figure, to f, which has one already. */
static inline __attribute__((always_inline)) void fig_add(struct pmu__fig *f, uint64_t x)
{
	PMU_FIG_ST(f->sum, f->sum + x);
	/* Stored only when they change, which few calls do. */
	if (unlikely(x < f->min))
		PMU_FIG_ST(f->min, x);
	if (unlikely(x > f->max))
		PMU_FIG_ST(f->max, x);
	int64_t dx = (int64_t)(x - f->k);

	/* |dx| below 2^31, as most are: a 64-bit square, the high word stored only on a carry. */
	if (likely(dx == (int32_t)dx)) {
		uint64_t sq = (uint64_t)(dx * dx), lo = f->sq_lo + sq;

		PMU_FIG_ST(f->sq_lo, lo);
		if (unlikely(lo < sq))
			PMU_FIG_ST(f->sq_hi, f->sq_hi + 1);
		return;
	}
	unsigned __int128 sq = ((unsigned __int128)f->sq_hi << 64 | f->sq_lo) + (unsigned __int128)((__int128)dx * dx);

	PMU_FIG_ST(f->sq_lo, (uint64_t)sq);
	PMU_FIG_ST(f->sq_hi, (uint64_t)(sq >> 64));
}

/* x is the first outermost call's figure of f. */
static inline __attribute__((always_inline)) void fig_first(struct pmu__fig *f, uint64_t x)
{
	PMU_FIG_ST(f->sum, x);
	PMU_FIG_ST(f->min, x);
	PMU_FIG_ST(f->max, x);
	PMU_FIG_ST(f->k, x);
}

/* An event's figure of a call: its values at begin and end. Scaled estimates of a multiplexed event may step back: never wrap. */
static inline uint64_t ev_delta(uint64_t v0, uint64_t v1)
{
	return likely(v1 > v0) ? v1 - v0 : 0;
}

/* The region's first outermost call: ns, then n events from v0 to v1. */
static __attribute__((noinline)) void add_first(struct pmu__acc *a, uint64_t ns, const uint64_t *v0,
						const uint64_t *v1, unsigned n)
{
	fig_first(&a->f[0], ns);
	for (unsigned i = 0; i < n; i++)
		fig_first(&a->f[1 + i], ev_delta(v0[i], v1[i]));
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
 * Adds the call of a begun at depth d of t, ns long, with the values at
 * its end in t->scratch, under the seqcount; with_times: t->times may want times
 * (not on the one-sequence read, see push()).
 */
static inline __attribute__((always_inline)) void add_call(struct pmu__region_thr *t, struct pmu__acc *a, unsigned d,
							   uint64_t ns, const uint64_t *v1, unsigned n, bool with_times)
{
	const uint64_t *v0 = &t->stk_v[d * n];
	uint64_t seq = t->seq;
	unsigned i;

	__atomic_store_n(&t->seq, seq + 1, __ATOMIC_RELAXED);
	PMU_FIG_FENCE();
	/*
	 * A region nested in itself counts every call, but its time and events
	 * over the outermost one: that is the call its per-call figures are of.
	 */
	if (likely(--a->depth == 0)) {
		uint64_t spans = a->spans;

		PMU_FIG_ST(a->spans, spans + 1);
		if (unlikely(!spans)) {
			add_first(a, ns, v0, v1, n);
		} else {
			fig_add(&a->f[0], ns);
			for (i = 0; i < n; i++)
				fig_add(&a->f[1 + i], ev_delta(v0[i], v1[i]));
		}
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
	} else {
		PMU_FIG_ST(a->nested, a->nested + 1);
	}
	if (with_times && unlikely(d < t->times_from))	/* what begins at d from now on has times */
		t->times_from = d;
	__atomic_store_n(&t->seq, seq + 2, __ATOMIC_RELEASE);
	t->depth = d;
}

/* add_call() of the one-sequence read's values, in t->scratch, when add_call_hot() cannot. */
static __attribute__((noinline)) int add_call_rare(struct pmu__region_thr *t, struct pmu__acc *a, unsigned d,
						   uint64_t ns, unsigned n)
{
	add_call(t, a, d, ns, t->scratch, n, false);
	return 0;
}

/*
 * add_call() of the one-sequence read's values v1 (no times), in its usual
 * case, the region neither nested in itself nor ending its first call:
 * then no call, and so no stack frame.
 */
static inline __attribute__((always_inline)) int add_call_hot(struct pmu__region_thr *t, struct pmu__acc *a,
							      unsigned d, uint64_t ns, const uint64_t *v1, unsigned n)
{
	const uint64_t *v0 = &t->stk_v[d * n];
	uint64_t seq, spans = a->spans;

	if (unlikely(a->depth != 1 || !spans)) {
		for (unsigned i = 0; v1 != t->scratch && i < n; i++)	/* v1 may be registers */
			t->scratch[i] = v1[i];
		return add_call_rare(t, a, d, ns, n);
	}
	seq = t->seq;
	__atomic_store_n(&t->seq, seq + 1, __ATOMIC_RELAXED);
	PMU_FIG_FENCE();
	a->depth = 0;
	PMU_FIG_ST(a->spans, spans + 1);
	fig_add(&a->f[0], ns);
	PMU_UNROLL
	for (unsigned i = 0; i < n; i++)
		fig_add(&a->f[1 + i], ev_delta(v0[i], v1[i]));
	__atomic_store_n(&t->seq, seq + 2, __ATOMIC_RELEASE);
	t->depth = d;
	return 0;
}

#endif
