/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's call paths: each input's "paths" (a process's report
 * and a merged one have the same) summed per path, a path being its names
 * from the top. Sums only, so that a merge of merges gives what one merge of
 * every process gives. Written by the process's writers (report_paths.c),
 * through a snapshot that holds the paths alone.
 */
#include <errno.h>
#include <string.h>

#include "parse/json.h"
#include "regions/region.h"
#include "regions/results.h"
#include "report/merge.h"

static size_t key_of(int up, const char *name)
{
	return pmu__merge_hash(2166136261u ^ (size_t)(up + 1) * 0x9e3779b97f4a7c15ull, name);
}

static size_t path_key(const struct merge *m, unsigned i)
{
	return key_of(m->path[i].up, m->path[i].name);
}

/* Path name inside up, found or made: its index, or -ENOMEM. */
static int path_of(struct merge *m, int up, const char *name)
{
	struct mpath *p;
	size_t h;

	if (2 * (size_t)(m->npath + 1) > m->pathmask + 1 &&
	    pmu__merge_rehash(&m->pathslot, &m->pathmask, m->npath, path_key, m) < 0)
		return -ENOMEM;
	for (h = key_of(up, name) & m->pathmask; m->pathslot[h]; h = (h + 1) & m->pathmask) {
		p = &m->path[m->pathslot[h] - 1];
		if (p->up == up && !strcmp(p->name, name))
			return (int)m->pathslot[h] - 1;
	}
	if (pmu__grow(&m->path, m->npath, sizeof(*m->path)) < 0)
		return pmu__merge_nomem();
	p = &m->path[m->npath];
	*p = (struct mpath){ .up = up, .name = strdup(name), .fig = calloc(2, sizeof(uint64_t)) };
	if (!p->name || !p->fig) {
		free(p->name);
		free(p->fig);
		return pmu__merge_nomem();
	}
	m->pathslot[h] = ++m->npath;
	return (int)m->npath - 1;
}

/* x added to *to: 0, or -ERANGE with a message naming the figure of path entry o. */
static int add(const struct pmu__rep_ctx *c, const struct pmu__json *o, uint64_t *to, uint64_t x, const char *fig)
{
	if (!__builtin_add_overflow(*to, x, to))
		return 0;
	pmu__rep_bad(c, o->line, (char[200]){ 0 }, "\"paths\": %.64s: the sum passes 2^64 - 1", fig);
	return -ERANGE;
}

/* Event e's total and self of p: room made for the union's events. */
static uint64_t *ev_fig(struct merge *m, struct mpath *p, unsigned e)
{
	if (e >= p->ne) {
		uint64_t *v = realloc(p->fig, (2 + 2 * (size_t)m->nev) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + 2 + 2 * p->ne, 0, 2 * (m->nev - p->ne) * sizeof(*v));
		p->fig = v;
		p->ne = m->nev;
	}
	return &p->fig[2 + 2 * e];
}

/* Entry o's events (its "counts" and "self_counts", both of the events evs lists) into path p. */
static int entry_events(struct merge *m, const struct pmu__rep_ctx *c, const struct pmu__json *o, unsigned p,
			const struct pmu__json *evs, unsigned in)
{
	const struct pmu__json *tot, *self;
	int e;

	if ((e = pmu__rep_need(c, o, "counts", PMU_JSON_OBJECT, &tot)) < 0 ||
	    (e = pmu__rep_need(c, o, "self_counts", PMU_JSON_OBJECT, &self)) < 0)
		return e;
	if (tot->n != evs->n || self->n != evs->n)
		return BAD(c, o, "\"paths\": \"counts\" and \"self_counts\" hold %zu and %zu events, \"events\" %zu",
			   tot->n, self->n, evs->n);
	for (size_t i = 0; i < evs->n; i++) {
		const char *name = evs->v[i].s;
		uint64_t t, s, *f;
		int k;

		if ((e = pmu__rep_need_u64(c, tot, name, &t)) < 0 || (e = pmu__rep_need_u64(c, self, name, &s)) < 0)
			return e;
		if ((k = pmu__merge_event(m, name, in)) < 0)
			return k;
		if (!(f = ev_fig(m, &m->path[p], (unsigned)k)))
			return pmu__merge_nomem();
		if ((e = add(c, o, &f[0], t, name)) < 0 || (e = add(c, o, &f[1], s, name)) < 0)
			return e;
	}
	return 0;
}

/* One item of "paths": {"path": [names from the top], "calls", "ns", "self_ns", "counts", "self_counts"}. */
static int entry(struct merge *m, const struct pmu__rep_ctx *c, const struct pmu__json *o,
		 const struct pmu__json *evs, unsigned in)
{
	const struct pmu__json *names;
	uint64_t calls, ns, self;
	int p = -1, e;

	if (o->type != PMU_JSON_OBJECT)
		return BAD(c, o, "\"paths\": an item is not an object");
	if ((e = pmu__rep_need(c, o, "path", PMU_JSON_ARRAY, &names)) < 0 ||
	    (e = pmu__rep_need_u64(c, o, "calls", &calls)) < 0 || (e = pmu__rep_need_u64(c, o, "ns", &ns)) < 0 ||
	    (e = pmu__rep_need_u64(c, o, "self_ns", &self)) < 0)
		return e;
	if (!names->n || names->n > PMU_REGION_DEPTH + 1)
		return BAD(c, names, "\"path\" has %zu names (1 to %d)", names->n, PMU_REGION_DEPTH + 1);
	for (size_t i = 0; i < names->n; i++) {
		const struct pmu__json *v = &names->v[i];

		if (v->type != PMU_JSON_STRING || !v->len || strlen(v->s) != v->len || v->len >= PMU_REGION_NAME)
			return BAD(c, v, "\"path\": item %zu is not a region name", i + 1);
		if ((p = path_of(m, p, v->s)) < 0)
			return p;
	}
	if ((e = add(c, o, &m->path[p].calls, calls, "calls")) < 0 || (e = add(c, o, &m->path[p].fig[0], ns, "ns")) < 0 ||
	    (e = add(c, o, &m->path[p].fig[1], self, "self_ns")) < 0 || (e = entry_events(m, c, o, (unsigned)p, evs, in)) < 0)
		return e;
	return pmu__merge_dist_json(m, c, o, &m->path[p].dist, in);
}

