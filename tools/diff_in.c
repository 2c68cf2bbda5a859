/* SPDX-License-Identifier: MIT */
/*
 * pmu report diff's inputs (see diff.h): a region report (its schema
 * checked as pmu report merge checks it), a merged report, or the lines of
 * pmu stat -j (perf stat -j's too), each into regions of figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "layers.h"
#include "report/report_read.h"
#include "tool_err.h"

static struct dreg *add_reg(struct dside *d, const char *name)
{
	struct dreg *r;

	if (pmu__grow(&d->reg, d->nreg, sizeof(*d->reg)) < 0)
		return NULL;
	r = &d->reg[d->nreg];
	memset(r, 0, sizeof(*r));
	if (!(r->name = strdup(name)))
		return NULL;
	d->nreg++;
	return r;
}

/* A figure of mean m onto r; its spread and flags left for the caller. NULL when out of memory. */
static struct dfig *add_fig(struct dreg *r, const char *name, double m)
{
	struct dfig *f;

	if (pmu__grow(&r->fig, r->nfig, sizeof(*r->fig)) < 0)
		return NULL;
	f = &r->fig[r->nfig];
	memset(f, 0, sizeof(*f));
	if (!(f->name = strdup(name)))
		return NULL;
	f->s.mean = m;
	r->nfig++;
	return f;
}

static double num(const struct pmu__json *o, const char *key, double dflt)
{
	const struct pmu__json *v = pmu__json_get(o, key);
	double x;

	return v && pmu__json_double(v, &x) ? x : dflt;
}

/* A per call figure of n calls: mean m, the population standard deviation sd of the calls (NAN: none). */
static struct dfig *per_call(struct dreg *r, const char *name, double m, double sd, uint64_t n)
{
	struct dfig *f = add_fig(r, name, m);

	if (f && !isnan(sd) && n > 1) {
		f->spread = true;
		f->s.n = (double)n;
		f->s.var = sd * sd / (double)(n - 1);	/* the sample variance over n: of the mean */
	}
	return f;
}

/*
 * A merged report's figure of total v over calls c (o's per_process.ns, or
 * per_process.counts.EV, where ev): its spread between the processes (their
 * sum_sq: pmu 0.8 and later), of each one's value per call, as the calls'
 * spread is of one report's. Each process made c / n calls (the same
 * program run n times). NAN: none.
 */
static double merged_sd(const struct pmu__json *o, const char *ev, double v, double c, double *n)
{
	const struct pmu__json *pp = pmu__json_get(o, "per_process"), *pc = pp && ev ? pmu__json_get(pp, "counts") : pp;
	const struct pmu__json *e = pc ? pmu__json_get(pc, ev ? ev : "ns") : NULL;
	const struct pmu__json *sq = e ? pmu__json_get(e, "sum_sq") : NULL;
	unsigned __int128 s, t = (unsigned __int128)v, ns, tt;
	uint64_t k;

	*n = num(o, "processes", 0);
	if (!sq || pmu__rep_u128(sq, &s) < 0 || *n < 2 || !c)
		return NAN;
	/* n^2 times the processes' variance, n sum_sq - total^2, exact where it fits (equal values: 0) */
	k = (uint64_t)*n;
	if (__builtin_mul_overflow(s, k, &ns) || __builtin_mul_overflow(t, t, &tt) || ns < tt)
		return NAN;
	return sqrt((double)(ns - tt)) / *n / (c / *n);	/* of the processes' values per call (c / n calls each) */
}

/*
 * Figure name (event ev, NULL for ns) of total v over c calls: its spread
 * sd over one report's calls, or over a merged one's processes.
 */
static struct dfig *figure(struct dreg *r, const struct pmu__json *o, const char *name, const char *ev, double v,
			   double c, double sd, bool merged)
{
	double n = (double)r->calls;

	if (merged)
		sd = merged_sd(o, ev, v, c, &n);
	return per_call(r, name, c ? v / c : 0, sd, (uint64_t)n);
}

/*
 * Region o's distribution (PMU_HISTOGRAMS), when it has one: its ns
 * histogram kept for the Mann-Whitney U test, and figures ns_p50 ... ns_p99.9.
 */
