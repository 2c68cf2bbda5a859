/* SPDX-License-Identifier: MIT */
/*
 * The read paths of a set: from user space through each counter's page
 * when every counter allows it, else one read(2) per group, scaled when the
 * group was multiplexed. pmu_read() is the hot path.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "counters/set_ops.h"
#include "counters/readpage.h"
#include "counters/arch.h"

/*
 * Every counter through read(2), one call per group, into rd (per counter). What a read keeps is
 * in the caller's frame, never in the set: a signal handler reading the same set meanwhile reads
 * into its own (pmu_read(3)'s promise), and the interrupted read goes on unharmed.
 */
int pmu__read_counters(struct pmu_set *set, struct pmu_reading *rd)
{
	struct pmu__cold *c = pmu__cold(set);
	unsigned g, k;
	int r = pmu__check_owner(set, "pmu_read");

	if (r < 0)
		return r;
	for (g = 0; g < c->ngroups; g++) {
		const struct pmu__group *gr = &c->grp[g];
		size_t want = pmu__group_bytes(gr->n);
		uint64_t b[want / sizeof(uint64_t)];
		ssize_t got;
		int cs = 0;

		if (c->ctr[gr->first].emu.on) {	/* a group of one, never multiplexed */
			pmu__emu_read(&c->ctr[gr->first].emu, &rd[gr->first]);
			continue;
		}
		/*
		 * The kernel resets slots and the metrics: the decode's new base, noted
		 * whole (a cancel deferred: one acting in the read would leave the old base)
		 */
		if (unlikely(gr->td)) {
			cs = pmu__nocancel();
			pmu__topdown_mark(c, &c->grp[g]);
		}
		got = read(gr->fd, b, want);
		if (likely(got == (ssize_t)want))
			for (k = 0; k < gr->n; k++)
				rd[gr->first + k] = (struct pmu_reading){ pmu__group_values(b, gr->n)[k], b[1], b[2] };
		if (unlikely(gr->td)) {
			if (got == (ssize_t)want)
				pmu__topdown_noted(c, &c->grp[g], rd);
			pmu__cancel_restore(cs);
		}
		if (unlikely(got != (ssize_t)want)) {
			const char *name = c->names[c->ctr[gr->first].event];

			if (got < 0)
				return pmu__err(-errno, "%s: read: %s", name, strerror(errno));
			return pmu__err(-EIO, "%s: read returned %zd bytes, expected %zu", name, got, want);
		}
	}
	return 0;
}

/*
 * Per event: the sum of its counters (rd, per counter), then scaled once. A hybrid machine's
 * core PMUs take turns (the thread runs on one core type at a time): their running times add up,
 * their enabled times overlap. Other PMUs' counters (an uncore family's boxes, a socket's CPUs)
 * count side by side: both times add up, as perf sums them. The sums go to out, else after rd's
 * counters (rd has room for both).
 */
void pmu__sum_events(struct pmu__cold *c, struct pmu_reading *rd, uint64_t *values, struct pmu_reading *out)
{
	struct pmu_reading *ev = out ? out : rd + c->nctr;
	unsigned i;

	memset(ev, 0, c->nev * sizeof(*ev));
	for (i = 0; i < c->nctr; i++) {
		struct pmu_reading *e = &ev[c->ctr[i].event];

		e->value += rd[i].value;
		e->running += rd[i].running;
		if (!c->attr[i].alt)
			e->enabled += rd[i].enabled;
		else if (rd[i].enabled > e->enabled)
			e->enabled = rd[i].enabled;
	}
	for (i = 0; values && i < c->nev; i++)
		values[i] = pmu__scale(ev[i].value, ev[i].enabled, ev[i].running);
}

/* Readings per counter, then per event: in the caller's frame. */
#define READINGS(c, name) struct pmu_reading name[(c)->nctr + (c)->nev]

static int read_slow(struct pmu_set *set, uint64_t *values, struct pmu_reading *out)
{
	struct pmu__cold *c = pmu__cold(set);
	READINGS(c, rd);
	int r = pmu__read_counters(set, rd);

	if (r == 0)
		pmu__sum_events(c, rd, values, out);
	return r;
}

