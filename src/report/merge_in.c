/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's inputs, each added to the merge (merge.c) as it is
 * read: a process's report, checked by report_read.c, or a merged report,
 * whose schema (pmu__merge_json() writes it) is checked here on the tree json.c
 * reads, its processes, events and regions added as they are checked.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge.h"
#include "report/report_read.h"

/* A process index of the file's own list: into *g, the merge's. */
static int need_proc(const struct pmu__rep_ctx *c, const struct pmu__json *o, const char *key, const unsigned *map,
		     unsigned n, unsigned *g)
{
	uint64_t i;
	int e = pmu__rep_need_u64(c, o, key, &i);

	if (e < 0)
		return e;
	if (i >= n)
		return BAD(c, pmu__json_get(o, key), "\"%s\" is %llu, but \"processes\" has %u", key,
			   (unsigned long long)i, n);
	*g = map[i];
	return 0;
}

/* The 128-bit integer written as the decimal string o.key into x: 0, or -EINVAL said. */
static int u128_of(const struct pmu__rep_ctx *c, const struct pmu__json *o, const char *key, unsigned __int128 *x)
{
	const struct pmu__json *v;
	int e;

	if ((e = pmu__rep_need(c, o, key, PMU_JSON_STRING, &v)) < 0)
		return e;
	if ((e = pmu__rep_u128(v, x)) < 0)
		return BAD(c, v, "\"%s\" is %s", key, e == -ERANGE ? "out of range" : "not a string of decimal digits");
	return 0;
}

/* A figure's spread over n processes: min <= max, and a total they bound. */
static int spread(const struct pmu__rep_ctx *c, const struct pmu__json *o, const char *key, uint64_t tot,
		  unsigned n, const unsigned *map, unsigned np, struct spread *s)
{
	const struct pmu__json *v;
	int e;

	if ((e = pmu__rep_need(c, o, key, PMU_JSON_OBJECT, &v)) < 0)
		return e;
	if ((e = pmu__rep_need_u64(c, v, "min", &s->min)) < 0 || (e = pmu__rep_need_u64(c, v, "max", &s->max)) < 0 ||
	    (e = need_proc(c, v, "min_process", map, np, &s->imin)) < 0 ||
	    (e = need_proc(c, v, "max_process", map, np, &s->imax)) < 0)
		return e;
	if (s->min > s->max || (unsigned __int128)s->min * n > tot || (unsigned __int128)s->max * n < tot)
		return BAD(c, v, "\"%s\": min %llu, max %llu and %u processes do not fit the total %llu (an edited file?)",
			   key, (unsigned long long)s->min, (unsigned long long)s->max, n, (unsigned long long)tot);
	s->tot = tot;
	s->n = n;
	/* the processes' squares: absent from a merge of pmu 0.7, whose spread is then unknown */
	s->nosq = !pmu__json_get(v, "sum_sq");
	s->sq = 0;
	return s->nosq ? 0 : u128_of(c, v, "sum_sq", &s->sq);
}

static int npc(const struct pmu__rep_ctx *c, const struct pmu__json *o, const unsigned *map, unsigned np,
	       struct npc *q)
{
	const struct pmu__json *v;
	int e;

	if ((e = pmu__rep_need(c, o, "ns_per_call", PMU_JSON_OBJECT, &v)) < 0 ||
	    (e = need_proc(c, v, "min_process", map, np, &q->imin)) < 0 ||
	    (e = need_proc(c, v, "max_process", map, np, &q->imax)) < 0 || (e = u128_of(c, v, "sum_1024", &q->sum)) < 0)
		return e;
	if (pmu__rep_opt_num(c, v, "min", NULL, &q->min) != 1 || pmu__rep_opt_num(c, v, "max", NULL, &q->max) != 1 ||
	    q->min > q->max)
		return BAD(c, v, "\"ns_per_call\": \"min\" and \"max\" are not two non-negative numbers, min first");
	return 0;
}

