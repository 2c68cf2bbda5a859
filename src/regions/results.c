/* SPDX-License-Identifier: MIT */
/*
 * Region results as data: a snapshot of every thread's figures, each copied
 * consistently (region.c), with per-call min, max and standard deviation and
 * each event's running percentage, per thread and in total. The reports
 * (report.c) are formatted from it.
 *
 * The thread records are walked under the layer's lock, which only copies;
 * the arithmetic is done after letting go of it.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "parse/format.h"
#include "regions/region.h"
#include "regions/results.h"

/*
 * Sum of squares of deviations from the mean (M2) of one thread's figure f
 * over spans calls. With c the mean rounded down, the sum of (x - c)^2 is
 * sum(x^2) - 2c sum(x) + spans c^2, below 2^128 (no more than sum(x^2)) and
 * so exact in 128-bit modular arithmetic; and sum(x - c) is below spans:
 * the last step, in long double, does not cancel out.
 */
static long double thread_m2(const struct pmu__fig *f, uint64_t spans)
{
	unsigned __int128 sq = (unsigned __int128)f->sq[1] << 64 | f->sq[0];
	uint64_t c = f->sum / spans, s1 = f->sum - spans * c;
	unsigned __int128 d2 = sq - 2 * (unsigned __int128)c * f->sum + (unsigned __int128)spans * c * c;
	long double m2 = (long double)d2 - (long double)s1 * (long double)s1 / (long double)spans;

	return m2 > 0 ? m2 : 0;
}

/* Event i's times in o: its own, else (one group) those of figure 0. */
static void times(const struct pmu__rcopy *o, unsigned i, uint64_t *en, uint64_t *run)
{
	const struct pmu__fig *f = o->f[i].en ? &o->f[i] : &o->f[0];

	*en = f->en;
	*run = f->run;
}

static double pct(const struct pmu__rcopy *o, unsigned i)
{
	uint64_t en, run;

	times(o, i, &en, &run);
	return en ? 100.0 * (double)run / (double)en : 100.0;
}

/* Frees the histograms of n entries or copies of nfig figures each, dist at offset off of stride size. */
static void free_dists(void *p, size_t n, size_t size, size_t off, unsigned nfig)
{
	for (size_t j = 0; p && j < n; j++) {
		struct pmu__shist *d = *(struct pmu__shist **)((char *)p + j * size + off);

		for (unsigned i = 0; d && i < nfig; i++)
			pmu__shist_free(&d[i]);
		free(d);
	}
}

void pmu__results_clear(struct pmu_results *r)
{
	if (r->ent)
		free_dists(r->ent, (size_t)(r->nthr + 1) * r->nreg, sizeof(*r->ent), offsetof(struct pmu__rent, dist),
			   r->n + 1);
	for (unsigned i = 0; r->ev && i < r->n; i++)
		free(r->ev[i]);
	for (unsigned i = 0; r->reg && i < r->nreg; i++)
		free(r->reg[i]);
	free(r->ev);
	free(r->reg);
	free(r->parent);
	free(r->thr);
	free(r->cost);
	free(r->ent);
	free(r->u);
	free(r->x);
	free(r->named);
	free(r->skipped);
	free(r->units);
	pmu__mplan_free(&r->mp);
	free(r->mkeys);
	free(r->mv);
	free(r->path_up);
	free(r->path_reg);
	free(r->pv);
	if (r->pdist)
		free_dists(r->pdist, r->npath, sizeof(*r->pdist), 0, r->n + 1);
	free(r->pdist);
	memset(r, 0, sizeof(*r));
}

