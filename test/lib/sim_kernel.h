/* SPDX-License-Identifier: MIT */
/*
 * A simulated kernel for the read-path tests: one group of events, each with
 * its own perf_event_mmap_page, counting on the registers of a simulated PMU,
 * and a simulated clock behind the page's time fields, all written the way
 * the kernel writes them:
 *  - set_period: prev = -left, register = prev & mask(width), offset = count - prev;
 *  - perf_event_update_userpage: lock++, the fields, lock++;
 *  - x86's clock: sched_clock(c) = cyc2ns_offset + mul_u64_u32_shr(c, mult, shift),
 *    time_offset = cyc2ns_offset - now; or, with cap_user_time_short, a narrow
 *    clock: sched_clock(c) = epoch_ns + mul((c - epoch_cyc) & mask), time_zero =
 *    epoch_ns - mul(epoch_cyc), time_offset = time_zero - now, time_cycles = epoch_cyc.
 * The group is on the PMU (SK_ON), off it (SK_OFF: multiplexed out, not
 * counting, running stops) or counting with index 0 (SK_HIDDEN: the page's
 * offset goes stale while the counter moves on). Each register belongs to one
 * event, so that whatever register a reader asks for, the answer is that
 * event's. Every change is made under sk_lock(), which a reader's emulated
 * instructions and read(2) take too: what they return comes with the exact
 * truth of that moment (sk_truth_*). The arithmetic is sim_ref.h's.
 */
#ifndef PMU_SIM_KERNEL_H
#define PMU_SIM_KERNEL_H

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include "sim_ref.h"

#define SK_MAX_EV 4
#define SK_MAX_REG 16

enum sk_state { SK_ON, SK_OFF, SK_HIDDEN };

struct sk_event {
	struct perf_event_mmap_page *pg;	/* the writer's view of the page */
	uint32_t lock;			/* the writer's copy of pg->lock */
	uint64_t truth;			/* the kernel's count now: what read(2) gives */
	uint64_t count;			/* event->count, as of the last fold */
	uint64_t prev;			/* hwc->prev_count */
	uint64_t left, since;		/* events to the overflow, events since programmed */
	unsigned width;
	int reg;			/* its register, or -1 */
	int user;			/* cap_user_rdpmc */
};

struct sk {
	unsigned nev, nreg;
	struct sk_event ev[SK_MAX_EV];
	uint32_t reg_idx[SK_MAX_REG];	/* the page index that names each register */
	int reg_ev[SK_MAX_REG];		/* the event each register belongs to */
	uint64_t reg[SK_MAX_REG];
	enum sk_state state;
	/* The clock */
	uint64_t clk;
	uint32_t mult;
	uint16_t shift;
	uint64_t cyc2ns_off;		/* x86: sched_clock = off + mul(c) */
	int is_short;			/* cap_user_time_short: a clock of mask's width */
	uint64_t epoch_cyc, epoch_ns, mask;
	uint64_t en, run, c_base;	/* the group's times as of clock c_base */
	int spin;
	uint64_t seed;
	long ticks, updates, reschedules, offs, hidden, no_user, overflows;
};

static inline void sk_lock(struct sk *s)
{
	while (__atomic_test_and_set(&s->spin, __ATOMIC_ACQUIRE))
		sched_yield();
}

static inline void sk_unlock(struct sk *s)
{
	__atomic_clear(&s->spin, __ATOMIC_RELEASE);
}

static inline uint64_t sk_rnd(struct sk *s)
{
	return splitmix64(&s->seed);
}

/* The kernel's clock at counter value c (ns). */
static inline uint64_t sk_sched_clock(const struct sk *s, uint64_t c)
{
	if (s->is_short)
		return s->epoch_ns + ref_mul_shr((c - s->epoch_cyc) & s->mask, s->mult, s->shift);
	return s->cyc2ns_off + ref_mul_shr(c, s->mult, s->shift);
}

static inline uint64_t sk_time_zero(const struct sk *s)
{
	return s->is_short ? s->epoch_ns - ref_mul_shr(s->epoch_cyc, s->mult, s->shift) : s->cyc2ns_off;
}

/* What the clock register reads: only mask's bits when the clock is short. */
static inline uint64_t sk_clock_reg(const struct sk *s)
{
	return s->is_short ? s->clk & s->mask : s->clk;
}

/* The page's time_offset: time_zero - now, as of the last update. */
static inline uint64_t sk_time_offset(const struct sk *s)
{
	return sk_time_zero(s) - sk_sched_clock(s, s->c_base);
}