/* Region o of the file into the merge; ev maps the file's events to the merge's. */
static int region(struct merge *m, struct pmu__rep_ctx *c, const struct pmu__json *o, const char *const *names,
		  const int *ev, unsigned nev, const unsigned *map, unsigned np, unsigned in)
{
	const struct pmu__json *counts, *pp, *pc;
	struct spread calls, ns, sev[nev ? nev : 1];
	double min[nev ? nev : 1], max[nev ? nev : 1], ns_min = 0, ns_max = 0;
	const char *name;
	struct mregion *r;
	struct npc q;
	uint64_t n, tot;
	int e, have = 0;

	pmu__rep_ctx_set(c, NULL, NULL);
	if (o->type != PMU_JSON_OBJECT)
		return BAD(c, o, "a region is %s, not an object", pmu__rep_type_names[o->type]);
	if ((e = pmu__rep_need_name(c, o, "name", &name)) < 0)
		return e;
	pmu__rep_ctx_set(c, name, NULL);
	if ((e = pmu__rep_need_u64(c, o, "processes", &n)) < 0)
		return e;
	if (!n || n > np)
		return BAD(c, pmu__json_get(o, "processes"), "\"processes\" is %llu (1 to %u)", (unsigned long long)n, np);
	if ((e = pmu__rep_need(c, o, "per_process", PMU_JSON_OBJECT, &pp)) < 0 ||
	    (e = pmu__rep_need_u64(c, o, "calls", &tot)) < 0 ||
	    (e = spread(c, pp, "calls", tot, (unsigned)n, map, np, &calls)) < 0 ||
	    (e = pmu__rep_need_u64(c, o, "ns", &tot)) < 0 || (e = spread(c, pp, "ns", tot, (unsigned)n, map, np, &ns)) < 0 ||
	    (e = npc(c, pp, map, np, &q)) < 0 || (e = pmu__rep_need(c, o, "counts", PMU_JSON_OBJECT, &counts)) < 0 ||
	    (e = pmu__rep_need(c, pp, "counts", PMU_JSON_OBJECT, &pc)) < 0)
		return e;
	for (unsigned i = 0; i < nev; i++) {
		const struct pmu__json *v = pmu__json_get(counts, names[i]);

		if (!v || !pmu__json_u64(v, &tot))
			return BAD(c, counts, "\"counts\": \"%.64s\" is not a non-negative integer", names[i]);
		if ((e = spread(c, pc, names[i], tot, (unsigned)n, map, np, &sev[i])) < 0)
			return e;
		have += pmu__rep_opt_num(c, o, "min", names[i], &min[i]) == 1;
		have += pmu__rep_opt_num(c, o, "max", names[i], &max[i]) == 1;
	}
	have += pmu__rep_opt_num(c, o, "ns_min", NULL, &ns_min) == 1;
	have += pmu__rep_opt_num(c, o, "ns_max", NULL, &ns_max) == 1;
	r = pmu__merge_region(m, name);
	if (!r)
		return -ENOMEM;
	if (r->seen == in + 1)
		return BAD(c, o, "a second region of this name");
	r->seen = in + 1;
	pmu__range_merge(r, r->nproc, have == 2 + 2 * (int)nev, ns_min, ns_max, min, max, ev, nev);
	if (pmu__spread_merge(&r->calls, &calls) < 0 || pmu__spread_merge(&r->ns, &ns) < 0 || pmu__npc_merge(&r->npc, r->nproc, &q) < 0)
		return BAD(c, o, "the sums overflow");
	for (unsigned i = 0; i < nev; i++)
		if (pmu__spread_merge(&r->ev[ev[i]], &sev[i]) < 0)
			return BAD(c, o, "the sum of %.64s overflows", names[i]);
	if ((e = pmu__merge_dist_json(m, c, o, &r->dist, in)) < 0)
		return e;
	r->nproc += (unsigned)n;
	return 0;
}

static int process(struct merge *m, const struct pmu__rep_ctx *c, unsigned in, const struct pmu__json *o)
{
	const struct pmu__json *v;
	struct proc p = { 0 };
	unsigned ver[3];
	uint64_t x;
	int e;

	if (o->type != PMU_JSON_OBJECT)
		return BAD(c, o, "a process is %s, not an object", pmu__rep_type_names[o->type]);
	if ((e = pmu__rep_need_name(c, o, "file", (const char **)&p.file)) < 0 ||
	    (e = pmu__rep_library(c, o, (const char **)&p.library, &ver[0], &ver[1], &ver[2])) < 0 ||
	    (e = pmu__rep_need_u64(c, o, "pid", &x)) < 0)
		return e;
	if (!x || x > 0x7fffffff)
		return BAD(c, pmu__json_get(o, "pid"), "\"pid\" is not a process ID");
	p.pid = (long)x;
	if ((e = pmu__rep_need(c, o, "hostname", PMU_JSON_STRING, &v)) < 0)
		return e;
	p.hostname = (char *)v->s;
	if ((e = pmu__rep_need(c, o, "command", PMU_JSON_STRING, &v)) < 0)
		return e;
	p.command = (char *)v->s;
	if ((e = pmu__rep_need(c, o, "start", PMU_JSON_STRING, &v)) < 0)
		return e;
	p.start = (char *)v->s;
	if ((e = pmu__rep_need_u64(c, o, "start_ns", &p.start_ns)) < 0)
		return e;
	v = pmu__json_get(o, "compensated");
	p.comp = v && v->type == PMU_JSON_BOOL ? v->b : -1;
	v = pmu__json_get(o, "emulated");
	p.emulated = v && v->type == PMU_JSON_STRING ? (char *)v->s : NULL;
	return pmu__merge_proc(m, in, &p);
}

