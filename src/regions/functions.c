/* SPDX-License-Identifier: MIT */
/*
 * Every function as a region, without edits. A program built with GCC's or
 * Clang's -finstrument-functions calls __cyg_profile_func_enter() and
 * __cyg_profile_func_exit() around each function; glibc's do nothing, and
 * these, which a link with the library or its preload puts first, make each
 * function a region of its call path while the per-thread layer is set up.
 *
 * - Names come from the symbol table, once per function (fn_names.c), and
 *   PMU_FUNCTIONS filters them: "*,-std::*" (include, then -exclude, by
 *   fnmatch), "off" for none.
 * - The overhead budget: over a function's first PMU_FN_TRIAL calls its time
 *   and its pairs' are measured; one whose pair costs more than
 *   PMU_FUNCTIONS_BUDGET percent (default 5) of its time is counted no
 *   further, its calls then in its caller's figures, and the reports list it.
 * - A shadow stack per thread pairs exits with enters: exits lost to longjmp
 *   or an exception are repaired at the next exit of a function below them,
 *   and regions by name begun in a function and still open at its exit (the
 *   two interleave) are ended there, said once.
 * The hooks never re-enter themselves (busy), and do nothing in a thread
 * until the per-thread layer is set up.
 */
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin.h"
#include "regions/functions.h"
#include "regions/region.h"
#include "regions/thread.h"

#define FN_BUCKETS 4096		/* the table of functions seen, chained */
#define FN_CACHE 256		/* per thread: address -> function, direct-mapped */
#define FN_STACK 1024		/* per thread: the functions open; deeper ones are only counted as deep */

struct fn {
	struct fn *next;
	void *addr;
	int h;			/* its region's handle; 0: not counted (PMU_FUNCTIONS, no name) */
	int cut;		/* atomic: counted no further (the budget) */
	int skip;		/* atomic: not counted, for the hot hooks: cut, or no handle */
	uint64_t gen;		/* atomic, release: the per-thread layer's generation h (and skip) are of */
	uint64_t calls;		/* atomic: calls seen */
	uint64_t ntrial, trial_ns, trial_pair;	/* atomic: the first calls' count, time and pairs' time */
};

struct frame {
	void *fn;
	struct fn *f;
	uint64_t gen, t0, pair;	/* t0, pair: a trial call's time after its enter, and the enter's cost */
	int counted;		/* 0 no, 1 yes, 2 a trial call */
};

struct fthr {
	unsigned busy;		/* in a hook: one called from inside it (a print hook, a signal) does nothing */
	unsigned depth;
	uint64_t deep;		/* enters past FN_STACK, not tracked */
	struct fn *cache[FN_CACHE];	/* by address: the record, whose addr says whether it is fn's */
	struct frame st[FN_STACK];
};

static __thread struct fthr *ft __attribute__((tls_model("initial-exec")));
static pthread_mutex_t flock = PTHREAD_MUTEX_INITIALIZER;	/* the table's inserts, the names */
static struct fn *tab[FN_BUCKETS];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int off, said_deep, said_lost, said_mixed;
static double budget = 0.05;
static char *spec;		/* PMU_FUNCTIONS, or NULL: every function */

static void fthr_free(void *p)
{
	ft = NULL;
	free(p);
}

/* A child's lock is free: the thread that held it at fork() is not there. */
static void child(void)
{
	pthread_mutex_init(&flock, NULL);
}

static void init(void)
{
	const char *s = pmu__getenv("PMU_FUNCTIONS"), *b = pmu__getenv("PMU_FUNCTIONS_BUDGET");
	char *end;

	off = (s && (!*s || !strcmp(s, "off") || !strcmp(s, "0"))) || pthread_key_create(&key, fthr_free) != 0 ||
	      pthread_atfork(NULL, NULL, child) != 0;
	spec = s && *s && !off ? strdup(s) : NULL;
	if (b && *b) {
		double v = strtod(b, &end);

		if (*end || !(v >= 0 && v <= 100))
			pmu__print(PMU_PRINT_WARN, "PMU_FUNCTIONS_BUDGET=%.32s: not a percentage from 0 to 100; "
				   "5 kept\n", b);
		else
			budget = v / 100;
	}
}

static struct fthr *fthr_new(void)
{
	struct fthr *t;

	pthread_once(&once, init);
	if (off || !(t = calloc(1, sizeof(*t))))
		return NULL;
	pthread_setspecific(key, t);
	return ft = t;
}

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether PMU_FUNCTIONS counts name: some include matches (or none is given), and no -exclude. */
static int wanted(const char *name)
{
	char pat[256];
	int inc = 0, any = 0;

	for (const char *p = spec; p && *p;) {
		size_t n = strcspn(p, ",");

		if (n && n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = '\0';
			if (pat[0] == '-' && !fnmatch(pat + 1, name, 0))
				return 0;
			any |= pat[0] != '-';
			inc |= pat[0] != '-' && !fnmatch(pat, name, 0);
		}
		p += n + (p[n] == ',');
	}
	return inc || !any;
}

