/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's figures: each input read, checked and added in turn,
 * then freed. Regions and processes are found by hashing, events (a few)
 * by a scan; nothing is quadratic in inputs, regions or events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge.h"

int pmu__merge_nomem(void)
{
	return pmu__err(-ENOMEM, "out of memory");
}

size_t pmu__merge_hash(size_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;	/* FNV-1a */
	return h;
}

/* Doubles a table of 1 + index slots keyed by key(i), at most half full. 0 or -ENOMEM. */
int pmu__merge_rehash(unsigned **slot, size_t *mask, unsigned n, size_t (*key)(const struct merge *, unsigned),
		      const struct merge *m)
{
	size_t size = *mask ? 2 * (*mask + 1) : 64;
	unsigned *s = calloc(size, sizeof(*s));

	if (!s)
		return pmu__merge_nomem();
	for (unsigned i = 0; i < n; i++) {
		size_t h = key(m, i) & (size - 1);

		while (s[h])
			h = (h + 1) & (size - 1);
		s[h] = i + 1;
	}
	free(*slot);
	*slot = s;
	*mask = size - 1;
	return 0;
}

static size_t proc_key_of(const struct proc *p)
{
	return pmu__merge_hash(2166136261u ^ (size_t)p->pid * 0x9e3779b97f4a7c15ull ^ p->start_ns, p->hostname);
}

static size_t proc_key(const struct merge *m, unsigned i)
{
	return proc_key_of(&m->proc[i]);
}

static size_t region_key(const struct merge *m, unsigned i)
{
	return pmu__merge_hash(2166136261u, m->reg[i].name);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int pmu__merge_proc(struct merge *m, unsigned in, const struct proc *p)
{
	struct proc *q;
	size_t h;

	if (2 * (size_t)(m->nproc + 1) > m->pmask + 1 && pmu__merge_rehash(&m->pslot, &m->pmask, m->nproc, proc_key, m) < 0)
		return -ENOMEM;
	for (h = proc_key_of(p) & m->pmask; m->pslot[h]; h = (h + 1) & m->pmask) {
		q = &m->proc[m->pslot[h] - 1];
		/* named as given, and where a merged input holds it, the file it came from */
		if (q->pid == p->pid && q->start_ns == p->start_ns && !strcmp(q->hostname, p->hostname))
			return pmu__err(-EINVAL, "%s%s%s%s: the same process as %s%s%s%s (pid %ld on %s, started %s): "
					"a report given twice?", m->in[in], strcmp(p->file, m->in[in]) ? " (" : "",
					strcmp(p->file, m->in[in]) ? p->file : "", strcmp(p->file, m->in[in]) ? ")" : "",
					m->in[q->in], strcmp(q->file, m->in[q->in]) ? " (" : "",
					strcmp(q->file, m->in[q->in]) ? q->file : "", strcmp(q->file, m->in[q->in]) ? ")" : "",
					p->pid, pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, p->hostname),
					pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, p->start));
	}
	if (m->nproc == m->pcap) {
		unsigned cap = m->pcap ? 2 * m->pcap : 16;
		struct proc *v = realloc(m->proc, cap * sizeof(*v));

		if (!v)
			return pmu__merge_nomem();
		m->proc = v;
		m->pcap = cap;
	}
	q = &m->proc[m->nproc];
	*q = (struct proc){ dup_or_empty(p->file), dup_or_empty(p->library), dup_or_empty(p->hostname),
			    dup_or_empty(p->command), dup_or_empty(p->start), p->emulated ? strdup(p->emulated) : NULL,
			    p->pid, p->start_ns, in, p->comp };
	if (!q->file || !q->library || !q->hostname || !q->command || !q->start || (p->emulated && !q->emulated)) {
		free(q->emulated);
		free(q->file);
		free(q->library);
		free(q->hostname);
		free(q->command);
		free(q->start);
		return pmu__merge_nomem();
	}
	m->pslot[h] = ++m->nproc;
	return (int)(m->nproc - 1);
}

/* Region r's per event arrays, grown to the union's events (new ones zero). */
static int region_events(struct mregion *r, unsigned nev)
{
	struct spread *ev;
	double *lo, *hi;

	if (r->ne >= nev)
		return 0;
	ev = realloc(r->ev, nev * sizeof(*ev));
	if (ev)
		r->ev = ev;
	lo = realloc(r->min, nev * sizeof(*lo));
	if (lo)
		r->min = lo;
	hi = realloc(r->max, nev * sizeof(*hi));
	if (hi)
		r->max = hi;
	if (!ev || !lo || !hi)
		return pmu__merge_nomem();
	memset(ev + r->ne, 0, (nev - r->ne) * sizeof(*ev));
	memset(lo + r->ne, 0, (nev - r->ne) * sizeof(*lo));
	memset(hi + r->ne, 0, (nev - r->ne) * sizeof(*hi));
	r->ne = nev;
	return 0;
}