/* What read(2) gives for the times at clock c. */
static inline void sk_truth_times(const struct sk *s, uint64_t c, uint64_t *en, uint64_t *run)
{
	uint64_t d = sk_sched_clock(s, c) - sk_sched_clock(s, s->c_base);

	*en = s->en + d;
	*run = s->run + (s->state == SK_OFF ? 0 : d);
}

/*
 * The times linux/perf_event.h's formula gives from the page at clock c:
 * time_offset + mul(cyc), cyc taken through time_cycles/time_mask when short.
 * Exactly sk_truth_times() on x86's clock; within 1 ns on a short one.
 */
static inline void sk_page_times(const struct sk *s, uint64_t c, uint64_t *en, uint64_t *run)
{
	uint64_t cyc = s->is_short ? s->epoch_cyc + ((c - s->epoch_cyc) & s->mask) : c;
	uint64_t d = sk_time_offset(s) + ref_mul_shr(cyc, s->mult, s->shift);

	*en = s->en + d;
	*run = s->run + d;
}

/* The body of perf_event_update_userpage() for event e. */
static inline void sk_write_page(struct sk *s, struct sk_event *e)
{
	struct perf_event_mmap_page *pg = e->pg;
	/* Without user access the index is 0, as every kernel publishes it (same flag, same update). */
	uint32_t idx = s->state == SK_ON && e->reg >= 0 && e->user ? s->reg_idx[e->reg] : 0;
	uint64_t caps = 1ull << 1 | (uint64_t)!!e->user << 2 | 1ull << 3 | 1ull << 4 |
			(uint64_t)!!s->is_short << 5;

	__atomic_store_n(&pg->lock, ++e->lock, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&pg->index, idx, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->offset, (int64_t)(idx ? e->count - e->prev : e->count), __ATOMIC_RELAXED);
	__atomic_store_n(&pg->pmc_width, (uint16_t)e->width, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->capabilities, caps, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->time_enabled, s->en, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->time_running, s->run, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->time_mult, s->mult, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->time_shift, s->shift, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->time_offset, sk_time_offset(s), __ATOMIC_RELAXED);
	__atomic_store_n(&pg->time_zero, sk_time_zero(s), __ATOMIC_RELAXED);
	__atomic_store_n(&pg->time_cycles, s->is_short ? s->epoch_cyc : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->time_mask, s->is_short ? s->mask : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->lock, ++e->lock, __ATOMIC_RELEASE);
}

/* The register's events since it was programmed, into event->count. */
static inline void sk_fold(struct sk *s, struct sk_event *e)
{
	uint64_t now;

	if (e->reg < 0 || s->state == SK_OFF)
		return;
	now = s->reg[e->reg] & mask_of(e->width);
	e->count += (now - e->prev) & mask_of(e->width);
	e->prev = now;
}

/* set_period(): left events to the overflow interrupt. */
static inline void sk_program(struct sk *s, struct sk_event *e, int reg, unsigned width, uint64_t left)
{
	e->reg = reg;
	e->width = width;
	e->left = left;
	e->since = 0;
	e->prev = -left;
	s->reg[reg] = e->prev & mask_of(width);
}

/*
 * Times up to now, every page written again. No fold: like the kernel's
 * prev_count after one, prev would then be the raw register, and offset =
 * count - prev plus the sign-extended register would be 2^width short.
 */
static inline void sk_update(struct sk *s)
{
	unsigned i;

	sk_truth_times(s, s->clk, &s->en, &s->run);
	s->c_base = s->clk;
	for (i = 0; i < s->nev; i++)
		sk_write_page(s, &s->ev[i]);
	s->updates++;
}

/* d events on event e's register, which wraps at its width. */
static inline void sk_count(struct sk *s, struct sk_event *e, uint64_t d)
{
	if (s->state == SK_OFF || e->reg < 0)
		return;
	s->reg[e->reg] = (s->reg[e->reg] + d) & mask_of(e->width);
	e->truth += d;
	e->since += d;
}

/* A register of event i, and a width and a distance to the overflow as x86 PMUs have them. */
static inline void sk_place(struct sk *s, unsigned i)
{
	static const unsigned widths[] = { 48, 48, 48, 40 };
	struct sk_event *e = &s->ev[i];
	uint64_t r = sk_rnd(s), half, left;
	unsigned width = widths[r % 4], k, n = 0;
	int mine[SK_MAX_REG];

	for (k = 0; k < s->nreg; k++)
		if (s->reg_ev[k] == (int)i)
			mine[n++] = (int)k;
	half = 1ull << (width - 1);
	switch ((r >> 8) % 4) {
	case 0: left = 1 + sk_rnd(s) % 4; break;
	case 1: left = 1 + sk_rnd(s) % 2000; break;
	case 2: left = half - sk_rnd(s) % 1000; break;	/* the kernel's counting start */
	default: left = half; break;			/* the register's sign bit set */
	}
	sk_program(s, e, mine[(r >> 16) % n], width, left);
}