static int merged_read(struct merge *m, const char *path, const struct pmu__json *doc, unsigned in)
{
	struct pmu__rep_ctx c = { path, "" };
	const struct pmu__json *v, *procs, *evs, *regs;
	unsigned ver[3], *map = NULL;
	const char *lib, **names = NULL;
	int e, *ev = NULL;
	uint64_t fmt;

	if ((e = pmu__rep_library(&c, doc, &lib, &ver[0], &ver[1], &ver[2])) < 0 ||
	    (e = pmu__rep_need_u64(&c, doc, "merged", &fmt)) < 0)
		return e;
	if (fmt != MERGE_FORMAT)
		return BAD(&c, pmu__json_get(doc, "merged"), "a merged report of format %llu; this pmu reads format %d",
			   (unsigned long long)fmt, MERGE_FORMAT);
	if ((e = pmu__rep_need(&c, doc, "processes", PMU_JSON_ARRAY, &procs)) < 0 ||
	    (e = pmu__rep_need(&c, doc, "events", PMU_JSON_ARRAY, &evs)) < 0 ||
	    (e = pmu__rep_need(&c, doc, "regions", PMU_JSON_ARRAY, &regs)) < 0)
		return e;
	if (!procs->n || procs->n > 1u << 30)
		return BAD(&c, procs, "\"processes\" is empty");
	if (!evs->n || evs->n > PMU_REP_EVENTS)
		return BAD(&c, evs, "\"events\" has %zu events (1 to %d)", evs->n, PMU_REP_EVENTS);
	map = calloc(procs->n, sizeof(*map));
	names = calloc(evs->n, sizeof(*names));
	ev = calloc(evs->n, sizeof(*ev));
	if (!map || !names || !ev) {
		e = pmu__merge_nomem();
		goto out;
	}
	for (size_t i = 0; i < procs->n; i++) {
		if ((e = process(m, &c, in, &procs->v[i])) < 0)
			goto out;
		map[i] = (unsigned)e;
	}
	for (size_t i = 0; i < evs->n; i++) {
		v = &evs->v[i];
		if (v->type != PMU_JSON_STRING || !v->len || strlen(v->s) != v->len) {
			e = BAD(&c, v, "\"events\": item %zu is not an event name", i + 1);
			goto out;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(names[k], v->s)) {
				e = BAD(&c, v, "\"events\" has \"%.64s\" twice", v->s);
				goto out;
			}
		names[i] = v->s;
		if ((ev[i] = pmu__merge_event(m, v->s, in)) < 0) {
			e = ev[i];
			goto out;
		}
	}
	for (size_t i = 0; i < regs->n; i++)
		if ((e = region(m, &c, &regs->v[i], names, ev, (unsigned)evs->n, map, (unsigned)procs->n, in)) < 0)
			goto out;
	e = 0;
out:
	free(map);
	free(names);
	free(ev);
	return e;
}

static const char *fig_name(const struct merge *m, int k)
{
	return k == -2 ? "calls" : k == -1 ? "ns" : m->ev[k];
}

static int overflow(const struct merge *m, const char *path, const char *region, int k)
{
	return pmu__err(-ERANGE, "%s: region \"%s\": the sum of %s overflows", path,
			pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, region),
			pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, fig_name(m, k)));
}

