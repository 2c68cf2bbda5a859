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

#include "regions/thread.h"

/*
 * Distinct region names per process: ids 1 to it, in chunks made as names
 * come (region_names.c), so that the bound costs nothing until met.
 */
#define PMU_REGION_NAMES (1u << 20)
#define PMU_REGION_CAL 0	/* the id of compensation's own region (region_comp.c), no name's */
#define PMU_REGION_DEPTH 64	/* open regions per thread */
#define PMU_REGION_NAME 128	/* longest name, NUL included */
/* A call path's names from the top joined by ';', each escaped (4 bytes a byte at most): its longest. */
#define PMU_PATH_BUF ((PMU_REGION_DEPTH + 2) * (4 * PMU_REGION_NAME + 1))
#define PMU_NAME_CACHE 64	/* per-thread pointer -> region cache, a power of 2 */
/*
 * Region ids remembered per thread for the handles' hot path (later ids
 * take the hash): the memo, the hot fields after it and the name cache's
 * start within 2 KiB of the record's, riscv64's reach from one register.
 */
#define PMU_MEMO 192

/*
 * One figure of a region (its ns, or an event) over its outermost calls;
 * figure 0 (ns) holds the times of a thread whose events are one group.
 * The squares are of the values themselves, summed in 128 bits: exact
 * while the sum is, for the sum of squares of values that add up to less
 * than 2^64 is below 2^128. results.c takes the variance from them
 * without cancellation (thread_m2()).
 */
struct pmu__fig {
	uint64_t sum;
	uint64_t min;		/* of one outermost call: UINT64_MAX before the first */
	uint64_t sq[2] __attribute__((aligned(16)));	/* sum of x^2: low word, high word */
	uint64_t max;		/* 0 before the first */
	uint64_t en, run;	/* enabled and running ns, over the calls read with times */
};

/*
 * What a thread has accumulated for one call path, a node of its tree (a
 * region begun inside another is a child of its node; one begun directly
 * inside itself folds into it); written by its owner only.
 */
struct pmu__acc {
	/*
	 * Twice the calls, and a seqcount over the figures: odd while the
	 * owner adds a call, so a report taken by another thread retries
	 * instead of mixing two.
	 */
	uint64_t seq;
	uint64_t depth;		/* instances open now (recursion); owner-only, beside seq for one load */
	uint64_t nested;	/* calls but the outermost (recursive ones): the figures are over the others (spans) */
	uint64_t parent;	/* the region open around its first call in the thread (a frame id; PMU_FRAME_NONE: none) */
	uint64_t clamped;	/* compensated outermost calls with a figure that came out below 0, counted as 0 */
	struct pmu__hblk *h;	/* its histograms (region_hist.h), or NULL; set before the figures are published */
	const struct pmu__rname *r;	/* its name, and id */
	uint64_t id;
	/*
	 * The call path's node around (the thread's root at the top), this
	 * node's index in the thread's nodes, and the next in its hash chain
	 * by (up, id): set before it is published, never changed.
	 */
	struct pmu__acc *up;
	struct pmu__acc *hnext;
	uint64_t idx;
	struct pmu__fig f[];	/* ns, then the n events */
};

/*
 * A thread's nodes by index (NULL: none yet), grown by the owner as it makes
 * more: the array it outgrew stays, in old, for a report that may still be
 * reading it, until the record goes.
 */
struct pmu__accv {
	unsigned n;
	struct pmu__accv *old;
	struct pmu__acc *v[];	/* published with release */
};

/*
 * A handle as a frame's id: sign-extended, which the 64-bit ISAs' calling
 * conventions or compares give for free; INT64_MIN, the sentinel, is none.
 */
#define PMU_FRAME_NONE ((uint64_t)INT64_MIN)
static inline uint64_t pmu__frame_id(int h)
{
	return (uint64_t)(int64_t)h;
}

/*
 * An open region, on the thread's stack of them: fixed fields then the n
 * values at begin. The stack's bottom is a sentinel with id
 * PMU_FRAME_NONE, which no handle is, so that exit's check of the
 * innermost id also tells an empty stack.
 */
struct pmu__frame {
	uint64_t id;
	struct pmu__acc *a;
	const char *p;		/* the name pointer given to begin (enter leaves the last one) */
	uint64_t t0;		/* at begin: the set's clock counter (clk_page), else CLOCK_MONOTONIC ns */
	uint64_t v[];
};

struct pmu__rname;	/* region.c's interned name */
struct pmu__trace;	/* trace.c's buffer of a thread's calls */
struct pmu__hblk;	/* region_hist.h's histograms */
struct pmu__shist;	/* regions/hist.h's, sparse */

enum {
	PMU_TIMES_NONE,		/* none (user-space reads never multiplexed so far) */
	PMU_TIMES_GROUP,	/* the one group's, from pmu_read()'s read(2) */
	PMU_TIMES_FULL,		/* each event's, from pmu_read_full() */
};

