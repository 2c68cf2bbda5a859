/* SPDX-License-Identifier: MIT */
/* Regions, for the report and zero-code mode. */
#ifndef PMU_REGION_H
#define PMU_REGION_H

#include "thread.h"

/* Region names interned so far; ids below it have a name. */
unsigned pmu__region_count(void);
/* The name of region id; it lives as long as the name table. */
const char *pmu__region_name(unsigned id);

/*
 * Copies t's sums for regions 0..nreg into d (per region: calls, ns, then
 * t->n values), consistently: the owner may be updating them right now.
 */
void pmu__region_copy(const struct pmu__thr *t, unsigned nreg, uint64_t *d);

/* Ends every open region of the calling thread down to depth 0 (zero-code exit). */
int pmu__region_end_all(void);

#endif
