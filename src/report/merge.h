/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's figures (merge.c): reports read one at a time into
 * per-region sums and spreads across processes, so that memory follows the
 * largest input and the merged figures, never the number of inputs. A
 * merged report (its json) is an input too: merging merged reports gives
 * the figures of merging all their processes at once.
 */
#ifndef PMU_REPORT_MERGE_H
#define PMU_REPORT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/internal.h"
#include "base/escape.h"
#include "report/html.h"
#include "parse/metric_defs.h"
#include "metrics/metric_use.h"
#include "report/report.h"
#include "report/report_read.h"
#include "report/view.h"

/* The version of the merged report's json ("merged"), that merge_in.c reads back. */
#define MERGE_FORMAT 1

/* One figure across the processes that gave it; integers exact (counts may pass 2^53). */
struct spread {
	uint64_t tot, min, max;
	unsigned imin, imax;	/* processes of the min and the max (the first, on a tie) */
	unsigned n;		/* processes that gave it */
	unsigned __int128 sq;	/* the sum of their squares: the spread between processes, exact in any merge tree */
	bool nosq;		/* an input (a merge of an older pmu) did not give it */
};

/*
 * ns per call across processes. The mean's sum is of each process's ns per
 * call in 1/1024 ns, truncated, as an exact integer: any tree of merges adds
 * the same terms to the same total, so a merge of merges gives the mean one
 * merge of every process gives (a double sum would depend on the order).
 */
#define NPC_SHIFT 10
struct npc {
	double min, max;
	unsigned imin, imax;
	unsigned __int128 sum;
};

/* merge_dist.c: the histograms of a region or a path, of the processes that kept them. */
struct mdist {
	unsigned hproc, hne;	/* those processes; the union's events hist has room for */
	struct pmu__shist *hist;	/* 1 + hne: ns (summing ns, then each union event), then each union event */
	unsigned *hcnt;		/* per union event: the processes whose histograms had it */
};

struct mregion {
	char *name;
	unsigned nproc;
	unsigned seen;		/* 1 + the last input that had it: a name twice in one input is refused */
	struct spread calls, ns;
	struct npc npc;
	unsigned ne;		/* events allocated below (the union of events grows) */
	struct spread *ev;	/* per event of the union */
	bool range;		/* every process gave per call ranges */
	double ns_min, ns_max, *min, *max;	/* per call: the least and most of any process */
	double *pns;		/* with keep_procs: each process's ns in it, by process index (NAN: none) */
	unsigned npns;
	struct mdist dist;
};

/* A call path of the merge (merge_paths.c): its region inside path up (-1: the top), summed over the processes. */
struct mpath {
	int up;
	unsigned ne;		/* union events fig has room for */
	char *name;
	uint64_t calls;
	uint64_t *fig;		/* ns, self ns, then per union event its total and self */
	struct mdist dist;
};

struct proc {
	char *file, *library, *hostname, *command, *start;
	char *emulated;		/* its instructions counted by emulation: the description; or NULL */
	long pid;
	uint64_t start_ns;
	unsigned in;		/* the input it came in */
	int comp;		/* its regions compensated: 1, 0, -1 not said */
};

struct merge {
	unsigned nin, incap;
	char **in;		/* the inputs' paths */
	unsigned nproc, pcap;
	struct proc *proc;
	unsigned *pslot;	/* processes by identity: 1 + index, 0 free */
	size_t pmask;
	unsigned nev, evcap;
	char **ev;		/* every event of any input, in the order first seen */
	unsigned char **has;	/* per event: a bit per input that has it */
	unsigned nreg, rcap;
	struct mregion *reg;
	unsigned *slot;		/* regions by name: 1 + index, 0 free */
	size_t mask;
	unsigned ncommon, *common;	/* after pmu__merge_done(): the events every input has */
	unsigned nmkeys;
	char **mkeys;		/* the built-in metrics the inputs' regions gave, by their keys */
	struct pmu__mplan mp;	/* after pmu__merge_done(): those and every other the common events give */
	unsigned npath, paths_in;	/* paths_in: the inputs that gave paths (libpmu 0.8 on) */
	struct mpath *path;
	unsigned *pathslot;	/* paths by up and name: 1 + index, 0 free */
	size_t pathmask;
	bool keep_procs;	/* keep each process's ns per region (the HTML heatmap): memory grows with them */
	bool own;		/* pmu__merge_new() made it: pmu__merge_free() frees it too */
};

/* Reads the report at path, a process's or a merged one, into m (merge_in.c). 0, or -errno with a message. */
int pmu__merge_add(struct merge *m, const char *path);
/* pmu__merge_add_buf(), pmu__merge_done() (a note on stderr for each event left out), pmu__merge_free():
 * plugin.h. */

/* For merge_in.c: input path added to the list: its index, or -ENOMEM with a message. */
int pmu__merge_input(struct merge *m, const char *path);
/* Process p (strings copied) of input in: its index, or -errno with a message
 * (-EINVAL: m has it already). */
