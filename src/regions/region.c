/* SPDX-License-Identifier: MIT */
/*
 * Regions: named spans of a thread's execution, measured by reading the
 * thread's counters at begin and end and adding the difference to the
 * thread's sums for that name.
 *
 * Names are interned once per process until pmu_thread_fini() (a table
 * searched without a lock, appended under names_lock) and cached per
 * thread by pointer, so that begin/end with a string literal costs a
 * pointer compare and a short strcmp (which keeps a reused buffer holding
 * another name correct).
 *
 * Each thread's figures are in a record of this layer's own (struct
 * pmu__region_thr), made on the thread's first begin and hung on its
 * per-thread record, which frees it through the hooks below. The counters
 * are read through the set layer's functions (set.h), never its fields.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sched.h>

#include "counters/readpage.h"	/* pmu__scale() */
#include "regions/region_int.h"
#include "regions/trace.h"
#include "counters/set.h"
#include "counters/set_ops.h"	/* pmu__read_group_times() */

/* ---- How the end paths add a call to a region's figures (sum, min, max, sum of squares, times), under its seqcount ---- */

/* PMU_TIMES_FULL: each event's enabled times read at slot (a depth, or PMU_REGION_DEPTH at end); running follow. */
static inline uint64_t *times_at(struct pmu__region_thr *t, unsigned slot)
{
	return &t->tm[slot * t->n];
}

/*
 * Stores the sum of squares (16-aligned): outside TSan a plain store, which
 * the compiler makes one store pair with no copy between registers (a
 * volatile one costs two). Inside the seqcount's write, as every figure's.
 */
#ifdef PMU_TSAN
#define PMU_FIG_ST128(p, v) (PMU_SEQ_ST((p)[0], (uint64_t)(v)), PMU_SEQ_ST((p)[1], (uint64_t)((v) >> 64)))
#else
typedef unsigned __int128 __attribute__((may_alias)) pmu__u128;
#define PMU_FIG_ST128(p, v) (*(pmu__u128 *)(void *)(p) = (v))
#endif

/* Adds x, one outermost call's figure, to f: no first call differs (min starts at UINT64_MAX, max at 0). */
static inline __attribute__((always_inline)) void fig_add(struct pmu__fig *f, uint64_t x)
{
	uint64_t sum = f->sum, min = f->min, max = f->max;	/* the owner's: plain loads */
	unsigned __int128 sq = (unsigned __int128)f->sq[1] << 64 | f->sq[0];

	PMU_SEQ_ST(f->sum, sum + x);
	/* Stored only when they change, which few calls do. */
	if (unlikely(x < min))
		PMU_SEQ_ST(f->min, x);
	if (unlikely(x > max))
		PMU_SEQ_ST(f->max, x);
	PMU_FIG_ST128(f->sq, sq + (unsigned __int128)x * x);
}

/* Adds each event's times of the call begun at depth d to a's events. */
static __attribute__((noinline)) void add_times(struct pmu__region_thr *t, struct pmu__acc *a, unsigned d)
{
	unsigned n = t->n;
	const uint64_t *e0 = times_at(t, d), *r0 = e0 + (PMU_REGION_DEPTH + 1) * n;
	const uint64_t *e1 = times_at(t, PMU_REGION_DEPTH), *r1 = e1 + (PMU_REGION_DEPTH + 1) * n;

	for (unsigned i = 0; i < n; i++) {
		PMU_SEQ_ST(a->f[1 + i].en, a->f[1 + i].en + (e1[i] - e0[i]));
		PMU_SEQ_ST(a->f[1 + i].run, a->f[1 + i].run + (r1[i] - r0[i]));
	}
}

/*
 * The figures' protocol. Each region's figures (struct pmu__acc) are written
 * by their thread alone, inside their seqcount (base/atomic.h): one write a
 * call, so the count is twice the calls. A report copies them
 * (region_copy.c) between two looks at every region's count. An owner that
 * adds calls faster than a copy is made would starve it: after a few tries
 * the report raises the thread's hold, and the owner waits at its next
 * write's start until the hold falls again (it finishes at most the write
 * it is in).
 */

/* While a report holds the thread's figures (it could not copy them otherwise): wait. */
static __attribute__((noinline, cold)) void hold_wait(const struct pmu__region_thr *t)
{
	while (PMU_LOAD_ACQUIRE(t->hold))
		sched_yield();
}

/* Opens a's seqcount for an update (odd), once no report holds t's figures; its value before. */
static inline __attribute__((always_inline)) uint64_t fig_open(const struct pmu__region_thr *t, struct pmu__acc *a)
{
	if (unlikely(PMU_READ_ONCE(t->hold)))
		hold_wait(t);
	return pmu_seq_write_begin(&a->seq);
}

/* Closes it again, the update published: one call more. */
static inline __attribute__((always_inline)) void fig_close(struct pmu__acc *a, uint64_t seq)
{
	pmu_seq_write_end(&a->seq, seq);
}

/*
 * Leaves out of the call of frame fr (ns long, values v1 at its end) what
 * the k pairs (by name, by handle) ended inside it cost: each figure less
 * their cost, or 0 where that would be below 0 (then true: clamped).
 */
static __attribute__((noinline)) bool comp_apply(const struct pmu__region_thr *t, const struct pmu__frame *fr,
						 uint64_t *ns, uint64_t *v1, const uint64_t k[2])
{
	const uint64_t *c = t->comp->cost;
	unsigned n = t->n;
	bool clamped = false;

	for (unsigned i = 0; i <= n; i++) {
		uint64_t x = i ? pmu__ev_delta(fr->v[i - 1], v1[i - 1]) : *ns;
		unsigned __int128 less = ((unsigned __int128)k[0] * c[i] + (unsigned __int128)k[1] * c[n + 1 + i]) >>
					 PMU_COMP_SHIFT;

		clamped |= less > x;
		x = less > x ? 0 : x - (uint64_t)less;
		if (i)
			v1[i - 1] = fr->v[i - 1] + x;
		else
			*ns = x;
	}
	return clamped;
}

