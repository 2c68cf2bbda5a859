/* SPDX-License-Identifier: MIT */
/* A process's call paths (results.h's) in the table and json reports: each with calls, total and self. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "regions/functions.h"
#include "regions/region.h"
#include "regions/results.h"
#include "report/report.h"
#include "report/view.h"

int pmu__ptree_of(const struct pmu_results *s, struct pmu__ptree *t)
{
	unsigned np = s->npath;

	t->kid = malloc((np + 1) * sizeof(*t->kid));
	t->next = malloc((np + 1) * sizeof(*t->next));
	t->top = np;
	t->span = NULL;
	if (!t->kid || !t->next) {
		pmu__ptree_free(t);
		return -1;
	}
	for (unsigned p = 0; p < np; p++)
		t->kid[p] = np;
	for (unsigned p = np; p-- > 0;) {	/* backwards: each list in index order */
		unsigned *head = s->path_up[p] < 0 ? &t->top : &t->kid[s->path_up[p]];

		t->next[p] = *head;
		*head = p;
	}
	return 0;
}

void pmu__ptree_free(struct pmu__ptree *t)
{
	free(t->kid);
	free(t->next);
	free(t->span);
	t->kid = t->next = NULL;
	t->span = NULL;
}

void pmu__ptree_done(void *t)
{
	pmu__ptree_free(t);
}

/* The calls that went to "(other paths)", past a thread's cap. */
static uint64_t other_calls(const struct pmu_results *s)
{
	uint64_t n = 0;

	for (unsigned p = 0; p < s->npath; p++)
		if (!strcmp(s->reg[s->path_reg[p]], PMU_OTHER_PATHS))
			n += pmu__results_path(s, -1, p)[0];
	return n;
}

/* Whether any path is nested: else the paths are the regions, and the table says nothing more. */
static bool nested(const struct pmu_results *s)
{
	for (unsigned p = 0; p < s->npath; p++)
		if (s->path_up[p] >= 0 && pmu__results_path(s, -1, p)[0])
			return true;
	return false;
}

bool pmu__paths_nested(const struct pmu_results *s)
{
	return nested(s) || other_calls(s);
}

/* Path p and those under it, depth deep (bounded by the regions open at once), as table rows. */
static void table_rows(FILE *f, const struct pmu_results *s, const struct pmu__ptree *t, unsigned p, unsigned depth,
		       int wn)
{
	char e[PMU_ESC_SIZE];

	for (; p != s->npath; p = t->next[p]) {
		const uint64_t *v = pmu__results_path(s, -1, p);
		unsigned w = s->n + 1;
		int ind = (int)(2 * depth);

		fprintf(f, "%*s%-*s %10" PRIu64, ind, "", wn - ind > 0 ? wn - ind : 0,
			pmu__report_esc(e, s->reg[s->path_reg[p]]), v[0]);
		for (unsigned i = 0; i < w; i++)
			fprintf(f, " %16" PRIu64 " %16" PRIu64, v[1 + i], v[1 + w + i]);
		fputc('\n', f);
		table_rows(f, s, t, t->kid[p], depth + 1, wn);
	}
}

/* The calls a cut function made uncounted, and what their pairs would have cost. */
static double avoided_ns(const struct pmu__fn_cut *c)
{
	return c->seen > PMU_FN_TRIAL ? (double)(c->seen - PMU_FN_TRIAL) * c->pair_ns : 0;
}

static void cut_row(const struct pmu__fn_cut *c, void *arg)
{
	char e[PMU_ESC_SIZE];

	fprintf(arg, "%-40s %14" PRIu64 " %10.0f %10.0f %14.3f\n", pmu__report_esc(e, c->name), c->seen, c->pair_ns,
		c->fn_ns, avoided_ns(c) / 1e6);
}

void pmu__cuts_table(FILE *f)
{
	if (!pmu__fn_cuts(NULL, NULL))
		return;
	fprintf(f, "\nfunctions counted no further after their first %d calls: their pair cost more than %.4g%% of "
		"their time (PMU_FUNCTIONS_BUDGET); their calls since are in their callers' figures\n",
		PMU_FN_TRIAL, 100 * pmu__fn_budget());
	fprintf(f, "%-40s %14s %10s %10s %14s\n", "function", "calls", "pair ns", "call ns", "avoided ms");
	pmu__fn_cuts(cut_row, f);
}

struct cuts_json {
	FILE *f;
	unsigned n;
};

static void cut_json(const struct pmu__fn_cut *c, void *arg)
{
	struct cuts_json *j = arg;
	FILE *f = j->f;

	fputs(j->n++ ? ",\n    {\"function\": " : "\n    {\"function\": ", f);
	pmu__json_str(f, c->name);
	fprintf(f, ", \"calls\": %" PRIu64 ", \"pair_ns\": ", c->seen);
	pmu__put_exact(f, c->pair_ns);
	fputs(", \"call_ns\": ", f);
	pmu__put_exact(f, c->fn_ns);
	fputs(", \"avoided_ns\": ", f);
	pmu__put_exact(f, avoided_ns(c));
	fputc('}', f);
}

