/* SPDX-License-Identifier: MIT */
/*
 * A counter set's layout, and the accessors through which the regions read
 * a set in one sequence. The set layer's functions, across its files, are
 * in set_ops.h.
 *
 * A set is one mmap of two kinds of page. The first ("hot") pages, which
 * struct pmu_set points at, hold what a user-space read needs, the handles
 * of pmu_counter() among it, and are MADV_WIPEONFORK: in a forked child they
 * read as zeros, so the child can never take the user-space path on its
 * parent's counters (the kernel does not copy perf mappings into children)
 * and no system call is spent on detecting it. The page after them ("cold")
 * holds everything else and survives fork, so that a child can still close
 * its copies of the descriptors.
 */
#ifndef PMU_SET_H
#define PMU_SET_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>
#include <unistd.h>

#include "events/event.h"
#include "counters/arch.h"
#include "counters/readpage.h"
#include "counters/emulated.h"

#define PMU_MAX_COUNTERS 256
#define PMU_ALIVE 0x706d7531u	/* in the hot page: wiped to 0 in a forked child */

/* How read(2) gives an event alone on one counter: its group's read and where its value is. */
struct pmu__evread {
	uint32_t nctr;			/* the event's counters: more than 1 sums several PMUs */
	uint32_t ctr;			/* its (last) counter */
	int fd;				/* a descriptor of that counter's group */
	uint32_t bytes;			/* the group's read */
	uint32_t pos;			/* the value in it; enabled and running are words 1 and 2 */
};

struct pmu_set {			/* the hot pages */
	/*
	 * For pmu__set_read_timed(): the events when every one is read from
	 * user space and they are one group (or one event), else 0; and the
	 * page when that is one event, else NULL (pmu__set_settle_timed()).
	 */
	const struct perf_event_mmap_page *timed1;
	uint32_t timed;
	uint32_t direct;		/* counters (== events) when each may be read from user space, else 0 */
	uint32_t alive;			/* PMU_ALIVE; 0 in a forked child */
	uint32_t one_group;		/* the events share one schedule: the first page tells whether all are multiplexed */
	uint32_t group_n;		/* events, when one read(2) of group_fd gives them in order; else 0 */
	uint32_t topdown;		/* Intel topdown metrics: read by topdown.c, never inline (direct, group_n 0) */
	int group_fd;
	/*
	 * The set's one emulated counter, when it is the whole set and enabled:
	 * its thread's count in the table, and what to take off a load of it
	 * for pmu_read()'s value (pmu__set_read_emu1()); else NULL.
	 */
	const uint64_t *emu1;
	uint64_t emu1_base;
	/* In the hot pages, after ev[nev]: a forked child's wipe clears them with the rest. */
	size_t group_size;
	struct pmu__evread *evr_tab;	/* per event, its own read(2) */
	const struct pmu__evread *evr;	/* evr_tab when pmu_counter_read() uses it; NULL without MADV_WIPEONFORK */
	struct pmu_counter ev[];	/* per event: .page when it alone may be read inline */
};

struct pmu__perf_counter {
	struct perf_event_mmap_page *page;	/* mapped while it may be read from user space */
	int fd;
	unsigned event;			/* the user's event this counter adds to */
	int cpu;			/* PMU_SOCKET_WIDE: the CPU it counts every task on; -1: the set's target */
	const char *why;		/* why it is read through read(2), or NULL */
	uint64_t auto_long;
	unsigned td;			/* PMU_TD_* when its group has topdown metric events, else 0 */
	uint32_t td_seq;		/* topdown: its page's lock at the group's last read(2) */
	uint64_t td_base;		/* topdown: its value at that read(2), from which the decode counts */
	char why_buf[192];		/* for a why that names a file */
	struct pmu__emu_ctr emu;	/* emulated (QEMU): no descriptor, a group of its own */
};

struct pmu__group {
	int fd;				/* leader */
	unsigned first, n;		/* counters first..first+n-1 */
	bool td;			/* slots leading topdown metric events */
	bool td_valid;			/* topdown: td_seq and td_base hold, no page changed since */
	uint64_t td_raw;		/* topdown: the slots register at the last decode */
};

struct pmu__cold {			/* the page before the hot ones */
	size_t map_size;
	pid_t owner;			/* checked with getpid() only without WIPEONFORK */
	dev_t fd_dev;			/* the perf descriptors' file, to close none that is not */
	ino_t fd_ino;
	bool wiped;			/* MADV_WIPEONFORK in force */
	bool enabled;			/* counting (pmu_enable, or opened enabled) */
	unsigned nev, nctr, ngroups;
	unsigned ntd;			/* groups with topdown metric events */
	struct pmu__perf_counter *ctr;
	struct pmu__group *grp;
	char **names;
	struct pmu__attr *attr;		/* per counter, kept for messages */
};