/*
 * Closes t's top frame fr, a call ns long with the values v1 (t->scratch)
 * at its end, ended by kind (PMU_END_*), adding it to its region's figures
 * under their seqcount; with_times: t->times may want times (not on the
 * one-sequence read, see push()); hist: into its histograms too (t->hist).
 * Each a constant: the usual end, which inlines this, carries no histogram
 * code (it cost 17 user instructions a pair on x86's read(2) path).
 */
static inline __attribute__((always_inline)) void add_call(struct pmu__region_thr *t, struct pmu__frame *fr,
							   uint64_t ns, uint64_t *v1, unsigned n, bool with_times,
							   unsigned kind, bool hist)
{
	struct pmu__acc *a = fr->a;
	unsigned d = depth_of(t) - 1;	/* fr's */
	uint64_t k[2];
	bool clamped = false;

	if (unlikely(t->comp_on)) {
		pmu__comp_pop(t->comp, d, kind, k);
		if (k[0] | k[1])
			clamped = comp_apply(t, fr, &ns, v1, k);
	}

	/*
	 * A region nested in itself counts every call, but its time and events
	 * over the outermost one: that is the call its per-call figures are of.
	 */
	if (likely(--a->depth == 0)) {
		uint64_t seq = fig_open(t, a);

		fig_add(&a->f[0], ns);
		for (unsigned i = 0; i < n; i++)
			fig_add(&a->f[1 + i], pmu__ev_delta(fr->v[i], v1[i]));
		if (unlikely(clamped))
			PMU_SEQ_ST(a->clamped, a->clamped + 1);
		if (hist && a->h)
			pmu__hblk_add(a->h, n, ns, fr->v, v1);
		/*
		 * One group's times are every event's: they go to figure 0's
		 * (ns has none of its own), taken from the thread's first begin
		 * on. Each event's start when multiplexing is first seen: a call
		 * begun before (below times_from) has none.
		 */
		if (!with_times) {
		} else if (t->times == PMU_TIMES_GROUP) {
			PMU_SEQ_ST(a->f[0].en, a->f[0].en + (t->grp_en[PMU_REGION_DEPTH] - t->grp_en[d]));
			PMU_SEQ_ST(a->f[0].run, a->f[0].run + (t->grp_run[PMU_REGION_DEPTH] - t->grp_run[d]));
		} else if (unlikely(t->times == PMU_TIMES_FULL) && d >= t->times_from) {
			add_times(t, a, d);
		}
		fig_close(a, seq);
		if (unlikely(t->trace != NULL))
			pmu__trace_add(t, fr, ns, v1, n);
	} else {
		uint64_t seq = fig_open(t, a);

		PMU_SEQ_ST(a->nested, a->nested + 1);
		fig_close(a, seq);
	}
	if (with_times && unlikely(d < t->times_from))	/* what begins at d from now on has times */
		t->times_from = d;
	t->sp = frame_down(fr, t->n);
}

/*
 * The usual call's update: the region not nested in itself, no report
 * holding the figures, no times; into its histograms too when hist (a
 * constant, and a->h set).
 */
static inline __attribute__((always_inline)) void hot_update(struct pmu__acc *a, const struct pmu__frame *fr,
							     uint64_t ns, const uint64_t *v1, unsigned n, bool hist)
{
	uint64_t seq = pmu_seq_write_begin(&a->seq);	/* no report holds the figures: add_call_hot() looked */

	fig_add(&a->f[0], ns);
	if (__builtin_constant_p(n)) {	/* 1 or 4 events: unrolled whole, the values kept in registers */
		PMU_UNROLL
		for (unsigned i = 0; i < n; i++)
			fig_add(&a->f[1 + i], pmu__ev_delta(fr->v[i], v1[i]));
	} else {
		for (unsigned i = 0; i < n; i++)
			fig_add(&a->f[1 + i], pmu__ev_delta(fr->v[i], v1[i]));
	}
	if (hist)
		pmu__hblk_add(a->h, n, ns, fr->v, v1);
	fig_close(a, seq);
	a->depth = 0;
}

/* add_call() of the one-sequence read's values (t->scratch), out of the traced usual call's way. */
static __attribute__((noinline)) int add_call_other(struct pmu__region_thr *t, struct pmu__frame *fr, uint64_t ns,
						    unsigned n, unsigned kind)
{
	if (t->hist)
		add_call(t, fr, ns, t->scratch, n, false, kind, true);
	else
		add_call(t, fr, ns, t->scratch, n, false, kind, false);
	return 0;
}

/* add_call_rare()'s usual call into its histograms: the update, with no other case in its frame. */
static __attribute__((noinline)) int add_call_hist_hot(struct pmu__region_thr *t, struct pmu__frame *fr, uint64_t ns,
						       unsigned n)
{
	hot_update(fr->a, fr, ns, t->scratch, n, true);
	t->sp = frame_down(fr, n);
	return 0;
}

/* add_call_rare()'s usual call traced: the update, then the call into the thread's timeline. */
static __attribute__((noinline)) int add_call_traced(struct pmu__region_thr *t, struct pmu__frame *fr, uint64_t ns,
						     unsigned n)
{
	hot_update(fr->a, fr, ns, t->scratch, n, false);
	if (t->trace)
		pmu__trace_add(t, fr, ns, t->scratch, n);
	t->sp = frame_down(fr, n);
	return 0;
}

/*
 * add_call() of the one-sequence read's values (t->scratch) when
 * add_call_hot() cannot: the usual call traced, or into its histograms, and
 * the rest, each a call of its own (inlined here, so that no case pays for
 * another's frame).
 */
