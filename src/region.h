/* SPDX-License-Identifier: MIT */
/* Regions, for the report and zero-code mode. */
#ifndef PMU_REGION_H
#define PMU_REGION_H

#include "thread.h"

/* Region names interned so far; ids below it have a name. */
unsigned pmu__region_count(void);
/* The name of region id; it lives as long as the name table. */
const char *pmu__region_name(unsigned id);

/* A thread's figures for one region: calls, outermost calls, and figures ns, then n events. */
struct pmu__rcopy {
	uint64_t calls, spans;
	struct pmu__fig f[];
};

static inline size_t pmu__rcopy_size(unsigned n)
{
	return sizeof(struct pmu__rcopy) + (n + 1) * sizeof(struct pmu__fig);
}

/*
 * Copies t's figures for regions 0..nreg into d (nreg of pmu__rcopy_size(t->n)
 * bytes), consistently: the owner may be updating them right now.
 */
void pmu__region_copy(const struct pmu__thr *t, unsigned nreg, struct pmu__rcopy *d);

/* Ends every open region of the calling thread down to depth 0 (zero-code exit). */
int pmu__region_end_all(void);

#endif
