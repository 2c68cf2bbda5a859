/* SPDX-License-Identifier: MIT */
/* The region report's writers beyond pmu.h: the HTML page (report_html.c), Prometheus text (report_prom.c). */
#ifndef PMU_REPORT_H
#define PMU_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/internal.h"

/* report_html.c: the snapshot as one HTML page. */
struct pmu_results;
void pmu__report_html(FILE *f, const struct pmu_results *s);
/* report_prom.c: the snapshot in the Prometheus text format, or OpenMetrics (om). 0 or -ENOMEM. */
int pmu__report_prom(FILE *f, const struct pmu_results *s, bool om);

/*
 * report_dist.c: the regions' distributions (histograms), where the snapshot
 * has any: the table's section, csv's row cells (the caller asks
 * pmu__dist_any() once; the columns are view.h's), json's "dist" and "tail"
 * members of an entry.
 */
#define PMU_DIST_NQ 4
extern const double pmu__dist_q[PMU_DIST_NQ];		/* the quantiles every report gives */
extern const char *const pmu__dist_qname[PMU_DIST_NQ];	/* and their names: the one list */
struct pmu__rent;
struct pmu__dist_tail {
	uint64_t calls, from;
	double *tail, *rest;	/* per event */
};
bool pmu__dist_any(const struct pmu_results *s);
/* Entry d's figure i summed over the calls in its histograms. */
uint64_t pmu__dist_sum(const struct pmu__rent *d, unsigned i);
/* The tail of entry d into t (its calls, from, per event the tail's and the others' means): false when d has no histograms. */
bool pmu__dist_tail(const struct pmu__rent *d, struct pmu__dist_tail *t);
void pmu__dist_table(FILE *f, const struct pmu_results *s);
void pmu__dist_csv_row(FILE *f, const struct pmu_results *s, const struct pmu__rent *d);
void pmu__dist_json(FILE *f, const struct pmu_results *s, const struct pmu__rent *d);

#endif