static inline __attribute__((always_inline)) int add_call_rare(struct pmu__region_thr *t, struct pmu__frame *fr,
							       uint64_t ns, unsigned n, unsigned kind)
{
	struct pmu__acc *a = fr->a;

	if (t->comp_on || a->depth != 1 || PMU_READ_ONCE(t->hold) || (t->hist && t->trace))
		return add_call_other(t, fr, ns, n, kind);
	if (t->hist && a->h)
		return add_call_hist_hot(t, fr, ns, n);
	return add_call_traced(t, fr, ns, n);
}

/*
 * add_call() of the one-sequence read's values v1 (no times) in its usual
 * case, the region not nested in itself: then no call, and so no stack
 * frame. n: a constant where the caller knows it.
 */
static inline __attribute__((always_inline)) int add_call_hot(struct pmu__region_thr *t, struct pmu__frame *fr,
							      uint64_t ns, const uint64_t *v1, unsigned n,
							      unsigned kind)
{
	struct pmu__acc *a = fr->a;

	/* nested in itself, a report holds the figures (add_call() waits), traced or compensated: out of the way */
	if (unlikely(a->depth != 1 || PMU_READ_ONCE(t->hold) || t->rare)) {
		/* v1 may be registers (or t->scratch itself: no address compare, which would keep them in memory). */
		PMU_UNROLL
		for (unsigned i = 0; i < n; i++)
			t->scratch[i] = v1[i];
		return add_call_rare(t, fr, ns, n, kind);
	}
	hot_update(a, fr, ns, v1, n, false);
	t->sp = frame_down(fr, n);
	return 0;
}

/* A thread's record goes (pmu_thread_fini(), fork, an exit that keeps no figures). */
static void rec_drop(void *p)
{
	struct pmu__region_thr *r = p;

	pmu__nodes_free(r);
	free(r->scratch);
	free(r->rd);
	free(r->comp);
	pmu__trace_free(r->trace);
	free(r);
}

/*
 * The thread layer's fold: an exited thread's figures (from, n events) added
 * into the record of the folded threads (*into, made on the first), which
 * holds figures only. Reports copy both under the thread layer's lock, held
 * here: no seqcount is wanted. 0, or -ENOMEM.
 */
static int rec_fold(void **into, void *from, unsigned n)
{
	struct pmu__region_thr *d = *into, *s = from;
	struct pmu__acc **map = NULL;

	if (!d && (!(d = calloc(1, sizeof(*d))) || !(d->root = pmu__nodes_root(n)))) {
		free(d);
		return -ENOMEM;
	}
	d->n = n;
	d->used = true;
	*into = d;
	if (s && s->nodes && !(map = malloc(s->nodes * sizeof(*map))))
		return -ENOMEM;
	/* s's nodes by index: a node's up is before it, and mapped already */
	for (unsigned i = 0; s && i < s->nodes; i++) {
		const struct pmu__acc *a = s->accs->v[i];
		struct pmu__acc *up = a->up == s->root ? d->root : map[a->up->idx], *b = pmu__nodes_find(d, up, (unsigned)a->id);

		if ((!b && !(b = pmu__nodes_add(d, up, (unsigned)a->id, false))) || pmu__hblk_fold(&b->h, a->h, n) < 0) {
			free(map);
			return -ENOMEM;
		}
		map[i] = b;
		b->seq += a->seq;
		b->nested += a->nested;
		b->clamped += a->clamped;
		for (unsigned k = 0; k <= n; k++)
			pmu__fig_fold(&b->f[k], &a->f[k]);
	}
	free(map);
	if (s)
		pmu__trace_folded(s->trace);
	return 0;
}

/* pmu_thread_fini(): the names go, and the trace's count of the calls folded. */
static void region_fini(void)
{
	pmu__names_fini();
	pmu__trace_reset();
}

static const struct pmu__thr_hooks pmu__region_hooks = { pmu__names_prepare, pmu__names_parent, pmu__names_child,
						     region_fini, rec_drop, rec_fold };

/*
 * The calling thread's region record, made on its first begin. From the
 * first one on, the names have a state to keep across fork and the records
 * are to be freed: the hooks are set before the record is hung on t.
 */
static __attribute__((noinline)) struct pmu__region_thr *rec_new(struct pmu__thr *t)
{
	unsigned n = t->n, stride = (unsigned)(sizeof(struct pmu__frame) + n * sizeof(uint64_t));
	size_t stk = (size_t)stride * (PMU_REGION_DEPTH + 1);
	struct pmu__region_thr *r = calloc(1, sizeof(*r) + stk + 2 * (PMU_REGION_DEPTH + 1) * n * sizeof(uint64_t));

	if (!r || !(r->scratch = calloc((size_t)n + 1, sizeof(uint64_t))) ||
	    !(r->rd = calloc((size_t)n + 1, sizeof(*r->rd))) || !(r->root = pmu__nodes_root(n))) {
		if (r)
			rec_drop(r);
		return NULL;
	}
	for (unsigned i = 0; i < PMU_MEMO; i++)
		r->acc[i] = &pmu__node_none;
	r->n = n;
	r->set = t->set;
	r->tm = (uint64_t *)((char *)r->stk + stk);
	r->sp = (struct pmu__frame *)r->stk;
	r->sp->id = PMU_FRAME_NONE;	/* the sentinel */
	r->sp->a = r->root;
	r->lim = (struct pmu__frame *)((char *)r->stk + stk - stride);
	r->clk_page = pmu__set_has_clock(t->set);
	r->trace = pmu__trace_new(n, t->set, r->clk_page);
	r->hist = pmu__hist_wanted();
	pmu__region_rare(r);
	pmu__thr_set_hooks(&pmu__region_hooks);
	pmu__thr_set_upper(t, r);	/* t is the calling thread's */
	return r;
}

