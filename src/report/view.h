/* SPDX-License-Identifier: MIT */
/*
 * A report as rows, the one input of the writers a process's report and a
 * merged one share (prom.c: Prometheus text and OpenMetrics). A process's
 * snapshot gives a row per region and thread (the total first); a merge, a
 * row per region, its total over the processes.
 */
#ifndef PMU_REPORT_VIEW_H
#define PMU_REPORT_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "regions/hist.h"

struct pmu__vrow {
	const char *region;
	long tid;			/* the thread's ID; -1: the total */
	const char *tname;		/* the thread's name (NULL: the total) */
	uint64_t calls, ns;
	const uint64_t *ev;		/* per event of the view */
	/* PMU_HISTOGRAMS: dist[0] of ns (with the sums of ns and dist's events), dist[k] of an event; or NULL */
	const struct pmu__shist *dist;
	const unsigned *dk;		/* per event of the view: its k in dist, 0 none (NULL: k = 1 + the event) */
	const uint64_t *min, *max;	/* per figure (ns, then the events): the quantiles' bounds, or NULL */
};

struct pmu__view {
	const char *library, *emulated;	/* emulated: what counted instructions, or NULL */
	long pid;			/* the process's; -1: a merge of nproc processes */
	unsigned nproc;
	unsigned nev;
	const char *const *ev;
	bool refusals;			/* it knows the threads refused their counters, and their calls: */
	unsigned refused_threads;
	uint64_t refused_calls;
	unsigned nrow;
	const struct pmu__vrow *row;
};

/* Row r's histogram of figure i (0 ns, 1 + e event e of the view), or NULL when it has none. */
const struct pmu__shist *pmu__vrow_hist(const struct pmu__vrow *r, unsigned i);
/* Its q-quantile, within the row's bounds: NAN without a histogram. */
double pmu__vrow_quantile(const struct pmu__vrow *r, unsigned i, double q);
/* Its tail (the slowest 1%% of calls, from *from ns): each figure's mean per call there, and over the
 * others, into tail[0..nev] and rest[0..nev] (NAN: not summed, or no such call). The tail's calls, 0: none. */
uint64_t pmu__vrow_tail(const struct pmu__vrow *r, unsigned nev, uint64_t *from, double *tail, double *rest);
/* The distribution's csv columns (evcol: the view's events as headings), and a row's cells (empty without). */
void pmu__dist_csv_head(FILE *f, unsigned nev, const char *const *evcol);
void pmu__dist_csv_cells(FILE *f, const struct pmu__vrow *r, unsigned nev);
/* v as Prometheus text 0.0.4 (om false) or OpenMetrics 1.0 text (om true). */
void pmu__prom_write(FILE *f, const struct pmu__view *v, bool om);

#endif
