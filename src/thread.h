/* SPDX-License-Identifier: MIT */
/* The per-thread layer's state, shared by thread.c, region.c and report.c. */
#ifndef PMU_THREAD_H
#define PMU_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

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
};

/* What a thread has accumulated for one region; written by its owner only. */
struct pmu__acc {
	uint64_t calls;
	uint64_t ns;
	unsigned depth;		/* instances open now (recursion); owner-only */
	uint64_t v[];		/* n event sums */
};

/* An interned region name: never freed while the process lives. */
struct pmu__rname {
	unsigned id;
	char name[];
};

struct pmu__thr {
	struct pmu__thr *prev, *next;	/* pmu__tlist, under pmu__tlock */
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
	unsigned stk_id[PMU_REGION_DEPTH];
	const char *stk_p[PMU_REGION_DEPTH];	/* the name pointer given to begin */
	uint64_t stk_t0[PMU_REGION_DEPTH];
	struct pmu__acc *acc[PMU_REGION_MAX];	/* published with release, read with acquire */
	uint64_t *scratch;		/* n values, for end */
	uint64_t stk_v[];		/* PMU_REGION_DEPTH * n start values */
};

/* thread.c */
extern pthread_mutex_t pmu__tlock;	/* the thread list, the configuration */
extern struct pmu__thr *pmu__tlist;	/* oldest first */
extern struct pmu__tconf *pmu__tconf;
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

/* region.c */
extern pthread_mutex_t pmu__names_lock;	/* interning a new region name */
extern unsigned pmu__nregions;		/* atomic */
const struct pmu__rname *pmu__region_byid(unsigned id);
/* Ends every open region of the calling thread down to depth 0 (zero-code exit). */
int pmu__region_end_all(void);

/*
 * A report reads what owner threads write, under the thread's seqcount.
 * Release stores and acquire loads of the figures order them after the odd
 * seqcount and before the re-check, without fences (which TSan does not
 * model); on x86 they are plain moves.
 */
#define PMU_FIG_ST(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define PMU_FIG_LD(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)

#endif
