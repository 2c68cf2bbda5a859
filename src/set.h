/* SPDX-License-Identifier: MIT */
/*
 * A counter set's layout, shared by set.c (open, group, enable, close),
 * read.c (the read paths) and why.c (which path, and why).
 *
 * A set is one mmap of two kinds of page. The first (the "hot" page, which
 * struct pmu_set points at) holds what a user-space read needs and is
 * MADV_WIPEONFORK: in a forked child it reads as zeros, so the child can never
 * take the user-space path on its parent's counters (the kernel does not copy
 * perf mappings into children) and no system call is spent on detecting it.
 * The pages after it ("cold") hold everything else and survive fork, so that a
 * child can still close its copies of the descriptors.
 */
#ifndef PMU_SET_H
#define PMU_SET_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>
#include <unistd.h>

#include "introspect.h"

#define PMU_MAX_COUNTERS 256
#define PMU_ALIVE 0x706d7531u	/* in the hot page: wiped to 0 in a forked child */

struct pmu_set {			/* the hot page */
	uint32_t direct;		/* counters (== events) when each may be read from user space, else 0 */
	uint32_t alive;			/* PMU_ALIVE; 0 in a forked child */
	uint32_t group_n;		/* events, when one read(2) of group_fd gives them in order; else 0 */
	int group_fd;
	uint64_t *group_buf;		/* group_size bytes */
	size_t group_size;
	struct perf_event_mmap_page *page[PMU_MAX_COUNTERS];
};

struct pmu__counter {
	int fd;
	unsigned event;			/* the user's event this counter adds to */
	const char *why;		/* why it is read through read(2), or NULL */
	uint64_t auto_long;
	char why_buf[192];		/* for a why that names a file */
};

struct pmu__group {
	int fd;				/* leader */
	unsigned first, n;		/* counters first..first+n-1 */
};

struct pmu__cold {			/* the page after the hot one */
	size_t map_size;
	pid_t owner;			/* checked with getpid() only without WIPEONFORK */
	bool wiped;			/* MADV_WIPEONFORK in force */
	unsigned nev, nctr, ngroups;
	struct pmu__counter *ctr;
	struct pmu__group *grp;
	char **names;
	struct pmu_reading *rd;		/* read(2): per counter, then per event */
	uint64_t *buf;			/* one group's read(2) */
	struct pmu__attr *attr;		/* per counter, kept for messages */
};

static inline size_t pmu__page_size(void)
{
	static size_t ps;	/* atomics: sets may be opened by several threads at once */
	size_t v = __atomic_load_n(&ps, __ATOMIC_RELAXED);

	if (!v) {
		v = (size_t)sysconf(_SC_PAGESIZE);
		__atomic_store_n(&ps, v, __ATOMIC_RELAXED);
	}
	return v;
}

static inline struct pmu__cold *pmu__cold(const struct pmu_set *set)
{
	return (struct pmu__cold *)((char *)set + pmu__page_size());
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

/* why.c */
/* Why a counter of this PMU type can never be read from user space ("software event"), or NULL. */
const char *pmu__type_blocker(const struct pmu__attr *a);
/* Why no counter of a set opened with these options can be read from user space, or NULL. */
const char *pmu__set_blocker(const struct pmu_opts *o);
/* Why counter k of an enabled set cannot be read from user space, given its page, or NULL. */
const char *pmu__user_read_blocker(struct pmu__counter *k, const struct perf_event_mmap_page *pc,
				   const struct pmu__attr *a);
/* Explains a failed perf_event_open() of event name on PMU a for task pid; returns -err. */
int pmu__open_error(int err, const char *name, const struct pmu__attr *a, unsigned group_size, pid_t pid);

#endif