static inline size_t pmu__page_size(void)
{
	static size_t ps;	/* atomics: sets may be opened by several threads at once */
	size_t v = PMU_READ_ONCE(ps);

	if (!v) {
		v = (size_t)sysconf(_SC_PAGESIZE);
		PMU_WRITE_ONCE(ps, v);
	}
	return v;
}

/*
 * The hot pages' size, known without reading them, which a forked child
 * cannot: the set of PMU_MAX_COUNTERS events and their reads, at most. A
 * set of few events touches the first page alone.
 */
static inline size_t pmu__hot_size(void)
{
	size_t ps = pmu__page_size();	/* a power of 2 */
	size_t most = sizeof(struct pmu_set) + PMU_MAX_COUNTERS * (sizeof(struct pmu_counter) +
		       sizeof(struct pmu__evread));

	return (most + ps - 1) & ~(ps - 1);
}

static inline struct pmu__cold *pmu__cold(const struct pmu_set *set)
{
	return (struct pmu__cold *)((char *)set - pmu__page_size());
}

/* The set may be used by this process: not a child's copy of its parent's. 0 or -ECHILD. */
static inline int pmu__check_owner(const struct pmu_set *set, const char *what)
{
	if (likely(set->alive == PMU_ALIVE && (pmu__cold(set)->wiped || pmu__cold(set)->owner == getpid())))
		return 0;
	return pmu__err(-ECHILD, "%s: the set was opened by process %d; after fork the child must "
			"open sets of its own", what, (int)pmu__cold(set)->owner);
}

/*
 * read(2) of a group of n: nr, enabled, running, values[nr]; of a single
 * counter (no PERF_FORMAT_GROUP, cheaper in the kernel): value, enabled, running.
 */
static inline size_t pmu__group_bytes(unsigned n)
{
	return (n > 1 ? 3 + n : 3) * sizeof(uint64_t);
}

static inline const uint64_t *pmu__group_values(const uint64_t *buf, unsigned n)
{
	return n > 1 ? buf + 3 : buf;
}

/*
 * What pmu_read() of a set tells besides the values, for the layers above
 * (regions), which read no field of the set:
 */
/* Events read from user space, each from its page: all of the set's, or 0 when pmu_read() calls read(2). */
static inline unsigned pmu__set_user_events(const struct pmu_set *set)
{
	return set->direct;
}

/* Events of the one group read(2) gives in order with its times, when pmu_read() reads that way; else 0. */
static inline unsigned pmu__set_group_events(const struct pmu_set *set)
{
	return set->group_n;
}

/* Event i (< pmu__set_user_events()) was multiplexed: its page shows enabled != running, which then stays so. */
static inline bool pmu__set_event_multiplexed(const struct pmu_set *set, unsigned i)
{
	return pmu__page_multiplexed(set->ev[i].page);
}

/*
 * Whether any event may have been multiplexed, for all a look at no more
 * than the first page tells: false only for one group read from user space
 * whose first page (the group's schedule) shows it never was.
 */
static inline bool pmu__set_maybe_multiplexed(const struct pmu_set *set)
{
	return !set->direct || !set->one_group || pmu__set_event_multiplexed(set, 0);
}

/*
 * The regions' clock: the counter behind the set's first page's times
 * (pmu__arch_clock(): one instruction, no call), whose differences the
 * page's time_mult and time_shift turn into ns as linux/perf_event.h
 * documents (cap_user_time; time_mask with cap_user_time_short), where a
 * clock_gettime() costs a call. Its durations are CLOCK_MONOTONIC's (the
 * same counter, though the page's conversion is not slewed by NTP).
 */
static inline __attribute__((always_inline)) uint64_t pmu__set_cycles(void)
{
	return pmu__arch_clock();
}

/* Whether the set has the clock: read from user space, its first page with cap_user_time. */
static inline bool pmu__set_has_clock(const struct pmu_set *set)
{
#if PMU_INL_USER_READ
	return set->direct && (pmu__page_state(set->ev[0].page).caps & PMU_INL_CAP_TIME);
#else
	(void)set;
	return false;
#endif
}