/* A set with topdown events (topdown.c): their decode where the pages allow it, else read(2). */
static __attribute__((noinline)) int read_topdown(struct pmu_set *set, uint64_t *values,
						   struct pmu_reading *out)
{
	struct pmu__cold *c = pmu__cold(set);
	READINGS(c, rd);
	int r = pmu__check_owner(set, "pmu_read");

	if (r < 0)
		return r;
	if (pmu__topdown_user_values(c, rd, out != NULL) && (r = pmu__read_counters(set, rd)) < 0)
		return r;
	pmu__sum_events(c, rd, values, out);
	return 0;
}

/* Multiplexed events, or no set at all: times from the pages where possible, else read(2). */
static __attribute__((noinline)) int read_scaled(struct pmu_set *set, uint64_t *values,
						  struct pmu_reading *out)
{
	struct pmu__page_value v;
	uint32_t i;

	if (!set || !(values || out))
		return pmu__err(-EINVAL, "pmu_read: %s is NULL", set ? "values" : "the set");
	for (i = 0; i < set->direct; i++) {
		if (pmu__read_page(set->ev[i].page, out ? PMU_READ_TIMES : PMU_READ_COUNT,
				   pmu_inl_rdpmc, pmu__arch_clock, &v))
			return read_slow(set, values, out);
		if (values)
			values[i] = pmu__scale(v.count, v.enabled, v.running);
		else
			out[i] = (struct pmu_reading){ v.count, v.enabled, v.running };
	}
	if (set->direct)
		return 0;
	return unlikely(set->topdown) ? read_topdown(set, values, out) : read_slow(set, values, out);
}

/* Values of a multiplexed group, scaled: out of the way of read_group(). */
static __attribute__((noinline)) void scale_group(uint64_t *values, const uint64_t *v, uint32_t n,
						  uint64_t enabled, uint64_t running)
{
	for (uint32_t i = 0; i < n; i++)
		values[i] = pmu__scale(v[i], enabled, running);
}

/*
 * One read(2) of the set's only group, into a buffer of the caller's frame: a signal handler that
 * reads the same set meanwhile reads into its own (the set keeps no state of a read). 0, or -1 when
 * the read came short (read_slow() then says why).
 */
static inline int group_read(struct pmu_set *set, uint64_t *b)
{
	return read(set->group_fd, b, set->group_size) == (ssize_t)set->group_size ? 0 : -1;
}

/* The group's read(2) into values, scaled when multiplexed; its times into *en and *run when asked. */
static __attribute__((noinline)) int read_group(struct pmu_set *set, uint64_t *values, uint64_t *en, uint64_t *run)
{
	uint64_t b[3 + set->group_n];
	const uint64_t *v = pmu__group_values(b, set->group_n);
	uint32_t i, n = set->group_n;

	if (unlikely(group_read(set, b)))
		return read_slow(set, values, NULL);
	if (likely(b[1] == b[2])) {
		for (i = 0; i < n; i++)
			values[i] = v[i];
	} else {
		scale_group(values, v, n, b[1], b[2]);
	}
	if (en) {
		*en = b[1];
		*run = b[2];
	}
	return 0;
}

static __attribute__((noinline)) int read_group_full(struct pmu_set *set, struct pmu_reading *out)
{
	uint64_t b[3 + set->group_n];
	const uint64_t *v = pmu__group_values(b, set->group_n);

	if (unlikely(group_read(set, b)))
		return read_slow(set, NULL, out);
	for (uint32_t i = 0; i < set->group_n; i++)
		out[i] = (struct pmu_reading){ v[i], b[1], b[2] };
	return 0;
}

/*
 * The hot path: no call, no stack frame, the inline read of each counter's
 * page; else one read(2) of the group. group_n and direct are 0 in a forked
 * child (the page is wiped): read_scaled() says so.
 */
