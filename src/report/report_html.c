/* SPDX-License-Identifier: MIT */
/*
 * The region report as one HTML page (pmu_report(f, "html")): the regions'
 * totals and metrics, each region's threads as bars, and a heatmap of
 * threads by regions for imbalance. Numbers as C writes them (report.c
 * sets the C locale around it).
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "report/html.h"
#include "report/report.h"
#include "report/view.h"
#include "regions/results.h"
#include "events/sysfs.h"
#include "counters/emulated.h"

#define BARS_MAX 64	/* threads shown as bars under a region; more: the heatmap */

/* Region id's row of the table, indented by its depth in the tree. */
static void region_row(FILE *f, const struct pmu_results *s, unsigned id, unsigned depth)
{
	const struct pmu__rent *t = pmu__results_ent(s, -1, id);

	fprintf(f, "<tr><td style=\"padding-left: %.1fem\">", 0.6 + 1.5 * depth);
	pmu__html_str(f, s->reg[id]);
	fprintf(f, "</td><td>%llu</td><td>%.1f</td>", (unsigned long long)t->calls, (double)t->sum[0] / (double)t->calls);
	for (unsigned i = 0; i < s->n; i++)
		fprintf(f, "<td>%llu</td>", (unsigned long long)t->sum[1 + i]);
	for (unsigned i = 0; i < s->mp.n; i++) {
		fputs("<td>", f);
		pmu__html_num(f, pmu__results_metric(s, -1, id, i) * s->mp.m[i].scale);
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

/* The regions under parent (-1: the top) depth deep, each then its own, once each (seen). */
static void region_tree(FILE *f, const struct pmu_results *s, int parent, unsigned depth, bool *seen)
{
	for (unsigned id = 0; id < s->nreg; id++) {
		if (seen[id] || s->parent[id] != parent || !pmu__results_ent(s, -1, id)->calls)
			continue;
		seen[id] = true;
		region_row(f, s, id, depth);
		region_tree(f, s, (int)id, depth + 1, seen);
	}
}

/* What the page's writers hold, made before the first write and freed by page_done(), after the last or at a cancel. */
struct page_mem {
	unsigned nthr;
	bool *seen;
	char **labels;
	double *ns;
	const char **rows;
};

static void page_done(void *p)
{
	struct page_mem *m = p;

	for (unsigned k = 0; m->labels && k < m->nthr; k++)
		free(m->labels[k]);
	free(m->labels);
	free(m->ns);
	free(m->rows);
	free(m->seen);
}

/* The regions as a tree: each under the region around its first call (seen: a region's row is there). */
static void regions_table(FILE *f, const struct pmu_results *s, bool *seen)
{
	fputs("<h2>Regions</h2>\n<table id=\"regions\">\n<tr><th>region</th><th>calls</th><th>ns/call</th>", f);
	for (unsigned i = 0; i < s->n; i++) {
		fputs("<th>", f);
		pmu__html_str(f, s->ev[i]);
		fputs("</th>", f);
	}
	for (unsigned i = 0; i < s->mp.n; i++) {
		fputs("<th>", f);
		pmu__html_str(f, s->mp.m[i].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	if (seen) {
		region_tree(f, s, -1, 0, seen);
		/* a parent's cycle (two threads, each region first inside the other): the rest at the top */
		for (unsigned id = 0; id < s->nreg; id++)
			if (!seen[id] && pmu__results_ent(s, -1, id)->calls)
				region_row(f, s, id, 0);
	}
	fputs("</table>\n", f);
}

/* Each thread's label ("tid name"), its ns in each region (NAN where it did not run it), the regions' names. */
static int thread_figures(const struct pmu_results *s, struct page_mem *m)
{
	m->labels = calloc(s->nthr ? s->nthr : 1, sizeof(*m->labels));
	m->ns = calloc((size_t)s->nreg * s->nthr + 1, sizeof(*m->ns));
	m->rows = calloc(s->nreg + 1, sizeof(*m->rows));
	if (!m->labels || !m->ns || !m->rows)
		return -1;
	for (unsigned id = 0; id < s->nreg; id++)
		m->rows[id] = s->reg[id];
	for (unsigned k = 0; k < s->nthr; k++) {
		if (asprintf(&m->labels[k], "%d %s", (int)s->thr[k].tid, s->thr[k].name) < 0)
			return -1;
		for (unsigned id = 0; id < s->nreg; id++) {
			const struct pmu__rent *e = pmu__results_ent(s, (int)k, id);

			m->ns[(size_t)id * s->nthr + k] = e->calls ? (double)e->sum[0] : NAN;
		}
	}
	return 0;
}

/* Per region run by more than one thread, and up to BARS_MAX of them, its threads' ns as bars. */
static void thread_bars(FILE *f, const struct pmu_results *s, char *const *labels, const double *ns)
{
	bool any = false;

	for (unsigned id = 0; id < s->nreg; id++) {
		unsigned users = 0;

		for (unsigned k = 0; k < s->nthr; k++)
			users += isfinite(ns[(size_t)id * s->nthr + k]);
		if (users < 2 || users > BARS_MAX)
			continue;
		if (!any)
			fputs("<h2>Threads</h2>\n", f);
		any = true;
		fputs("<h3>", f);
		pmu__html_str(f, s->reg[id]);
		fputs("</h3>\n", f);
		pmu__html_bars(f, s->nthr, (const char *const *)labels, ns + (size_t)id * s->nthr, "ns");
	}
}

/* Whether the figures are compensated, and the regions with calls clamped at 0. */
static void comp_note(FILE *f, const struct pmu_results *s)
{
	if (!s->ncomp)
		return;
	fprintf(f, "<p class=\"note\">compensated (%u of %u threads): each region leaves out the region calls "
		"inside it", s->ncomp, s->nthr);
	for (unsigned id = 0; id < s->nreg; id++) {
		uint64_t c = pmu__results_ent(s, -1, id)->clamped;

		if (!c)
			continue;
		fputs("; ", f);
		pmu__html_str(f, s->reg[id]);
		fprintf(f, ": %" PRIu64 " call%s clamped at 0", c, c == 1 ? "" : "s");
	}
	fputs("</p>\n", f);
}

static void page(FILE *f, const struct pmu_results *s, struct page_mem *m, const char *cmd, const char *host)
{
	struct pmu__view v;
	char title[4200];

	snprintf(title, sizeof(title), "libpmu report: %s", cmd);
	pmu__html_head(f, title);
	fputs("<h1>libpmu report</h1>\n<p class=\"note\">", f);
	pmu__html_str(f, cmd);
	fprintf(f, " &middot; pid %d on ", (int)getpid());
	pmu__html_str(f, host);
	fprintf(f, " &middot; libpmu %s &middot; events:", pmu_version());
	for (unsigned i = 0; i < s->n; i++) {
		fputs(i ? ", " : " ", f);
		pmu__html_str(f, s->ev[i]);
	}
	fputs("</p>\n", f);
	if (pmu__emulated()) {
		fputs("<p class=\"note\">Emulated: instructions counted by ", f);
		pmu__html_str(f, pmu__emulated());
		fputs(", not by a PMU.</p>\n", f);
	}
	if (s->refused.threads) {
		char w[256];

		pmu__thr_refusal_words(&s->refused, w, sizeof(w));
		fprintf(f, "<p class=\"note\">Not counted: %s (", w);
		pmu__html_str(f, s->refused.why);
		fputs(").</p>\n", f);
	}
	comp_note(f, s);
	regions_table(f, s, m->seen);
	pmu__paths_html(f, s);
	pmu__snap_view(s, &v);
	pmu__dist_html(f, &v);
	if (s->nthr > 1 && m->rows) {
		thread_bars(f, s, m->labels, m->ns);
		fputs("<h2>Imbalance</h2>\n", f);
		pmu__html_heatmap(f, "threads", s->nreg, m->rows, s->nthr, (const char *const *)m->labels, m->ns);
	}
	pmu__html_tail(f);
}

void pmu__report_html(FILE *f, const struct pmu_results *s)
{
	char cmd[4096] = "", host[256] = "";
	struct page_mem m = { .nthr = s->nthr };

	if (pmu__cmdline(cmd, sizeof(cmd)) < 0)
		cmd[0] = '\0';
	if (gethostname(host, sizeof(host)) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	m.seen = calloc(s->nreg + 1, sizeof(*m.seen));
	if (s->nthr > 1 && thread_figures(s, &m) < 0) {
		free(m.rows);
		m.rows = NULL;	/* no bars nor heatmap without their memory */
	}
	pthread_cleanup_push(page_done, &m);
	page(f, s, &m, cmd, host);
	pthread_cleanup_pop(1);
}
