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

/* t's nodes as the owner last published them: their count, and the array holding at least as many. */
static unsigned nodes_of(const struct pmu__region_thr *t, const struct pmu__accv **v)
{
	unsigned n = t ? PMU_LOAD_ACQUIRE(t->nodes) : 0;

	*v = n ? PMU_LOAD_ACQUIRE(t->accs) : NULL;
	return n;
}

/* Looks at m nodes' seqcounts once: false while the owner is adding a call. */
static bool look(const struct pmu__accv *v, unsigned m, uint64_t *seq)
{
	for (unsigned i = 0; i < m; i++) {
		seq[i] = pmu_seq_read_begin(&PMU_LOAD_ACQUIRE(v->v[i])->seq);
		if (seq[i] & 1)
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

/* Node a, looked at with seqcount seq, into o. 0 or -ENOMEM. */
static int copy_one(const struct pmu__acc *a, uint64_t seq, unsigned n, struct pmu__rcopy *o)
{
	o->calls = seq / 2;
	o->spans = o->calls - PMU_SEQ_LD(a->nested);
	o->parent = a->parent;	/* these four set before a was published */
	o->id = a->id;
	o->up = a->up->up ? a->up->idx : (uint64_t)-1;	/* the root has no up */
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

/* Whether the nodes are as they were at the look: as many, no seqcount moved. */
static bool unchanged(const struct pmu__region_thr *t, const struct pmu__accv *v, unsigned m, const uint64_t *seq)
{
	if ((t ? PMU_LOAD_ACQUIRE(t->nodes) : 0) != m)
		return false;
	for (unsigned i = 0; i < m; i++)
		if (pmu_seq_read_retry(&v->v[i]->seq, seq[i]))
			return false;
	return true;
}

/*
 * Copies t's nodes into *d as they were at one instant: no node was made
 * and no seqcount changed from the first look at all of them to the last,
 * so the copy is the state between the last first look and the first last
 * look. An owner that adds calls faster than the copy is made is held still
 * after COPY_TRIES: it then finishes at most the call it is in, so the copy ends.
 */
int pmu__region_copy_nodes(const struct pmu__thr *thr, struct pmu__rcopy **d, unsigned *count)
{
	struct pmu__region_thr *t = PMU_LOAD_ACQUIRE(thr->upper);
	unsigned n = thr->n, tries = 0, m, have = 0;	/* have: the nodes *d has room for */
	size_t size = pmu__rcopy_size(n);
	const struct pmu__accv *v;
	uint64_t *seq = NULL;
	int r = 0;

	*d = NULL;
	for (;; tries++) {
		if (tries == COPY_TRIES && t)
			PMU_ADD(t->hold, 1);
		if ((m = nodes_of(t, &v)) > have) {	/* a try's histograms are kept for the next */
			void *p = realloc(*d, m * size), *q = realloc(seq, m * sizeof(*seq));

			*d = p ? p : *d;
			seq = q ? q : seq;
			if (!p || !q) {
				r = -ENOMEM;
				break;
			}
			memset((char *)*d + have * size, 0, (m - have) * size);
			have = m;
		}
		if (!look(v, m, seq)) {
			sched_yield();
			continue;
		}
		for (unsigned i = 0; i < m && r == 0; i++)
			r = copy_one(v->v[i], seq[i], n, (struct pmu__rcopy *)((char *)*d + i * size));
		if (r < 0 || unchanged(t, v, m, seq))
			break;
	}
	if (tries >= COPY_TRIES && t)
		PMU_ADD(t->hold, -1);
	free(seq);
	*count = have;
	return r;
}

/* Whether node i of c (size bytes each) is inside a node of its own region: then its calls are not outermost. */
static bool nested_in_itself(const char *c, size_t size, unsigned i)
{
	const struct pmu__rcopy *o = (const struct pmu__rcopy *)(c + i * size);
	uint64_t id = o->id;

	for (uint64_t up = o->up; up != (uint64_t)-1; up = o->up) {
		o = (const struct pmu__rcopy *)(c + up * size);
		if (o->id == id)
			return true;
	}
	return false;
}

/* Node o's figures, histograms and calls added into its region's (d, which had none when first). 0 or -ENOMEM. */
static int flat_add(struct pmu__rcopy *d, const struct pmu__rcopy *o, unsigned n, bool first)
{
	if (first)
		memcpy(d->f, o->f, (n + 1) * sizeof(d->f[0]));
	for (unsigned i = 0; !first && i <= n; i++)
		pmu__fig_fold(&d->f[i], &o->f[i]);
	if (pmu__shist_add_set(&d->dist, o->dist, n + 1) < 0)
		return -ENOMEM;
	d->spans += o->spans;
	d->clamped += o->clamped;
	return 0;
}

/*
 * The flat view: m nodes c (n events) folded by region, ids 1..nreg into d
 * (zeroed), with their histograms added (the nodes keep theirs, for the
 * paths). A region's calls are all its nodes'; its figures those of the
 * nodes not inside one of its own
 * (as a region nested in itself counts once), and its parent the one
 * around its first node. 0 or -ENOMEM.
 */
int pmu__region_flat(const struct pmu__rcopy *c, unsigned m, unsigned n, unsigned nreg, struct pmu__rcopy *d)
{
	size_t size = pmu__rcopy_size(n);
	char *st = calloc(nreg + 1, 1);	/* per region: 1 seen, 2 with figures */
	int r = st ? 0 : -ENOMEM;

	for (unsigned i = 0; r == 0 && i < m; i++) {
		const struct pmu__rcopy *o = (const struct pmu__rcopy *)((const char *)c + i * size);
		struct pmu__rcopy *e;
		unsigned k = (unsigned)o->id - 1;

		if (o->id == 0 || o->id > nreg)	/* named since the caller counted: it takes the copy again */
			continue;
		e = (struct pmu__rcopy *)((char *)d + k * size);
		if (!(st[k] & 1))
			e->parent = o->parent;
		st[k] |= 1;
		e->calls += o->calls;
		if (nested_in_itself((const char *)c, size, i))
			continue;
		r = flat_add(e, o, n, !(st[k] & 2));
		st[k] |= 2;
	}
	free(st);
	return r;
}

int pmu__region_node_ups(const struct pmu__thr *thr, uint64_t **ups, unsigned *count)
{
	const struct pmu__accv *v;
	unsigned m = nodes_of(PMU_LOAD_ACQUIRE(thr->upper), &v);

	*count = 0;
	if (!(*ups = malloc((m + 1) * sizeof(**ups))))
		return -ENOMEM;
	for (unsigned i = 0; i < m; i++) {	/* a node's up and region never change once published */
		const struct pmu__acc *a = PMU_LOAD_ACQUIRE(v->v[i]);

		(*ups)[i] = (a->up->up ? a->up->idx : UINT32_MAX) << 32 | (uint32_t)a->id;
	}
	*count = m;
	return 0;
}