/*
 * The calling thread's region record, or NULL when none was made or it is
 * gone (the thread layer clears the pointer then, see pmu__tls).
 */
static inline __attribute__((always_inline)) struct pmu__region_thr *self_rec(void)
{
	return pmu__thr_upper_self();
}

static inline int region_id(struct pmu__region_thr *t, const char *name, int create)
{
	unsigned c = cache_slot(name);
	const struct pmu__acc *a = t->cache[c].a;

	if (likely(t->cache[c].p == name && name_eq(a->r, name)))
		return (int)a->id;
	return pmu__region_intern(name, create);
}

/*
 * The set's clock failed (its capability gone, as on an x86 TSC found
 * unstable): CLOCK_MONOTONIC from now on, and the open regions start now,
 * for their starts in the set's clock have no ns to convert to. The call
 * ending counts 0 ns.
 */
static __attribute__((noinline, cold)) uint64_t clock_lost(struct pmu__region_thr *t)
{
	uint64_t now = pmu__mono_ns();

	t->clk_page = false;
	for (struct pmu__frame *fr = frame_up((struct pmu__frame *)t->stk, t->n); fr <= t->sp; fr = frame_up(fr, t->n))
		fr->t0 = now;
	return 0;
}

/* pmu_read() failed with r: a forked child's copy (1, the thread's record made anew) or -errno. */
static __attribute__((noinline, cold)) int read_failed(int r)
{
	struct pmu__thr *fresh;

	return pmu__thr_read_slow(&fresh, NULL, r);
}

/*
 * Reads t's counters into values, and as t->times says their times into
 * slot (a depth, or PMU_REGION_DEPTH at end) of the group's or of each
 * event's: buffers in t. 0, -errno, or 1 when t was a forked child's copy,
 * now freed with the thread's record (a fresh one is set up, nothing read).
 */
static inline int read_into(struct pmu__region_thr *t, uint64_t *values, unsigned slot)
{
	struct pmu_set *set = t->set;
	int r;

	if (likely(t->times == PMU_TIMES_NONE)) {
		r = pmu_read(set, values);
	} else if (t->times == PMU_TIMES_GROUP) {	/* the group's read(2), which gives its times */
		r = pmu__read_group_times(set, values, &t->grp_en[slot], &t->grp_run[slot]);
	} else {
		uint64_t *en = times_at(t, slot), *run = en + (PMU_REGION_DEPTH + 1) * t->n;

		r = pmu_read_full(set, t->rd);
		for (unsigned i = 0; r == 0 && i < t->n; i++) {
			/* What pmu_read() gives: sums mean the same whatever the mode. */
			values[i] = pmu__scale(t->rd[i].value, t->rd[i].enabled, t->rd[i].running);
			en[i] = t->rd[i].enabled;
			run[i] = t->rd[i].running;
		}
	}
	return likely(r == 0) ? 0 : read_failed(r);
}

/*
 * The thread's clock for region times: the set's (pmu__set_cycles() at
 * begin, pmu__set_ns_since() at end) when its counters are read from user
 * space, else CLOCK_MONOTONIC (ns at begin too).
 */
static inline uint64_t clock_begin(const struct pmu__region_thr *t)
{
	return t->clk_page ? pmu__set_cycles() : pmu__mono_ns();
}

/* The ns since t0, a clock_begin() value. */
static inline uint64_t clock_since(struct pmu__region_thr *t, uint64_t t0)
{
	uint64_t ns;

	if (likely(t->clk_page) && likely(!pmu__set_ns_since(t->set, t0, &ns)))
		return ns;
	if (unlikely(t->clk_page))
		return clock_lost(t);
	return pmu__mono_ns() - t0;
}

/*
 * How t's counters give their times from now on (PMU_TIMES_*): with the
 * values on the read(2) path; on the user-space path only once an event's
 * page shows it was multiplexed (enabled != running, which then stays so),
 * when pmu_read() reads the clock anyway: until then every event ran all
 * the time and the region needs no times.
 */
static __attribute__((noinline)) unsigned want_times(const struct pmu_set *s, unsigned n)
{
	unsigned user = pmu__set_user_events(s);

	if (!user)
		return pmu__set_group_events(s) == n ? PMU_TIMES_GROUP : PMU_TIMES_FULL;
	for (unsigned i = 0; i < user; i++)
		if (pmu__set_event_multiplexed(s, i))
			return PMU_TIMES_FULL;
	return PMU_TIMES_NONE;
}

/*
 * The node region id opens in t under up (t's top frame's node, or its
 * root), made on the path's first call and remembered by id; up itself
 * when it is the region's (nested directly in itself, which folds). NULL
 * (the message set, naming name) without memory.
 */
static struct pmu__acc *node_of(struct pmu__thr *thr, struct pmu__region_thr *t, struct pmu__acc *up, unsigned id,
				const char *name)
{
	struct pmu__acc *a = up;

	if (up->id != id) {
		if (!(a = pmu__nodes_find(t, up, id))) {
			/* Figures to report: the thread's records stay after it exits. */
			PMU_WRITE_ONCE(t->used, true);
			PMU_WRITE_ONCE(thr->keep, true);
			a = t->nodes >= pmu__paths_max() ? pmu__nodes_other(t, up, name) :
							   pmu__nodes_add(t, up, id, t->hist);
			if (!a)
				goto nomem;
		}
		/* (other paths)' node is never remembered: its begins take this way, which keeps their ids */
		if (id < PMU_MEMO && a->id == id)
			t->acc[id] = a;
	}
	return a;
nomem:
	pmu__err(-ENOMEM, "%s: out of memory", name);
	return NULL;
}

static __attribute__((cold)) int too_deep(const char *name)
{
	return pmu__err(-ENOSPC, "%s: more than %d regions open in this thread (a missing pmu_region_end() or "
			"pmu_region_exit()?)",
			name, PMU_REGION_DEPTH);
}

