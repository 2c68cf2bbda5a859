/* SPDX-License-Identifier: MIT */
/* A process's region report beyond pmu.h: its HTML page (report_html.c), its view (report_view.c, view.h). */
#ifndef PMU_REPORT_H
#define PMU_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/internal.h"

/* report_html.c: the snapshot as one HTML page. */
struct pmu_results;
void pmu__report_html(FILE *f, const struct pmu_results *s);
/* report_view.c: the snapshot as a view (view.h), and one of its rows (k -1: the total). */
struct pmu__view;
struct pmu__vrow;
void pmu__snap_view(const struct pmu_results *s, struct pmu__view *v);
struct pmu__vrow pmu__snap_row(const struct pmu_results *s, int k, unsigned id);
/* The snapshot in the Prometheus text format, or OpenMetrics (om). */
void pmu__report_prom(FILE *f, const struct pmu_results *s, bool om);

/*
 * report_paths.c: the call paths as a table section (when any path is
 * nested) and as json's "paths"; s may hold paths alone (a merge's).
 */
void pmu__paths_table(FILE *f, const struct pmu_results *s);
void pmu__paths_json(FILE *f, const struct pmu_results *s);
/* This process's -finstrument-functions functions the budget cut (functions.c), when there are. */
void pmu__cuts_table(FILE *f);
void pmu__cuts_json(FILE *f);
/* Whether a path is nested (or past a thread's cap): else the paths are the regions. */
bool pmu__paths_nested(const struct pmu_results *s);
/*
 * csv: the paths' columns (path, self ns, each event's self), and their
 * rows: the region's name, mid (the cells up to calls), calls, ns, ns per
 * call and the events' totals, pad empty cells, the distribution's cells
 * when dist (pmu__dist_csv_head()'s), the path and its selves.
 */
void pmu__paths_csv_head(FILE *f, unsigned n, const char *const *evcol);
void pmu__paths_csv(FILE *f, const struct pmu_results *s, const char *mid, unsigned pad, bool dist);
/* The paths as a tree: each one's first child and next sibling (npath: none), in the order first called. */
struct pmu__ptree {
	unsigned *kid, *next, top;
	double *span;	/* the icicle's widths (report_tree.c), or NULL */
};
int pmu__ptree_of(const struct pmu_results *s, struct pmu__ptree *t);	/* 0, or -1 out of memory */
void pmu__ptree_free(struct pmu__ptree *t);
void pmu__ptree_done(void *t);	/* pmu__ptree_free(), a cancel cleanup */

/* report_tree.c: the paths for the tools that analyse trees (format "folded[:FIGURE]", "hatchet", "json-split"). */
int pmu__tree_fig(const struct pmu_results *s, const char *format);	/* the figure: 0 ns, 1 + event; -EINVAL */
void pmu__report_folded(FILE *f, const struct pmu_results *s, int fig);
void pmu__report_hatchet(FILE *f, const struct pmu_results *s);
void pmu__report_jsonsplit(FILE *f, const struct pmu_results *s);
/* The paths as Prometheus families with a path label (names from the top joined by ';'), when one is nested. */
void pmu__paths_prom(FILE *f, const struct pmu_results *s, bool om);
void pmu__paths_html(FILE *f, const struct pmu_results *s);	/* the icicle, when the paths have figures */
/*
 * Path p's names from the top into b (PMU_PATH_BUF bytes, regions/region.h),
 * joined by ';', a ';' in a name as \x3b; each escaped as text first when
 * esc. Its end.
 */
char *pmu__path_str(const struct pmu_results *s, unsigned p, char *b, bool esc);
void pmu__free_buf(void *p);	/* free(*(char **)p), a cancel cleanup */

/* report_dist.c: the quantiles every report gives (view.h has the writers). */
#define PMU_DIST_NQ 4
extern const double pmu__dist_q[PMU_DIST_NQ];		/* the quantiles every report gives */
extern const char *const pmu__dist_qname[PMU_DIST_NQ];	/* and their names: the one list */

#endif