/* fn's record, made on its first call in the process (its name resolved, its region registered); NULL out of memory. */
static struct fn *fn_add(void *fn, unsigned b, uint64_t gen)
{
	char name[PMU_REGION_NAME + 32];
	struct fn *f;
	int cs = pmu__lock(&flock);	/* cancellation off: the symbol table's file is read */

	for (f = tab[b]; f && f->addr != fn; f = f->next)
		;
	if (!f && (f = calloc(1, sizeof(*f)))) {
		f->addr = fn;
		PMU_WRITE_ONCE(f->gen, gen - 1);
		f->next = tab[b];
		PMU_STORE_RELEASE(tab[b], f);
	}
	if (f && PMU_READ_ONCE(f->gen) != gen) {	/* new, or registered before pmu_thread_fini() forgot the names */
		pmu__fn_name(fn, name, sizeof(name));
		f->h = wanted(name) ? pmu_region_register(name) : 0;
		f->h = f->h > 0 ? f->h : 0;
		PMU_WRITE_ONCE(f->skip, !f->h || PMU_READ_ONCE(f->cut));
		PMU_STORE_RELEASE(f->gen, gen);	/* h and skip before it, for the hooks that read them without the lock */
	}
	pmu__unlock(&flock, cs);
	return f;
}

static struct fn *lookup(struct fthr *t, void *fn, uint64_t gen)
{
	unsigned c = ((uintptr_t)fn >> 4) & (FN_CACHE - 1), b = ((uintptr_t)fn >> 4) & (FN_BUCKETS - 1);
	struct fn *f = t->cache[c];

	if (f && f->addr == fn && PMU_LOAD_ACQUIRE(f->gen) == gen)
		return f;
	for (f = PMU_LOAD_ACQUIRE(tab[b]); f && f->addr != fn; f = f->next)
		;
	if (!f || PMU_LOAD_ACQUIRE(f->gen) != gen)
		f = fn_add(fn, b, gen);
	if (f)
		t->cache[c] = f;
	return f;
}

/* fn's record in t's cache when it is fn's and of this generation, and not counted (the budget, PMU_FUNCTIONS). */
static inline struct fn *skipped(const struct fthr *t, void *fn)
{
	struct fn *f = t->cache[((uintptr_t)fn >> 4) & (FN_CACHE - 1)];

	if (f && f->addr == fn && PMU_LOAD_ACQUIRE(f->gen) == PMU_READ_ONCE(pmu__tgen) && PMU_READ_ONCE(f->skip))
		return f;
	return NULL;
}

/* A trial call of f ended: its time and its pair's; at the last, whether f stays counted. */
static void trial(struct fn *f, uint64_t ns, uint64_t pair)
{
	PMU_ADD(f->trial_ns, ns);
	PMU_ADD(f->trial_pair, pair);
	if (PMU_ADD(f->ntrial, 1) != PMU_FN_TRIAL || budget <= 0)
		return;
	if ((double)PMU_READ_ONCE(f->trial_pair) >
	    budget * (double)PMU_READ_ONCE(f->trial_ns))
		PMU_WRITE_ONCE(f->cut, 1), PMU_WRITE_ONCE(f->skip, 1);
}

static void enter(struct fthr *t, void *fn)
{
	uint64_t gen = PMU_READ_ONCE(pmu__tgen), t0;
	struct frame *fr;
	struct fn *f;

	f = lookup(t, fn, gen);
	if (!f || PMU_READ_ONCE(f->skip))	/* no frame: its exit finds none */
		goto seen;
	if (t->depth == FN_STACK) {
		t->deep++;
		return;
	}
	fr = &t->st[t->depth++];
	*fr = (struct frame){ .fn = fn, .f = f, .gen = gen };
	if (PMU_READ_ONCE(f->calls) >= PMU_FN_TRIAL) {
		fr->counted = pmu_region_enter(f->h) == 0;
	} else {
		t0 = now();
		fr->counted = pmu_region_enter(f->h) == 0 ? 2 : 0;
		fr->t0 = now();
		fr->pair = fr->t0 - t0;
	}
	if (!fr->counted && PMU_ONCE(said_deep))
		pmu__print(PMU_PRINT_INFO, "%s: not counted (%s); its figures go to the function around it\n",
			   pmu__region_name((unsigned)f->h), pmu_errmsg());
seen:
	if (f)
		PMU_ADD(f->calls, 1);
}