/* too_deep() of region id, for the hot paths: their one jump, the name looked up here. */
static __attribute__((noinline, cold)) int too_deep_id(int id)
{
	return too_deep(pmu__region_name((unsigned)id));
}

/* Puts region id (figures a), begun by name p (NULL by handle: the last name pointer stays), in frame fr, the new top. */
static inline __attribute__((always_inline)) void push_frame(struct pmu__region_thr *t, struct pmu__frame *fr,
							     struct pmu__acc *a, int id, const char *p)
{
	/* id and a as one 16-byte assignment: one store pair, from the frame's own address (no memcpy, a call on riscv64). */
	struct __attribute__((may_alias)) head {
		uint64_t id;
		struct pmu__acc *a;
	};

	*(struct head *)(void *)fr = (struct head){ pmu__frame_id(id), a };
	if (p)
		fr->p = p;
	a->depth++;
	t->sp = fr;
}

/*
 * push() when the one-sequence read of the pages cannot give the reads: the
 * times as t->times says, then the clock and the counters; and after a
 * fork, the call made again in the child's fresh record.
 */
static __attribute__((noinline)) int push_slow(struct pmu__region_thr *t, struct pmu__acc *a, int id,
					       const char *p)
{
	unsigned d = depth_of(t);
	struct pmu__frame *fr = frame_up(t->sp, t->n);
	int r;

	if (unlikely(t->sp == t->lim))
		return too_deep_id(id);
	/* Whether times are wanted may change only while the set says its events may have been multiplexed. */
	if (unlikely(t->times == PMU_TIMES_NONE) && pmu__set_maybe_multiplexed(t->set) &&
	    (t->times = want_times(t->set, t->n)))
		t->times_from = d;
	/* The clock outside, the counters inside: the counts take in as little of this code as possible. */
	fr->t0 = clock_begin(t);
	r = read_into(t, fr->v, d);
	if (unlikely(r < 0))
		return r;
	if (unlikely(r))	/* a forked child's fresh record: start over in it */
		return p ? pmu_region_begin(p) : pmu_region_enter(id);
	push_frame(t, fr, a, id, p);
	return 0;
}

/* push() of a set of one emulated counter: the clock, then the count with one load. */
static __attribute__((noinline)) int push_emu(struct pmu__region_thr *t, struct pmu__acc *a, int id, const char *p)
{
	struct pmu__frame *fr = t->sp;

	if (unlikely(fr == t->lim))
		return too_deep_id(id);
	fr = frame_up(fr, 1);
	fr->t0 = clock_begin(t);
	if (unlikely(pmu__set_read_emu1(t->set, &fr->v[0])))
		return push_slow(t, a, id, p);
	push_frame(t, fr, a, id, p);
	return 0;
}

/* push() of n events, the first's page pc, n a constant where the caller knows it. */
static inline __attribute__((always_inline)) int push_n(struct pmu__region_thr *t, struct pmu__acc *a, int id,
							const char *p, const struct perf_event_mmap_page *pc,
							unsigned n)
{
	struct pmu__frame *fr = t->sp;

	if (unlikely(fr == t->lim))
		return too_deep_id(id);
	fr = frame_up(fr, n);
	if (unlikely(pmu__set_read_timed(t->set, pc, fr->v, &fr->t0, true, n)))
		return push_slow(t, a, id, p);
	push_frame(t, fr, a, id, p);
	return 0;
}

/*
 * Opens region id (figures a) in t, begun by name p (NULL by handle).
 * 0 or -errno.
 *
 * Where every event is read from user space and has run all along, one
 * sequence over the pages gives the counters and the clock, with no call:
 * and then t wants no times, for an event that was ever multiplexed shows
 * it on its page from then on and is not read so.
 */
static inline __attribute__((always_inline)) int push(struct pmu__region_thr *t, struct pmu__acc *a, int id,
						      const char *p)
{
	const struct pmu_set *set = t->set;
	const struct perf_event_mmap_page *pc = pmu__set_timed1(set);
	unsigned n;

	/* One event, the usual case, read with the count known: no loop. */
	if (likely(pc))
		return push_n(t, a, id, p, pc, 1);
	n = pmu__set_timed(set);
	if (n == 4)	/* another usual count, unrolled */
		return push_n(t, a, id, p, pmu__set_page0(set), 4);
	if (n)
		return push_n(t, a, id, p, pmu__set_page0(set), n);
	if (pmu__set_emu1(set))	/* under pmu emulate: a load, not pmu_read()'s general path */
		return push_emu(t, a, id, p);
	return push_slow(t, a, id, p);
}

/*
 * Compensation's measure (region_comp.c): m pairs (a multiple of 4) of its
 * own region by name, or by handle when name is NULL, through the public
 * calls as a program makes them, four a turn.
 */
static void cal_pairs(const char *name, unsigned m)
{
	if (name)
		for (unsigned i = 0; i < m; i += 4) {
			pmu_region_begin(name);
			pmu_region_end(name);
			pmu_region_begin(name);
			pmu_region_end(name);
			pmu_region_begin(name);
			pmu_region_end(name);
			pmu_region_begin(name);
			pmu_region_end(name);
		}
	else
		for (unsigned i = 0; i < m; i += 4) {
			pmu_region_enter(PMU_REGION_CAL);
			pmu_region_exit(PMU_REGION_CAL);
			pmu_region_enter(PMU_REGION_CAL);
			pmu_region_exit(PMU_REGION_CAL);
			pmu_region_enter(PMU_REGION_CAL);
			pmu_region_exit(PMU_REGION_CAL);
			pmu_region_enter(PMU_REGION_CAL);
			pmu_region_exit(PMU_REGION_CAL);
		}
}