static int dist_figures(struct dside *d, struct dreg *r, const struct pmu__json *o)
{
	struct pmu__rep_ctx c = { d->path, "" };
	struct pmu__rep_dist *dist;
	int e;

	pmu__rep_ctx_set(&c, r->name, NULL);
	if ((e = pmu__rep_dist(&c, o, &dist)) < 0 || !dist)
		return e;
	r->hist = dist->h[0];
	dist->h[0] = (struct pmu__shist){ 0 };
	pmu__rep_dist_free(dist);
	for (unsigned q = 0; q < PMU_DIST_NQ; q++) {
		char name[16];

		snprintf(name, sizeof(name), "ns_%s", pmu__dist_qname[q]);
		if (!add_fig(r, name, pmu__shist_quantile(&r->hist, pmu__dist_q[q])))
			return tool_err(-ENOMEM, "out of memory");
	}
	return 0;
}

/* Region o of a report (merged: totals alone) into d, for the events ev[0..nev). */
static int report_region(struct dside *d, const struct pmu__json *o, const char *const *ev, unsigned nev)
{
	const struct pmu__json *counts = pmu__json_get(o, "counts"), *sd = pmu__json_get(o, "stddev"),
			       *run = pmu__json_get(o, "running_pct"), *met = pmu__json_get(o, "metrics");
	const struct pmu__json *name = pmu__json_get(o, "name");
	struct dreg *r = name && name->type == PMU_JSON_STRING ? add_reg(d, name->s) : NULL;
	bool merged = d->kind == D_MERGED;
	struct dfig *f;
	double c;

	if (!r)
		return tool_err(-ENOMEM, "out of memory");
	c = num(o, "calls", 0);
	r->calls = (uint64_t)c;
	if (!add_fig(r, "calls", c) || !figure(r, o, "ns", NULL, num(o, "ns", 0), c, num(o, "ns_stddev", NAN), merged))
		return tool_err(-ENOMEM, "out of memory");
	for (unsigned i = 0; i < nev; i++) {
		double v = num(counts, ev[i], NAN);

		if (isnan(v))
			continue;
		if (!(f = figure(r, o, ev[i], ev[i], v, c, num(sd, ev[i], NAN), merged)))
			return tool_err(-ENOMEM, "out of memory");
		f->partial = num(run, ev[i], 100) < 100;
	}
	for (size_t i = 0; met && met->type == PMU_JSON_OBJECT && i < met->n; i++) {
		double v;

		if (pmu__json_double(&met->v[i], &v) && !add_fig(r, met->v[i].key, v))
			return tool_err(-ENOMEM, "out of memory");
	}
	return dist_figures(d, r, o);
}

/* Path entry o's label: "path " and its names from the top joined by ';'. NULL: not one, or out of memory. */
static char *path_label(const struct pmu__json *o)
{
	const struct pmu__json *nm = pmu__json_get(o, "path");
	size_t len = sizeof("path ");
	char *s, *p;

	if (!nm || nm->type != PMU_JSON_ARRAY || !nm->n)
		return NULL;
	for (size_t i = 0; i < nm->n; i++) {
		if (nm->v[i].type != PMU_JSON_STRING)
			return NULL;
		len += 4 * nm->v[i].len + 1;
	}
	if (!(s = malloc(len)))
		return NULL;
	p = stpcpy(s, "path ");
	for (size_t i = 0; i < nm->n; i++)
		p = pmu__path_frame(i ? stpcpy(p, ";") : p, nm->v[i].s);
	return s;
}

/* Path entry o into d as a region of its label: calls, then per call ns, self_ns, and each event's total and self. */
static int report_path(struct dside *d, const struct pmu__json *o, const char *const *ev, unsigned nev)
{
	const struct pmu__json *counts = pmu__json_get(o, "counts"), *self = pmu__json_get(o, "self_counts");
	char *label = path_label(o), col[PMU_ESC_SIZE + 8];
	struct dreg *r = label ? add_reg(d, label) : NULL;
	double c = num(o, "calls", 0);
	bool ok;

	free(label);
	if (!r)
		return tool_err(-EINVAL, "%s: a call path that is not one, or out of memory", d->path);
	r->calls = (uint64_t)c;
	ok = add_fig(r, "calls", c) && add_fig(r, "ns", c ? num(o, "ns", 0) / c : 0) &&
	     add_fig(r, "self_ns", c ? num(o, "self_ns", 0) / c : 0);
	for (unsigned i = 0; ok && i < nev; i++) {
		snprintf(col, sizeof(col), "self(%s)", ev[i]);
		ok = add_fig(r, ev[i], c ? num(counts, ev[i], 0) / c : 0) && add_fig(r, col, c ? num(self, ev[i], 0) / c : 0);
	}
	return ok ? 0 : tool_err(-ENOMEM, "out of memory");
}

