/* SPDX-License-Identifier: MIT */
/* A thread's region figures for a snapshot (results.c): copied whole under the thread's seqcount. */
#include <sched.h>
#include <string.h>

#include "region_int.h"

bool pmu__region_used(const struct pmu__thr *thr)
{
	const struct pmu__region_thr *t = __atomic_load_n(&thr->upper, __ATOMIC_ACQUIRE);

	return t && __atomic_load_n(&t->used, __ATOMIC_RELAXED);
}

void pmu__region_copy(const struct pmu__thr *thr, unsigned nreg, struct pmu__rcopy *d)
{
	const struct pmu__region_thr *t = __atomic_load_n(&thr->upper, __ATOMIC_ACQUIRE);
	unsigned n = thr->n;
	size_t size = pmu__rcopy_size(n);
	uint64_t s1, s2;

	if (!t) {	/* no region begun yet: every figure 0 */
		memset(d, 0, nreg * size);
		return;
	}
	for (;;) {
		s1 = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			sched_yield();
			continue;
		}
		for (unsigned id = 0; id < nreg; id++) {
			const struct pmu__acc *a = __atomic_load_n(&t->acc[id], __ATOMIC_ACQUIRE);
			struct pmu__rcopy *o = (struct pmu__rcopy *)((char *)d + id * size);

			if (!a) {
				memset(o, 0, size);
				continue;
			}
			o->spans = PMU_FIG_LD(a->spans);
			o->calls = o->spans + PMU_FIG_LD(a->nested);
			for (unsigned i = 0; i <= n; i++) {
				const struct pmu__fig *f = &a->f[i];

				o->f[i] = (struct pmu__fig){
					PMU_FIG_LD(f->sum), PMU_FIG_LD(f->min), PMU_FIG_LD(f->max), PMU_FIG_LD(f->k),
					PMU_FIG_LD(f->sq_lo), PMU_FIG_LD(f->sq_hi), PMU_FIG_LD(f->en), PMU_FIG_LD(f->run),
				};
			}
		}
		s2 = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return;
	}
}