/* The calling thread and its record, made on its first call (who: the caller, for messages). 0 or -errno. */
static int rec_self(const char *who, struct pmu__thr **thr, struct pmu__region_thr **t)
{
	int r = pmu__thr_current(thr);

	if (r < 0)
		return r;
	*t = (*thr)->upper;	/* this thread's own store */
	if (!*t) {
		if (!(*t = rec_new(*thr)))
			return pmu__err(-ENOMEM, "%s: out of memory", who);
		pmu__comp_start(*t, cal_pairs);
	}
	return 0;
}

/* What begin and enter check on their slow path: the thread, its record (made on the first call), room on the stack. 0 or -errno. */
static int open_slow(const char *name, struct pmu__thr **thr, struct pmu__region_thr **t)
{
	int r = rec_self(name, thr, t);

	if (r < 0)
		return r;
	if ((*t)->sp == (*t)->lim)
		return too_deep(name);
	return 0;
}

/* begin's refusals, the thread's first region, a name's first use in it: all but the usual case. */
static __attribute__((noinline)) int begin_slow(const char *name)
{
	struct pmu__region_thr *t;
	struct pmu__thr *thr;
	struct pmu__acc *a;
	int id, r;

	if (!name)
		return pmu__err(-EINVAL, "pmu_region_begin: the name is NULL");
	r = open_slow(name, &thr, &t);
	if (r < 0)
		return r;
	id = region_id(t, name, 1);
	if (id < 0)
		return id;
	a = node_of(thr, t, t->sp->a, (unsigned)id, name);
	if (!a)
		return -ENOMEM;
	if (a->id == (unsigned)id) {	/* not (other paths)': the hot path pushes the node's id */
		t->cache[cache_slot(name)].p = name;
		t->cache[cache_slot(name)].a = a;
	}
	return push(t, a, id, name);
}

/*
 * begin's usual case but for a name name_eq_hot() leaves to name_eq(), as
 * string literals that are not 8-aligned (x86's) are: its call wants a
 * stack frame, which the hot path then does without.
 */
static __attribute__((noinline)) int begin_compared(struct pmu__region_thr *t, const char *name, struct pmu__acc *a)
{
	if (unlikely(!name_eq(a->r, name)))
		return begin_slow(name);
	return push(t, a, (int)a->id, name);
}

/* The usual case here, the rest in begin_compared() and begin_slow(): no call, and so no stack frame. */
PMU_API int pmu_region_begin(const char *name)
{
	struct pmu__region_thr *t = self_rec();
	struct pmu__acc *a;
	unsigned c;

	if (unlikely(!name || !t))
		return begin_slow(name);
	/* a pointer in the cache has its figures there: no NULL check */
	c = cache_slot(name);
	if (unlikely(t->cache[c].p != name))
		return begin_slow(name);
	a = t->cache[c].a;
	if (unlikely(a->up != t->sp->a))	/* another path: its own node */
		return begin_slow(name);
	if (unlikely(!name_eq_hot(a->r, name)))
		return begin_compared(t, name, a);
	return push(t, a, (int)a->id, name);
}

int pmu__region_rename(const char *name)
{
	struct pmu__region_thr *t = self_rec();
	struct pmu__thr *thr;
	struct pmu__frame *fr;
	struct pmu__acc *a;
	int id, r;

	if (!name)
		return pmu__err(-EINVAL, "pmu__region_rename: the name is NULL");
	if (!t || !depth_of(t))
		return pmu__err(-ENOENT, "%s: no region of this thread is open to take the name", name);
	r = pmu__thr_current(&thr);
	if (r < 0)
		return r;
	fr = t->sp;
	id = region_id(t, name, 1);
	if (id < 0 || fr->id == pmu__frame_id(id))
		return id < 0 ? id : 0;
	a = node_of(thr, t, frame_down(fr, t->n)->a, (unsigned)id, name);	/* under the region around */
	if (!a)
		return -ENOMEM;
	fr->a->depth--;
	push_frame(t, fr, a, id, name);
	return 0;
}

/* The handle's name for a message, or NULL when it has none. */
static const char *handle_name(int h)
{
	return h > 0 && (unsigned)h <= pmu__region_count() ? pmu__region_name((unsigned)h) : NULL;
}

static __attribute__((cold)) int bad_handle(const char *fn, int h)
{
	return pmu__err(-EINVAL, "%s: %d is not a region handle (pmu_region_register() gives them, valid "
			"until pmu_thread_fini())", fn, h);
}

/* enter's refusals, the thread's first region, the handle's first use in it. */
static __attribute__((noinline)) int enter_slow(int h)
{
	struct pmu__region_thr *t;
	struct pmu__thr *thr;
	struct pmu__acc *a;
	const char *name = handle_name(h);
	int r;

	if (!name)
		return bad_handle("pmu_region_enter", h);
	r = open_slow(name, &thr, &t);
	if (r < 0)
		return r;
	a = node_of(thr, t, t->sp->a, (unsigned)h, name);
	return a ? push(t, a, h, NULL) : -ENOMEM;
}

/*
 * A handle whose figures the thread has is valid: they are made only for
 * an interned id, and go with the names at pmu_thread_fini().
 */
PMU_API int pmu_region_enter(int h)
{
	struct pmu__region_thr *t = self_rec();
	struct pmu__acc *a;

	/* h, an int, indexes as it is (sign-extended: free) once its bound is checked; pmu__node_none's up is no frame's. */
	if (unlikely(!t || (unsigned)h >= PMU_MEMO || (a = t->acc[h])->up != t->sp->a))
		return enter_slow(h);
	return push(t, a, h, NULL);
}

PMU_API int pmu_region_register(const char *name)
{
	if (!name)
		return pmu__err(-EINVAL, "pmu_region_register: the name is NULL");
	/* The names now have a state to keep across fork and to free at pmu_thread_fini(). */
	pmu__thr_set_hooks(&pmu__region_hooks);
	return pmu__region_intern(name, 1);
}

