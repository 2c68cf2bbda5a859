/* SPDX-License-Identifier: MIT */
/*
 * The regions' distributions in every report (PMU_HISTOGRAMS), a process's
 * and a merge's alike, from their views (view.h): p50, p90, p99, p99.9 (and
 * max where the row knows it) of each figure, and the tail attribution, in
 * the table, csv, json and HTML; json also keeps the buckets, so that
 * pmu report merge adds them exactly. Nothing is written without histograms.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "base/escape.h"
#include "report/html.h"
#include "report/report.h"
#include "report/view.h"

const double pmu__dist_q[PMU_DIST_NQ] = { 0.5, 0.9, 0.99, 0.999 };
const char *const pmu__dist_qname[PMU_DIST_NQ] = { "p50", "p90", "p99", "p99.9" };

bool pmu__view_dist_any(const struct pmu__view *v)
{
	VROW_DECL(v, r, buf);

	for (unsigned i = 0; i < v->nrow; i++) {
		v->row(v, i, &r, &buf);
		if (pmu__vrow_has_dist(&r))
			return true;
	}
	return false;
}

/* Figure i's name: "ns" or the view's event. */
static const char *fig_name(const struct pmu__view *v, unsigned i)
{
	return i ? v->ev[i - 1] : "ns";
}

/* The table's rows of region total r: a row per figure with a histogram. */
static void table_rows(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r)
{
	char e[PMU_ESC_SIZE], e2[PMU_ESC_SIZE];

	for (unsigned i = 0; i <= v->nev; i++) {
		if (!pmu__vrow_hist(r, i))
			continue;
		fprintf(f, "%-24s %-16s", pmu__report_esc(e, r->region), pmu__report_esc(e2, fig_name(v, i)));
		for (unsigned q = 0; q < PMU_DIST_NQ; q++)
			fprintf(f, " %14.1f", pmu__vrow_quantile(r, i, pmu__dist_q[q]));
		if (r->max)
			fprintf(f, " %14" PRIu64 "\n", r->max[i]);
		else
			fprintf(f, " %14s\n", "-");
	}
}

/* The table's line on r's slowest 1%: theirs against the others', per figure. */
static void table_tail(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r)
{
	double tail[v->nev + 1], rest[v->nev + 1];
	uint64_t from, calls = pmu__vrow_tail(r, v->nev, &from, tail, rest);
	char e[PMU_ESC_SIZE], np[48] = "";

	if (r->hproc)
		snprintf(np, sizeof(np), " (%u process%s)", r->hproc, r->hproc == 1 ? "" : "es");
	fprintf(f, "slowest 1%% of %s%s: %" PRIu64 " call%s from %" PRIu64 " ns; per call, theirs against the "
		"others':", pmu__report_esc(e, r->region), np, calls, calls == 1 ? "" : "s", from);
	for (unsigned i = 0; i <= v->nev; i++)
		if (pmu__vrow_hist(r, i))
			pmu__hist_tail_text(f, fig_name(v, i), tail[i], rest[i], i == 0);
	fputs(r->hproc ? " (of the events every process with histograms counted)\n" : "\n", f);
}