static void end(struct frame *fr)
{
	uint64_t t1 = fr->counted == 2 ? now() : 0;

	if (!fr->counted || fr->gen != PMU_READ_ONCE(pmu__tgen))	/* or counted before a fini or a fork */
		return;
	if (pmu_region_exit(fr->f->h) < 0 && pmu__region_unwind(fr->f->h) > 0) {
		if (PMU_ONCE(said_mixed))
			pmu__print(PMU_PRINT_INFO, "%s: a region by name begun in it is still open at its exit "
				   "(regions by name and -finstrument-functions interleave): ended there, and "
				   "its pmu_region_end() later refused\n", pmu__region_name((unsigned)fr->f->h));
		if (pmu_region_exit(fr->f->h) < 0)
			return;
	}
	if (fr->counted == 2)
		trial(fr->f, t1 - fr->t0, fr->pair + now() - t1);
}

static void leave(struct fthr *t, void *fn)
{
	unsigned k = t->depth;

	if (skipped(t, fn) && !(k && t->st[k - 1].fn == fn))	/* no frame, nor counted as deep */
		return;
	if (t->deep) {
		t->deep--;
		return;
	}
	while (k > 0 && t->st[k - 1].fn != fn)
		k--;
	if (k == 0)	/* no enter: the hooks began inside it */
		return;
	if (t->depth > k && PMU_ONCE(said_lost))
		pmu__print(PMU_PRINT_INFO, "%u function exits lost (longjmp or an exception) ended at the exit of a "
			   "function they ran in\n", t->depth - k);
	while (t->depth >= k)
		end(&t->st[--t->depth]);
}

static __attribute__((noinline)) void enter_slow(void *fn)
{
	struct fthr *t = ft;

	if (!PMU_READ_ONCE(pmu__thr_on) || (t && t->busy) || (!t && !(t = fthr_new())))
		return;
	PMU_WRITE_ONCE(t->busy, 1);
	enter(t, fn);
	PMU_WRITE_ONCE(t->busy, 0);
}

static __attribute__((noinline)) void exit_slow(void *fn)
{
	struct fthr *t = ft;

	if (!t || t->busy)
		return;
	PMU_WRITE_ONCE(t->busy, 1);
	leave(t, fn);
	PMU_WRITE_ONCE(t->busy, 0);
}

/*
 * The usual case, a function seen before that is not counted: its call
 * counted, and no frame, nor a call (so no stack frame); the rest in
 * enter_slow(). Its exit, the same.
 */
PMU_PLUGIN void pmu__fn_enter(void *fn, void *site)
{
	struct fthr *t = ft;
	struct fn *f;

	(void)site;
	if (unlikely(!t || t->busy || !PMU_READ_ONCE(pmu__thr_on) || !(f = skipped(t, fn))))
		return enter_slow(fn);
	PMU_ADD(f->calls, 1);
}

/* A function not counted has no frame, but one of its calls begun before its budget cut it has: the slow path's. */
PMU_PLUGIN void pmu__fn_exit(void *fn, void *site)
{
	struct fthr *t = ft;

	(void)site;
	if (unlikely(!t || t->busy || !skipped(t, fn) ||
		     (t->depth && t->st[t->depth - 1].fn == fn)))
		return exit_slow(fn);
}

/* For programs linked with the library (or its archive), which bind to these. */
PMU_API void __cyg_profile_func_enter(void *fn, void *site) __attribute__((alias("pmu__fn_enter")));
PMU_API void __cyg_profile_func_exit(void *fn, void *site) __attribute__((alias("pmu__fn_exit")));

double pmu__fn_budget(void)
{
	return budget;
}

unsigned pmu__fn_cuts(void (*each)(const struct pmu__fn_cut *c, void *arg), void *arg)
{
	unsigned n = 0;

	for (unsigned b = 0; b < FN_BUCKETS; b++)
		for (struct fn *f = PMU_LOAD_ACQUIRE(tab[b]); f; f = f->next) {
			struct pmu__fn_cut c;

			if (!PMU_READ_ONCE(f->cut) || PMU_LOAD_ACQUIRE(f->gen) != PMU_READ_ONCE(pmu__tgen))
				continue;
			c.name = pmu__region_name((unsigned)f->h);
			c.seen = PMU_READ_ONCE(f->calls);
			c.pair_ns = (double)PMU_READ_ONCE(f->trial_pair) / PMU_FN_TRIAL;
			c.fn_ns = (double)PMU_READ_ONCE(f->trial_ns) / PMU_FN_TRIAL;
			n++;
			if (each)
				each(&c, arg);
		}
	return n;
}
