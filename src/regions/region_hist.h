/* SPDX-License-Identifier: MIT */
/*
 * A region's histograms in a thread (PMU_HISTOGRAMS, pmu_region_histograms()):
 * one dense log-linear histogram (regions/hist.h) per figure, ns and each event,
 * and per ns bucket each figure's sum over the calls in it, which gives the
 * tail attribution and exact sums. Fixed memory: (2n + 2) * 3,776 counters mapped at the
 * region's first call in the thread, of which only the pages values land in
 * are ever resident; an update is O(1) with no allocation. Written by the
 * owner inside the region's seqcount, copied by reports like the figures.
 */
#ifndef PMU_REGION_HIST_H
#define PMU_REGION_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include "regions/hist.h"
#include "base/internal.h"

struct pmu__hblk {
	size_t bytes;		/* mapped */
	struct {
		uint32_t lo, end;	/* the buckets used: [lo, end), none while end is 0 */
	} r[];			/* per figure; the counters follow, 64-aligned */
};

/* The bytes before the counters, for n events. */
static inline size_t pmu__hblk_head(unsigned n)
{
	return (sizeof(struct pmu__hblk) + (n + 1) * sizeof(((struct pmu__hblk *)0)->r[0]) + 63) & ~(size_t)63;
}

static inline uint64_t *pmu__hblk_row(const struct pmu__hblk *h, unsigned n, unsigned row)
{
	return (uint64_t *)((char *)h + pmu__hblk_head(n)) + (size_t)row * PMU_HIST_BUCKETS;
}

/* Figure f's counters (0: ns, 1 + i: event i), and figure f's sums per ns bucket. */
#define pmu__hblk_cnt(h, n, f) pmu__hblk_row(h, n, f)
#define pmu__hblk_ts(h, n, f) pmu__hblk_row(h, n, (n) + 1 + (f))

/* One value in bucket b of figure f, whose counters are c. */
static inline void pmu__hblk_one(struct pmu__hblk *h, uint64_t *c, unsigned f, unsigned b)
{
	PMU_SEQ_ST(c[b], c[b] + 1);
	if (unlikely(!h->r[f].end || b < h->r[f].lo))
		PMU_SEQ_ST(h->r[f].lo, b);
	if (unlikely(b >= h->r[f].end))
		PMU_SEQ_ST(h->r[f].end, b + 1);
}

/* A call of ns, its events from v0 to v1 (deltas as pmu__ev_delta(); v0 NULL: v1 are the deltas), into h: inside the region's seqcount. */
static inline void pmu__hblk_add(struct pmu__hblk *h, unsigned n, uint64_t ns, const uint64_t *v0,
				 const uint64_t *v1)
{
	unsigned b0 = pmu__hist_bucket(ns);
	uint64_t *c = pmu__hblk_cnt(h, n, 0), *ts = c + (size_t)(n + 1) * PMU_HIST_BUCKETS + b0;

	pmu__hblk_one(h, c, 0, b0);
	PMU_SEQ_ST(*ts, *ts + ns);
	for (unsigned i = 0; i < n; i++) {
		uint64_t d = !v0 ? v1[i] : v1[i] > v0[i] ? v1[i] - v0[i] : 0;

		c += PMU_HIST_BUCKETS;
		ts += PMU_HIST_BUCKETS;
		pmu__hblk_one(h, c, 1 + i, pmu__hist_bucket(d));
		PMU_SEQ_ST(*ts, *ts + d);
	}
}

/* A zeroed block for n events; NULL (errno set) when it cannot be mapped. */
struct pmu__hblk *pmu__hblk_new(unsigned n);
void pmu__hblk_free(struct pmu__hblk *h);

/* Adds from's histograms into *into (made on the first): an exited thread's into the folded ones'. 0 or -ENOMEM. */
int pmu__hblk_fold(struct pmu__hblk **into, const struct pmu__hblk *from, unsigned n);

/*
 * h's histograms as sparse ones into out[0..n] (out[0], ns's, with the
 * n + 1 figures' sums), read under the region's seqcount, which the caller
 * checks after. Frees what out held first. 0 or -ENOMEM.
 */
int pmu__hblk_copy(const struct pmu__hblk *h, unsigned n, struct pmu__shist *out);

/* Whether threads that begin their first region now keep histograms: pmu_region_histograms()'s last, else PMU_HISTOGRAMS. */
bool pmu__hist_wanted(void);
/* pmu_region_histograms()'s default for later threads. */
void pmu__hist_set_default(bool on);

#endif