/* A thread's regions: written by the thread only, but for the figures a report copies. */
struct pmu__region_thr {
	/*
	 * First, by region id below PMU_MEMO (a handle, with no offset): the
	 * node its last begin in this thread opened (pmu__node_none: none yet),
	 * which a begin takes when its up is the top frame's node. Owner-only.
	 */
	struct pmu__acc *acc[PMU_MEMO];
	/*
	 * The last frame of the stack, the thread's set (pmu__thr.set, for as
	 * long as this record is reachable), and the top frame (the sentinel
	 * when none is open): frames of sizeof(struct pmu__frame) + 8n bytes
	 * (frame_up()) from stk on.
	 */
	struct pmu__frame *lim;
	struct pmu_set *set;
	struct pmu__frame *sp;
	unsigned n;			/* the thread's events */
	/*
	 * Atomic: reports holding the figures still (region_copy.c), after their
	 * lock-free tries failed; the owner waits at its next update while set.
	 */
	unsigned hold;
	bool used;			/* atomic: a region was begun (the record is kept for the report) */
	bool clk_page;			/* times from the page clock (pmu__set_clock()), else CLOCK_MONOTONIC */
	bool rare;			/* traced or compensated: the end's usual path leaves it to its rare one (here: a short offset) */
	bool comp_on;			/* atomic: the calls ending now are compensated (written by the owner only) */
	bool hist;			/* the calls ending now go into their regions' histograms too */
	/*
	 * How region.c gets the counters' enabled and running times
	 * (PMU_TIMES_*, see want_times()); open regions from depth times_from
	 * up were begun with times.
	 */
	unsigned times;
	unsigned times_from;
	struct {
		const char *p;		/* a name pointer begun in this thread, */
		struct pmu__acc *a;	/* and its region's figures, whose name it held then */
	} cache[PMU_NAME_CACHE];
	struct pmu__accv *accs;	/* the nodes by index, published with release, for the reports */
	unsigned nodes;		/* atomic: nodes made, published after accs holds them */
	unsigned hmask;		/* the nodes' hash by (up, id): a power of 2 less 1, chained */
	struct pmu__acc **htab;
	struct pmu__acc *root;	/* the sentinel frame's node: no region's, never reported */
	bool said_full;		/* the cap on its paths was met, and said */
	uint64_t grp_en[PMU_REGION_DEPTH + 1];	/* PMU_TIMES_GROUP: at begin per depth, then at end */
	uint64_t grp_run[PMU_REGION_DEPTH + 1];
	uint64_t *scratch;		/* n values, for end */
	struct pmu_reading *rd;		/* n, for pmu_read_full() */
	/*
	 * PMU_TIMES_FULL: each event's enabled times at begin per depth and at
	 * end ((PMU_REGION_DEPTH + 1) * n), then its running times likewise.
	 */
	uint64_t *tm;
	struct pmu__trace *trace;	/* PMU_TRACE: this thread's calls (trace.c), else NULL */
	/* Compensation (region_comp.c): made at its first switch on, kept until the record goes. */
	struct pmu__comp *comp;
	const struct pmu__comp *comp_pub;	/* atomic: comp once measured, for the reports */
	uint64_t stk[];			/* the sentinel frame, then PMU_REGION_DEPTH frames */
};

/* t's rare flag from what wants the end's rare path: a trace, compensation, histograms. */
static inline void pmu__region_rare(struct pmu__region_thr *t)
{
	t->rare = t->trace != NULL || PMU_READ_ONCE(t->comp_on) || t->hist;
}

/* The frame above fr on t's stack (n events: a constant where the caller knows n), and the one below. */
static inline __attribute__((always_inline)) struct pmu__frame *frame_up(struct pmu__frame *fr, unsigned n)
{
	return (struct pmu__frame *)((char *)fr + sizeof(*fr) + 8 * n);
}

static inline __attribute__((always_inline)) struct pmu__frame *frame_down(struct pmu__frame *fr, unsigned n)
{
	return (struct pmu__frame *)((char *)fr - sizeof(*fr) - 8 * n);
}

/* An event's figure of a call: its values at begin and end. Scaled estimates of a multiplexed event may step back: never wrap. */
static inline uint64_t pmu__ev_delta(uint64_t v0, uint64_t v1)
{
	return __builtin_expect(v1 > v0, 1) ? v1 - v0 : 0;
}

/* Regions open: frames above the sentinel. */
static inline unsigned depth_of(const struct pmu__region_thr *t)
{
	return (unsigned)(((char *)t->sp - (char *)t->stk) / (sizeof(struct pmu__frame) + 8 * t->n));
}



/*
 * The cap on a thread's call paths: past it, a new path's calls go to one
 * node "(other paths)" under the path around (and what begins inside it,
 * into it), said once per thread. PMU_PATHS sets it (16 to PMU_PATHS_LIMIT).
 */
#define PMU_PATHS_DEFAULT (1u << 17)
#define PMU_PATHS_LIMIT (1u << 24)
#define PMU_OTHER_PATHS "(other paths)"
unsigned pmu__paths_max(void);