/* One process's report: a merge of one. */
/* Process ip's ns in region r, for the heatmap. 0 or -ENOMEM. */
static int keep_ns(struct mregion *r, unsigned ip, double ns)
{
	if (ip >= r->npns) {
		double *p = realloc(r->pns, (ip + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		for (unsigned i = r->npns; i <= ip; i++)
			p[i] = NAN;
		r->pns = p;
		r->npns = ip + 1;
	}
	r->pns[ip] = ns;
	return 0;
}

static int add_plain(struct merge *m, const struct pmu__rep *r, unsigned in)
{
	struct proc p = { (char *)r->path, (char *)r->library, (char *)r->hostname, (char *)r->command,
			  (char *)r->start, (char *)r->emulated, r->pid, r->start_ns, 0, r->comp };
	int pi = pmu__merge_proc(m, in, &p), map[r->nev];

	if (pi < 0)
		return pi;
	for (unsigned i = 0; i < r->nev; i++)
		if ((map[i] = pmu__merge_event(m, r->ev[i], in)) < 0)
			return map[i];
	for (unsigned g = 0; g < r->nreg; g++) {
		const struct pmu__rep_region *x = &r->reg[g];
		struct mregion *mr = pmu__merge_region(m, x->name);
		unsigned ip = (unsigned)pi;
		struct npc q = { x->calls ? (double)x->ns / (double)x->calls : 0, 0, ip, ip,
				 x->calls ? ((unsigned __int128)x->ns << NPC_SHIFT) / x->calls : 0 };

		if (!mr)
			return -ENOMEM;
		mr->seen = in + 1;
		q.max = q.min;
		pmu__range_merge(mr, mr->nproc, x->range, x->ns_min, x->ns_max, x->min, x->max, map, r->nev);
		if (pmu__spread_merge(&mr->calls, &(struct spread){ x->calls, x->calls, x->calls, ip, ip, 1, (unsigned __int128)x->calls * x->calls, false }) < 0)
			return overflow(m, r->path, x->name, -2);
		if (pmu__spread_merge(&mr->ns, &(struct spread){ x->ns, x->ns, x->ns, ip, ip, 1, (unsigned __int128)x->ns * x->ns, false }) < 0)
			return overflow(m, r->path, x->name, -1);
		if (pmu__npc_merge(&mr->npc, mr->nproc, &q) < 0)
			return overflow(m, r->path, x->name, -1);
		if (m->keep_procs && keep_ns(mr, ip, (double)x->ns) < 0)
			return pmu__merge_nomem();
		for (unsigned i = 0; i < r->nev; i++) {
			uint64_t v = x->counts[i];

			if (pmu__spread_merge(&mr->ev[map[i]], &(struct spread){ v, v, v, ip, ip, 1, (unsigned __int128)v * v, false }) < 0)
				return overflow(m, r->path, x->name, map[i]);
		}
		if (x->dist && pmu__merge_dist(m, &mr->dist, x->dist, in) < 0)
			return -ENOMEM;
		mr->nproc++;
	}
	return 0;
}

/* The built-in metrics the regions of an input's json doc give, noted by their keys. 0 or -ENOMEM. */
static int merge_metric_keys(struct merge *m, const struct pmu__json *doc)
{
	const struct pmu__json *regs = doc->type == PMU_JSON_OBJECT ? pmu__json_get(doc, "regions") : NULL;

	for (size_t i = 0; regs && regs->type == PMU_JSON_ARRAY && i < regs->n; i++) {
		const struct pmu__json *o = &regs->v[i], *met;

		met = o->type == PMU_JSON_OBJECT ? pmu__json_get(o, "metrics") : NULL;
		for (size_t k = 0; met && met->type == PMU_JSON_OBJECT && k < met->n; k++) {
			const char *key = met->v[k].key;
			unsigned j = 0;

			while (j < m->nmkeys && strcmp(m->mkeys[j], key))
				j++;
			if (j < m->nmkeys || strlen(key) != met->v[k].klen || !pmu__metric_builtin(key))
				continue;
			if (pmu__grow(&m->mkeys, m->nmkeys, sizeof(*m->mkeys)) < 0 ||
			    !(m->mkeys[m->nmkeys] = strdup(key)))
				return pmu__merge_nomem();
			m->nmkeys++;
		}
	}
	return 0;
}

/* Input in, read already into doc (a report or a merged one), into m; doc is freed. */
static int add_doc(struct merge *m, const char *name, struct pmu__json *doc, unsigned in)
{
	struct pmu__rep rep;
	int r = merge_metric_keys(m, doc);

	if (r >= 0)
		r = pmu__merge_paths_add(m, name, doc, in);
	if (r < 0) {
		pmu__json_free(doc);
		return r;
	}
	if (doc->type == PMU_JSON_OBJECT && pmu__json_get(doc, "merged")) {
		r = merged_read(m, name, doc, in);
		pmu__json_free(doc);
		return r;
	}
	r = pmu__rep_check(name, doc, &rep);
	if (r < 0)
		return r;
	r = add_plain(m, &rep, in);
	pmu__rep_free(&rep);
	return r;
}

int pmu__merge_add(struct merge *m, const char *path)
{
	struct pmu__json *doc;
	int r = pmu__merge_input(m, path);

	if (r < 0)
		return r;
	unsigned in = (unsigned)r;

	r = pmu__json_load(path, &doc);
	return r < 0 ? r : add_doc(m, path, doc, in);
}

int pmu__merge_add_buf(struct merge *m, const char *name, const char *buf, size_t len)
{
	struct pmu__json *doc;
	int r = pmu__merge_input(m, name);

	if (r < 0)
		return r;
	unsigned in = (unsigned)r;

	r = pmu__json_parse(name, buf, len, &doc);
	return r < 0 ? r : add_doc(m, name, doc, in);
}
