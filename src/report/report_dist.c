/* SPDX-License-Identifier: MIT */
/*
 * The regions' distributions in the reports (PMU_HISTOGRAMS): p50, p90, p99,
 * p99.9 and max of each figure, and the tail attribution, in the table, csv
 * and json; json also keeps the buckets, so that pmu report merge adds them
 * exactly. Nothing is written for a snapshot without histograms.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "base/escape.h"
#include "report/report.h"
#include "report/view.h"
#include "regions/results.h"

const double pmu__dist_q[PMU_DIST_NQ] = { 0.5, 0.9, 0.99, 0.999 };
const char *const pmu__dist_qname[PMU_DIST_NQ] = { "p50", "p90", "p99", "p99.9" };

bool pmu__dist_any(const struct pmu_results *s)
{
	for (unsigned id = 0; id < s->nreg; id++)
		if (pmu__results_ent(s, -1, id)->dist)
			return true;
	return false;
}

uint64_t pmu__dist_sum(const struct pmu__rent *d, unsigned i)
{
	const struct pmu__shist *h = &d->dist[0];
	uint64_t sum = 0;

	for (unsigned k = 0; k < h->len; k++)
		sum += h->ts[(size_t)i * h->len + k];
	return sum;
}

bool pmu__dist_tail(const struct pmu__rent *d, struct pmu__dist_tail *t)
{
	t->calls = d->dist ? pmu__shist_tail(&d->dist[0], &t->from, t->tail, t->rest) : 0;
	return t->calls != 0;
}

void pmu__dist_table(FILE *f, const struct pmu_results *s)
{
	char e[PMU_ESC_SIZE], e2[PMU_ESC_SIZE];
	double tail[s->n + 2], rest[s->n + 2];
	struct pmu__dist_tail t = { .tail = tail, .rest = rest };

	if (!pmu__dist_any(s))
		return;
	fprintf(f, "\ndistributions per call (histograms, each value within 0.8%%):\n%-24s %-16s", "region",
		"figure");
	for (unsigned q = 0; q < PMU_DIST_NQ; q++)
		fprintf(f, " %14s", pmu__dist_qname[q]);
	fprintf(f, " %14s\n", "max");
	for (unsigned id = 0; id < s->nreg; id++) {
		const struct pmu__rent *d = pmu__results_ent(s, -1, id);

		for (unsigned i = 0; d->dist && i <= s->n; i++) {
			fprintf(f, "%-24s %-16s", pmu__report_esc(e, s->reg[id]), i ? pmu__report_esc(e2, s->ev[i - 1]) : "ns");
			for (unsigned q = 0; q < PMU_DIST_NQ; q++)
				fprintf(f, " %14.1f", pmu__dist_quantile(d, i, pmu__dist_q[q]));
			fprintf(f, " %14" PRIu64 "\n", d->max[i]);
		}
	}
	for (unsigned id = 0; id < s->nreg; id++) {
		if (!pmu__dist_tail(pmu__results_ent(s, -1, id), &t))
			continue;
		fprintf(f, "slowest 1%% of %s: %" PRIu64 " call%s from %" PRIu64 " ns; per call, theirs against the "
			"others':", pmu__report_esc(e, s->reg[id]), t.calls, t.calls == 1 ? "" : "s", t.from);
		for (unsigned i = 0; i <= s->n; i++)
			pmu__hist_tail_text(f, i ? s->ev[i - 1] : "ns", tail[i], rest[i], i == 0);
		fputc('\n', f);
	}
}

void pmu__dist_csv_head(FILE *f, unsigned nev, const char *const *evcol)
{
	char col[600];

	for (unsigned i = 0; i <= nev; i++)
		for (unsigned q = 0; q < PMU_DIST_NQ; q++) {
			snprintf(col, sizeof(col), i ? "%s(%s)" : "ns_%s", pmu__dist_qname[q], i ? evcol[i - 1] : "");
			fputc(',', f);
			pmu__report_csv_field(f, col);
		}
	fputs(",tail_calls,tail_ns_from", f);
	for (unsigned i = 0; i <= nev; i++)
		for (unsigned j = 0; j < 2; j++) {
			snprintf(col, sizeof(col), "%s(%s)", j ? "rest" : "tail", i ? evcol[i - 1] : "ns");
			fputc(',', f);
			pmu__report_csv_field(f, col);
		}
}

void pmu__dist_csv_cells(FILE *f, const struct pmu__vrow *r, unsigned nev)
{
	double tail[nev + 1], rest[nev + 1];
	uint64_t from = 0, calls = pmu__vrow_tail(r, nev, &from, tail, rest);

	for (unsigned i = 0; i <= nev; i++)
		for (unsigned q = 0; q < PMU_DIST_NQ; q++) {
			double x = calls ? pmu__vrow_quantile(r, i, pmu__dist_q[q]) : NAN;

			isnan(x) ? fputc(',', f) : fprintf(f, ",%.1f", x);
		}
	if (calls)
		fprintf(f, ",%" PRIu64 ",%" PRIu64, calls, from);
	else
		fputs(",,", f);
	for (unsigned i = 0; i <= nev; i++) {
		fputc(',', f);
		if (calls && !isnan(tail[i]))
			pmu__put_exact(f, tail[i]);
		fputc(',', f);
		if (calls && !isnan(rest[i]))
			pmu__put_exact(f, rest[i]);
	}
}

void pmu__dist_csv_row(FILE *f, const struct pmu_results *s, const struct pmu__rent *d)
{
	struct pmu__vrow r = { .dist = d->dist, .min = d->min, .max = d->max };

	pmu__dist_csv_cells(f, &r, s->n);
}

/* Figure i's quantiles and buckets: [index, calls] or, for ns, [index, calls, the sum of ns and of each event]. */
static void json_hist(FILE *f, const struct pmu__rent *d, unsigned i)
{
	const struct pmu__shist *h = &d->dist[i];

	for (unsigned q = 0; q < PMU_DIST_NQ; q++)
		fprintf(f, "\"%s\": %.1f, ", pmu__dist_qname[q], pmu__dist_quantile(d, i, pmu__dist_q[q]));
	fprintf(f, "\"max\": %" PRIu64 ", \"buckets\": [", d->max[i]);
	for (unsigned k = 0; k < h->len; k++) {
		fprintf(f, "%s[%" PRIu32 ", %" PRIu64, k ? ", " : "", h->idx[k], h->cnt[k]);
		for (unsigned e = 0; e < h->nts; e++)
			fprintf(f, ", %" PRIu64, h->ts[(size_t)e * h->len + k]);
		fputc(']', f);
	}
	fputc(']', f);
}

