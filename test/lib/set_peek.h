/* SPDX-License-Identifier: MIT */
/* A set's descriptors and pages as the tests look at them: set.h's fields, read here and not in the library. */
#ifndef PMU_TEST_SET_PEEK_H
#define PMU_TEST_SET_PEEK_H

#include <errno.h>

#include "counters/set.h"

/* How many counters a set has (one per event but on hybrid machines). */
static inline unsigned pmu__counters(const struct pmu_set *set)
{
	return set ? pmu__cold(set)->nctr : 0;
}

/* Counter i's descriptor, page and event index. 0 or -EINVAL. */
static inline int pmu__counter(const struct pmu_set *set, unsigned i, int *fd,
			       const struct perf_event_mmap_page **page, unsigned *event)
{
	if (!set || i >= pmu__cold(set)->nctr)
		return -EINVAL;
	if (fd)
		*fd = pmu__cold(set)->ctr[i].fd;
	if (page)
		*page = pmu__cold(set)->ctr[i].page;
	if (event)
		*event = pmu__cold(set)->ctr[i].event;
	return 0;
}

#endif