/* Region names interned so far: ids 1 to it. */
unsigned pmu__region_count(void);
/* The name of region id; it lives as long as the name table. */
const char *pmu__region_name(unsigned id);

/*
 * A thread's figures for one region: calls, outermost calls, its parent and
 * clamped calls (pmu__acc's), its histograms (n + 1, or NULL: none kept;
 * the copier's to free), and figures ns, then n events.
 */
struct pmu__rcopy {
	uint64_t calls, spans, parent, clamped;
	uint64_t id, up;	/* a node's (pmu__region_copy_nodes()): its region id, its up node's index (-1: none) */
	struct pmu__shist *dist;
	struct pmu__fig f[];
};

static inline size_t pmu__rcopy_size(unsigned n)
{
	return sizeof(struct pmu__rcopy) + (n + 1) * sizeof(struct pmu__fig);
}

/* Whether thread record t has begun a region: then it has figures to report. */
bool pmu__region_used(const struct pmu__thr *t);

/*
 * Copies t's call path nodes, consistently, into *d (made, pmu__rcopy_size(t->n)
 * bytes each, the caller's to free with their histograms) and their count into
 * *n; a node's up comes before it. 0, or -ENOMEM.
 */
int pmu__region_copy_nodes(const struct pmu__thr *t, struct pmu__rcopy **d, unsigned *n);
/*
 * t's call path nodes for the trace (trace.c): into *ups (made, the caller's
 * to free) each node's up node's index (UINT32_MAX: at the top) << 32 | its
 * region id, and their count into *n. 0, or -ENOMEM.
 */
int pmu__region_node_ups(const struct pmu__thr *t, uint64_t **ups, unsigned *n);

/*
 * The flat view, by region: m nodes c (n events) folded into regions 1..nreg
 * of d (nreg of pmu__rcopy_size(n) bytes, zeroed; region id at d's id - 1),
 * the nodes' histograms added (they keep theirs). 0 or -ENOMEM.
 */
int pmu__region_flat(const struct pmu__rcopy *c, unsigned m, unsigned n, unsigned nreg, struct pmu__rcopy *d);

/*
 * Compensation: each thread measures what a pair of region calls costs a
 * region around it, by name and by handle (ns, then each event, in 64ths),
 * and leaves that out of every region's figures once per pair ended inside.
 */
enum { PMU_END_NAME, PMU_END_HANDLE };	/* how a pair ends: its cost */
#define PMU_COMP_SHIFT 6	/* costs in 64ths: the calibration's pairs per window */
struct pmu__comp {
	uint64_t inside[PMU_REGION_DEPTH + 2][2];	/* [d + 1]: pairs ended inside the open region at depth d, by kind */
	uint64_t cost[];	/* 2 * (n + 1): a pair by name's cost, then by handle's; written before published */
};

/* Pops the pairs ended inside region d (its frame now ending by kind) into k, counting it in the one around. */
static inline void pmu__comp_pop(struct pmu__comp *c, unsigned d, unsigned kind, uint64_t k[2])
{
	k[0] = c->inside[d + 1][0];
	k[1] = c->inside[d + 1][1];
	c->inside[d + 1][0] = c->inside[d + 1][1] = 0;
	c->inside[d][0] += k[0];
	c->inside[d][1] += k[1];
	c->inside[d][kind]++;
}

/* region.c's m pairs (a multiple of 4) of compensation's own region by name, or by handle when name is NULL. */
typedef void (*pmu__cal_pairs)(const char *name, unsigned m);
/* The thread's compensation as it begins its first region (t, the calling thread's): its default switch, measured there. */
void pmu__comp_start(struct pmu__region_thr *t, pmu__cal_pairs pairs);
/* pmu_region_compensate() in the calling thread, whose record is t (NULL: none yet). */
int pmu__comp_switch(struct pmu__region_thr *t, int on, pmu__cal_pairs pairs);
/* Whether thread record thr's calls are compensated now; its costs into cost (2 * (n + 1), in 64ths) when so. */
bool pmu__region_comp(const struct pmu__thr *thr, uint64_t *cost);

/*
 * Tasks (task.c). The calling thread's counters into values (its n) and
 * CLOCK_MONOTONIC into *ns, its region record made when it has none; with
 * name, the region's id into *id (interned). And one call of ns and the
 * events' sums added to region id in the calling thread, into its
 * histograms too. 0 or -errno (message set, naming who).
 */
int pmu__region_task_read(const char *who, const char *name, int *id, uint64_t *values, uint64_t *ns);
int pmu__region_task_add(const char *who, unsigned id, uint64_t ns, const uint64_t *sums);

/* Ends every open region of the calling thread down to depth 0 (zero-code exit). */
/* Ends the regions open inside the innermost open region h (functions.c: regions by name begun in a
 * function and still open at its exit): how many, 0 when h is not open, or -errno. */
int pmu__region_unwind(int h);
int pmu__region_end_all(void);

#endif