void pmu__dist_json(FILE *f, const struct pmu_results *s, const struct pmu__rent *d)
{
	double tail[s->n + 2], rest[s->n + 2];
	struct pmu__dist_tail t = { .tail = tail, .rest = rest };

	if (!pmu__dist_tail(d, &t))
		return;
	fputs(", \"dist\": {\"scheme\": \"" PMU_HIST_SCHEME "\", \"events\": [", f);
	for (unsigned i = 0; i < s->n; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, s->ev[i]);
	}
	fputs("], \"ns\": {", f);
	json_hist(f, d, 0);
	for (unsigned i = 0; i < s->n; i++) {
		fputs("}, ", f);
		pmu__json_str(f, s->ev[i]);
		fputs(": {", f);
		json_hist(f, d, 1 + i);
	}
	fprintf(f, "}}, \"tail\": {\"calls\": %" PRIu64 ", \"ns_from\": %" PRIu64, t.calls, t.from);
	for (unsigned i = 0; i <= s->n; i++) {
		fputs(", ", f);
		pmu__json_str(f, i ? s->ev[i - 1] : "ns");
		fputs(": {\"tail\": ", f);
		pmu__put_exact(f, tail[i]);
		fputs(", \"rest\": ", f);
		isnan(rest[i]) ? (void)fputs("null", f) : pmu__put_exact(f, rest[i]);
		fputc('}', f);
	}
	fputc('}', f);
}
