/* SPDX-License-Identifier: MIT */
/*
 * A report as rows, the one input of the writers a process's report and a
 * merged one share: Prometheus text and OpenMetrics (prom.c), and the
 * distributions in every format (report_dist.c). A process's snapshot gives
 * a row per region and thread, the region's total first (report_view.c); a
 * merge, a row per region, its total over the processes (merge_out.c).
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
	uint64_t calls, ns;		/* calls 0: no row here (writers skip it) */
	const uint64_t *ev;		/* per event of the view */
	/* PMU_HISTOGRAMS: dist[0] of ns (with the sums of ns and dist's events), dist[k] of an event; or NULL */
	const struct pmu__shist *dist;
	const unsigned *dk;		/* per event of the view: its k in dist, 0 none (NULL: k = 1 + the event) */
	const uint64_t *min, *max;	/* per figure (ns, then the events): the quantiles' bounds, or NULL */
	unsigned hproc;			/* a merge's: the processes whose histograms dist adds (0: a process's) */
};

/* What a row may point into: room for the view's nev counts and indices, the caller's. */
struct pmu__vbuf {
	uint64_t *ev;
	unsigned *dk;
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
	/* Row i into *r, pointing into buf or the source: rows of a region in a row, its total first. */
	void (*row)(const struct pmu__view *v, unsigned i, struct pmu__vrow *r, struct pmu__vbuf *buf);
	const void *src;
	char lib[32];			/* library's text, when the producer wrote it here */
};

/* Row r's histogram of figure i (0 ns, 1 + e event e of the view), or NULL when it has none. */
const struct pmu__shist *pmu__vrow_hist(const struct pmu__vrow *r, unsigned i);
/* Its q-quantile, within the row's bounds: NAN without a histogram. */
double pmu__vrow_quantile(const struct pmu__vrow *r, unsigned i, double q);
/* Its tail (the slowest 1% of calls, from *from ns): each figure's mean per call there, and over the
 * others, into tail[0..nev] and rest[0..nev] (NAN: not summed, or no such call). The tail's calls, 0: none. */
uint64_t pmu__vrow_tail(const struct pmu__vrow *r, unsigned nev, uint64_t *from, double *tail, double *rest);
/* Whether a row holds histograms with calls in them. */
bool pmu__vrow_has_dist(const struct pmu__vrow *r);

/* Rows of v, one at a time: for (VROW_EACH(v, i, r, buf)) with r, buf declared by VROW_DECL(v). */
#define VROW_DECL(v, r, buf) \
	uint64_t r##_ev[(v)->nev + 1]; \
	unsigned r##_dk[(v)->nev + 1]; \
	struct pmu__vbuf buf = { r##_ev, r##_dk }; \
	struct pmu__vrow r

/*
 * prom.c: v as Prometheus text 0.0.4 (om false) or OpenMetrics 1.0 text (om true), then
 * pmu__prom_end() (OpenMetrics' "# EOF"), with other families between; a family's metadata,
 * its name as each format has it (a Prometheus counter's carries "_total").
 */
void pmu__prom_write(FILE *f, const struct pmu__view *v, bool om);
void pmu__prom_end(FILE *f, bool om);
void pmu__prom_head(FILE *f, bool om, const char *name, const char *type, const char *unit, const char *help);
/* A sample's end: "} " and its value, seconds from whole ns (exact), or a count. */
void pmu__prom_value(FILE *f, uint64_t x, bool ns);

/*
 * report_dist.c: the distributions, from each total row with histograms:
 * the table's section, csv's columns (evcol: the events' headings) and
 * cells, json's "dist" and "tail" members of a row, the HTML page's section.
 */
bool pmu__view_dist_any(const struct pmu__view *v);
void pmu__dist_table(FILE *f, const struct pmu__view *v);
void pmu__dist_csv_head(FILE *f, unsigned nev, const char *const *evcol);
void pmu__dist_csv_cells(FILE *f, const struct pmu__vrow *r, unsigned nev);
void pmu__dist_json(FILE *f, const struct pmu__view *v, const struct pmu__vrow *r);
void pmu__dist_html(FILE *f, const struct pmu__view *v);

#endif
