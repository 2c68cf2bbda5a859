/* SPDX-License-Identifier: MIT */
/*
 * The call paths for the tools that analyse trees: collapsed stacks
 * ("folded", for flamegraph.pl, speedscope and Perfetto), Hatchet's literal
 * tree ("hatchet") and Caliper's "json-split" (Hatchet and Thicket), and the
 * HTML page's icicle. All threads' figures; a path still open has no calls
 * yet, and is there for the paths under it.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "regions/region.h"
#include "regions/results.h"
#include "report/html.h"
#include "report/report.h"

/* Path p's entry: calls, then totals (ns, events), then selves. */
#define CALLS(v) ((v)[0])
#define TOTAL(s, v, fig) ((v)[1 + (fig)])
#define SELF(s, v, fig) ((v)[1 + (s)->n + 1 + (fig)])

int pmu__tree_fig(const struct pmu_results *s, const char *format)
{
	const char *name = strchr(format, ':');

	if (!name) {	/* instructions, as flame graphs of perf are weighed, else time */
		for (unsigned i = 0; i < s->n; i++)
			if (!strcmp(s->ev[i], "instructions"))
				return 1 + (int)i;
		return 0;
	}
	if (!strcmp(++name, "ns"))
		return 0;
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->ev[i], name))
			return 1 + (int)i;
	return pmu__err(-EINVAL, "%s: the report counts no figure %s (ns, or one of its events)",
			pmu__show(&(struct pmu__shown){ 0 }, format, strlen(format)),
			pmu__show(&(struct pmu__shown){ 0 }, name, strlen(name)));
}

static void folded_lines(FILE *f, const struct pmu_results *s, int fig, char *buf)
{
	for (unsigned p = 0; p < s->npath; p++) {
		const uint64_t *v = pmu__results_path(s, -1, p);

		if (!CALLS(v) || !SELF(s, v, fig))	/* a line of weight 0 draws nothing */
			continue;
		pmu__path_str(s, p, buf, true);	/* frames escaped as text, and their separator ';' as \x3b */
		fprintf(f, "%s %" PRIu64 "\n", buf, SELF(s, v, fig));
	}
}

void pmu__report_folded(FILE *f, const struct pmu_results *s, int fig)
{
	char *buf = malloc(PMU_PATH_BUF);

	if (!buf)
		return;
	pthread_cleanup_push(pmu__free_buf, &buf);	/* a cancel in a write */
	folded_lines(f, s, fig, buf);
	pthread_cleanup_pop(1);
}

/* Hatchet's names of the figures: time in seconds as Caliper's, an inclusive figure " (inc)". */
static void hatchet_metrics(FILE *f, const struct pmu_results *s, const uint64_t *v)
{
	fprintf(f, "{\"calls\": %" PRIu64 ", \"time\": ", CALLS(v));
	pmu__put_exact(f, (double)SELF(s, v, 0) / 1e9);
	fputs(", \"time (inc)\": ", f);
	pmu__put_exact(f, (double)TOTAL(s, v, 0) / 1e9);
	for (unsigned i = 0; i < s->n; i++) {
		char inc[PMU_ESC_SIZE + 8];

		snprintf(inc, sizeof(inc), "%s (inc)", s->ev[i]);
		fputs(", ", f);
		pmu__json_str(f, s->ev[i]);
		fprintf(f, ": %" PRIu64 ", ", SELF(s, v, 1 + i));
		pmu__json_str(f, inc);
		fprintf(f, ": %" PRIu64, TOTAL(s, v, 1 + i));
	}
	fputc('}', f);
}

/* The paths from p and its siblings on, depth deep (bounded by the regions open at once). */
static void hatchet_nodes(FILE *f, const struct pmu_results *s, const struct pmu__ptree *t, unsigned p, unsigned depth)
{
	unsigned n = 0;

	for (; p != s->npath; p = t->next[p]) {
		const uint64_t *v = pmu__results_path(s, -1, p);

		fprintf(f, "%s\n%*s{\"frame\": {\"name\": ", n++ ? "," : "", (int)(2 * depth + 2), "");
		pmu__json_str(f, s->reg[s->path_reg[p]]);
		fputs(", \"type\": \"region\"}, \"metrics\": ", f);
		hatchet_metrics(f, s, v);
		fputs(", \"children\": [", f);
		hatchet_nodes(f, s, t, t->kid[p], depth + 1);
		fputs("]}", f);
	}
}

void pmu__report_hatchet(FILE *f, const struct pmu_results *s)
{
	struct pmu__ptree t;

	if (pmu__ptree_of(s, &t) < 0) {
		pmu__err(-ENOMEM, "pmu_report: out of memory for the tree of paths");
		return;
	}
	pthread_cleanup_push(pmu__ptree_done, &t);	/* a cancel in a write */
	fputc('[', f);
	hatchet_nodes(f, s, &t, t.top, 0);
	fputs("\n]\n", f);
	pthread_cleanup_pop(1);
}