/* Thread k's entries from its copy c (nreg regions), which hands over its histograms. */
static void thread_entries(struct pmu_results *r, int k, struct pmu__rcopy *c)
{
	size_t size = pmu__rcopy_size(r->n);

	for (unsigned id = 0; id < r->nreg; id++) {
		struct pmu__rcopy *o = (struct pmu__rcopy *)((char *)c + id * size);
		struct pmu__rent *e = (struct pmu__rent *)pmu__results_ent(r, k, id);

		e->dist = o->dist;
		o->dist = NULL;
		e->calls = o->calls;
		e->spans = o->spans;
		e->clamped = o->clamped;
		for (unsigned i = 0; i <= r->n; i++) {
			const struct pmu__fig *f = &o->f[i];

			e->sum[i] = f->sum;
			e->min[i] = o->spans ? f->min : 0;
			e->max[i] = o->spans ? f->max : 0;
			e->sd[i] = o->spans ? sqrt((double)(thread_m2(f, o->spans) / o->spans)) : 0;
			e->pct[i] = i ? pct(o, i) : 100.0;
		}
	}
}

/*
 * The totals: sums, min of mins, max of maxes; the deviation combined from
 * each thread's mean and M2 (Chan et al.), running over enabled time summed.
 */
static void total_entries(struct pmu_results *r, struct pmu__rcopy *const *copy)
{
	size_t size = pmu__rcopy_size(r->n);

	for (unsigned id = 0; id < r->nreg; id++) {
		struct pmu__rent *t = (struct pmu__rent *)pmu__results_ent(r, -1, id);

		for (unsigned i = 0; i <= r->n; i++) {
			long double m2 = 0, mean;
			uint64_t en = 0, run = 0;
			bool any = false;

			t->sum[i] = t->min[i] = t->max[i] = 0;
			t->calls = t->spans = t->clamped = 0;
			for (unsigned k = 0; k < r->nthr; k++) {
				const struct pmu__rent *e = pmu__results_ent(r, (int)k, id);

				t->calls += e->calls;
				t->spans += e->spans;
				t->clamped += e->clamped;
				t->sum[i] += e->sum[i];
				if (i) {
					const struct pmu__rcopy *o = (const struct pmu__rcopy *)((const char *)copy[k] +
												 id * size);
					uint64_t e1, r1;

					times(o, i, &e1, &r1);
					en += e1;
					run += r1;
				}
				if (!e->spans)
					continue;
				t->min[i] = !any || e->min[i] < t->min[i] ? e->min[i] : t->min[i];
				t->max[i] = !any || e->max[i] > t->max[i] ? e->max[i] : t->max[i];
				any = true;
			}
			mean = t->spans ? (long double)t->sum[i] / t->spans : 0;
			for (unsigned k = 0; k < r->nthr; k++) {
				const struct pmu__rent *e = pmu__results_ent(r, (int)k, id);
				const struct pmu__fig *f =
					&((const struct pmu__rcopy *)((const char *)copy[k] + id * size))->f[i];
				long double d;

				if (!e->spans)
					continue;
				d = (long double)e->sum[i] / e->spans - mean;
				m2 += thread_m2(f, e->spans) + d * d * e->spans;
			}
			t->sd[i] = t->spans ? sqrt((double)(m2 / t->spans)) : 0;
			t->pct[i] = en ? 100.0 * (double)run / (double)en : 100.0;
		}
	}
}

