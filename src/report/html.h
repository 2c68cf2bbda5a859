/* SPDX-License-Identifier: MIT */
/*
 * The pieces of an HTML report (html.c), for the library's region report
 * and pmu report merge's: one file that stands alone (inline CSS and SVG,
 * no script, nothing fetched), every name escaped with pmu__html_str().
 */
#ifndef PMU_HTML_H
#define PMU_HTML_H

#include <stdio.h>

#include "base/internal.h"

/* The page up to <body>: title (escaped), the style. */
void pmu__html_head(FILE *f, const char *title);
void pmu__html_tail(FILE *f);

/* A table cell of x: "-" when not finite; digits, rounded above 100, an exponent only from 1e15 on. */
void pmu__html_num(FILE *f, double x);

/* Bars of v[0..n) (NAN: left out) labelled, scaled to the largest, the value after each in unit. */
void pmu__html_bars(FILE *f, unsigned n, const char *const *labels, const double *v, const char *unit);

/*
 * Histogram h (regions/hist.h) as bars over its buckets, whose order is
 * log-linear in the value: heights the square root of the calls (a tail of
 * a few calls stays visible), p50 and p99 marked, each bar's range and
 * calls in its tooltip, values in unit (a word of the caller's own, not
 * escaped).
 */
struct pmu__shist;
void pmu__html_hist(FILE *f, const struct pmu__shist *h, const char *unit);

/*
 * A heatmap of rows (regions) by columns (threads, processes: what),
 * v[row * ncol + col] (NAN: absent), each row scaled to its largest, with
 * the column of its least and most value named beside it.
 */
void pmu__html_heatmap(FILE *f, const char *what, unsigned nrow, const char *const *rows, unsigned ncol,
				const char *const *cols, const double *v);

#endif