/* A report's call paths (doc's "paths"), when one is nested: else they are its regions. */
static int report_paths(struct dside *d, const struct pmu__json *doc, const char *const *ev, unsigned nev)
{
	const struct pmu__json *ps = pmu__json_get(doc, "paths"), *nm;
	bool nested = false;
	int r = 0;

	for (size_t i = 0; ps && ps->type == PMU_JSON_ARRAY && i < ps->n; i++)
		nested |= (nm = pmu__json_get(&ps->v[i], "path")) && nm->type == PMU_JSON_ARRAY && nm->n > 1;
	for (size_t i = 0; nested && r == 0 && i < ps->n; i++)
		if (num(&ps->v[i], "calls", 0) > 0)	/* a path still open has no calls yet */
			r = report_path(d, &ps->v[i], ev, nev);
	return r;
}

static char *str_or_null(const struct pmu__json *o, const char *key)
{
	const struct pmu__json *v = pmu__json_get(o, key);

	return v && v->type == PMU_JSON_STRING ? strdup(v->s) : NULL;
}

/* The events of a report, ','-joined into d->events. */
static int report_events(struct dside *d, const char *const *ev, unsigned nev)
{
	size_t len = 1;

	for (unsigned i = 0; i < nev; i++)
		len += strlen(ev[i]) + 1;
	if (!(d->events = calloc(1, len)))
		return tool_err(-ENOMEM, "out of memory");
	for (unsigned i = 0; i < nev; i++)
		strcat(strcat(d->events, i ? "," : ""), ev[i]);
	return 0;
}

/* A report read (doc), checked as pmu report merge checks one, or a merged report's regions. */
static int read_report(struct dside *d, struct pmu__json *doc)
{
	const struct pmu__json *regs, *evs = pmu__json_get(doc, "events"), *procs = pmu__json_get(doc, "processes");
	const char *ev[PMU_REP_EVENTS];
	struct pmu__rep rep;
	unsigned nev = 0;
	int r = 0;

	d->kind = pmu__json_get(doc, "merged") ? D_MERGED : D_REPORT;
	d->library = str_or_null(doc, "library");
	d->kernel = str_or_null(doc, "kernel");
	d->emulated = pmu__json_get(doc, "emulated") != NULL;
	if (pmu__json_get(doc, "compensated"))
		d->comp = strdup(pmu__json_get(doc, "compensated")->type == PMU_JSON_OBJECT ? "yes" : "no");
	d->hostname = str_or_null(d->kind == D_MERGED && procs && procs->n ? &procs->v[0] : doc, "hostname");
	for (size_t i = 0; evs && evs->type == PMU_JSON_ARRAY && i < evs->n && nev < PMU_REP_EVENTS; i++)
		if (evs->v[i].type == PMU_JSON_STRING)
			ev[nev++] = evs->v[i].s;
	regs = pmu__json_get(doc, "regions");
	if (!regs || regs->type != PMU_JSON_ARRAY || !nev)
		r = tool_err(-EINVAL, "%s: not a region report (no \"events\" or \"regions\" list)", d->path);
	for (size_t i = 0; r == 0 && i < regs->n; i++)
		r = report_region(d, &regs->v[i], ev, nev);
	if (r == 0)
		r = report_paths(d, doc, ev, nev);
	if (r == 0)
		r = report_events(d, ev, nev);
	if (r == 0 && d->kind == D_REPORT)	/* the schema, as pmu report merge reads it: doc is rep's now */
		return (r = pmu__rep_check(d->path, doc, &rep)) < 0 ? r : (pmu__rep_free(&rep), 0);
	pmu__json_free(doc);
	return r;
}