/* Each region's histograms in total: the sum of the threads' that kept them. 0 or -ENOMEM. */
static int total_dists(struct pmu_results *r)
{
	for (unsigned id = 0; id < r->nreg; id++) {
		struct pmu__rent *t = (struct pmu__rent *)pmu__results_ent(r, -1, id);

		for (unsigned k = 0; k < r->nthr; k++) {
			if (pmu__shist_add_set(&t->dist, pmu__results_ent(r, (int)k, id)->dist, r->n + 1) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* The metrics the events allow, and their values in every entry, from its sums: 0 or -ENOMEM. */
static int metrics(struct pmu_results *r)
{
	size_t ne = (size_t)(r->nthr + 1) * r->nreg;
	int saved = errno;	/* the ScaleUnits' C locale may set it (a system without locale files) */
	int err = pmu__mplan_make(&r->mp, (const char *const *)r->ev, r->n, r->named);

	if (err < 0)
		return err;
	errno = saved;
	r->mkeys = calloc(r->mp.n + 1, sizeof(*r->mkeys));
	r->mv = calloc(ne * r->mp.n + 1, sizeof(*r->mv));
	if (!r->mkeys || !r->mv)
		return -ENOMEM;
	for (unsigned i = 0; i < r->mp.n; i++)
		r->mkeys[i] = r->mp.m[i].key;
	for (size_t j = 0; j < ne; j++)
		for (unsigned i = 0; i < r->mp.n; i++) {
			const struct pmu__rent *e = &r->ent[j];
			double v;

			r->mv[j * r->mp.n + i] = e->calls && pmu__mplan_value(&r->mp, i, (const char *const *)r->ev,
									       r->n, e->sum + 1, e->sum[0], &v) ? v : NAN;
		}
	return 0;
}

/* Points every entry at its share of r->u and r->x. */
static void lay_out(struct pmu_results *r)
{
	size_t per = r->n + 1, ne = (size_t)(r->nthr + 1) * r->nreg;

	for (size_t j = 0; j < ne; j++) {
		struct pmu__rent *e = &r->ent[j];

		e->sum = r->u + j * 3 * per;
		e->min = e->sum + per;
		e->max = e->min + per;
		e->sd = r->x + j * 2 * per;
		e->pct = e->sd + per;
	}
}

/* Each region's parent: the region around its first call in the first thread that ran it. */
static void parents(struct pmu_results *r, struct pmu__rcopy *const *copy)
{
	size_t size = pmu__rcopy_size(r->n);

	for (unsigned id = 0; id < r->nreg; id++) {
		r->parent[id] = -1;
		for (unsigned k = 0; k < r->nthr && r->parent[id] < 0; k++) {
			const struct pmu__rcopy *o = (const struct pmu__rcopy *)((const char *)copy[k] + id * size);

			/* a frame id: region k's is k + 1; compensation's (0) and the sentinel are no region's */
			if (o->calls && o->parent - 1 < r->nreg && o->parent != id + 1)
				r->parent[id] = (int)o->parent - 1;
			else if (o->calls)
				break;	/* at the top in the first thread that ran it */
		}
	}
}

/* Path (up, reg) in r's paths by hash h (mask: its size less 1; slots hold index + 1), added when new. */
static unsigned path_at(struct pmu_results *r, unsigned *h, unsigned mask, int up, unsigned reg)
{
	unsigned k = ((unsigned)(up + 1) * 2654435761u ^ reg * 40503u) & mask;

	for (; h[k]; k = (k + 1) & mask)
		if (r->path_up[h[k] - 1] == up && r->path_reg[h[k] - 1] == reg)
			return h[k] - 1;
	r->path_up[r->npath] = up;
	r->path_reg[r->npath] = reg;
	h[k] = ++r->npath;
	return r->npath - 1;
}

/* Self: each path's total less its children's, not below 0; for thread k (-1: the total). */
static void path_self(struct pmu_results *r, int k)
{
	unsigned w = r->n + 1;

	for (unsigned p = 0; p < r->npath; p++) {
		uint64_t *e = (uint64_t *)pmu__results_path(r, k, p);

		memcpy(e + 1 + w, e + 1, w * sizeof(*e));
	}
	for (unsigned p = 0; p < r->npath; p++) {
		const uint64_t *c = pmu__results_path(r, k, p);
		uint64_t *u = r->path_up[p] < 0 ? NULL : (uint64_t *)pmu__results_path(r, k, (unsigned)r->path_up[p]);

		for (unsigned i = 0; u && i < w; i++)
			u[1 + w + i] = u[1 + w + i] > c[1 + i] ? u[1 + w + i] - c[1 + i] : 0;
	}
}

/* A thread's call path nodes, as copied (their histograms gone to its flat copy). */
struct nodes {
	struct pmu__rcopy *c;
	unsigned m;
};

static void free_copies(struct pmu__rcopy **copy, struct nodes *nd, unsigned n, unsigned nreg, unsigned nev)
{
	for (unsigned j = 0; copy && j < n; j++) {
		free_dists(copy[j], nreg, pmu__rcopy_size(nev), offsetof(struct pmu__rcopy, dist), nev + 1);
		free(copy[j]);
		free_dists(nd[j].c, nd[j].m, pmu__rcopy_size(nev), offsetof(struct pmu__rcopy, dist), nev + 1);
		free(nd[j].c);
	}
	free(copy);
	free(nd);
}

/* The names of the configuration c and of the regions into r, with room for nthr threads. 0 or -ENOMEM. */
static int copy_names(struct pmu_results *r, const struct pmu__tconf *c, unsigned nthr)
{
	r->ev = calloc(r->n + 1, sizeof(*r->ev));
	r->units = calloc(r->n + 1, sizeof(*r->units));
	if (r->units && c->units)
		memcpy(r->units, c->units, r->n * sizeof(*r->units));
	r->reg = calloc(r->nreg + 1, sizeof(*r->reg));
	r->thr = calloc(nthr + 1, sizeof(*r->thr));
	r->cost = calloc(2 * ((size_t)r->n + 1), sizeof(*r->cost));
	if (!r->ev || !r->units || !r->reg || !r->thr || !r->cost)
		return -ENOMEM;
	for (unsigned i = 0; i < r->n; i++)
		if (!(r->ev[i] = strdup(c->names[i])))
			return -ENOMEM;
	for (unsigned id = 0; id < r->nreg; id++)
		if (!(r->reg[id] = strdup(pmu__region_name(id + 1))))
			return -ENOMEM;
	if ((c->metrics && !(r->named = strdup(c->metrics))) || (c->skipped && !(r->skipped = strdup(c->skipped))))
		return -ENOMEM;
	return 0;
}

/*
 * Each thread with regions into r->thr and copy (at most nthr, r->nthr set): 0, 1 when a
 * thread began its first region since they were counted (take it all again, or a thread
 * later in the walk, the caller say, would be left out: each thread does so once, so this
 * ends), or -ENOMEM. Under the walk's lock.
 */
static int copy_threads(struct pmu_results *r, struct pmu__rcopy **copy, struct nodes *nd, unsigned nthr, size_t size)
{
	uint64_t cost[2 * (r->n + 1)];
	const struct pmu__thr *t;
	struct pmu__rcopy *flat;
	struct nodes *nodes;

	for (t = pmu__thr_walk_next(NULL); t; t = pmu__thr_walk_next(t)) {
		struct pmu__rthr *rt = &r->thr[r->nthr];

		if (!pmu__region_used(t))
			continue;
		if (r->nthr == nthr)
			return 1;
		rt->tid = t->tid;
		memcpy(rt->name, t->tname, sizeof(rt->name));
		rt->name[sizeof(rt->name) - 1] = '\0';
		rt->exited = PMU_READ_ONCE(t->exited);
		copy[r->nthr] = calloc((size_t)r->nreg + 1, size);
		if (!copy[r->nthr])
			return -ENOMEM;
		/* counted first: on a failure, what was copied is freed with the rest */
		nodes = &nd[r->nthr];
		flat = copy[r->nthr++];
		if (pmu__region_copy_nodes(t, &nodes->c, &nodes->m) < 0 ||
		    pmu__region_flat(nodes->c, nodes->m, r->n, r->nreg, flat) < 0)
			return -ENOMEM;
		if (!(rt->comp = pmu__region_comp(t, cost)))
			continue;
		r->ncomp++;
		for (unsigned i = 0; i < 2 * (r->n + 1); i++)	/* a running mean, from 64ths */
			r->cost[i] += ((double)cost[i] / (1 << PMU_COMP_SHIFT) - r->cost[i]) / r->ncomp;
	}
	return 0;
}

/* One try at a consistent copy of every thread's regions into r and *copy: 0, 1 to try again, -errno. */
static int snapshot(struct pmu_results *r, struct pmu__rcopy ***copy, struct nodes **nd, const char *who)
{
	const struct pmu__tconf *c;
	const struct pmu__thr *t;
	unsigned nthr = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	*copy = NULL;
	*nd = NULL;
	c = pmu__thr_walk_begin();
	if (!c) {
		pmu__thr_walk_end();
		return pmu__err(-EINVAL, "%s: the per-thread layer is not set up: call pmu_thread_init() "
				"first (or set PMU_EVENTS in the environment)", who);
	}
	r->n = c->n;
	r->start = c->start;
	r->nreg = pmu__region_count();
	for (t = pmu__thr_walk_next(NULL); t; t = pmu__thr_walk_next(t))
		nthr += pmu__region_used(t);
	*copy = calloc(nthr + 1, sizeof(**copy));
	*nd = calloc(nthr + 1, sizeof(**nd));
	rc = !*copy || !*nd ? -ENOMEM : copy_names(r, c, nthr);
	if (rc == 0)
		rc = copy_threads(r, *copy, *nd, nthr, pmu__rcopy_size(r->n));
	pmu__thr_walk_end();
	/*
	 * A region named for the first time meanwhile is missing from the copy while
	 * the calls around it are in: take the copy again (names are few, and forgotten
	 * only by pmu_thread_fini(), so this ends).
	 */
	if (rc == 0 && pmu__region_count() != r->nreg)
		rc = 1;
	if (rc != 0) {
		free_copies(*copy, *nd, r->nthr, r->nreg, r->n);
		*copy = NULL;
		*nd = NULL;
		r->nthr = 0;
		pmu__results_clear(r);
	}
	return rc == -ENOMEM ? pmu__err(rc, "%s: out of memory", who) : rc;
}

/* The histograms of the nodes nd (map: each one's path) added into their paths'. 0 or -ENOMEM. */
static int path_dists(struct pmu_results *r, const struct nodes *nd, const unsigned *map)
{
	size_t size = pmu__rcopy_size(r->n);
	unsigned at = 0;

	for (unsigned k = 0; k < r->nthr; at += nd[k++].m)
		for (unsigned i = 0; i < nd[k].m; i++) {
			const struct pmu__rcopy *o = (const struct pmu__rcopy *)((const char *)nd[k].c + i * size);

			if (!o->dist)
				continue;
			if (!r->pdist && !(r->pdist = calloc(r->npath + 1, sizeof(*r->pdist))))
				return -ENOMEM;
			if (pmu__shist_add_set(&r->pdist[map[at + i]], o->dist, r->n + 1) < 0)
				return -ENOMEM;
		}
	return 0;
}

/*
 * The call paths of every thread's nodes nd into r: one per (path around,
 * region), each thread's calls and totals, their sum, and self. 0 or -ENOMEM.
 */
static int paths(struct pmu_results *r, const struct nodes *nd)
{
	size_t size = pmu__rcopy_size(r->n), w = 2 * ((size_t)r->n + 1) + 1;
	unsigned all = 0, mask = 15, *h, *map, at = 0;

	for (unsigned k = 0; k < r->nthr; k++)
		all += nd[k].m;
	while (mask < 2 * all)
		mask = 2 * mask + 1;
	h = calloc((size_t)mask + 1, sizeof(*h));
	map = malloc((all + 1) * sizeof(*map));
	r->path_up = malloc((all + 1) * sizeof(*r->path_up));
	r->path_reg = malloc((all + 1) * sizeof(*r->path_reg));
	if (!h || !map || !r->path_up || !r->path_reg)
		goto nomem;
	for (unsigned k = 0; k < r->nthr; at += nd[k++].m)	/* a node's up is before it: mapped already */
		for (unsigned i = 0; i < nd[k].m; i++) {
			const struct pmu__rcopy *o = (const struct pmu__rcopy *)((const char *)nd[k].c + i * size);

			map[at + i] = path_at(r, h, mask, o->up == (uint64_t)-1 ? -1 : (int)map[at + o->up],
					      (unsigned)o->id - 1);
		}
	if (!(r->pv = calloc((r->nthr + 1) * (size_t)r->npath * w + 1, sizeof(*r->pv))))
		goto nomem;
	at = 0;
	for (unsigned k = 0; k < r->nthr; at += nd[k++].m)
		for (unsigned i = 0; i < nd[k].m; i++) {
			const struct pmu__rcopy *o = (const struct pmu__rcopy *)((const char *)nd[k].c + i * size);
			uint64_t *e = (uint64_t *)pmu__results_path(r, (int)k, map[at + i]);
			uint64_t *t = (uint64_t *)pmu__results_path(r, -1, map[at + i]);

			e[0] += o->calls;
			t[0] += o->calls;
			for (unsigned f = 0; f <= r->n; f++) {
				e[1 + f] += o->f[f].sum;
				t[1 + f] += o->f[f].sum;
			}
		}
	for (int k = -1; k < (int)r->nthr; k++)
		path_self(r, k);
	free(h);
	if (path_dists(r, nd, map) < 0) {
		free(map);
		return -ENOMEM;
	}
	free(map);
	return 0;
nomem:
	free(h);
	free(map);
	return -ENOMEM;
}

int pmu__results_fill(struct pmu_results *r, const char *who)
{
	struct pmu__rcopy **copy;
	struct nodes *nd;
	int rc;

	while ((rc = snapshot(r, &copy, &nd, who)) == 1)
		;
	if (rc < 0)
		return rc;
	r->ent = calloc((size_t)(r->nthr + 1) * r->nreg + 1, sizeof(*r->ent));
	r->u = calloc((size_t)(r->nthr + 1) * r->nreg * 3 * (r->n + 1) + 1, sizeof(*r->u));
	r->x = calloc((size_t)(r->nthr + 1) * r->nreg * 2 * (r->n + 1) + 1, sizeof(*r->x));
	r->parent = malloc((r->nreg + 1) * sizeof(*r->parent));
	if (r->ent && r->u && r->x && r->parent) {
		lay_out(r);
		for (unsigned k = 0; k < r->nthr; k++)
			thread_entries(r, (int)k, copy[k]);
		total_entries(r, copy);
		parents(r, copy);
	}
	rc = paths(r, nd);
	free_copies(copy, nd, r->nthr, r->nreg, r->n);
	pmu__thr_refusals(&r->refused);
	if (rc < 0 || !r->ent || !r->u || !r->x || !r->parent || total_dists(r) < 0 || metrics(r) < 0) {
		pmu__results_clear(r);
		return pmu__err(-ENOMEM, "%s: out of memory", who);
	}
	return 0;
}

PMU_API struct pmu_results *pmu_results_take(void)
{
	struct pmu_results *r = malloc(sizeof(*r));
	int err;

	if (!r) {
		pmu__err(-ENOMEM, "pmu_results_take: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	err = pmu__results_fill(r, "pmu_results_take");
	if (err < 0) {
		free(r);
		errno = -err;
		return NULL;
	}
	return r;
}

PMU_API void pmu_results_free(struct pmu_results *r)
{
	if (!r)
		return;
	pmu__results_clear(r);
	free(r);
}

PMU_API unsigned pmu_results_events(const struct pmu_results *r, const char *const **names)
{
	if (names)
		*names = r ? (const char *const *)r->ev : NULL;
	return r ? r->n : 0;
}

PMU_API unsigned pmu_results_regions(const struct pmu_results *r, const char *const **names)
{
	if (names)
		*names = r ? (const char *const *)r->reg : NULL;
	return r ? r->nreg : 0;
}

PMU_API unsigned pmu_results_threads(const struct pmu_results *r)
{
	return r ? r->nthr : 0;
}

/*
 * The caller's struct of size bytes, from 0.4's (first) up: it may be newer
 * (larger) than this library's, whose tail is zeroed ("not given"). The
 * fields written below all date from 0.4; a later one is written only when
 * size covers it.
 */
static int check_out(const char *who, const char *what, const void *r, void *out, size_t first)
{
	size_t size;
	int err;

	if (!r || !out)
		return pmu__err(-EINVAL, "%s: %s is NULL", who, r ? "out" : "the results");
	size = *(const size_t *)out;
	if ((err = pmu__check_size(who, what, out, size, first, first, 0)) < 0)
		return err;
	memset(out, 0, size);
	*(size_t *)out = size;
	return 0;
}

PMU_API int pmu_results_thread(const struct pmu_results *r, unsigned i, struct pmu_thread_result *out)
{
	/* 0.4's struct had no compensated */
	int err = check_out("pmu_results_thread", "struct pmu_thread_result", r, out,
			    offsetof(struct pmu_thread_result, compensated));

	if (err < 0)
		return err;
	if (i >= r->nthr)
		return pmu__err(-EINVAL, "pmu_results_thread: thread %u out of range (the results have %u)",
				i, r->nthr);
	out->tid = r->thr[i].tid;
	out->name = r->thr[i].name;
	out->exited = r->thr[i].exited;
	if (out->size >= offsetof(struct pmu_thread_result, compensated) + sizeof(out->compensated))
		out->compensated = r->thr[i].comp;
	return 0;
}

PMU_API int pmu_results_get(const struct pmu_results *r, unsigned region, int thread,
			    struct pmu_region_result *out)
{
	const struct pmu__rent *e;
	/* 0.4's struct had no clamped */
	int err = check_out("pmu_results_get", "struct pmu_region_result", r, out,
			    offsetof(struct pmu_region_result, clamped));

	if (err < 0)
		return err;
	if (region >= r->nreg)
		return pmu__err(-EINVAL, "pmu_results_get: region %u out of range (the results have %u)",
				region, r->nreg);
	if (thread < -1 || thread >= (int)r->nthr)
		return pmu__err(-EINVAL, "pmu_results_get: thread %d out of range (-1 for the total, or "
				"0 to %d)", thread, (int)r->nthr - 1);
	e = pmu__results_ent(r, thread, region);
	if (!e->calls) {
		if (thread < 0)
			return pmu__err(-ENOENT, "%s: no thread completed a call of the region", r->reg[region]);
		return pmu__err(-ENOENT, "%s: thread %d (tid %d) completed no call of the region",
				r->reg[region], thread, (int)r->thr[thread].tid);
	}
	out->name = r->reg[region];
	out->calls = e->calls;
	out->spans = e->spans;
	out->ns = e->sum[0];
	out->ns_min = e->min[0];
	out->ns_max = e->max[0];
	out->ns_stddev = e->sd[0];
	out->nevents = r->n;
	out->sum = e->sum + 1;
	out->min = e->min + 1;
	out->max = e->max + 1;
	out->stddev = e->sd + 1;
	out->running_pct = e->pct + 1;
	if (out->size >= offsetof(struct pmu_region_result, clamped) + sizeof(out->clamped))
		out->clamped = e->clamped;
	return 0;
}

PMU_API unsigned pmu_results_paths(const struct pmu_results *r)
{
	return r ? r->npath : 0;
}

PMU_API int pmu_results_path(const struct pmu_results *r, unsigned path, int thread, struct pmu_path_result *out)
{
	int err = check_out("pmu_results_path", "struct pmu_path_result", r, out, sizeof(*out));
	const uint64_t *e;

	if (err < 0)
		return err;
	if (path >= r->npath)
		return pmu__err(-EINVAL, "pmu_results_path: path %u out of range (the results have %u)", path,
				r->npath);
	if (thread < -1 || thread >= (int)r->nthr)
		return pmu__err(-EINVAL, "pmu_results_path: thread %d out of range (-1 for the total, or 0 to %d)",
				thread, (int)r->nthr - 1);
	e = pmu__results_path(r, thread, path);
	out->up = r->path_up[path];
	out->region = r->path_reg[path];
	out->depth = pmu__results_depth(r, path);
	out->calls = e[0];
	out->ns = e[1];
	out->self_ns = e[2 + r->n];
	out->nevents = r->n;
	out->sum = e + 2;
	out->self = e + 3 + r->n;
	return 0;
}

PMU_API unsigned pmu_results_metrics(const struct pmu_results *r, const char *const **names)
{
	if (names)
		*names = r ? (const char *const *)r->mkeys : NULL;
	return r ? r->mp.n : 0;
}

PMU_API int pmu_results_metric(const struct pmu_results *r, unsigned region, int thread, const char *metric,
			       double *value)
{
	int i;

	if (!r || !metric || !value)
		return pmu__err(-EINVAL, "pmu_results_metric: %s is NULL", !r ? "the results" : !metric ? "metric" :
				"value");
	if (region >= r->nreg)
		return pmu__err(-EINVAL, "pmu_results_metric: region %u out of range (the results have %u)",
				region, r->nreg);
	if (thread < -1 || thread >= (int)r->nthr)
		return pmu__err(-EINVAL, "pmu_results_metric: thread %d out of range (-1 for the total, or "
				"0 to %d)", thread, (int)r->nthr - 1);
	i = pmu__mplan_find(&r->mp, metric);
	if (i < 0)
		return pmu__err(-ENOENT, "%s: no such metric in the results (their events do not give it; "
				"pmu_results_metrics() lists those they give)",
				pmu__show(&(struct pmu__shown){ 0 }, metric, strlen(metric)));
	if (!pmu__results_ent(r, thread, region)->calls) {
		if (thread < 0)
			return pmu__err(-ENOENT, "%s: no thread completed a call of the region", r->reg[region]);
		return pmu__err(-ENOENT, "%s: thread %d (tid %d) completed no call of the region",
				r->reg[region], thread, (int)r->thr[thread].tid);
	}
	*value = pmu__results_metric(r, thread, region, (unsigned)i);
	if (isnan(*value))
		return pmu__err(-EDOM, "%s: metric %s is undefined in the region (a zero denominator)",
				r->reg[region], r->mp.m[i].key);
	return 0;
}

/* Region region's entry in thread (-1: total) for who, with histograms kept there. 0 or -errno. */
static int dist_entry(const struct pmu_results *r, const char *who, unsigned region, int thread,
		      const struct pmu__rent **e)
{
	if (!r)
		return pmu__err(-EINVAL, "%s: the results are NULL", who);
	if (region >= r->nreg)
		return pmu__err(-EINVAL, "%s: region %u out of range (the results have %u)", who, region, r->nreg);
	if (thread < -1 || thread >= (int)r->nthr)
		return pmu__err(-EINVAL, "%s: thread %d out of range (-1 for the total, or 0 to %d)", who, thread,
				(int)r->nthr - 1);
	*e = pmu__results_ent(r, thread, region);
	if (!(*e)->dist || !pmu__shist_total(&(*e)->dist[0]))
		return pmu__err(-ENOENT, "%s: %s: no call counted with histograms %s (pmu_region_histograms(1), "
				"PMU_HISTOGRAMS=1)", who, r->reg[region], thread < 0 ? "in any thread" : "in the thread");
	return 0;
}

PMU_API int pmu_results_quantile(const struct pmu_results *r, unsigned region, int thread, unsigned figure,
				 double q, double *value)
{
	const struct pmu__rent *e;
	int err = dist_entry(r, "pmu_results_quantile", region, thread, &e);

	if (err < 0)
		return err;
	if (!value)
		return pmu__err(-EINVAL, "pmu_results_quantile: value is NULL");
	if (figure > r->n)
		return pmu__err(-EINVAL, "pmu_results_quantile: figure %u out of range (0 for ns, 1 to %u for the "
				"events)", figure, r->n);
	if (!(q > 0 && q <= 1))
		return pmu__err(-EINVAL, "pmu_results_quantile: q %g is not in (0, 1]", q);
	*value = pmu__dist_quantile(e, figure, q);
	return 0;
}

PMU_API int pmu_results_tail(const struct pmu_results *r, unsigned region, int thread, unsigned event,
			     uint64_t *calls, double *tail, double *rest)
{
	const struct pmu__rent *e;
	int err = dist_entry(r, "pmu_results_tail", region, thread, &e);
	double t[r ? r->n + 2 : 1], o[r ? r->n + 2 : 1];
	uint64_t from;

	if (err < 0)
		return err;
	if (!calls || !tail || !rest)
		return pmu__err(-EINVAL, "pmu_results_tail: %s is NULL", !calls ? "calls" : !tail ? "tail" : "rest");
	if (event >= r->n)
		return pmu__err(-EINVAL, "pmu_results_tail: event %u out of range (the results have %u)", event,
				r->n);
	*calls = pmu__shist_tail(&e->dist[0], &from, t, o);
	*tail = t[1 + event];
	*rest = o[1 + event];
	return 0;
}