/* The table's section of paths, tree t. */
static void table_paths(FILE *f, const struct pmu_results *s, const struct pmu__ptree *t)
{
	uint64_t other = other_calls(s);
	char e[PMU_ESC_SIZE];
	int wn = 4;

	for (unsigned p = 0; p < s->npath; p++) {
		int w = (int)(2 * pmu__results_depth(s, p) + strlen(pmu__report_esc(e, s->reg[s->path_reg[p]])));

		wn = w > wn ? w : wn;
	}
	fprintf(f, "\ncall paths: total and self (total less the paths inside), all threads\n");
	if (other)
		fprintf(f, "%s: %" PRIu64 " calls of paths past a thread's cap of %u (PMU_PATHS)\n", PMU_OTHER_PATHS,
			other, pmu__paths_max());
	fprintf(f, "%-*s %10s %16s %16s", wn, "path", "calls", "ns", "self ns");
	for (unsigned i = 0; i < s->n; i++) {
		char self[PMU_ESC_SIZE + 8];

		snprintf(self, sizeof(self), "self %s", pmu__report_esc(e, s->ev[i]));
		fprintf(f, " %16s %16s", e, self);
	}
	fputc('\n', f);
	table_rows(f, s, t, t->top, 0, wn);
}

void pmu__paths_table(FILE *f, const struct pmu_results *s)
{
	struct pmu__ptree t;

	if (pmu__paths_nested(s) && pmu__ptree_of(s, &t) == 0) {
		pthread_cleanup_push(pmu__ptree_done, &t);	/* a cancel in a write */
		table_paths(f, s, &t);
		pthread_cleanup_pop(1);
	}
}

/* Path p's names from the top, as a json array. */
static void json_path(FILE *f, const struct pmu_results *s, unsigned p)
{
	if (s->path_up[p] >= 0) {
		json_path(f, s, (unsigned)s->path_up[p]);
		fputs(", ", f);
	}
	pmu__json_str(f, s->reg[s->path_reg[p]]);
}

/* One figure set of path entry v (calls, total, self): total (self when self) per event. */
static void json_events(FILE *f, const struct pmu_results *s, const uint64_t *v, bool self)
{
	fputs(self ? ", \"self_counts\": {" : ", \"counts\": {", f);
	for (unsigned i = 0; i < s->n; i++) {
		fputs(i ? ", " : "", f);
		pmu__json_str(f, s->ev[i]);
		fprintf(f, ": %" PRIu64, v[1 + (self ? s->n + 1 : 0) + 1 + i]);
	}
	fputc('}', f);
}

/* Path p as a view's row (report_dist.c's writers): its totals and, when kept, histograms (a merge's by pdk). */
static struct pmu__vrow path_row(const struct pmu_results *s, unsigned p)
{
	const uint64_t *v = pmu__results_path(s, -1, p);

	return (struct pmu__vrow){ .region = s->reg[s->path_reg[p]], .tid = -1, .calls = v[0], .ns = v[1],
				   .ev = v + 2, .dist = s->pdist ? s->pdist[p] : NULL,
				   .dk = s->pdk ? s->pdk + (size_t)p * s->n : NULL, .hproc = s->phproc ? s->phproc[p] : 0 };
}

void pmu__paths_json(FILE *f, const struct pmu_results *s)
{
	unsigned n = 0, w = s->n + 1;
	const struct pmu__view view = { .nev = s->n, .ev = (const char *const *)s->ev };	/* what dist_json reads */

	fputs(",\n  \"paths\": [", f);	/* since 0.8: every call path, its names from the top */
	for (unsigned p = 0; p < s->npath; p++) {
		const uint64_t *v = pmu__results_path(s, -1, p);

		fputs(n++ ? ",\n    {\"path\": [" : "\n    {\"path\": [", f);
		json_path(f, s, p);
		fprintf(f, "], \"calls\": %" PRIu64 ", \"ns\": %" PRIu64 ", \"self_ns\": %" PRIu64, v[0], v[1], v[1 + w]);
		json_events(f, s, v, false);
		json_events(f, s, v, true);
		if (s->pdist && s->pdist[p]) {	/* since 0.8: its histograms, as a region's */
			struct pmu__vrow row = path_row(s, p);

			pmu__dist_json(f, &view, &row);
		}
		fputc('}', f);
	}
	fputs(n ? "\n  ]" : "]", f);
}

void pmu__cuts_json(FILE *f)
{
	struct cuts_json j = { f, 0 };

	if (!pmu__fn_cuts(NULL, NULL))
		return;
	fprintf(f, ",\n  \"functions_budget\": %.6g,\n  \"functions_cut\": [", pmu__fn_budget());	/* since 0.8 */
	pmu__fn_cuts(cut_json, &j);
	fputs("\n  ]", f);
}