struct mregion *pmu__merge_region(struct merge *m, const char *name)
{
	struct mregion *r;
	size_t h;

	if (2 * (size_t)(m->nreg + 1) > m->mask + 1 && pmu__merge_rehash(&m->slot, &m->mask, m->nreg, region_key, m) < 0)
		return NULL;
	for (h = pmu__merge_hash(2166136261u, name) & m->mask; m->slot[h]; h = (h + 1) & m->mask) {
		r = &m->reg[m->slot[h] - 1];
		if (!strcmp(r->name, name))
			return region_events(r, m->nev) < 0 ? NULL : r;
	}
	if (m->nreg == m->rcap) {
		unsigned cap = m->rcap ? 2 * m->rcap : 16;
		struct mregion *v = realloc(m->reg, cap * sizeof(*v));

		if (!v) {
			pmu__merge_nomem();
			return NULL;
		}
		m->reg = v;
		m->rcap = cap;
	}
	r = &m->reg[m->nreg];
	*r = (struct mregion){ .name = strdup(name), .range = true };
	if (!r->name || region_events(r, m->nev) < 0) {
		free(r->name);
		free(r->ev);
		free(r->min);
		free(r->max);
		if (!r->name)
			pmu__merge_nomem();
		return NULL;
	}
	m->slot[h] = ++m->nreg;
	return r;
}

/* Room for input in in the list of paths and in every event's bitmap. */
static int inputs_room(struct merge *m, unsigned in)
{
	unsigned cap = m->incap ? 2 * m->incap : 64;
	char **v;

	if (in < m->incap)
		return 0;
	v = realloc(m->in, cap * sizeof(*v));
	if (!v)
		return pmu__merge_nomem();
	m->in = v;
	for (unsigned e = 0; e < m->nev; e++) {
		unsigned char *b = realloc(m->has[e], cap / 8);

		if (!b)
			return pmu__merge_nomem();
		memset(b + m->incap / 8, 0, (cap - m->incap) / 8);
		m->has[e] = b;
	}
	m->incap = cap;
	return 0;
}

int pmu__merge_input(struct merge *m, const char *path)
{
	if (inputs_room(m, m->nin) < 0)
		return -ENOMEM;
	m->in[m->nin] = strdup(path);
	if (!m->in[m->nin])
		return pmu__merge_nomem();
	return (int)m->nin++;
}

int pmu__merge_event(struct merge *m, const char *name, unsigned in)
{
	unsigned e = 0;

	while (e < m->nev && strcmp(m->ev[e], name))
		e++;
	if (e == m->nev) {
		if (m->nev == m->evcap) {
			unsigned cap = m->evcap ? 2 * m->evcap : 8;
			char **v = realloc(m->ev, cap * sizeof(*v));
			unsigned char **b = v ? realloc(m->has, cap * sizeof(*b)) : NULL;

			if (v)
				m->ev = v;
			if (!b)
				return pmu__merge_nomem();
			m->has = b;
			m->evcap = cap;
		}
		m->ev[e] = strdup(name);
		m->has[e] = calloc(1, m->incap / 8);
		if (!m->ev[e] || !m->has[e]) {
			free(m->ev[e]);
			free(m->has[e]);
			return pmu__merge_nomem();
		}
		m->nev++;
	}
	m->has[e][in / 8] |= (unsigned char)(1u << (in % 8));
	return (int)e;
}

/* x's least and most into s's, each with its process: the first process kept on a tie (counts and ns alike). */
#define EXTREMES_MERGE(s, x) do { \
	if ((x)->min < (s)->min) { \
		(s)->min = (x)->min; \
		(s)->imin = (x)->imin; \
	} \
	if ((x)->max > (s)->max) { \
		(s)->max = (x)->max; \
		(s)->imax = (x)->imax; \
	} \
} while (0)

int pmu__spread_merge(struct spread *s, const struct spread *x)
{
	if (!s->n) {
		*s = *x;
		return 0;
	}
	if (__builtin_add_overflow(s->tot, x->tot, &s->tot))
		return -ERANGE;
	if (__builtin_add_overflow(s->sq, x->sq, &s->sq))
		s->nosq = true;	/* beyond 2^128: said as unknown, never wrong */
	s->nosq |= x->nosq;
	EXTREMES_MERGE(s, x);
	s->n += x->n;
	return 0;
}

int pmu__npc_merge(struct npc *s, unsigned n, const struct npc *x)
{
	if (!n) {
		*s = *x;
		return 0;
	}
	if (__builtin_add_overflow(s->sum, x->sum, &s->sum))
		return -ERANGE;
	EXTREMES_MERGE(s, x);
	return 0;
}