/* The group moves: fold, then on another register each, off the PMU, or index 0; user access back. */
static inline void sk_reschedule(struct sk *s, enum sk_state state)
{
	unsigned i;

	for (i = 0; i < s->nev; i++)
		sk_fold(s, &s->ev[i]);
	sk_truth_times(s, s->clk, &s->en, &s->run);
	s->c_base = s->clk;
	s->state = state;
	for (i = 0; i < s->nev; i++) {
		s->ev[i].user = 1;
		if (state == SK_OFF)
			s->ev[i].reg = -1;
		else
			sk_place(s, i);
	}
	s->reschedules++;
	s->offs += state == SK_OFF;
	s->hidden += state == SK_HIDDEN;
	sk_update(s);
}

/* The overflow interrupt of event e, taken late: fold, program again, the page. */
static inline void sk_overflow(struct sk *s, struct sk_event *e)
{
	sk_fold(s, e);
	sk_program(s, e, e->reg, e->width, e->left);
	s->overflows++;
	sk_update(s);
}

/* One step of the writer thread, under the lock. */
static inline void sk_step(struct sk *s)
{
	uint64_t r = sk_rnd(s);
	unsigned i, k;

	s->ticks++;
	s->clk += 1 + r % 4;
	for (i = 0; i < s->nev; i++) {
		struct sk_event *e = &s->ev[i];

		sk_count(s, e, (r >> (8 + 3 * i)) % 8);
		if (s->state != SK_OFF && e->since > e->left && ((r >> 24) % 4 == 0 || e->since > e->left + 64))
			sk_overflow(s, e);
	}
	/* Registers not in use count something else. */
	k = (unsigned)(r >> 32) % s->nreg;
	if (s->ev[s->reg_ev[k]].reg != (int)k || s->state == SK_OFF)
		s->reg[k] = sk_rnd(s) & mask_of(48);
	k = (unsigned)(r >> 40) % 256;
	if (k < 16) {
		sk_update(s);		/* perf_event_update_userpage(): the lock flips */
	} else if (k < 28) {
		sk_reschedule(s, SK_ON);
	} else if (k < 32) {
		sk_reschedule(s, (r >> 48) % 3 ? SK_OFF : SK_HIDDEN);
	} else if (k == 32) {
		/* user access withdrawn from one event until the next reschedule */
		s->ev[(r >> 48) % s->nev].user = 0;
		s->no_user++;
		sk_update(s);
	}
}

/*
 * A group of nev events over nreg registers named by page index reg_idx[],
 * register k belonging to event k % nev; pages[i] is event i's page. On the
 * PMU, every event with user access. short_bits 0: x86's clock, else a clock
 * of that width about to wrap.
 */
static inline void sk_init(struct sk *s, unsigned nev, struct perf_event_mmap_page **pages,
			   const uint32_t *reg_idx, unsigned nreg, unsigned short_bits, uint64_t seed)
{
	unsigned i;

	memset(s, 0, sizeof(*s));
	s->nev = nev;
	s->nreg = nreg;
	s->seed = seed;
	for (i = 0; i < nreg; i++) {
		s->reg_idx[i] = reg_idx[i];
		s->reg_ev[i] = (int)(i % nev);
	}
	/* A 2.5 GHz TSC ten days after boot: mult * cycles needs more than 64 bits. */
	s->mult = 1717986918;
	s->shift = 32;
	s->clk = 2160000000000000ull;
	s->cyc2ns_off = 123456789;
	if (short_bits) {
		s->is_short = 1;
		s->mask = mask_of(short_bits);
		s->epoch_cyc = s->mask - 5000;	/* the counter wraps 4900 cycles from now */
		s->clk = s->epoch_cyc + 100;
		s->epoch_ns = 987654321000ull;
	}
	s->c_base = s->clk;
	s->en = s->run = 0;
	s->state = SK_ON;
	for (i = 0; i < nev; i++) {
		struct sk_event *e = &s->ev[i];

		e->pg = pages[i];
		e->lock = 0;
		e->user = 1;
		e->truth = e->count = 1000 * (i + 1);
		memset(e->pg, 0, sizeof(*e->pg));
		e->pg->size = sizeof(*e->pg);
		sk_program(s, e, (int)i, 48, 1ull << 47);
	}
	sk_update(s);
}

#endif