/* The ns since counter value c0 (pmu__set_cycles()): 0 with *ns set, or 1 when the set has no clock now. */
static inline int pmu__set_ns_since(const struct pmu_set *set, uint64_t c0, uint64_t *ns)
{
	struct pmu_inl_value v = { .ns = c0 };

	if (unlikely(!PMU_INL_USER_READ || !set->direct) ||
	    unlikely(pmu_inl_read(set->ev[0].page, pmu_inl_rdpmc, pmu__arch_clock, PMU_INL_SINCE, &v)))
		return 1;
	*ns = v.ns;
	return 0;
}

/* set->timed1, set->timed and the first event's page, for the layers above (regions): they use these accessors, never the fields. */
static inline __attribute__((always_inline)) const struct perf_event_mmap_page *pmu__set_timed1(const struct pmu_set *set)
{
	return set->timed1;
}

static inline __attribute__((always_inline)) unsigned pmu__set_timed(const struct pmu_set *set)
{
	return set->timed;
}

static inline __attribute__((always_inline)) const struct perf_event_mmap_page *pmu__set_page0(const struct pmu_set *set)
{
	return set->ev[0].page;
}

/* Sets emu1 and emu1_base from the counters, whenever an emulated one is enabled, disabled or reset. */
static inline void pmu__set_settle_emu(struct pmu_set *set)
{
	const struct pmu__cold *c = pmu__cold(set);
	const struct pmu__emu_ctr *e = c->nctr == 1 && c->nev == 1 ? &c->ctr[0].emu : NULL;

	set->emu1 = e && e->on && e->enabled && e->slot ? &e->slot->count : NULL;
	set->emu1_base = e ? e->start - e->acc + PMU_ARCH_EMU_AFTER : 0;
}

/*
 * What pmu_read() gives of a set of one emulated counter (emu1), with one
 * load: 0; or 1 where the set is not that, or was opened by another process
 * (QEMU wipes nothing at fork, and the load would read the parent's table).
 */
static inline __attribute__((always_inline)) int pmu__set_read_emu1(const struct pmu_set *set, uint64_t *value)
{
	const uint64_t *p = set->emu1;

	if (!p || unlikely(pmu__cold(set)->owner != getpid()))
		return 1;
	*value = pmu__arch_emu_load(p) - set->emu1_base;
	return 0;
}

static inline __attribute__((always_inline)) bool pmu__set_emu1(const struct pmu_set *set)
{
	return set->emu1 != NULL;
}

/* Sets timed and timed1 from direct and one_group, whenever they change. */
static inline void pmu__set_settle_timed(struct pmu_set *set)
{
	set->timed = set->direct && (set->direct == 1 || set->one_group) ? set->direct : 0;
	set->timed1 = set->timed == 1 ? set->ev[0].page : NULL;
}

/* Events 1 to n - 1 of ev, on the schedule of event 0 (one group), which their caller checks: 0, or 1. */
static inline __attribute__((always_inline)) int pmu__set_read_rest(const struct pmu_counter *ev, uint64_t *values,
								    unsigned n)
{
	PMU_UNROLL
	for (unsigned i = 1; i < n; i++)
		if (unlikely(pmu_inl_page_read(ev[i].page, pmu_inl_rdpmc, 0, &values[i])))
			return 1;
	return 0;
}

/*
 * What pmu_read() gives of a set read from user space as one group (or of
 * one event), with no call, and the clock: at begin (begin true) the
 * clock's counter into *clk just before the counters, at end the ns since
 * *clk (a begin's) into it just after them, so that the counts take in as
 * little of the caller as possible. 0, or 1 when the pages cannot answer so
 * (multiplexed, index 0, no clock): pmu_read() gives the full answer then.
 * n: set->timed, which the caller has checked (a constant where it knows
 * it); pc: the first event's page (set->timed1 for one), which it has
 * loaded. The set's hot page is wiped in a forked child, so that there
 * timed is 0.
 */
static inline __attribute__((always_inline)) int pmu__set_read_timed(const struct pmu_set *set,
								     const struct perf_event_mmap_page *pc,
								     uint64_t *values, uint64_t *clk, bool begin,
								     unsigned n)
{
	struct pmu_inl_value v = { .ns = begin ? 0 : *clk };
	uint64_t cyc = begin ? pmu__set_cycles() : 0;
	unsigned mode = PMU_INL_COUNT | PMU_INL_TIMES | (begin ? 0 : PMU_INL_SINCE);

	if (!PMU_INL_USER_READ || (!begin && pmu__set_read_rest(set->ev, values, n)) ||
	    unlikely(pmu_inl_read(pc, pmu_inl_rdpmc, pmu__arch_clock, mode, &v)))
		return 1;
	values[0] = v.count;
	*clk = begin ? cyc : v.ns;
	return begin ? pmu__set_read_rest(set->ev, values, n) : 0;
}

#endif