PMU_API int pmu_read(struct pmu_set *set, uint64_t *values)
{
	const struct pmu_counter *ev;
	uint32_t n;

	if (unlikely(!set || !values))
		goto other;
	ev = set->ev;
	/*
	 * Checked at open: each page allows user reads (cap_user_rdpmc, with a
	 * pmc_width). The events of one group are scheduled together: the
	 * first page alone tells whether they are multiplexed. 1 and 4 events
	 * without a loop.
	 */
#define READ(k, checks) if (unlikely(pmu_inl_page_read(ev[k].page, pmu_inl_rdpmc, checks, &values[k]))) goto other
	n = set->direct;
	if (likely(n == 1)) {
		READ(0, PMU_INL_TIMES);
		return 0;
	}
	if (n == 4 && likely(set->one_group)) {
		READ(0, PMU_INL_TIMES);
		READ(1, 0);
		READ(2, 0);
		READ(3, 0);
		return 0;
	}
	if (unlikely(!n)) {
		if (likely(set->group_n))
			return read_group(set, values, NULL, NULL);
		goto other;
	}
	for (uint32_t i = 0; i < n; i++)
		READ(i, i == 0 || !set->one_group ? PMU_INL_TIMES : 0);
#undef READ
	return 0;
other:
	return read_scaled(set, values, NULL);
}

int pmu__read_group_times(struct pmu_set *set, uint64_t *values, uint64_t *en, uint64_t *run)
{
	if (unlikely(!set->group_n || set->direct))	/* a forked child's copy (its hot pages wiped) */
		return read_scaled(set, values, NULL);
	return read_group(set, values, en, run);
}

PMU_API int pmu_read_full(struct pmu_set *set, struct pmu_reading *out)
{
	if (!set || !out)
		return pmu__err(-EINVAL, "pmu_read_full: %s is NULL", set ? "out" : "the set");
	if (set->group_n && !set->direct)
		return read_group_full(set, out);
	return read_scaled(set, NULL, out);
}

/* A value of a multiplexed event, scaled: out of the way of read_event(). */
static __attribute__((noinline)) uint64_t scale_one(uint64_t v, uint64_t enabled, uint64_t running)
{
	return pmu__scale(v, enabled, running);
}

/* Event i as pmu_read() gives it, the whole way: a child's copy, several counters, a short read, topdown. */
static __attribute__((noinline)) int read_event_slow(struct pmu_set *set, unsigned i, uint64_t *value)
{
	struct pmu_reading ev[pmu__cold(set)->nev];
	int r = set->topdown ? read_topdown(set, NULL, ev) : read_slow(set, NULL, ev);

	if (r == 0)
		*value = pmu__scale(ev[i].value, ev[i].enabled, ev[i].running);
	return r;
}

/* Event i through read(2): the one read of its group when it has a single counter. */
static int read_event(struct pmu_set *set, unsigned i, uint64_t *value)
{
	const struct pmu__evread *e = set->evr;	/* NULL in a forked child (the hot pages are wiped), and topdown */

	if (likely(e && (e += i)->nctr == 1)) {
		uint64_t b[e->bytes / sizeof(uint64_t)];

		if (likely(read(e->fd, b, e->bytes) == (ssize_t)e->bytes)) {
			*value = likely(b[1] == b[2]) ? b[e->pos] : scale_one(b[e->pos], b[1], b[2]);
			return 0;
		}
	}
	return read_event_slow(set, i, value);
}

/* Readable from user space, but multiplexed (to scale), or off its counter now. */
static __attribute__((noinline)) int read_counter_page(const struct pmu_counter *c, uint64_t *value)
{
	struct pmu__page_value v;

	if (pmu__read_page(c->page, PMU_READ_COUNT, pmu_inl_rdpmc, pmu__arch_clock, &v))
		return read_event(c->set, (unsigned)(c - c->set->ev), value);
	*value = pmu__scale(v.count, v.enabled, v.running);
	return 0;
}

PMU_API int pmu_counter_read_slow(const struct pmu_counter *c, uint64_t *value)
{
	if (unlikely(!c || !value))
		return pmu__err(-EINVAL, "pmu_counter_read: %s is NULL", c ? "value" : "the counter");
	if (unlikely(!c->set))	/* the set's hot pages read as zeros in a forked child */
		return pmu__err(-ECHILD, "pmu_counter_read: the counter belongs to the parent process; "
				"after fork the child must open sets of its own");
	if (c->page)
		return read_counter_page(c, value);
	return read_event(c->set, (unsigned)(c - c->set->ev), value);
}
