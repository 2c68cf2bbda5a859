/* SPDX-License-Identifier: MIT */
/* A json report of pmu_report()'s read back and checked against its schema (report_read.c), for pmu report merge. */
#ifndef PMU_REPORT_READ_H
#define PMU_REPORT_READ_H

#include "regions/hist.h"
#include "parse/json.h"

/* A region of a json report read back: its totals over threads. */
struct pmu__rep_region {
	const char *name;
	unsigned line;
	uint64_t calls, ns;
	uint64_t *counts;	/* per event of the report */
	bool range;		/* per call ns_min, ns_max and min, max of each event, all given */
	double ns_min, ns_max;
	double *min, *max;	/* per event, when range */
	struct pmu__rep_dist *dist;	/* or NULL: none kept */
};

/*
 * A region's distribution read back (its "dist": PMU_HISTOGRAMS): the
 * events whose sums it keeps, and histograms of ns (with the sums per
 * bucket of ns and each of them) and of each of them.
 */
struct pmu__rep_dist {
	unsigned nproc;		/* processes it is of: 1, or a merged report's "processes" */
	unsigned n;
	const char **ev;	/* into the document */
	struct pmu__shist *h;	/* 1 + n */
};

/* A json report (pmu_report's) read back and checked; strings point into doc. */
struct pmu__rep {
	const char *path;
	struct pmu__json *doc;
	const char *library, *hostname, *command, *start;
	const char *emulated;	/* "emulated": QEMU's description, or NULL */
	unsigned major, minor, patch;
	long pid;
	uint64_t start_ns;
	int comp;		/* "compensated": 1 an object, 0 null, -1 absent (before 0.6) */
	unsigned nev, nreg;
	const char **ev;
	struct pmu__rep_region *reg;
};

/*
 * Reads the report at path and checks it against what pmu_report writes:
 * every known field present with its type, counts that are non-negative
 * integers with one per event, unique names, threads summing to their
 * region, this library's major version. Unknown fields are left alone, so
 * that later versions' additions read. 0, or -errno with a message
 * "PATH:LINE: region \"x\": \"calls\" is not a non-negative integer".
 */
int pmu__rep_read(const char *path, struct pmu__rep *r);
/* The same from a buffer (name for messages). */
int pmu__rep_parse(const char *name, const char *buf, size_t len, struct pmu__rep *r);
void pmu__rep_free(struct pmu__rep *r);
/* The same from a tree read already (doc is r's now, freed by pmu__rep_free or on failure). */
int pmu__rep_check(const char *path, struct pmu__json *doc, struct pmu__rep *r);

/* ---- the schema's pieces, for the merged reports' schema (merge_in.c) ---- */

#define PMU_REP_EVENTS 1024	/* events a report may list: far more than a set opens */

/* What a message names: "region \"x\": thread 12: ", or "" at the top. */
struct pmu__rep_ctx {
	const char *path;
	char at[160];
};

#define BAD(c, v, ...) pmu__rep_bad(c, (v)->line, (char[200]){ 0 }, __VA_ARGS__)

extern const char *const pmu__rep_type_names[];
/* A message "PATH:LINE: region \"x\": what": -EINVAL (buf: 200 bytes). */
int pmu__rep_bad(const struct pmu__rep_ctx *c, unsigned line, char *buf, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* What messages name next: region (NULL: the top), and thread tid of it (NULL: none). */
void pmu__rep_ctx_set(struct pmu__rep_ctx *c, const char *region, const struct pmu__json *tid);
/* obj's member key: of type t; a non-negative integer; a name (not empty, no NUL). 0 or -EINVAL. */
int pmu__rep_need(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char *key, enum pmu__json_type t,
	     const struct pmu__json **out);
int pmu__rep_need_u64(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char *key, uint64_t *out);
/* v, a string of decimal digits (an exact integer past 2^64), into *out: 0, -EINVAL not one, -ERANGE too big. */
int pmu__rep_u128(const struct pmu__json *v, unsigned __int128 *out);
int pmu__rep_need_name(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char *key, const char **out);
/* An optional non-negative number (of member ev of object key, when ev): 0 absent or null, 1 read, -EINVAL. */
int pmu__rep_opt_num(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char *key, const char *ev, double *out);
/*
 * Region object o's "dist" into *out (NULL when it has none): its scheme
 * this library's, buckets in order and in range, every figure's histogram
 * of as many calls. 0, or -EINVAL / -ENOMEM with a message.
 */
int pmu__rep_dist(const struct pmu__rep_ctx *c, const struct pmu__json *o, struct pmu__rep_dist **out);
void pmu__rep_dist_free(struct pmu__rep_dist *d);
/* "library": "libpmu M.m.p" of this major version. 0 or -EINVAL. */
int pmu__rep_library(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char **lib, unsigned *major,
		unsigned *minor, unsigned *patch);

#endif