char *pmu__path_str(const struct pmu_results *s, unsigned p, char *b, bool esc)
{
	char e[PMU_ESC_SIZE];
	const char *n = s->reg[s->path_reg[p]];

	if (s->path_up[p] >= 0) {
		b = pmu__path_str(s, (unsigned)s->path_up[p], b, esc);
		*b++ = ';';
	}
	return pmu__path_frame(b, esc ? pmu__report_esc(e, n) : n);
}

void pmu__paths_csv_head(FILE *f, unsigned n, const char *const *evcol)
{
	char col[600];

	fputs(",path,self_ns", f);
	for (unsigned i = 0; i < n; i++) {
		snprintf(col, sizeof(col), "self(%s)", evcol[i]);
		fputc(',', f);
		pmu__report_csv_field(f, col);
	}
}

static void csv_rows(FILE *f, const struct pmu_results *s, const char *mid, unsigned pad, bool dist, char *buf)
{
	unsigned w = s->n + 1;

	for (unsigned p = 0; p < s->npath; p++) {
		const uint64_t *v = pmu__results_path(s, -1, p);

		if (!v[0])	/* still open: its calls not yet counted */
			continue;
		pmu__report_csv_field(f, s->reg[s->path_reg[p]]);
		fprintf(f, "%s%" PRIu64 ",%" PRIu64 ",%.1f", mid, v[0], v[1], (double)v[1] / (double)v[0]);
		for (unsigned i = 0; i < s->n; i++)
			fprintf(f, ",%" PRIu64, v[2 + i]);
		for (unsigned i = 0; i < pad; i++)
			fputc(',', f);
		if (dist) {
			struct pmu__vrow row = path_row(s, p);

			pmu__dist_csv_cells(f, &row, s->n);
		}
		fputc(',', f);
		pmu__path_str(s, p, buf, false);
		pmu__report_csv_field(f, buf);
		for (unsigned i = 0; i < w; i++)
			fprintf(f, ",%" PRIu64, v[1 + w + i]);
		fputc('\n', f);
	}
}

void pmu__paths_csv(FILE *f, const struct pmu_results *s, const char *mid, unsigned pad, bool dist)
{
	char *buf = malloc(PMU_PATH_BUF);

	if (!buf)
		return;
	pthread_cleanup_push(pmu__free_buf, &buf);	/* a cancel in a write */
	csv_rows(f, s, mid, pad, dist, buf);
	pthread_cleanup_pop(1);
}

/* One family of the paths: fig -1 calls, else the figure (0 ns, 1 + event), self or total. */
static void prom_family(FILE *f, const struct pmu_results *s, bool om, int fig, bool self, char *buf)
{
	static const char *const name[2][3] = { { "pmu_path_calls", "pmu_path_seconds", "pmu_path_events" },
						{ "", "pmu_path_self_seconds", "pmu_path_self_events" } };
	const char *nm = name[self][fig < 0 ? 0 : fig == 0 ? 1 : 2];
	unsigned w = s->n + 1;

	if (fig <= 1)	/* self is total less the paths inside, which may grow first: a gauge */
		pmu__prom_head(f, om, nm, self ? "gauge" : "counter", fig == 0 ? "seconds" : NULL,
			       fig < 0 ? "Calls of the call path (all threads)." : self ?
			       "The path's own share: its total less the paths inside it (all threads)." :
			       "The path's total: everything between its calls' begins and ends (all threads).");
	for (unsigned p = 0; p < s->npath; p++) {
		const uint64_t *v = pmu__results_path(s, -1, p);
		uint64_t x = fig < 0 ? v[0] : v[1 + (self ? w : 0) + (unsigned)fig];

		pmu__path_str(s, p, buf, false);
		fprintf(f, "%s%s{path=", nm, self ? "" : "_total");
		pmu__prom_str(f, buf);
		if (fig > 0) {
			fputs(",event=", f);
			pmu__prom_str(f, s->ev[fig - 1]);
		}
		pmu__prom_value(f, x, fig == 0);
	}
}

void pmu__free_buf(void *p)
{
	free(*(char **)p);
}

void pmu__paths_prom(FILE *f, const struct pmu_results *s, bool om)
{
	char *buf;

	if (!pmu__paths_nested(s) || !(buf = malloc(PMU_PATH_BUF)))
		return;
	pthread_cleanup_push(pmu__free_buf, &buf);	/* a cancel in a write */
	prom_family(f, s, om, -1, false, buf);
	for (int self = 0; self < 2; self++) {
		prom_family(f, s, om, 0, self, buf);
		for (unsigned e = 0; e < s->n; e++)
			prom_family(f, s, om, 1 + (int)e, self, buf);
	}
	pthread_cleanup_pop(1);
}
