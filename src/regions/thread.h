/* SPDX-License-Identifier: MIT */
/*
 * The per-thread layer: a record per thread (thread.c) holding its set, and
 * a pointer to the record the layer above keeps for the thread (regions).
 */
#ifndef PMU_THREAD_H
#define PMU_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/internal.h"

/* An event's unit (pmu_unit()), and whether it counts socket-wide (PMU_SOCKET_WIDE). */
struct pmu__evunit {
	char unit[16];
	double scale;
	bool socket;
	bool emulated;		/* counted by emulation (libpmu-qemu, libpmu-valgrind), not by a PMU */
};

/* The events every thread counts; fixed between pmu_thread_init() and pmu_thread_fini(). */
struct pmu__tconf {
	char *events;		/* as given to pmu_thread_init() */
	char *spec;		/* the events opened: metric and group names expanded (metric_use.h) */
	char *metrics;		/* the metrics named, ','-separated, or NULL */
	unsigned n;
	char **names;
	struct pmu__evunit *units;	/* per event */
	char *skipped;		/* events left out by pmu__thread_init_avail(): "name\treason\n" lines, or NULL */
	struct timespec start;	/* CLOCK_REALTIME at pmu_thread_init(): the reports' start time */
};

/* The next event left out of p ("name\treason\n" lines, as skipped holds them), copied out; NULL at the end. */
const char *pmu__skipped_next(const char *p, char *name, size_t nsize, char *why, size_t wsize);

struct pmu__thr {
	struct pmu__thr *prev, *next;	/* thread.c's list, under its lock */
	struct pmu__thr *lprev, *lnext;	/* its list of the threads alive (not exited), under the lock */
	struct pmu_set *set;		/* NULL once the thread exited */
	unsigned n;
	pid_t tid;
	char tname[16];
	int exited;			/* atomic: the thread is gone, its record stays (keep) */
	bool keep;			/* atomic: the layer above keeps the record after exit */
	/*
	 * The layer above's own record for this thread (regions), or NULL: set
	 * by the owner thread with release, read with acquire, freed through
	 * the hooks' drop when this record goes.
	 */
	void *upper;
	struct pmu__tls *tls;		/* the thread's, while it lives (not exited) */
};

/* thread.c */
/* atomic: 1 while the per-thread layer is set up (pmu_thread_init() to pmu_thread_fini()) */
extern int pmu__thr_on __attribute__((visibility("hidden")));
/* atomic: bumped when every record becomes invalid; hidden, so addressed without the GOT */
extern uint64_t pmu__tgen __attribute__((visibility("hidden")));
/*
 * The calling thread's record (thr), valid while gen equals pmu__tgen
 * (never otherwise, for gen is 0 whenever thr is NULL), and the layer
 * above's for it (upper, a copy of thr->upper): NULL whenever thr is not
 * valid, for every bump of pmu__tgen clears it first in each live thread,
 * so that a region's hot path checks one pointer.
 */
struct pmu__tls {
	void *upper;		/* first: arm64 loads it from the thread pointer and the offset in one instruction */
	uint64_t gen;
	struct pmu__thr *thr;
	uint64_t refused;	/* gen + 1: this thread was refused a set (descriptors, memory), retrying (thread.c) */
	uint64_t refused_ns;	/* when this refusal began (CLOCK_MONOTONIC) */
	uint64_t retry_ns;	/* the next try is due then, */
	uint32_t uncounted;	/* or after PMU_RETRY_CALLS such calls, which went uncounted since the last try */
	int refused_err;	/* -errno of the refusal */
};
extern __thread struct pmu__tls pmu__tls __attribute__((tls_model("initial-exec"), visibility("hidden")));

/*
 * The layer above's record for the calling thread, whose record is t: kept
 * in t and copied into the thread's TLS, so that the layer's hot paths load
 * one pointer (pmu__thr_upper_self()) where t's would cost a generation
 * check and two more loads at each begin and end.
 */
static inline void pmu__thr_set_upper(struct pmu__thr *t, void *upper)
{
	PMU_STORE_RELEASE(t->upper, upper);
	PMU_WRITE_ONCE(pmu__tls.upper, upper);	/* another thread clears it, under the layer's lock */
}

/* The calling thread's upper record while its record is valid, else NULL. */
static inline __attribute__((always_inline)) void *pmu__thr_upper_self(void)
{
	return PMU_READ_ONCE(pmu__tls.upper);
}

/* pmu__tgen now: one instruction, by offset. */
static inline __attribute__((always_inline)) uint64_t pmu__tgen_now(void)
{
	return PMU_READ_ONCE(pmu__tgen);
}

/* The calling thread's record, set up on first use. 0 or -errno. */
int pmu__thr_get(struct pmu__thr **t);

/*
 * A thread refused its set, for want of file descriptors or memory, counts nothing until a try
 * succeeds: it tries again at its first call after PMU_RETRY_CALLS refused calls or PMU_RETRY_MS
 * milliseconds, whichever comes first.
 */
#define PMU_RETRY_CALLS 64
#define PMU_RETRY_MS 100

/* The refusals since set-up, for the reports, with the ids of the first PMU_REFUSED_TIDS threads. */
#define PMU_REFUSED_TIDS 8
struct pmu__refusals {
	unsigned threads;	/* threads refused at least once */
	unsigned again;		/* of them, those counting again since */
	uint64_t calls;		/* their calls that went uncounted, as of each one's last try */
	uint64_t longest_ms;	/* the longest a thread went uncounted, to its last try */
	pid_t tids[PMU_REFUSED_TIDS];	/* the first threads refused */
	char why[200];		/* the first one's reason */
};
void pmu__thr_refusals(struct pmu__refusals *out);
/* n in words (numbers only, nothing to escape), for the reports' tables and pages. */
void pmu__thr_refusal_words(const struct pmu__refusals *n, char *buf, size_t size);

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
	*t = pmu__tls.thr;
	if (likely(pmu__tls.gen == pmu__tgen_now()))
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
 * at the end of pmu_thread_fini(), when every record is gone. drop frees a
 * record's upper part as the record goes (fini, fork, an exit without
 * keep); fold adds a kept record's into the record of the exited threads
 * past PMU_KEEP_EXITED (thread.c), whose own goes with it. The layer sets
 * the hooks before it sets any upper part.
 */
struct pmu__thr_hooks {
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(bool raw);
	void (*fini)(void);
	void (*drop)(void *upper);
	/* Adds an exited thread's record above (from, of n events) into *into, made when NULL: 0 or -ENOMEM. */
	int (*fold)(void **into, void *from, unsigned n);
};
void pmu__thr_set_hooks(const struct pmu__thr_hooks *h);

#endif
