/* SPDX-License-Identifier: MIT */
/*
 * Regions, for the report and zero-code mode: each thread's figures, kept in
 * the region layer's own record for the thread (struct pmu__region_thr), which
 * the per-thread layer's record points at (pmu__thr.upper) and frees
 * through the hooks region.c sets.
 */
#ifndef PMU_REGION_H
#define PMU_REGION_H

#include <stdbool.h>
#include <stdint.h>

#include "thread.h"

#define PMU_REGION_MAX 256	/* distinct region names per process */
#define PMU_REGION_DEPTH 64	/* open regions per thread */
#define PMU_REGION_NAME 128	/* longest name, NUL included */
#define PMU_NAME_CACHE 64	/* per-thread pointer -> region cache, a power of 2 */

/*
 * One figure of a region (its ns, or an event) over its outermost calls;
 * figure 0 (ns) holds the times of a thread whose events are one group.
 * The squares are of the difference to the first call's value, k: exact in
 * 128 bits, and small enough that the variance computed from them at
 * snapshot time does not cancel out.
 */
struct pmu__fig {
	uint64_t sum;
	uint64_t min, max;	/* of one outermost call */
	uint64_t k;		/* the first outermost call's value */
	uint64_t sq_lo, sq_hi;	/* sum of (x - k)^2 */
	uint64_t en, run;	/* enabled and running ns, over the calls read with times */
};

/* What a thread has accumulated for one region; written by its owner only. */
struct pmu__acc {
	uint64_t spans;		/* outermost calls: what the figures are measured over */
	uint64_t nested;	/* the other calls (recursive ones): calls are spans + nested */
	unsigned depth;		/* instances open now (recursion); owner-only */
	struct pmu__fig f[];	/* ns, then the n events */
};

struct pmu__rname;	/* region.c's interned name */

enum {
	PMU_TIMES_NONE,		/* none (user-space reads never multiplexed so far) */
	PMU_TIMES_GROUP,	/* the one group's, from pmu_read()'s read(2) */
	PMU_TIMES_FULL,		/* each event's, from pmu_read_full() */
};

/* A thread's regions: written by the thread only, but for the figures a report copies. */
struct pmu__region_thr {
	struct pmu_set *set;		/* the thread's (pmu__thr.set), for as long as this record is reachable */
	unsigned n;			/* the thread's events */
	bool used;			/* atomic: a region was begun (the record is kept for the report) */
	/*
	 * Seqcount over every acc: odd while the owner updates, so a report
	 * taken by another thread retries instead of mixing two updates.
	 */
	uint64_t seq;
	struct {
		const char *p;
		const struct pmu__rname *r;
	} cache[PMU_NAME_CACHE];
	unsigned depth;			/* open regions */
	bool clk_page;			/* times from the page clock (pmu__set_clock()), else CLOCK_MONOTONIC */
	/*
	 * How region.c gets the counters' enabled and running times
	 * (PMU_TIMES_*, see want_times()); open regions from depth times_from
	 * up were begun with times.
	 */
	unsigned times;
	unsigned times_from;
	unsigned stk_id[PMU_REGION_DEPTH];
	const char *stk_p[PMU_REGION_DEPTH];	/* the name pointer given to begin */
	uint64_t stk_t0[PMU_REGION_DEPTH];	/* at begin: the set's clock counter (clk_page), else CLOCK_MONOTONIC ns */
	struct pmu__acc *acc[PMU_REGION_MAX];	/* published with release, read with acquire */
	uint64_t grp_en[PMU_REGION_DEPTH + 1];	/* PMU_TIMES_GROUP: at begin per depth, then at end */
	uint64_t grp_run[PMU_REGION_DEPTH + 1];
	uint64_t *scratch;		/* n values, for end */
	struct pmu_reading *rd;		/* n, for pmu_read_full() */
	/*
	 * PMU_REGION_DEPTH * n start values, then for PMU_TIMES_FULL each
	 * event's enabled times at begin per depth and at end ((PMU_REGION_DEPTH
	 * + 1) * n), and its running times likewise.
	 */
	uint64_t stk_v[];
};

/* Region names interned so far; ids below it have a name. */
unsigned pmu__region_count(void);
/* The name of region id; it lives as long as the name table. */
const char *pmu__region_name(unsigned id);

/* A thread's figures for one region: calls, outermost calls, and figures ns, then n events. */
struct pmu__rcopy {
	uint64_t calls, spans;
	struct pmu__fig f[];
};

static inline size_t pmu__rcopy_size(unsigned n)
{
	return sizeof(struct pmu__rcopy) + (n + 1) * sizeof(struct pmu__fig);
}

/* Whether thread record t has begun a region: then it has figures to report. */
bool pmu__region_used(const struct pmu__thr *t);

/*
 * Copies t's figures for regions 0..nreg into d (nreg of pmu__rcopy_size(t->n)
 * bytes), consistently: the owner may be updating them right now.
 */
void pmu__region_copy(const struct pmu__thr *t, unsigned nreg, struct pmu__rcopy *d);

/* Ends every open region of the calling thread down to depth 0 (zero-code exit). */
int pmu__region_end_all(void);

#endif