/* json-split's nodes from p and its siblings on, under node up (-1: none); *n counts them. */
static void split_nodes(FILE *f, const struct pmu_results *s, const struct pmu__ptree *t, unsigned p, long up,
			long *n, bool rows)
{
	for (; p != s->npath; p = t->next[p]) {
		const uint64_t *v = pmu__results_path(s, -1, p);
		long me = (*n)++;

		fputs(me ? ",\n    " : "\n    ", f);
		if (rows) {
			fprintf(f, "[%ld, %" PRIu64 ", ", me, CALLS(v));
			pmu__put_exact(f, (double)SELF(s, v, 0) / 1e9);
			fputs(", ", f);
			pmu__put_exact(f, (double)TOTAL(s, v, 0) / 1e9);
			for (unsigned i = 0; i < s->n; i++)
				fprintf(f, ", %" PRIu64 ", %" PRIu64, SELF(s, v, 1 + i), TOTAL(s, v, 1 + i));
			fputc(']', f);
		} else {
			fputs("{\"label\": ", f);
			pmu__json_str(f, s->reg[s->path_reg[p]]);
			fputs(", \"column\": \"path\"", f);
			if (up >= 0)
				fprintf(f, ", \"parent\": %ld", up);
			fputc('}', f);
		}
		split_nodes(f, s, t, t->kid[p], me, n, rows);
	}
}

/* Caliper's json-split, as cali-query writes it: a row per node of the path column, in the nodes' order. */
void pmu__report_jsonsplit(FILE *f, const struct pmu_results *s)
{
	struct pmu__ptree t;
	long n = 0;

	if (pmu__ptree_of(s, &t) < 0) {
		pmu__err(-ENOMEM, "pmu_report: out of memory for the tree of paths");
		return;
	}
	pthread_cleanup_push(pmu__ptree_done, &t);	/* a cancel in a write */
	fputs("{\n  \"data\": [", f);
	split_nodes(f, s, &t, t.top, -1, &n, true);
	fputs("\n  ],\n  \"columns\": [\"path\", \"calls\", \"sum#time.duration\", \"inclusive#sum#time.duration\"", f);
	for (unsigned i = 0; i < s->n; i++) {
		char inc[PMU_ESC_SIZE + 8];

		snprintf(inc, sizeof(inc), "%s (inc)", s->ev[i]);
		fputs(", ", f);
		pmu__json_str(f, s->ev[i]);
		fputs(", ", f);
		pmu__json_str(f, inc);
	}
	fputs("],\n  \"column_metadata\": [{\"is_value\": false}", f);
	for (unsigned i = 0; i < 3 + 2 * s->n; i++)
		fputs(", {\"is_value\": true}", f);
	fputs("],\n  \"nodes\": [", f);
	n = 0;
	split_nodes(f, s, &t, t.top, -1, &n, false);
	fprintf(f, "\n  ],\n  \"libpmu\": \"%s\"\n}\n", pmu_version());
	pthread_cleanup_pop(1);
}

/* The icicle's nodes from p and its siblings on, each as wide as its share of the span of the one around it. */
static void icicle(FILE *f, const struct pmu_results *s, const struct pmu__ptree *t, unsigned p, int fig,
		   double up, unsigned depth)
{
	const char *unit = fig ? s->ev[fig - 1] : "ns";

	for (; p != s->npath; p = t->next[p]) {
		const uint64_t *v = pmu__results_path(s, -1, p);

		if (!(t->span[p] > 0))
			continue;
		fprintf(f, "<div class=\"fl\" style=\"width: %.4f%%\" title=\"", 100.0 * t->span[p] / up);
		pmu__html_str(f, s->reg[s->path_reg[p]]);
		fprintf(f, ": %" PRIu64 " calls, total %" PRIu64 " ", CALLS(v), TOTAL(s, v, fig));
		pmu__html_str(f, unit);
		fprintf(f, ", self %" PRIu64 "\"><div class=\"fn\" style=\"background: hsl(%u, 70%%, 72%%)\">",
			SELF(s, v, fig), 30 + 12 * (depth % 5));
		pmu__html_str(f, s->reg[s->path_reg[p]]);
		fputs("</div><div class=\"fk\">", f);
		icicle(f, s, t, t->kid[p], fig, t->span[p], depth + 1);
		fputs("</div></div>", f);
	}
}

static void icicle_section(FILE *f, const struct pmu_results *s, struct pmu__ptree *t)
{
	int fig = pmu__tree_fig(s, "folded");
	double top = 0;

	if (!(t->span = calloc(s->npath + 1, sizeof(*t->span))))
		return;
	/* A path's span: its total, or its paths' when it is still open; a path comes after the one around it. */
	for (unsigned p = s->npath; p-- > 0;) {
		double v = (double)TOTAL(s, pmu__results_path(s, -1, p), fig);

		t->span[p] = v > t->span[p] ? v : t->span[p];
		if (s->path_up[p] >= 0)
			t->span[s->path_up[p]] += t->span[p];
		else
			top += t->span[p];
	}
	if (!(top > 0))
		return;
	fputs("<h2>Call paths</h2>\n<p class=\"note\">Each region under the one it ran in, as wide as its total ", f);
	pmu__html_str(f, fig ? s->ev[fig - 1] : "ns");
	fputs(" (all threads); hover for calls, total and self.</p>\n<div class=\"flame\">", f);
	icicle(f, s, t, t->top, fig, top, 0);
	fputs("</div>\n", f);
}

void pmu__paths_html(FILE *f, const struct pmu_results *s)
{
	struct pmu__ptree t;

	if (pmu__ptree_of(s, &t) < 0)	/* no icicle without its memory */
		return;
	pthread_cleanup_push(pmu__ptree_done, &t);	/* a cancel in a write */
	icicle_section(f, s, &t);
	pthread_cleanup_pop(1);
}
