/* SPDX-License-Identifier: MIT */
/*
 * The per-thread layer: a record per thread (thread.c), with the region
 * figures region.c keeps in it.
 */
#ifndef PMU_THREAD_H
#define PMU_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "internal.h"

#define PMU_REGION_MAX 256	/* distinct region names per process */
#define PMU_REGION_DEPTH 64	/* open regions per thread */
#define PMU_REGION_NAME 128	/* longest name, NUL included */
#define PMU_NAME_CACHE 64	/* per-thread pointer -> region cache, a power of 2 */

/* The events every thread counts; fixed between pmu_thread_init() and pmu_thread_fini(). */
struct pmu__tconf {
	char *events;
	unsigned n;
	char **names;
	struct timespec start;	/* CLOCK_REALTIME at pmu_thread_init(): the reports' start time */
};

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
	uint64_t calls;		/* every call, recursive ones too */
	uint64_t spans;		/* outermost calls: what the figures are measured over */
	unsigned depth;		/* instances open now (recursion); owner-only */
	struct pmu__fig f[];	/* ns, then the n events */
};

struct pmu__rname;	/* region.c's interned name */

enum {
	PMU_TIMES_NONE,		/* none (user-space reads never multiplexed so far) */
	PMU_TIMES_GROUP,	/* the one group's, from pmu_read()'s read(2) buffer */
	PMU_TIMES_FULL,		/* each event's, from pmu_read_full() */
};

struct pmu__thr {
	struct pmu__thr *prev, *next;	/* thread.c's list, under its lock */
	struct pmu_set *set;		/* NULL once the thread exited */
	unsigned n;
	pid_t tid;
	char tname[16];
	int exited;			/* atomic: the thread is gone, its figures stay */
	bool used_regions;		/* atomic: keep the record after exit for the report */
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
	/*
	 * How region.c gets the counters' enabled and running times
	 * (PMU_TIMES_*, see want_times()); open regions from depth times_from
	 * up were begun with times.
	 */
	unsigned times;
	unsigned times_from;
	unsigned stk_id[PMU_REGION_DEPTH];
	const char *stk_p[PMU_REGION_DEPTH];	/* the name pointer given to begin */
	uint64_t stk_t0[PMU_REGION_DEPTH];
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

/* thread.c */
extern uint64_t pmu__tgen;		/* atomic: bumped when every record becomes invalid */
extern __thread struct pmu__thr *pmu__self __attribute__((tls_model("initial-exec")));
extern __thread uint64_t pmu__self_gen __attribute__((tls_model("initial-exec")));

/* The calling thread's record, set up on first use. 0 or -errno. */
int pmu__thr_get(struct pmu__thr **t);

/* The calling thread is done (at exit): its set is closed as if it exited. */
void pmu__thr_exit_self(void);

/*
 * After pmu_read() of *t's set failed with err: in a forked child, frees
 * every record, sets *t to a fresh one and reads it into values (returning
 * 0), or returns 1 without reading when values is NULL (the caller's buffer
 * was in the old record); else returns err.
 */
int pmu__thr_read_slow(struct pmu__thr **t, uint64_t *values, int err);

static inline int pmu__thr_current(struct pmu__thr **t)
{
	*t = pmu__self;
	if (likely(*t && pmu__self_gen == __atomic_load_n(&pmu__tgen, __ATOMIC_RELAXED)))
		return 0;
	return pmu__thr_get(t);
}

static inline int pmu__thr_read(struct pmu__thr **t, uint64_t *values)
{
	int r = pmu_read((*t)->set, values);

	return likely(r == 0) ? 0 : pmu__thr_read_slow(t, values, r);
}

/*
 * Walking the records, oldest first: pmu__thr_walk_begin() takes the
 * layer's lock and returns the configuration (NULL when the layer is not
 * set up, the lock taken all the same), pmu__thr_walk_next(NULL) the first
 * record, pmu__thr_walk_end() lets go. What they return stays valid until then.
 */
const struct pmu__tconf *pmu__thr_walk_begin(void);
struct pmu__thr *pmu__thr_walk_next(const struct pmu__thr *t);
void pmu__thr_walk_end(void);

/*
 * A layer built on this one (regions) keeps state of its own across fork:
 * prepare runs before the fork (before this layer's lock is taken), parent
 * and child after it; child(true) in a child made by a raw fork system
 * call, whose locks may be held by threads that are not there. fini runs
 * at the end of pmu_thread_fini(), when every record is gone.
 */
struct pmu__thr_hooks {
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(bool raw);
	void (*fini)(void);
};
void pmu__thr_set_hooks(const struct pmu__thr_hooks *h);

#endif
