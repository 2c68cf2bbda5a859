/* SPDX-License-Identifier: MIT */
/* A snapshot of every region's figures (results.c): the public pmu_results_*() and the reports' source. */
#ifndef PMU_RESULTS_H
#define PMU_RESULTS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "regions/hist.h"
#include "metrics/metric_use.h"
#include "regions/thread.h"

/* One region in one thread, or in total: figure 0 is ns, 1..n the events. */
struct pmu__rent {
	uint64_t calls, spans, clamped;
	uint64_t *sum, *min, *max;
	double *sd, *pct;	/* pct[0] unused */
	struct pmu__shist *dist;	/* histograms of ns and each event (n + 1), or NULL: none kept */
};

struct pmu__rthr {
	pid_t tid;
	int exited;
	bool comp;		/* its regions compensated (pmu_region_compensate()) */
	char name[16];
};

struct pmu_results {
	unsigned n, nreg, nthr;
	char **ev;			/* event names */
	char **reg;			/* region names */
	int *parent;			/* per region: the region around its first call (the first thread's), -1: none */
	struct pmu__rthr *thr;
	struct timespec start;		/* when the per-thread layer was set up */
	struct pmu__rent *ent;		/* (nthr + 1) * nreg: the totals, then each thread's */
	unsigned ncomp;			/* threads compensated */
	struct pmu__refusals refused;	/* threads refused their set, for want of descriptors or memory */
	double *cost;			/* 2 * (n + 1): their mean cost of a pair by name (ns, then events), then by handle */
	uint64_t *u;			/* the entries' integers */
	double *x;			/* and floating-point figures */
	char *named;			/* the metrics pmu_thread_init() named, or NULL */
	char *skipped;			/* events left out as they did not open: "name\treason\n" lines, or NULL */
	struct pmu__evunit *units;	/* per event: its unit, and whether it counts socket-wide */
	struct pmu__mplan mp;		/* the metrics given */
	const char **mkeys;		/* their names, NULL-ended */
	double *mv;			/* per entry, each metric's value (NaN: undefined) */
	/*
	 * Call paths: each a region (path_reg) inside another path (path_up,
	 * -1: at the top), a path's up before it; per thread and in total
	 * (pmu__results_path()) calls, then total and self for ns and each event.
	 */
	unsigned npath;
	int *path_up;
	unsigned *path_reg;
	uint64_t *pv;
	struct pmu__shist **pdist;	/* per path, with histograms kept: n + 1 of all threads (as an entry's), or NULL */
	/* a merge's paths (report/merge_paths.c): per path and event its index in pdist (0: none), the processes */
	unsigned *pdk, *phproc;
};

/* Path p's depth: 0 at the top. */
static inline unsigned pmu__results_depth(const struct pmu_results *r, unsigned p)
{
	unsigned d = 0;

	for (int up = r->path_up[p]; up >= 0; up = r->path_up[up])
		d++;
	return d;
}

/* Path p in thread k (-1: the total): calls, total[n + 1], self[n + 1]. */
static inline const uint64_t *pmu__results_path(const struct pmu_results *r, int k, unsigned p)
{
	return &r->pv[((size_t)(k + 1) * r->npath + p) * (2 * (r->n + 1) + 1)];
}

/* Metric i of region id in thread k (-1: the total): NaN when undefined. */
static inline double pmu__results_metric(const struct pmu_results *r, int k, unsigned id, unsigned i)
{
	return r->mv[((size_t)(k + 1) * r->nreg + id) * r->mp.n + i];
}

/* Region id in thread k (-1: the total). */
static inline const struct pmu__rent *pmu__results_ent(const struct pmu_results *r, int k, unsigned id)
{
	return &r->ent[(size_t)(k + 1) * r->nreg + id];
}

/* Entry e's figure i at quantile q: its bucket's midpoint, within the figure's exact min and max; NAN: no histograms. */
static inline double pmu__dist_quantile(const struct pmu__rent *e, unsigned i, double q)
{
	double v = e->dist ? pmu__shist_quantile(&e->dist[i], q) : NAN;

	return v > (double)e->max[i] ? (double)e->max[i] : v < (double)e->min[i] ? (double)e->min[i] : v;
}

/* Takes a snapshot into *r, which the caller frees with pmu__results_clear(). 0 or -errno (message set). */
int pmu__results_fill(struct pmu_results *r, const char *who);
void pmu__results_clear(struct pmu_results *r);

#endif