int pmu__merge_paths_add(struct merge *m, const char *path, const struct pmu__json *doc, unsigned in)
{
	struct pmu__rep_ctx c = { path, "" };
	const struct pmu__json *paths, *evs;
	int e;

	/* before 0.8 a report had no paths (pmu__merge_paths_snap() says what that leaves out) */
	if (doc->type != PMU_JSON_OBJECT || !(paths = pmu__json_get(doc, "paths")))
		return 0;
	if ((e = pmu__rep_need(&c, doc, "paths", PMU_JSON_ARRAY, &paths)) < 0 ||
	    (e = pmu__rep_need(&c, doc, "events", PMU_JSON_ARRAY, &evs)) < 0)
		return e;
	for (size_t i = 0; i < evs->n; i++)
		if (evs->v[i].type != PMU_JSON_STRING || !evs->v[i].len)
			return BAD(&c, &evs->v[i], "\"events\": item %zu is not an event name", i + 1);
	for (size_t i = 0; i < paths->n; i++)
		if ((e = entry(m, &c, &paths->v[i], evs, in)) < 0)
			return e;
	m->paths_in++;
	return 0;
}

/* Path p's entry of the snapshot v (calls, totals, selves of ns and the n common events). */
static void snap_entry(const struct merge *m, const struct mpath *p, uint64_t *v, unsigned n)
{
	v[0] = p->calls;
	v[1] = p->fig[0];
	v[1 + n + 1] = p->fig[1];
	for (unsigned i = 0; i < n; i++) {
		unsigned e = m->common[i];

		v[2 + i] = e < p->ne ? p->fig[2 + 2 * e] : 0;
		v[2 + n + 1 + i] = e < p->ne ? p->fig[3 + 2 * e] : 0;
	}
}

/* The paths' histograms in the snapshot s: each path's own (lent), its events' indices in them, its processes. */
static int snap_dists(const struct merge *m, struct pmu_results *s)
{
	unsigned n = m->ncommon;

	s->pdist = calloc(m->npath + 1, sizeof(*s->pdist));
	s->pdk = calloc((size_t)m->npath * n + 1, sizeof(*s->pdk));
	s->phproc = calloc(m->npath + 1, sizeof(*s->phproc));
	if (!s->pdist || !s->pdk || !s->phproc)
		return -ENOMEM;
	for (unsigned p = 0; p < m->npath; p++) {
		const struct mdist *h = &m->path[p].dist;

		s->pdist[p] = h->hproc ? h->hist : NULL;
		s->phproc[p] = h->hproc;
		for (unsigned i = 0; i < n; i++)	/* an event every process with histograms had */
			s->pdk[(size_t)p * n + i] = pmu__merge_dist_has(h, m->common[i]) ? 1 + m->common[i] : 0;
	}
	return 0;
}

/* m's paths into s (zeroed): their names, ups, figures of the common events and histograms. 0 or -ENOMEM. */
static int snap_fill(const struct merge *m, struct pmu_results *s)
{
	unsigned n = m->ncommon, w = 2 * (n + 1) + 1;

	s->n = n;
	s->npath = s->nreg = m->npath;
	s->ev = malloc((n + 1) * sizeof(*s->ev));
	s->reg = malloc((m->npath + 1) * sizeof(*s->reg));
	s->path_up = malloc((m->npath + 1) * sizeof(*s->path_up));
	s->path_reg = malloc((m->npath + 1) * sizeof(*s->path_reg));
	s->pv = malloc(((size_t)m->npath * w + 1) * sizeof(*s->pv));
	if (!s->ev || !s->reg || !s->path_up || !s->path_reg || !s->pv)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		s->ev[i] = m->ev[m->common[i]];
	for (unsigned p = 0; p < m->npath; p++) {
		s->reg[p] = m->path[p].name;
		s->path_up[p] = m->path[p].up;
		s->path_reg[p] = p;
		snap_entry(m, &m->path[p], &s->pv[(size_t)p * w], n);
	}
	return snap_dists(m, s);
}

int pmu__merge_paths_snap(const struct merge *m, struct pmu_results **out)
{
	*out = NULL;
	if (m->paths_in < m->nin)	/* pmu__merge_done() said so */
		return 0;
	if (!(*out = calloc(1, sizeof(**out))) || snap_fill(m, *out) < 0) {
		pmu__merge_paths_unsnap(*out);
		*out = NULL;
		return pmu__err(-ENOMEM, "out of memory");
	}
	return 0;
}

void pmu__merge_paths_unsnap(struct pmu_results *s)
{
	if (!s)
		return;
	free(s->ev);	/* the names and histograms are the merge's */
	free(s->reg);
	free(s->path_up);
	free(s->path_reg);
	free(s->pv);
	free(s->pdist);
	free(s->pdk);
	free(s->phproc);
	free(s);
}
