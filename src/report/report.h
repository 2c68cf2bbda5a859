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
/* report_prom.c: the snapshot in the Prometheus text format. */
void pmu__report_prom(FILE *f, const struct pmu_results *s);

#endif