/* One line of pmu stat -j: an event's value, its spread over -r's runs, its metric. */
static int stat_line(struct dside *d, struct dreg *r, const struct pmu__json *o)
{
	const char *ev = pmu__json_get(o, "event") ? pmu__json_get(o, "event")->s : NULL;
	const struct pmu__json *cv = pmu__json_get(o, "counter-value"), *mu = pmu__json_get(o, "metric-unit");
	double v = NAN, pct = num(o, "variance", NAN), runs = num(o, "runs", 0);
	char name[512];
	struct dfig *f;

	if (!ev || !cv || cv->type != PMU_JSON_STRING)
		return 0;	/* perf's other lines (interval headers): nothing to compare */
	if (pmu__json_get(o, "cpu") || pmu__json_get(o, "thread") || pmu__json_get(o, "interval"))
		return tool_err(-EINVAL, "%s: %s: a line per CPU, thread or interval (-A, --per-thread, -I): "
				"compare pmu stat -j's totals", d->path, ev);
	for (unsigned i = 0; i < r->nfig; i++)
		if (!strcmp(r->fig[i].name, ev))
			return tool_err(-EINVAL, "%s: %s: given twice", d->path, ev);
	if (sscanf(cv->s, "%lf", &v) != 1)
		return 0;	/* <not counted>, <not supported> */
	if (!(f = add_fig(r, ev, v)))
		return tool_err(-ENOMEM, "out of memory");
	f->partial = num(o, "pcnt-running", 100) < 100;
	if (!isnan(pct) && (runs > 1 || !pmu__json_get(o, "runs"))) {
		/* perf's "variance": the standard deviation of the mean, in % of it (-r N) */
		f->spread = true;
		f->s.var = pow(pct / 100 * v, 2);
		f->s.n = runs;	/* 0: not said (perf's own): a normal test */
	}
	snprintf(name, sizeof(name), "%s: %s", ev, mu && mu->type == PMU_JSON_STRING ? mu->s : "");
	if (mu && mu->type == PMU_JSON_STRING && *mu->s && !add_fig(r, name, num(o, "metric-value", 0)))
		return tool_err(-ENOMEM, "out of memory");
	{
		char *e = NULL;

		if (asprintf(&e, "%s%s%s", d->events ? d->events : "", d->events ? "," : "", ev) < 0)
			return tool_err(-ENOMEM, "out of memory");
		free(d->events);
		d->events = e;
	}
	return 0;
}

/* pmu stat -j's (or perf stat -j's) lines, one JSON object each, as one region "pmu stat". */
static int read_stat(struct dside *d, const char *buf, size_t len)
{
	struct dreg *r = add_reg(d, "pmu stat");
	int rc = r ? 0 : tool_err(-ENOMEM, "out of memory");
	unsigned line = 0, objects = 0;

	d->kind = D_STAT;
	for (const char *p = buf, *end; rc == 0 && p < buf + len; p = end + 1) {
		struct pmu__json *o;

		end = memchr(p, '\n', (size_t)(buf + len - p));
		end = end ? end : buf + len;
		line++;
		/* blank lines, and -o's "# started on ..." */
		if (p == end || p[strspn(p, " \t\r")] == '\n' || *p == '#')
			continue;
		/* the line parsed alone, named "-": its message "-:1:COL: what" said for the file's line */
		if ((rc = pmu__json_parse("-", p, (size_t)(end - p), &o)) < 0) {
			rc = tool_err(rc, "%s:%u:%s", d->path, line, pmu_errmsg() + strlen("-:1:"));
			break;
		}
		if (o->type == PMU_JSON_OBJECT && (rc = stat_line(d, r, o)) == 0)
			objects++;
		pmu__json_free(o);
	}
	if (rc == 0 && !r->nfig)
		rc = tool_err(-EINVAL, "%s: no counted event: neither a region report nor pmu stat -j's output",
			      d->path);
	return rc;
}

int diff_read(const char *path, struct dside *d)
{
	struct pmu__json *doc;
	char *buf = NULL;
	size_t len = 0;
	int r;

	memset(d, 0, sizeof(*d));
	d->path = path;
	if ((r = tool_err_lib(pmu__json_read(path, &buf, &len))) < 0)
		return r;
	/* one JSON value: a report; else pmu stat -j's lines */
	if ((r = pmu__json_parse(path, buf, len, &doc)) == 0) {
		r = doc->type == PMU_JSON_OBJECT && pmu__json_get(doc, "regions") ? read_report(d, doc) :
		    (pmu__json_free(doc), read_stat(d, buf, len));
	} else {
		char whole[512];

		snprintf(whole, sizeof(whole), "%s", pmu_errmsg());
		/* not one line read: a report cut short or malformed, said as one */
		if ((r = read_stat(d, buf, len)) < 0 && (!d->nreg || !d->reg[0].nfig))
			tool_err(r, "%s", whole);
	}
	free(buf);
	return r;
}

void diff_free(struct dside *d)
{
	for (unsigned i = 0; i < d->nreg; i++) {
		for (unsigned k = 0; k < d->reg[i].nfig; k++)
			free(d->reg[i].fig[k].name);
		free(d->reg[i].fig);
		free(d->reg[i].name);
		pmu__shist_free(&d->reg[i].hist);
	}
	free(d->reg);
	free(d->library);
	free(d->hostname);
	free(d->kernel);
	free(d->comp);
	free(d->events);
	memset(d, 0, sizeof(*d));
}