int pmu__merge_proc(struct merge *m, unsigned in, const struct proc *p);
/* The region named name, made when new, with every event of the union: NULL when out of memory. */
struct mregion *pmu__merge_region(struct merge *m, const char *name);
/* Event name's index in the union, added when new, and marked as had by input in. -ENOMEM or the index. */
int pmu__merge_event(struct merge *m, const char *name, unsigned in);
/* "out of memory": -ENOMEM. */
int pmu__merge_nomem(void);
/* x into s: sums, and the least and most (the earlier process on a tie). -ERANGE when a sum overflows. */
int pmu__spread_merge(struct spread *s, const struct spread *x);
/* x into s, which n processes gave so far. -ERANGE when the sum overflows. */
int pmu__npc_merge(struct npc *s, unsigned n, const struct npc *x);
/* Per call ranges of x's events (per union event in ev) into region r, which n processes gave so far. */
void pmu__range_merge(struct mregion *r, unsigned n, bool range, double ns_min, double ns_max, const double *min,
		 const double *max, const int *ev, unsigned nev);

/* A region's or path's histograms d (a process's, or a merged report's) into h (merge_dist.c). 0 or -ENOMEM. */
int pmu__merge_dist(struct merge *m, struct mdist *h, const struct pmu__rep_dist *d, unsigned in);
/* Object o's "dist" (a merged report's region or path, read as report_read.c reads one), when it has one, into h. */
int pmu__merge_dist_json(struct merge *m, const struct pmu__rep_ctx *c, const struct pmu__json *o, struct mdist *h,
			 unsigned in);

/* Frees h's histograms (inline: merge.c's pmu__merge_free() calls merge_dist.c nothing, which calls merge.c). */
static inline void pmu__merge_dist_free(struct mdist *h)
{
	for (unsigned i = 0; h->hist && i <= h->hne; i++)
		pmu__shist_free(&h->hist[i]);
	free(h->hist);
	free(h->hcnt);
}
/* The hash of string s from h, and a table of slots doubled (at most half full): merge.c's, for merge_paths.c. */
size_t pmu__merge_hash(size_t h, const char *s);
int pmu__merge_rehash(unsigned **slot, size_t *mask, unsigned n, size_t (*key)(const struct merge *, unsigned),
		      const struct merge *m);
/*
 * merge_paths.c: doc's "paths" (a report's or a merged one's) added to m's,
 * input in, path its name for messages; and after pmu__merge_done(), m's
 * paths as a snapshot for report_paths.c's writers into *out (NULL when
 * some input gave none), freed with pmu__merge_paths_unsnap(). 0 or -errno.
 */
struct pmu_results;
int pmu__merge_paths_add(struct merge *m, const char *path, const struct pmu__json *doc, unsigned in);
int pmu__merge_paths_snap(const struct merge *m, struct pmu_results **out);
void pmu__merge_paths_unsnap(struct pmu_results *s);

/* Frees m's paths (inline, as pmu__merge_dist_free(): merge.c calls merge_paths.c nothing). */
static inline void pmu__merge_paths_free(struct merge *m)
{
	for (unsigned p = 0; p < m->npath; p++) {
		free(m->path[p].name);
		free(m->path[p].fig);
		pmu__merge_dist_free(&m->path[p].dist);
	}
	free(m->path);
	free(m->pathslot);
}

/* merge_view.c: m as a view (view.h), a row per region, its totals over the processes (ev: room for its
 * common events); region r as one (c, k: room for them); the processes emulated, and the first's words. */
void pmu__merge_view(const struct merge *m, struct pmu__view *v, const char **ev);
struct pmu__vrow pmu__merge_row(const struct merge *m, const struct mregion *r, uint64_t *c, unsigned *k);
unsigned pmu__merge_emulated(const struct merge *m, const char **desc);

/* Output (merge_out.c), with numbers as C writes them; paths: m's (pmu__merge_paths_snap()), or NULL. */
void pmu__merge_table(FILE *f, const struct merge *m, const struct pmu_results *paths);
void pmu__merge_csv(FILE *f, const struct merge *m, const struct pmu_results *paths);
void pmu__merge_json(FILE *f, const struct merge *m, const struct pmu_results *paths);
/* The merged report as one HTML page (merge_html.c): regions, their spread, a heatmap with keep_procs. */
void pmu__merge_html(FILE *f, const struct merge *m, const struct pmu_results *paths);
/* format's index among a merged report's formats, or -EINVAL with a message. pmu__merge_write() and
 * pmu__merge_write_path() (plugin.h) write it, in the C locale. */
int pmu__merge_format(const char *format);
/* Whether union event e's histogram and sums cover every process with histograms in r. */
bool pmu__merge_dist_has(const struct mdist *h, unsigned e);
/* Metric i of region r, from the merged sums of the common events and ns: false when undefined. */
bool pmu__merge_metric(const struct merge *m, const struct mregion *r, unsigned i, double *v);

#endif
