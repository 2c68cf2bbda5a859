/* SPDX-License-Identifier: MIT */
/* What every library file needs: export and branch hints, and the error message (error.c). */
#ifndef PMU_INTERNAL_H
#define PMU_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <linux/perf_event.h>

#include "pmu.h"
#include "plugin.h"	/* the private calls, for the plugins */
#include "base/atomic.h"	/* the one vocabulary of concurrency */

#define PMU_API __attribute__((visibility("default")))
/* Exported for the plugins alone, in a node named by the exact version (src/plugin.h lists each). */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PMU_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/*
 * Unroll the next loop where its count is a constant (the callers that
 * specialise it), which GCC does not by itself past a large asm. Not with
 * clang, which warns of every copy whose count is not constant.
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define PMU_UNROLL _Pragma("GCC unroll 8")
#else
#define PMU_UNROLL
#endif

/* CLOCK_MONOTONIC in ns: the regions' clock where the set has none, and the trace's reference. */
static inline uint64_t pmu__mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Room for one more element in *arr, an array of n elements of size bytes
 * that grows by this alone (from NULL and 0): its capacity, 8 and then
 * doubled whenever n reaches it, is never stored, and n appends cost O(n)
 * copies. 0, or -ENOMEM with *arr as it was (no message).
 */
static inline int pmu__grow(void *arr, size_t n, size_t size)
{
	void **p = arr, *q;
	size_t bytes;

	if (n && (n < 8 || (n & (n - 1))))
		return 0;	/* below the capacity */
	if (__builtin_mul_overflow(n ? 2 * n : 8, size, &bytes) || !(q = realloc(*p, bytes)))
		return -ENOMEM;
	*p = q;
	return 0;
}

/*
 * The rule of every lock of the library and its plugins: no cancellation
 * point while it is held (open, read, write, close, fopen, usleep...), or a
 * thread cancelled there would leave it held and every later call waiting.
 * pmu__lock() disables cancellation before it takes the lock, pmu__unlock()
 * restores it after: a cancel that came meanwhile acts at the caller's next
 * cancellation point. pmu__nocancel()/pmu__cancel_restore() do the same
 * for a section that holds no lock but must not be left half done.
 */
static inline int pmu__nocancel(void)
{
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

static inline void pmu__cancel_restore(int old)
{
	pthread_setcancelstate(old, &old);
}

static inline int pmu__lock(pthread_mutex_t *m)
{
	int old = pmu__nocancel();

	pthread_mutex_lock(m);
	return old;
}

static inline void pmu__unlock(pthread_mutex_t *m, int old)
{
	pthread_mutex_unlock(m);
	pmu__cancel_restore(old);
}

/* expr's value, evaluated with cancellation deferred: what it opens, it closes, whatever comes. */
#define PMU_NOCANCEL(expr) ({ \
	int cs_ = pmu__nocancel(); \
	__typeof__(expr) r_ = (expr); \
	pmu__cancel_restore(cs_); \
	r_; \
})

/*
 * error.c: sets this thread's message and returns err; a -errno also sets
 * errno, so that every call that fails says so both ways. An argument may
 * be pmu_errmsg() itself (a new head on the message). A message longer
 * than PMU_MSG_SIZE - 1 bytes is cut at a word's end, marked " [...]".
 */
#define PMU_MSG_SIZE 512
/* Appends to this thread's message (e.g. a hint after a callee's message). */
void pmu__err_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pmu__err_clear(void);
/*
 * A message of the library's own, not a call's failure (a variable it
 * ignores, calls it could not trace), one line ending in '\n': through the
 * caller's pmu_set_print() function, stderr unless set, none when NULL.
 * errno is kept, and cancellation waits until it is said.
 */
void pmu__print(enum pmu_print_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * env.c: the environment variable name, or NULL in a privileged program
 * (AT_SECURE: setuid, setgid, file capabilities), whose environment is the
 * unprivileged caller's. Every variable the library reads goes through here.
 */
const char *pmu__getenv(const char *name);
/* Whether this process runs with AT_SECURE. */
bool pmu__secure(void);
/*
 * A switch in the environment, name=1 on, 0 or unset or empty off; another
 * value is said once (*said) on standard error, with what off means, and off.
 */
bool pmu__env_switch(const char *name, bool *said, const char *off);

/*
 * error.c: the size rule of every struct a caller sizes (struct pmu_opts,
 * the results structs): size from first (the first published struct's
 * fields) up; past known (this library's struct) only zero bytes (check_tail,
 * for a struct the library reads) and never past PMU_SIZE_MAX. 0 or -errno,
 * the message saying what to set.
 */
#define PMU_SIZE_MAX 4096
int pmu__check_size(const char *who, const char *what, const void *p, size_t size, size_t first,
		    size_t known, int check_tail);

/* struct pmu_opts as 0.1 to 0.4 published it: its fields up to flags. */
#define PMU_OPTS_SIZE_0_1 (offsetof(struct pmu_opts, flags) + sizeof(unsigned))
_Static_assert(sizeof(struct pmu_opts) == offsetof(struct pmu_opts, unused) + sizeof(unsigned),
	       "struct pmu_opts has padding a new field could land in");

#endif
