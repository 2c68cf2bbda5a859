/* SPDX-License-Identifier: MIT */
/* A thread's region figures for a snapshot (results.c): copied whole under the regions' seqcounts (region.c tells the protocol). */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "regions/region_int.h"

bool pmu__region_used(const struct pmu__thr *thr)
{
	const struct pmu__region_thr *t = PMU_LOAD_ACQUIRE(thr->upper);

	return t && PMU_READ_ONCE(t->used);
}

/* Lock-free tries at a copy before a report holds the owner still (it waits at its next update). */
#define COPY_TRIES 16

/* Region id's figures in t (NULL: none yet), as the owner last published them. */
static const struct pmu__acc *acc_at(const struct pmu__region_thr *t, unsigned id)
{
	const struct pmu__accv *v = t ? PMU_LOAD_ACQUIRE(t->accs) : NULL;

	return v && id < v->n ? PMU_LOAD_ACQUIRE(v->v[id]) : NULL;
}

/* Looks at every region's figures pointer and seqcount once (region id at id - 1): false while the owner is adding a call. */
static bool look(const struct pmu__region_thr *t, unsigned nreg, const struct pmu__acc **acc, uint64_t *seq)
{
	/* A region's figures are looked at like its seqcount: made later, it must still be absent at the last look. */
	for (unsigned k = 0; k < nreg; k++) {
		acc[k] = acc_at(t, k + 1);
		seq[k] = acc[k] ? pmu_seq_read_begin(&acc[k]->seq) : 0;
		if (seq[k] & 1)
			return false;
	}
	return true;
}

/* Its histograms into o->dist (made on the first copy, the copier's to free). 0 or -ENOMEM. */
static int copy_dist(const struct pmu__acc *a, unsigned n, struct pmu__rcopy *o)
{
	const struct pmu__hblk *h = PMU_LOAD_ACQUIRE(a->h);

	if (!h)
		return 0;
	if (!o->dist && !(o->dist = calloc(n + 1, sizeof(*o->dist))))
		return -ENOMEM;
	return pmu__hblk_copy(h, n, o->dist);
}

/* Region figures a (NULL: no call yet, every figure 0), looked at with seqcount seq, into o. 0 or -ENOMEM. */
static int copy_one(const struct pmu__acc *a, uint64_t seq, unsigned n, struct pmu__rcopy *o, size_t size)
{
	struct pmu__shist *dist = o->dist;	/* an earlier try's, kept for the next */

	if (!a) {
		memset(o, 0, size);
		o->dist = dist;
		for (unsigned i = 0; dist && i <= n; i++)
			pmu__shist_free(&dist[i]);
		return 0;
	}
	o->calls = seq / 2;
	o->spans = o->calls - PMU_SEQ_LD(a->nested);
	o->parent = a->parent;	/* set before a was published */
	o->clamped = PMU_SEQ_LD(a->clamped);
	for (unsigned i = 0; i <= n; i++) {
		const struct pmu__fig *f = &a->f[i];

		o->f[i] = (struct pmu__fig){
			.sum = PMU_SEQ_LD(f->sum), .min = PMU_SEQ_LD(f->min), .max = PMU_SEQ_LD(f->max),
			.sq = { PMU_SEQ_LD(f->sq[0]), PMU_SEQ_LD(f->sq[1]) },
			.en = PMU_SEQ_LD(f->en), .run = PMU_SEQ_LD(f->run),
		};
	}
	return copy_dist(a, n, o);
}

/* Whether every region is as it was at the look: no seqcount moved, no figures made since. */
static bool unchanged(const struct pmu__region_thr *t, unsigned nreg, const struct pmu__acc *const *acc,
		      const uint64_t *seq)
{
	for (unsigned k = 0; k < nreg; k++)
		if (acc[k] ? pmu_seq_read_retry(&acc[k]->seq, seq[k]) : acc_at(t, k + 1) != NULL)
			return false;
	return true;
}

/*
 * Copies t's figures for regions 1..nreg into d (nreg of pmu__rcopy_size(t->n)
 * bytes) as they were at one instant: no region's seqcount changed from the
 * first look at all of them to the last, so the copy is the state between the
 * last first look and the first last look. An owner that adds calls faster
 * than the copy is made is held still after COPY_TRIES: it then finishes at
 * most the call it is in, so the copy ends.
 */
int pmu__region_copy(const struct pmu__thr *thr, unsigned nreg, struct pmu__rcopy *d)
{
	struct pmu__region_thr *t = PMU_LOAD_ACQUIRE(thr->upper);
	const struct pmu__acc **acc = malloc(((size_t)nreg + 1) * sizeof(*acc));
	uint64_t *seq = malloc(((size_t)nreg + 1) * sizeof(*seq));
	unsigned n = thr->n, tries = 0;
	size_t size = pmu__rcopy_size(n);
	int r = 0;

	if (!acc || !seq) {
		free(acc);
		free(seq);
		return -ENOMEM;
	}
	for (;; tries++) {
		if (tries == COPY_TRIES && t)
			PMU_ADD(t->hold, 1);
		if (!look(t, nreg, acc, seq)) {
			sched_yield();
			continue;
		}
		for (unsigned id = 0; id < nreg && r == 0; id++)
			r = copy_one(acc[id], seq[id], n, (struct pmu__rcopy *)((char *)d + id * size), size);
		if (r < 0 || unchanged(t, nreg, acc, seq))
			break;
	}
	if (tries >= COPY_TRIES && t)
		PMU_ADD(t->hold, -1);
	free(acc);
	free(seq);
	return r;
}