void pmu__dist_table(FILE *f, const struct pmu__view *v)
{
	VROW_DECL(v, r, buf);

	if (!pmu__view_dist_any(v))
		return;
	fprintf(f, "\ndistributions per call %s:\n%-24s %-16s", v->pid < 0 ? "over the processes with histograms "
		"(each value within 0.8%)" : "(histograms, each value within 0.8%)", "region", "figure");
	for (unsigned q = 0; q < PMU_DIST_NQ; q++)
		fprintf(f, " %14s", pmu__dist_qname[q]);
	fprintf(f, " %14s\n", "max");
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < v->nrow; i++) {
			v->row(v, i, &r, &buf);
			if (r.tid < 0 && pmu__vrow_has_dist(&r))
				(pass ? table_tail : table_rows)(f, v, &r);
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
	uint64_t from = 0, calls = pmu__vrow_has_dist(r) ? pmu__vrow_tail(r, nev, &from, tail, rest) : 0;

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

/* Figure i's quantiles (max where known) and buckets: [index, calls] or, for ns, with the sums of ns and
 * of each event with a histogram. */
static void json_hist(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r, unsigned i)
{
	const struct pmu__shist *h = pmu__vrow_hist(r, i);

	for (unsigned q = 0; q < PMU_DIST_NQ; q++)
		fprintf(f, "\"%s\": %.1f, ", pmu__dist_qname[q], pmu__vrow_quantile(r, i, pmu__dist_q[q]));
	if (r->max)
		fprintf(f, "\"max\": %" PRIu64 ", ", r->max[i]);
	fputs("\"buckets\": [", f);
	for (unsigned b = 0; b < h->len; b++) {
		fprintf(f, "%s[%" PRIu32 ", %" PRIu64, b ? ", " : "", h->idx[b], h->cnt[b]);
		for (unsigned e = 0; i == 0 && e <= v->nev; e++) {	/* ns, then the events with histograms */
			const struct pmu__shist *he = pmu__vrow_hist(r, e);

			if (he)
				fprintf(f, ", %" PRIu64, h->ts[(size_t)(he - r->dist) * h->len + b]);
		}
		fputc(']', f);
	}
	fputc(']', f);
}

/* json's "tail" member of r. */
static void json_tail(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r)
{
	double tail[v->nev + 1], rest[v->nev + 1];
	uint64_t from, calls = pmu__vrow_tail(r, v->nev, &from, tail, rest);

	fprintf(f, ", \"tail\": {\"calls\": %" PRIu64 ", \"ns_from\": %" PRIu64, calls, from);
	for (unsigned i = 0; i <= v->nev; i++) {
		if (!pmu__vrow_hist(r, i))
			continue;
		fputs(", ", f);
		pmu__json_str(f, fig_name(v, i));
		fputs(": {\"tail\": ", f);
		pmu__put_exact(f, tail[i]);
		fputs(", \"rest\": ", f);
		isnan(rest[i]) ? (void)fputs("null", f) : pmu__put_exact(f, rest[i]);
		fputc('}', f);
	}
	fputc('}', f);
}

void pmu__dist_json(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r)
{
	bool first = true;

	if (!pmu__vrow_has_dist(r))
		return;
	fputs(", \"dist\": {\"scheme\": \"" PMU_HIST_SCHEME "\", ", f);
	if (r->hproc)
		fprintf(f, "\"processes\": %u, ", r->hproc);
	fputs("\"events\": [", f);
	for (unsigned i = 1; i <= v->nev; i++)
		if (pmu__vrow_hist(r, i)) {
			fputs(first ? "" : ", ", f);
			pmu__json_str(f, v->ev[i - 1]);
			first = false;
		}
	fputs("], \"ns\": {", f);
	json_hist(f, v, r, 0);
	for (unsigned i = 1; i <= v->nev; i++)
		if (pmu__vrow_hist(r, i)) {
			fputs("}, ", f);
			pmu__json_str(f, v->ev[i - 1]);
			fputs(": {", f);
			json_hist(f, v, r, i);
		}
	fputs("}}", f);
	json_tail(f, v, r);
}

/* The HTML section of region total r: its calls' ns drawn, each figure's quantiles, the slowest 1%'s. */
static void html_region(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r)
{
	double tail[v->nev + 1], rest[v->nev + 1];
	uint64_t from, calls = pmu__vrow_tail(r, v->nev, &from, tail, rest);

	fputs("<h3>", f);
	pmu__html_str(f, r->region);
	fputs("</h3>\n", f);
	pmu__html_hist(f, &r->dist[0], "ns");
	fputs("<table><tr><th>figure</th>", f);
	for (unsigned q = 0; q < PMU_DIST_NQ; q++)
		fprintf(f, "<th>%s</th>", pmu__dist_qname[q]);
	fputs("<th>max</th><th>slowest 1%</th><th>the others</th></tr>\n", f);
	for (unsigned i = 0; i <= v->nev; i++) {
		if (!pmu__vrow_hist(r, i))
			continue;
		fputs("<tr><td>", f);
		pmu__html_str(f, fig_name(v, i));
		fputs("</td>", f);
		for (unsigned q = 0; q < PMU_DIST_NQ; q++) {
			fputs("<td>", f);
			pmu__html_num(f, pmu__vrow_quantile(r, i, pmu__dist_q[q]));
			fputs("</td>", f);
		}
		fputs("<td>", f);
		r->max ? pmu__html_num(f, (double)r->max[i]) : (void)fputs("-", f);
		fputs("</td><td>", f);
		pmu__html_num(f, tail[i]);
		fputs("</td><td>", f);
		pmu__html_num(f, rest[i]);
		fputs("</td></tr>\n", f);
	}
	fprintf(f, "</table>\n<p class=\"note\">slowest 1%%: %" PRIu64 " call%s from %" PRIu64 " ns", calls,
		calls == 1 ? "" : "s", from);
	if (r->hproc)
		fprintf(f, ", over %u process%s with histograms", r->hproc, r->hproc == 1 ? "" : "es");
	fputs("</p>\n", f);
}

void pmu__dist_html(FILE *f, const struct pmu__view *v)
{
	VROW_DECL(v, r, buf);

	if (!pmu__view_dist_any(v))
		return;
	fputs("<h2>Distributions</h2>\n<p class=\"note\">Per outermost call, from histograms: each value within "
	      "0.8%.</p>\n", f);
	for (unsigned i = 0; i < v->nrow; i++) {
		v->row(v, i, &r, &buf);
		if (r.tid < 0 && pmu__vrow_has_dist(&r))
			html_region(f, v, &r);
	}
}
