/* SPDX-License-Identifier: MIT */
/* What region.c (figures, begin and end) and region_names.c (the names) share. */
#ifndef PMU_REGION_INT_H
#define PMU_REGION_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "regions/region.h"
#include "regions/region_hist.h"

/* A word of a name, read through a char pointer. */
typedef uint64_t __attribute__((may_alias)) pmu__word;

/*
 * An interned region name: freed only by pmu_thread_fini(), when no thread
 * uses the layer. The name is 8-aligned and padded with zeros to its words,
 * so that a name given at an 8-aligned address (string literals usually
 * are) is compared a word at a time.
 */
struct pmu__rname {
	unsigned id;
	unsigned words;		/* of the name with its NUL */
	uint32_t hash;		/* region_names.c's */
	uint64_t last;		/* the bytes of the last word that belong to the name, NUL included */
	pmu__word w[];		/* the name */
};

static inline const char *rname(const struct pmu__rname *r)
{
	return (const char *)r->w;
}

/* name's slot in a thread's cache by pointer. */
static inline unsigned cache_slot(const char *name)
{
	return (unsigned)((uintptr_t)name >> 3 ^ (uintptr_t)name >> 11) & (PMU_NAME_CACHE - 1);
}

/* Region id's figures (its name r), zero and with no call yet, for n events, with histograms when hist; NULL: no memory. */
static inline struct pmu__acc *pmu__region_acc_alloc(const struct pmu__rname *r, unsigned id, unsigned n, bool hist)
{
	struct pmu__acc *a = calloc(1, sizeof(*a) + (n + 1) * sizeof(a->f[0]));

	if (a) {
		a->r = r;
		a->id = id;
	}
	for (unsigned i = 0; a && i <= n; i++)
		a->f[i].min = UINT64_MAX;
	if (a && hist && !(a->h = pmu__hblk_new(n))) {
		free(a);
		return NULL;
	}
	return a;
}

static inline void pmu__region_acc_free(struct pmu__acc *a)
{
	if (a)
		pmu__hblk_free(a->h);
	free(a);
}

/* One figure's calls (s) added into another's (d): sums, extremes, the 128-bit sum of squares with its carry, times. */
static inline void pmu__fig_fold(struct pmu__fig *d, const struct pmu__fig *s)
{
	d->sum += s->sum;
	d->min = s->min < d->min ? s->min : d->min;
	d->max = s->max > d->max ? s->max : d->max;
	d->sq[1] += s->sq[1] + (d->sq[0] + s->sq[0] < d->sq[0]);
	d->sq[0] += s->sq[0];
	d->en += s->en;
	d->run += s->run;
}

/* region_nodes.c: t's call path nodes (struct pmu__acc), the owner's but for pmu__nodes_free(). */
/* What a thread's memo (acc) holds for an id with no node yet: a node under no frame's node. */
extern struct pmu__acc pmu__node_none __attribute__((visibility("hidden")));
/* The node of region id under up, or NULL when none was made. */
struct pmu__acc *pmu__nodes_find(const struct pmu__region_thr *t, const struct pmu__acc *up, unsigned id);
/* A new node of region id under up, with histograms when hist, published for the reports; NULL: no memory. */
struct pmu__acc *pmu__nodes_add(struct pmu__region_thr *t, struct pmu__acc *up, unsigned id, bool hist);
/*
 * Past t's cap (t->nodes >= pmu__paths_max(), which stays so: nodes are
 * never freed before the record): "(other paths)"' node under up (up itself
 * when it is one), made when new; NULL: no memory (message set, naming name).
 */
struct pmu__acc *pmu__nodes_other(struct pmu__region_thr *t, struct pmu__acc *up, const char *name);
/* A record's root node, for n events: the sentinel frame's, no region's; NULL: no memory. */
struct pmu__acc *pmu__nodes_root(unsigned n);
/* Frees t's nodes, its root and its arrays of them (not t). */
void pmu__nodes_free(struct pmu__region_thr *t);

/* region_names.c */
/* The name of compensation's own region, id PMU_REGION_CAL, made once and never interned; NULL: no memory. */
const char *pmu__region_cal_name(void);
/* Region id's interned name (PMU_REGION_CAL's too), or NULL when it has none. */
const struct pmu__rname *pmu__region_rname(unsigned id);
/* The region id of name, interned if create. -ENOENT (no message) when absent and !create. */
int pmu__region_intern(const char *name, int create);
/* The thread layer's hooks for the names: fork (prepare, parent, child) and pmu_thread_fini(). */
void pmu__names_prepare(void);
void pmu__names_parent(void);
void pmu__names_child(bool raw);
void pmu__names_fini(void);

/*
 * Whether name is r's. An 8-aligned name is compared a word at a time: a
 * word is read only while the previous ones matched r's, none of which
 * holds a NUL, so it is within name or holds its NUL, and an aligned word
 * never crosses a page. The bytes past the NUL are masked out; AddressSanitizer,
 * which sees them read, gets the string compare.
 */
#if defined(__SANITIZE_ADDRESS__)
#define PMU_NAME_WORDS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PMU_NAME_WORDS 0
#endif
#endif
#ifndef PMU_NAME_WORDS
#define PMU_NAME_WORDS 1
#endif

static inline __attribute__((always_inline)) bool name_eq(const struct pmu__rname *r, const char *name)
{
	if (PMU_NAME_WORDS && likely(!((uintptr_t)name & 7))) {
		const pmu__word *u = (const pmu__word *)(const void *)name;
		pmu__word x = u[0] ^ r->w[0];
		unsigned i;

		/* A name of one word, the usual short one: no loop. */
		if (likely(r->words == 1))
			return !(x & r->last);
		if (x)
			return false;
		for (i = 1; i + 1 < r->words; i++)
			if (u[i] != r->w[i])
				return false;
		return !((u[i] ^ r->w[i]) & r->last);
	}
	return !strcmp(rname(r), name);
}

/*
 * name_eq() for the hot paths, which then call nothing (and so need no
 * stack frame): false for a name that is not 8-aligned, which their slow
 * paths then compare with name_eq(). Not on x86, whose string literals are
 * not 8-aligned: there the compare is the usual case, cheaper inline.
 */
#if defined(__x86_64__) || defined(__i386__)
#define PMU_NAME_HOT_ALIGNED 0
#else
#define PMU_NAME_HOT_ALIGNED PMU_NAME_WORDS
#endif

static inline __attribute__((always_inline)) bool name_eq_hot(const struct pmu__rname *r, const char *name)
{
	if (!PMU_NAME_HOT_ALIGNED)
		return name_eq(r, name);
	return likely(!((uintptr_t)name & 7)) && name_eq(r, name);
}

#endif
