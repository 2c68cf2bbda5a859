/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's distributions: the regions' histograms (PMU_HISTOGRAMS)
 * added exactly across processes, and written back with their quantiles and
 * tail. An event's histogram and sums are given only where every process
 * with histograms had it: a sum over some of them would be wrong.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge.h"


/* r's histograms for the union's nev events (new ones empty). 0 or -ENOMEM. */
static int dist_room(struct mregion *r, unsigned nev)
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

int pmu__merge_dist(struct merge *m, struct mregion *r, const struct pmu__rep_dist *d, unsigned in)
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

bool pmu__merge_dist_has(const struct mregion *r, unsigned e)
{
	return e < r->hne && r->hcnt[e] == r->hproc;
}

/* r's tail (calls, from; means per figure ns, then the union's events) into t, r: false without histograms. */
static bool merged_tail(const struct mregion *r, uint64_t *from, double *tail, double *rest, uint64_t *calls)
{
	*calls = r->hproc ? pmu__shist_tail(&r->hist[0], from, tail, rest) : 0;
	return *calls != 0;
}

/* Histogram k (0: ns; 1 + e: union event e) in json: its quantiles and buckets (ns's with the sums of ns and ev[]). */
static void json_hist(FILE *f, const struct mregion *r, unsigned k, const unsigned *ev, unsigned nev)
{
	const struct pmu__shist *h = &r->hist[k];

	for (unsigned q = 0; q < PMU_DIST_NQ; q++)
		fprintf(f, "\"%s\": %.1f, ", pmu__dist_qname[q], pmu__shist_quantile(h, pmu__dist_q[q]));
	fputs("\"buckets\": [", f);
	for (unsigned b = 0; b < h->len; b++) {
		fprintf(f, "%s[%" PRIu32 ", %" PRIu64, b ? ", " : "", h->idx[b], h->cnt[b]);
		for (unsigned e = 0; k == 0 && e <= nev; e++)	/* ns, then the events given */
			fprintf(f, ", %" PRIu64, h->ts[(size_t)(e ? 1 + ev[e - 1] : 0) * h->len + b]);
		fputc(']', f);
	}
	fputc(']', f);
}

void pmu__merge_dist_json(FILE *f, const struct merge *m, const struct mregion *r)
{
	double tail[1 + m->nev], rest[1 + m->nev];
	unsigned ev[m->ncommon + 1], nev = 0;
	uint64_t from, calls;

	if (!merged_tail(r, &from, tail, rest, &calls))
		return;
	for (unsigned k = 0; k < m->ncommon; k++)
		if (pmu__merge_dist_has(r, m->common[k]))
			ev[nev++] = m->common[k];
	fprintf(f, ", \"dist\": {\"scheme\": \"" PMU_HIST_SCHEME "\", \"processes\": %u, \"events\": [", r->hproc);
	for (unsigned e = 0; e < nev; e++) {
		fputs(e ? ", " : "", f);
		pmu__json_str(f, m->ev[ev[e]]);
	}
	fputs("], \"ns\": {", f);
	json_hist(f, r, 0, ev, nev);
	for (unsigned e = 0; e < nev; e++) {
		fputs("}, ", f);
		pmu__json_str(f, m->ev[ev[e]]);
		fputs(": {", f);
		json_hist(f, r, 1 + ev[e], ev, nev);
	}
	fprintf(f, "}}, \"tail\": {\"calls\": %" PRIu64 ", \"ns_from\": %" PRIu64 ", \"ns\": {\"tail\": ", calls, from);
	pmu__put_exact(f, tail[0]);
	fputs(", \"rest\": ", f);
	isnan(rest[0]) ? (void)fputs("null", f) : pmu__put_exact(f, rest[0]);
	fputc('}', f);
	for (unsigned e = 0; e < nev; e++) {
		fputs(", ", f);
		pmu__json_str(f, m->ev[ev[e]]);
		fputs(": {\"tail\": ", f);
		pmu__put_exact(f, tail[1 + ev[e]]);
		fputs(", \"rest\": ", f);
		isnan(rest[1 + ev[e]]) ? (void)fputs("null", f) : pmu__put_exact(f, rest[1 + ev[e]]);
		fputc('}', f);
	}
	fputc('}', f);
}

void pmu__merge_dist_table(FILE *f, const struct merge *m)
{
	double tail[1 + m->nev], rest[1 + m->nev];
	char e[PMU_ESC_SIZE], e2[PMU_ESC_SIZE];
	uint64_t from, calls;
	bool any = false;

	for (unsigned i = 0; i < m->nreg; i++) {
		const struct mregion *r = &m->reg[i];

		if (!merged_tail(r, &from, tail, rest, &calls))
			continue;
		if (!any) {
			fprintf(f, "\ndistributions per call over the processes with histograms (each value within "
				"0.8%%):\n%-24s %-16s", "region", "figure");
			for (unsigned q = 0; q < PMU_DIST_NQ; q++)
				fprintf(f, " %14s", pmu__dist_qname[q]);
			fputc('\n', f);
		}
		any = true;
		for (unsigned k = 0; k <= m->ncommon; k++) {
			unsigned u = k ? m->common[k - 1] : 0;

			if (k && !pmu__merge_dist_has(r, u))
				continue;
			fprintf(f, "%-24s %-16s", pmu__report_esc(e, r->name), k ? pmu__report_esc(e2, m->ev[u]) : "ns");
			for (unsigned q = 0; q < PMU_DIST_NQ; q++)
				fprintf(f, " %14.1f", pmu__shist_quantile(&r->hist[k ? 1 + u : 0], pmu__dist_q[q]));
			fputc('\n', f);
		}
		fprintf(f, "slowest 1%% of %s (%u process%s): %" PRIu64 " calls from %" PRIu64 " ns; per call, theirs "
			"against the others':", e, r->hproc, r->hproc == 1 ? "" : "es", calls, from);
		pmu__hist_tail_text(f, "ns", tail[0], rest[0], true);
		for (unsigned k = 0; k < m->ncommon; k++)
			if (pmu__merge_dist_has(r, m->common[k]))
				pmu__hist_tail_text(f, m->ev[m->common[k]], tail[1 + m->common[k]], rest[1 + m->common[k]],
						   false);
		fputs(" (of the events every process with histograms counted)\n", f);
	}
}
