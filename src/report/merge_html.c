/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge -o NAME.html: the merged report as one page. Per region
 * the totals and the spread of ns across processes (min, mean, max, with
 * the processes named) as a table and as bars, and a heatmap of processes
 * by regions for imbalance.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge.h"

static void proc_label(char *buf, size_t size, const struct merge *m, unsigned i)
{
	snprintf(buf, size, "#%u %s pid %ld", i, m->proc[i].hostname ? m->proc[i].hostname : "", m->proc[i].pid);
}

static void regions_table(FILE *f, const struct merge *m)
{
	char lab[300];

	fputs("<h2>Regions</h2>\n<table id=\"regions\">\n<tr><th>region</th><th>processes</th><th>calls</th>"
	      "<th>ns</th><th>ns min</th><th>process</th><th>ns mean</th><th>ns max</th><th>process</th>", f);
	for (unsigned k = 0; k < m->ncommon; k++) {
		fputs("<th>", f);
		pmu__html_str(f, m->ev[m->common[k]]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (unsigned i = 0; i < m->nreg; i++) {
		const struct mregion *r = &m->reg[i];

		fputs("<tr><td>", f);
		pmu__html_str(f, r->name);
		fprintf(f, "</td><td>%u</td><td>%llu</td><td>%llu</td><td>%llu</td><td>", r->nproc,
			(unsigned long long)r->calls.tot, (unsigned long long)r->ns.tot, (unsigned long long)r->ns.min);
		proc_label(lab, sizeof(lab), m, r->ns.imin);
		pmu__html_str(f, lab);
		fprintf(f, "</td><td>%.1f</td><td>%llu</td><td>", (double)r->ns.tot / r->nproc,
			(unsigned long long)r->ns.max);
		proc_label(lab, sizeof(lab), m, r->ns.imax);
		pmu__html_str(f, lab);
		fputs("</td>", f);
		for (unsigned k = 0; k < m->ncommon; k++)
			fprintf(f, "<td>%llu</td>", (unsigned long long)r->ev[m->common[k]].tot);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Each region's ns per process: min, mean, max as bars. */
static void spread_bars(FILE *f, const struct merge *m)
{
	static const char *const names[] = { "min", "mean", "max" };

	fputs("<h2>Spread across processes</h2>\n", f);
	for (unsigned i = 0; i < m->nreg; i++) {
		const struct mregion *r = &m->reg[i];
		double v[3] = { (double)r->ns.min, (double)r->ns.tot / r->nproc, (double)r->ns.max };

		fputs("<h3>", f);
		pmu__html_str(f, r->name);
		fputs("</h3>\n", f);
		pmu__html_bars(f, 3, names, v, "ns per process");
	}
}

/* Processes by regions, from the processes' own reports (a merged input's have no per-region figures). */
static void procs_heatmap(FILE *f, const struct merge *m)
{
	const char **rows = calloc(m->nreg + 1, sizeof(*rows));
	char **cols = calloc(m->nproc + 1, sizeof(*cols));
	double *v = calloc((size_t)m->nreg * m->nproc + 1, sizeof(*v));
	bool ok = rows && cols && v;

	for (unsigned p = 0; ok && p < m->nproc; p++) {
		char lab[300];

		proc_label(lab, sizeof(lab), m, p);
		ok = (cols[p] = strdup(lab)) != NULL;
	}
	for (unsigned i = 0; ok && i < m->nreg; i++) {
		rows[i] = m->reg[i].name;
		for (unsigned p = 0; p < m->nproc; p++)
			v[(size_t)i * m->nproc + p] = p < m->reg[i].npns ? m->reg[i].pns[p] : NAN;
	}
	fputs("<h2>Imbalance</h2>\n", f);
	if (ok)
		pmu__html_heatmap(f, "processes", m->nreg, rows, m->nproc, (const char *const *)cols, v);
	else
		fputs("<p class=\"note\">out of memory: no heatmap</p>\n", f);
	for (unsigned p = 0; cols && p < m->nproc; p++)
		free(cols[p]);
	free(cols);
	free(rows);
	free(v);
}

void pmu__merge_html(FILE *f, const struct merge *m, const struct pmu_results *paths)
{
	const char *ev[m->ncommon + 1];
	struct pmu__view v;
	char title[96];

	snprintf(title, sizeof(title), "libpmu merged report: %u processes", m->nproc);
	pmu__html_head(f, title);
	fprintf(f, "<h1>libpmu merged report</h1>\n<p class=\"note\">%u process%s, %u region%s; events:", m->nproc,
		m->nproc == 1 ? "" : "es", m->nreg, m->nreg == 1 ? "" : "s");
	for (unsigned k = 0; k < m->ncommon; k++) {
		fputs(k ? ", " : " ", f);
		pmu__html_str(f, m->ev[m->common[k]]);
	}
	fputs("</p>\n", f);
	regions_table(f, m);
	if (paths)
		pmu__paths_html(f, paths);
	spread_bars(f, m);
	pmu__merge_view(m, &v, ev);
	pmu__dist_html(f, &v);
	if (m->keep_procs)
		procs_heatmap(f, m);
	pmu__html_tail(f);
}