/* end_slow()'s add_call() into the histograms too, out of its way. */
static __attribute__((noinline)) int add_call_hist(struct pmu__region_thr *t, struct pmu__frame *fr, uint64_t ns,
						   unsigned kind)
{
	add_call(t, fr, ns, t->scratch, t->n, true, kind, true);
	return 0;
}

/* The end's reads when the one-sequence read cannot give them, and the call added. */
static __attribute__((noinline)) int end_slow(struct pmu__region_thr *t, struct pmu__frame *fr, unsigned kind)
{
	unsigned id = (unsigned)fr->id;
	uint64_t ns;
	int r;

	r = read_into(t, t->scratch, PMU_REGION_DEPTH);
	if (unlikely(r > 0))	/* t and fr are gone with the parent's records */
		return pmu__err(-EINVAL, "%s: the region was begun before fork(); the child starts with "
				"no open region", pmu__region_name(id));
	ns = clock_since(t, fr->t0);
	if (unlikely(r < 0)) {
		uint64_t k[2];

		if (t->comp_on)	/* its pairs counted in none */
			pmu__comp_pop(t->comp, depth_of(t) - 1, kind, k);
		t->sp = frame_down(fr, t->n);
		fr->a->depth--;
		pmu__err_append(" (region %s closed without figures)", pmu__region_name(id));
		return r;
	}
	if (unlikely(t->hist))
		return add_call_hist(t, fr, ns, kind);
	add_call(t, fr, ns, t->scratch, t->n, true, kind, false);
	return 0;
}

/* end_top() of a set of one emulated counter: the count with one load, then the clock. */
static __attribute__((noinline)) int end_emu(struct pmu__region_thr *t, struct pmu__frame *fr, unsigned kind)
{
	uint64_t v;

	if (unlikely(pmu__set_read_emu1(t->set, &v)))
		return end_slow(t, fr, kind);
	return add_call_hot(t, fr, clock_since(t, fr->t0), &v, 1, kind);
}

/* end_top() of n events into v (registers where n is a constant), the first's page pc, n a constant where the caller knows it. */
static inline __attribute__((always_inline)) int end_n(struct pmu__region_thr *t, struct pmu__frame *fr,
						       const struct perf_event_mmap_page *pc, unsigned n, uint64_t *v,
						       unsigned kind)
{
	uint64_t ns = fr->t0;

	if (likely(!pmu__set_read_timed(t->set, pc, v, &ns, false, n)))
		return add_call_hot(t, fr, ns, v, n, kind);
	return end_slow(t, fr, kind);
}

/* end_n() of another count of events than end_top()'s two usual ones: one copy, out of line. */
static __attribute__((noinline)) int end_any(struct pmu__region_thr *t, struct pmu__frame *fr, unsigned n,
					     unsigned kind)
{
	return end_n(t, fr, pmu__set_page0(t->set), n, t->scratch, kind);
}

/* Closes t's innermost open region, frame fr (t->sp), ended by kind, adding its figures unless the counters could not be read. */
static inline __attribute__((always_inline)) int end_top(struct pmu__region_thr *t, struct pmu__frame *fr,
							 unsigned kind)
{
	const struct pmu_set *set = t->set;
	const struct perf_event_mmap_page *pc = pmu__set_timed1(set);
	unsigned n;

	/* One event, the usual case, read with the count known: its value kept in a register, no loop. */
	if (likely(pc)) {
		uint64_t v;

		return end_n(t, fr, pc, 1, &v, kind);
	}
	n = pmu__set_timed(set);
	if (n == 4) {	/* another usual count, unrolled */
		uint64_t v[4];

		return end_n(t, fr, pmu__set_page0(set), 4, v, kind);
	}
	if (n)
		return end_any(t, fr, n, kind);
	if (pmu__set_emu1(set))
		return end_emu(t, fr, kind);
	return end_slow(t, fr, kind);
}

/* end_top() out of line: one copy for the ends off the usual path (another pointer, refusals, unwinding). */
static __attribute__((noinline)) int end_top_slow(struct pmu__region_thr *t, struct pmu__frame *fr, unsigned kind)
{
	return end_top(t, fr, kind);
}

/* Why region id (name) cannot end now (by who, the call): open further down, or not open in this thread. */
static __attribute__((noinline, cold)) int not_innermost(struct pmu__region_thr *t, const char *name, uint64_t id,
							 const char *who)
{
	for (struct pmu__frame *fr = frame_down(t->sp, t->n); fr->id != PMU_FRAME_NONE; fr = frame_down(fr, t->n))
		if (fr->id == id)
			return pmu__err(-EINVAL, "%s: ended while \"%s\" is the innermost open region "
					"(end the inner region first)", name, pmu__region_name((unsigned)t->sp->id));
	return pmu__err(-EINVAL, "%s: %s() of a region not open in this thread", name, who);
}

/*
 * The end of a name given through another pointer than its begin's (or not
 * 8-aligned): looked up, and checked to be the innermost.
 */
static __attribute__((noinline)) int end_named(struct pmu__region_thr *t, const char *name, struct pmu__frame *fr)
{
	const struct pmu__rname *top = fr->a->r;
	int id;

	/* A name begun through this pointer that name_eq_hot() left to name_eq() (not 8-aligned). */
	if (likely(name == fr->p && name_eq(top, name)))
		return end_top_slow(t, fr, PMU_END_NAME);
	id = region_id(t, name, 0);
	if (unlikely(id < 0))
		return id != -ENOENT ? id : pmu__err(-EINVAL, "%s: pmu_region_end() of a region never "
						     "begun", name);
	if (unlikely(fr->id != pmu__frame_id(id)))	/* the frame's: its node may be (other paths)' */
		return not_innermost(t, name, (uint64_t)id, "pmu_region_end");
	return end_top_slow(t, fr, PMU_END_NAME);
}

