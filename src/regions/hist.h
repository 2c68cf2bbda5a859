/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histograms of a region's figures per call (the spirit of
 * HdrHistogram): values below 128 have a bucket each; above, each power of 2
 * is cut into 64 equal buckets. A bucket's midpoint is within 1/128 (0.78%)
 * of every value in it, the range is all of uint64_t, and a value's bucket
 * is a clz, two shifts and an add.
 *
 * The region layer keeps them dense (PMU_HIST_BUCKETS counters per figure);
 * snapshots, reports and the tools keep them sparse (struct pmu__shist):
 * the nonzero buckets in order, which add exactly across threads,
 * processes and merges of merges.
 */
#ifndef PMU_HIST_H
#define PMU_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PMU_HIST_SUB 6		/* 2^6 buckets per power of 2 from 128 up (the masks below assume 6) */
#define PMU_HIST_BUCKETS ((65 - PMU_HIST_SUB) << PMU_HIST_SUB)	/* 3,776: 128 exact, 57 powers of 2 by 64 */
#define PMU_HIST_SCHEME "log-linear-64"		/* the reports' name of this layout */

/* The bucket of v. */
static inline unsigned pmu__hist_bucket(uint64_t v)
{
	unsigned e = 63 - (unsigned)__builtin_clzll(v | 127);	/* 6 for every v below 128 */

	return ((e - PMU_HIST_SUB) << PMU_HIST_SUB) + (unsigned)(v >> (e - PMU_HIST_SUB));
}

/* The least value of bucket b, and its width. */
static inline uint64_t pmu__hist_low(unsigned b)
{
	unsigned s = b >> PMU_HIST_SUB;

	return s ? (uint64_t)((b & 63) | 64) << (s - 1) : b;
}

static inline uint64_t pmu__hist_width(unsigned b)
{
	unsigned s = b >> PMU_HIST_SUB;

	return s > 1 ? (uint64_t)1 << (s - 1) : 1;
}

/* The value a bucket stands for: its midpoint (its value, below 128). */
static inline double pmu__hist_mid(unsigned b)
{
	return (double)pmu__hist_low(b) + (double)(pmu__hist_width(b) - 1) / 2;
}

/*
 * A figure's histogram, sparse: len buckets idx[] (increasing) with their
 * calls cnt[]. The ns figure's also keeps, per bucket, each figure's sum over
 * the calls in it (ts[e * len + k]: ns, then each event): the tail
 * attribution's source, and the figures' sums over the calls counted.
 */
struct pmu__shist {
	unsigned len, nts;	/* buckets; figures with sums in ts (0: none) */
	uint32_t *idx;
	uint64_t *cnt;
	uint64_t *ts;
};

/* Calls in h. */
uint64_t pmu__shist_total(const struct pmu__shist *h);

/* The q-quantile (0 < q <= 1) of h: its bucket's midpoint, NAN when h is empty. */
double pmu__shist_quantile(const struct pmu__shist *h, double q);

/*
 * The tail of ns histogram h: the calls of the buckets from the one where
 * the top 1% begins up (at least 1% of the calls: whole buckets). *from:
 * that bucket's least value. Each summed figure e's mean over the tail into
 * tail[e], over the others into rest[e] (NAN: no such call), for its nts
 * figures. The calls in the tail, 0 when h is empty (nothing written).
 */
uint64_t pmu__shist_tail(const struct pmu__shist *h, uint64_t *from, double *tail, double *rest);

/*
 * Adds src into dst (empty at first, with its nts set): the sums of src's
 * figure map[e] into dst's figure e (map NULL: e, which src must have; -1:
 * none, dst's stays), for dst's nts figures. 0 or -ENOMEM (dst as it was).
 */
int pmu__shist_add(struct pmu__shist *dst, const struct pmu__shist *src, const int *map);

/*
 * An entry's histograms src (nfig figures: ns's first, with the sums of all
 * nfig, then each event's; NULL: none) added into *dst, made empty on the
 * first. 0 or -ENOMEM.
 */
int pmu__shist_add_set(struct pmu__shist **dst, const struct pmu__shist *src, unsigned nfig);

/*
 * Sparse from dense counters cnt[lo..hi] (and nts events' sums ts[e][lo..hi],
 * ts[e] a row), read with acquire loads: a copy under its writer's seqcount
 * (which the caller retries when it moved). 0 or -ENOMEM.
 */
int pmu__shist_from(struct pmu__shist *h, const uint64_t *cnt, const uint64_t *const *ts, unsigned nts,
		    unsigned lo, unsigned hi);

/* The tables' " NAME TAIL against REST" of one figure of the tail (REST NAN: "none"), after ',' unless first. */
void pmu__hist_tail_text(FILE *f, const char *name, double tail, double rest, bool first);

/* More summed figures for h (nts of them), the new ones 0. 0 or -ENOMEM. */
int pmu__shist_widen(struct pmu__shist *h, unsigned nts);

void pmu__shist_free(struct pmu__shist *h);

#endif
