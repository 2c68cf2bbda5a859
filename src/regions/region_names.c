/* SPDX-License-Identifier: MIT */
/*
 * Region names: interned once per process until pmu_thread_fini(), in a
 * table searched without a lock and appended under names_lock; an id per
 * name, which is also the handle of pmu_region_register(). Kept across
 * fork by the thread layer's hooks, which region.c sets.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "regions/region_int.h"

#define TAB_SIZE (2 * PMU_REGION_NAMES)	/* open addressing, at most half full */

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;	/* interning a new name */
static unsigned nregions;	/* atomic */
static struct pmu__rname *tab[TAB_SIZE];
struct pmu__rname *pmu__region_byid[PMU_REGION_MAX];	/* id to name: read by the hot paths without a lock */

const char *(*pmu__region_label)(void);

unsigned pmu__region_count(void)
{
	return PMU_LOAD_ACQUIRE(nregions);
}

const char *pmu__region_name(unsigned id)
{
	const struct pmu__rname *r = id < PMU_REGION_MAX ? PMU_LOAD_ACQUIRE(pmu__region_byid[id]) : NULL;

	/* none: a task's or a handle's region named before pmu_thread_fini() emptied the table */
	return r ? rname(r) : "(a region of before pmu_thread_fini())";
}

/* Fork: the child gets a name table no other thread is changing (raw locks: thread.c's atfork_prepare says why). */
void pmu__names_prepare(void)
{
	pthread_mutex_lock(&names_lock);	/* raw: a fork handler */
}

void pmu__names_parent(void)
{
	pthread_mutex_unlock(&names_lock);	/* raw: a fork handler */
}

void pmu__names_child(bool raw)
{
	if (raw)	/* its holder may be a thread the child does not have */
		pthread_mutex_init(&names_lock, NULL);
	else
		pthread_mutex_unlock(&names_lock);	/* raw: a fork handler */
}

/* pmu_thread_fini(): the names go with the figures, so a new start has room for as many. */
void pmu__names_fini(void)
{
	int cs = pmu__lock(&names_lock);

	for (unsigned id = 0; id < nregions; id++) {
		free(pmu__region_byid[id]);
		pmu__region_byid[id] = NULL;
	}
	memset(tab, 0, sizeof(tab));
	PMU_STORE_RELEASE(nregions, 0);
	pmu__unlock(&names_lock, cs);
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct pmu__rname *probe(const char *name, uint32_t h, unsigned *slot)
{
	struct pmu__rname *r;
	unsigned i;

	for (i = h & (TAB_SIZE - 1);; i = (i + 1) & (TAB_SIZE - 1)) {
		r = PMU_LOAD_ACQUIRE(tab[i]);
		if (!r || !strcmp(rname(r), name))
			break;
	}
	*slot = i;
	return r;
}

/* Name's record, the name copied into its words (zero-padded). */
static struct pmu__rname *rname_new(const char *name, size_t len, unsigned id)
{
	unsigned words = (unsigned)(len / 8 + 1);
	struct pmu__rname *r = calloc(1, offsetof(struct pmu__rname, w) + words * sizeof(uint64_t));
	unsigned char m[8] = { 0 };

	if (!r)
		return NULL;
	r->id = id;
	r->words = words;
	memcpy(r->w, name, len + 1);
	memset(m, 0xff, len % 8 + 1);	/* in memory order, whatever the byte order */
	memcpy(&r->last, m, sizeof(r->last));
	return r;
}

static void cal_make(void)
{
	static const char name[] = "(comp)";	/* one word, as the usual short name */

	PMU_STORE_RELEASE(pmu__region_byid[PMU_REGION_CAL], rname_new(name, sizeof(name) - 1, PMU_REGION_CAL));
}

const char *pmu__region_cal_name(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const struct pmu__rname *r;

	pthread_once(&once, cal_make);
	r = PMU_LOAD_ACQUIRE(pmu__region_byid[PMU_REGION_CAL]);
	return r ? rname(r) : NULL;
}

/*
 * The region id of name, interned if create, and cached in t's slot cslot
 * when t is not NULL. -ENOENT (no message) when absent and !create.
 */
int pmu__region_intern(struct pmu__region_thr *t, const char *name, unsigned cslot, int create)
{
	size_t len = strnlen(name, PMU_REGION_NAME);
	struct pmu__rname *r;
	unsigned slot, id;
	uint32_t h;
	int cs;

	if (!len)
		return pmu__err(-EINVAL, "\"\": a region name must not be empty");
	if (len == PMU_REGION_NAME)
		return pmu__err(-ENAMETOOLONG, "\"%.32s...\": region name longer than %d characters",
				name, PMU_REGION_NAME - 1);
	h = hash(name);
	r = probe(name, h, &slot);
	if (!r) {
		if (!create)
			return -ENOENT;
		cs = pmu__lock(&names_lock);
		r = probe(name, h, &slot);	/* another thread may have added it */
		if (!r) {
			id = PMU_READ_ONCE(nregions);
			if (id == PMU_REGION_NAMES) {
				pmu__unlock(&names_lock, cs);
				return pmu__err(-ENOSPC, "%s: more than %d distinct region names in this "
						"process", name, PMU_REGION_NAMES);
			}
			r = rname_new(name, len, id);
			if (!r) {
				pmu__unlock(&names_lock, cs);
				return pmu__err(-ENOMEM, "%s: out of memory", name);
			}
			PMU_STORE_RELEASE(pmu__region_byid[id], r);
			PMU_STORE_RELEASE(tab[slot], r);
			PMU_STORE_RELEASE(nregions, id + 1);
		}
		pmu__unlock(&names_lock, cs);
	}
	if (t) {
		t->cache[cslot].p = name;
		t->cache[cslot].r = r;
	}
	return (int)r->id;
}
