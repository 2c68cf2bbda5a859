/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's distributions: the regions' histograms (PMU_HISTOGRAMS)
 * added exactly across processes (report_dist.c writes them, from the merge's
 * view, as a process's). An event's histogram and sums are given only where
 * every process with histograms had it: a sum over some of them would be wrong.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge.h"


/* r's histograms for the union's nev events (new ones empty). 0 or -ENOMEM. */
static int dist_room(struct mdist *r, unsigned nev)
{
	bool first = !r->hist;
	struct pmu__shist *h;
	unsigned *c;

	if (!first && r->hne >= nev)
		return 0;
	h = realloc(r->hist, (1 + (size_t)nev) * sizeof(*h));
	if (h)
		r->hist = h;
	c = realloc(r->hcnt, (nev + 1) * sizeof(*c));
	if (c)
		r->hcnt = c;
	if (h && first)
		h[0] = (struct pmu__shist){ .nts = 1 };	/* ns's sums; the events' are added by the widening */
	if (!h || !c || pmu__shist_widen(&h[0], 1 + nev) < 0)
		return pmu__merge_nomem();
	memset(h + 1 + r->hne, 0, (nev - r->hne) * sizeof(*h));
	memset(c + r->hne, 0, (nev - r->hne) * sizeof(*c));
	r->hne = nev;
	return 0;
}

int pmu__merge_dist(struct merge *m, struct mdist *r, const struct pmu__rep_dist *d, unsigned in)
{
	int map[1 + m->nev + d->n], u[d->n + 1];

	for (unsigned i = 0; i < d->n; i++)
		if ((u[i] = pmu__merge_event(m, d->ev[i], in)) < 0)
			return u[i];
	if (dist_room(r, m->nev) < 0)
		return -ENOMEM;
	map[0] = 0;
	for (unsigned e = 0; e < m->nev; e++)
		map[1 + e] = -1;
	for (unsigned i = 0; i < d->n; i++)
		map[1 + u[i]] = 1 + (int)i;
	if (pmu__shist_add(&r->hist[0], &d->h[0], map) < 0)
		return pmu__merge_nomem();
	for (unsigned i = 0; i < d->n; i++) {
		if (pmu__shist_add(&r->hist[1 + u[i]], &d->h[1 + i], NULL) < 0)
			return pmu__merge_nomem();
		r->hcnt[u[i]] += d->nproc;
	}
	r->hproc += d->nproc;
	return 0;
}

int pmu__merge_dist_json(struct merge *m, const struct pmu__rep_ctx *c, const struct pmu__json *o, struct mdist *h,
			 unsigned in)
{
	struct pmu__rep_dist *d;
	int e = pmu__rep_dist(c, o, &d);

	if (e == 0 && d)
		e = pmu__merge_dist(m, h, d, in);
	pmu__rep_dist_free(d);
	return e;
}

bool pmu__merge_dist_has(const struct mdist *r, unsigned e)
{
	return e < r->hne && r->hcnt[e] == r->hproc;
}
