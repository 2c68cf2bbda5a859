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

/* report_paths.c: the call paths as a table section (when any path is nested) and as json's "paths". */
void pmu__paths_table(FILE *f, const struct pmu_results *s);
void pmu__paths_json(FILE *f, const struct pmu_results *s);

/* report_dist.c: the quantiles every report gives (view.h has the writers). */
#define PMU_DIST_NQ 4
extern const double pmu__dist_q[PMU_DIST_NQ];		/* the quantiles every report gives */
extern const char *const pmu__dist_qname[PMU_DIST_NQ];	/* and their names: the one list */

#endif
