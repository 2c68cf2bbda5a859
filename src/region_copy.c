/* SPDX-License-Identifier: MIT */
/* A thread's region figures for a snapshot (results.c): copied whole under the regions' seqcounts. */
#include <sched.h>
#include <string.h>

#include "region_int.h"

bool pmu__region_used(const struct pmu__thr *thr)
{
	const struct pmu__region_thr *t = __atomic_load_n(&thr->upper, __ATOMIC_ACQUIRE);

	return t && __atomic_load_n(&t->used, __ATOMIC_RELAXED);
}

/*
 * Copies t's figures for regions 0..nreg into d (nreg of pmu__rcopy_size(t->n)
 * bytes) as they were at one instant: no region's seqcount changed from
 * the first look at all of them to the last, so the copy is the state
 * between the last first look and the first last look.
 */
void pmu__region_copy(const struct pmu__thr *thr, unsigned nreg, struct pmu__rcopy *d)
{
	const struct pmu__region_thr *t = __atomic_load_n(&thr->upper, __ATOMIC_ACQUIRE);
	const struct pmu__acc *acc[PMU_REGION_MAX];
	uint64_t seq[PMU_REGION_MAX];
	unsigned n = thr->n, id;
	size_t size = pmu__rcopy_size(n);

	for (;;) {
		/* A region's figures are looked at like its seqcount: made later, it must still be absent at the last look. */
		for (id = 0; id < nreg; id++) {
			acc[id] = t ? __atomic_load_n(&t->acc[id], __ATOMIC_ACQUIRE) : NULL;
			seq[id] = acc[id] ? __atomic_load_n(&acc[id]->seq, __ATOMIC_ACQUIRE) : 0;
			if (seq[id] & 1)
				break;
		}
		if (id < nreg) {	/* the owner is adding a call */
			sched_yield();
			continue;
		}
		for (id = 0; id < nreg; id++) {
			const struct pmu__acc *a = acc[id];
			struct pmu__rcopy *o = (struct pmu__rcopy *)((char *)d + id * size);

			if (!a) {	/* no call yet: every figure 0 */
				memset(o, 0, size);
				continue;
			}
			o->calls = seq[id] / 2;
			o->spans = o->calls - PMU_FIG_LD(a->nested);
			for (unsigned i = 0; i <= n; i++) {
				const struct pmu__fig *f = &a->f[i];

				o->f[i] = (struct pmu__fig){
					.sum = PMU_FIG_LD(f->sum), .min = PMU_FIG_LD(f->min), .max = PMU_FIG_LD(f->max),
					.sq = { PMU_FIG_LD(f->sq[0]), PMU_FIG_LD(f->sq[1]) },
					.en = PMU_FIG_LD(f->en), .run = PMU_FIG_LD(f->run),
				};
			}
		}
		for (id = 0; id < nreg; id++)
			if (acc[id] ? __atomic_load_n(&acc[id]->seq, __ATOMIC_RELAXED) != seq[id] :
				      t && __atomic_load_n(&t->acc[id], __ATOMIC_RELAXED))
				break;
		if (id == nreg)
			return;
	}
}