void pmu__range_merge(struct mregion *r, unsigned n, bool range, double ns_min, double ns_max, const double *min,
		 const double *max, const int *ev, unsigned nev)
{
	r->range = r->range && range;
	if (!r->range)
		return;
	r->ns_min = !n || ns_min < r->ns_min ? ns_min : r->ns_min;
	r->ns_max = !n || ns_max > r->ns_max ? ns_max : r->ns_max;
	for (unsigned i = 0; i < nev; i++) {
		unsigned k = (unsigned)ev[i];
		bool first = !r->ev[k].n;	/* before its spread is merged */

		r->min[k] = first || min[i] < r->min[k] ? min[i] : r->min[k];
		r->max[k] = first || max[i] > r->max[k] ? max[i] : r->max[k];
	}
}

/* The metrics of the merged report: the inputs', then every other the common events give. */
static int merge_plan(struct merge *m)
{
	const char *ev[m->ncommon];
	size_t len = 1;
	char *named;
	int r;

	for (unsigned i = 0; i < m->ncommon; i++)
		ev[i] = m->ev[m->common[i]];
	for (unsigned i = 0; i < m->nmkeys; i++)
		len += strlen(m->mkeys[i]) + 1;
	if (!(named = malloc(len)))
		return pmu__merge_nomem();
	named[0] = '\0';
	for (unsigned i = 0; i < m->nmkeys; i++)
		strcat(strcat(named, i ? "," : ""), m->mkeys[i]);
	r = pmu__mplan_make(&m->mp, ev, m->ncommon, named);
	free(named);
	if (r == -ENOMEM)
		return pmu__merge_nomem();
	return r < 0 ? r : 0;
}

bool pmu__merge_metric(const struct merge *m, const struct mregion *r, unsigned i, double *v)
{
	const char *ev[m->ncommon];
	uint64_t sums[m->ncommon];

	for (unsigned k = 0; k < m->ncommon; k++) {
		ev[k] = m->ev[m->common[k]];
		sums[k] = r->ev[m->common[k]].tot;
	}
	return pmu__mplan_value(&m->mp, i, ev, m->ncommon, sums, r->ns.tot, v);
}

int pmu__merge_done(struct merge *m)
{
	int e;

	m->common = calloc(m->nev ? m->nev : 1, sizeof(*m->common));
	if (!m->common)
		return pmu__merge_nomem();
	for (unsigned e = 0; e < m->nev; e++) {
		unsigned lack = 0;

		for (unsigned i = 0; i < m->nin; i++)
			lack += !(m->has[e][i / 8] >> (i % 8) & 1);
		if (!lack) {
			m->common[m->ncommon++] = e;
			continue;
		}
		fprintf(stderr, "pmu report merge: note: event %s left out: not in",
			pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, m->ev[e]));
		for (unsigned i = 0, k = 0; i < m->nin; i++)
			if (!(m->has[e][i / 8] >> (i % 8) & 1))
				fprintf(stderr, "%s %s", k++ ? "," : "", m->in[i]);
		fputc('\n', stderr);
	}
	if (!m->ncommon)
		return pmu__err(-EINVAL, "no event is common to all the reports: nothing to merge");
	/* paths of some processes only would not add up to the regions of all: none, said */
	if (m->paths_in && m->paths_in < m->nin)
		fprintf(stderr, "pmu report merge: note: call paths left out: %u of the %u reports have none "
			"(written by libpmu before 0.8)\n", m->nin - m->paths_in, m->nin);
	e = merge_plan(m);
	return e < 0 ? e : 0;
}

void pmu__merge_free(struct merge *m)
{
	for (unsigned i = 0; i < m->nmkeys; i++)
		free(m->mkeys[i]);
	free(m->mkeys);
	pmu__mplan_free(&m->mp);
	for (unsigned i = 0; i < m->nreg; i++) {
		free(m->reg[i].name);
		free(m->reg[i].ev);
		free(m->reg[i].min);
		free(m->reg[i].max);
		free(m->reg[i].pns);
		pmu__merge_dist_free(&m->reg[i].dist);
	}
	for (unsigned i = 0; i < m->nproc; i++) {
		free(m->proc[i].file);
		free(m->proc[i].library);
		free(m->proc[i].hostname);
		free(m->proc[i].command);
		free(m->proc[i].start);
		free(m->proc[i].emulated);
	}
	for (unsigned i = 0; i < m->nev; i++) {
		free(m->ev[i]);
		free(m->has[i]);
	}
	for (unsigned i = 0; i < m->nin; i++)
		free(m->in[i]);
	free(m->in);
	free(m->ev);
	free(m->has);
	free(m->reg);
	free(m->slot);
	free(m->proc);
	free(m->pslot);
	free(m->common);
	pmu__merge_paths_free(m);
	if (m->own)
		free(m);
	else
		memset(m, 0, sizeof(*m));
}

struct merge *pmu__merge_new(void)
{
	struct merge *m = calloc(1, sizeof(*m));

	if (m)
		m->own = true;
	return m;
}