PMU_API int pmu_region_end(const char *name)
{
	struct pmu__region_thr *t = self_rec();
	struct pmu__frame *fr;

	if (unlikely(!name))
		return pmu__err(-EINVAL, "pmu_region_end: the name is NULL");
	if (unlikely(!t || (fr = t->sp)->id == PMU_FRAME_NONE))
		return pmu__err(-EINVAL, "%s: pmu_region_end() without pmu_region_begin() in this "
				"thread", name);
	/* The usual case: the name begun last, often through the same pointer. */
	if (likely(name == fr->p && name_eq_hot(fr->a->r, name)))
		return end_top(t, fr, PMU_END_NAME);
	return end_named(t, name, fr);
}

/* exit's refusals: the same as end's, naming the handle's region. */
static __attribute__((noinline)) int exit_slow(int h)
{
	struct pmu__region_thr *t = self_rec();
	const char *name = handle_name(h);
	struct pmu__frame *fr;

	if (!name)
		return bad_handle("pmu_region_exit", h);
	if (!t || (fr = t->sp)->id == PMU_FRAME_NONE)
		return pmu__err(-EINVAL, "%s: pmu_region_exit() without pmu_region_enter() in this "
				"thread", name);
	if (fr->id != pmu__frame_id(h))
		return not_innermost(t, name, pmu__frame_id(h), "pmu_region_exit");
	return end_top_slow(t, fr, PMU_END_HANDLE);
}

/* The innermost frame's id is h's: the sentinel's is no int's, so no depth check. */
PMU_API int pmu_region_exit(int h)
{
	struct pmu__region_thr *t = self_rec();
	struct pmu__frame *fr;

	if (unlikely(!t))
		return exit_slow(h);
	fr = t->sp;
	if (unlikely(fr->id != pmu__frame_id(h)))
		return exit_slow(h);
	return end_top(t, fr, PMU_END_HANDLE);
}

int pmu__region_unwind(int h)
{
	struct pmu__region_thr *t = self_rec();
	struct pmu__frame *fr;
	int n = 0, r = 0;

	if (!t)
		return 0;
	for (fr = t->sp; fr->id != PMU_FRAME_NONE && fr->id != pmu__frame_id(h); fr = frame_down(fr, t->n))
		;
	/* r first: once end_top() failed, t may be gone with a forked child's records */
	while (fr->id != PMU_FRAME_NONE && r == 0 && t->sp->id != pmu__frame_id(h) && ++n)
		r = end_top_slow(t, t->sp, PMU_END_NAME);
	return r < 0 ? r : n;
}

int pmu__region_end_all(void)
{
	struct pmu__region_thr *t = self_rec();
	int r = 0;

	if (!t)
		return 0;
	/* r first: once end_top() failed, t may be gone with a forked child's records. */
	while (r == 0 && t->sp->id != PMU_FRAME_NONE)
		r = end_top_slow(t, t->sp, PMU_END_NAME);
	return r;
}

PMU_API int pmu_region_compensate(int on)
{
	return pmu__comp_switch(self_rec(), on, cal_pairs);
}

PMU_API int pmu_region_histograms(int on)
{
	struct pmu__region_thr *t = self_rec();

	if (on != 0 && on != 1)
		return pmu__err(-EINVAL, "pmu_region_histograms: %d is neither 1 (on) nor 0 (off)", on);
	pmu__hist_set_default(on);
	if (!t)
		return 0;
	/* The regions this thread has run so far get theirs now, empty: their calls from here on. */
	for (unsigned i = 0; on && i < t->nodes; i++) {
		struct pmu__acc *a = t->accs->v[i];
		struct pmu__hblk *h;

		if (a->h)
			continue;
		if (!(h = pmu__hblk_new(t->n)))
			return pmu__err(-ENOMEM, "pmu_region_histograms: no memory for the histograms of region %s",
					rname(a->r));
		PMU_STORE_RELEASE(a->h, h);
	}
	t->hist = on;
	pmu__region_rare(t);
	return 0;
}

/* ---- Tasks (task.c): a unit of work's intervals read on whichever thread ran them, added as one call ---- */

int pmu__region_task_read(const char *who, const char *name, int *id, uint64_t *values, uint64_t *ns)
{
	struct pmu__region_thr *t;
	struct pmu__thr *thr;
	int r = rec_self(who, &thr, &t);

	if (r < 0)
		return r;
	if (name && (*id = region_id(t, name, 1)) < 0)
		return *id;
	if ((r = read_into(t, values, PMU_REGION_DEPTH)) != 0)
		return r < 0 ? r : pmu__err(-EINVAL, "%s: the thread's counters were its parent's (fork): read "
					    "again", who);
	*ns = pmu__mono_ns();
	return 0;
}

int pmu__region_task_add(const char *who, unsigned id, uint64_t ns, const uint64_t *sums)
{
	struct pmu__region_thr *t;
	struct pmu__thr *thr;
	struct pmu__acc *a;
	unsigned n;
	uint64_t seq;
	int r = rec_self(who, &thr, &t);	/* a suspended task may end on a thread new to regions */

	if (r < 0)
		return r;
	if (!(a = node_of(thr, t, t->root, id, who)))	/* a task runs under no thread's regions: at the top */
		return -ENOMEM;
	n = t->n;
	seq = fig_open(t, a);
	fig_add(&a->f[0], ns);
	for (unsigned i = 0; i < n; i++)
		fig_add(&a->f[1 + i], sums[i]);
	if (t->hist && a->h)
		pmu__hblk_add(a->h, n, ns, NULL, sums);
	fig_close(a, seq);
	return 0;
}
