/* SPDX-License-Identifier: MIT */
/*
 * Region names: interned once per process until pmu_thread_fini(), in a
 * table searched without a lock and appended under names_lock; an id per
 * name from 1 (0 is compensation's), which is also the handle of
 * pmu_region_register(). Kept across fork by the thread layer's hooks,
 * which region.c sets.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "regions/region_int.h"

/*
 * The names by hash, open addressing at most half full: a table grown under
 * the lock into one twice its size, the old kept (in old) for readers still
 * probing it, until pmu_thread_fini().
 */
struct ntab {
	struct ntab *old;
	unsigned size;		/* a power of 2 */
	struct pmu__rname *s[];
};
#define TAB_FIRST 512

/* Ids to names in chunks, made as ids come: a chunk's pointer and its slots are written once, under the lock. */
#define CHUNK 1024
#define NCHUNKS (PMU_REGION_NAMES / CHUNK + 1)

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;	/* interning a new name */
static unsigned nregions;	/* atomic: names interned, ids 1 to it */
static struct ntab *tab;	/* atomic */
static struct pmu__rname **chunk[NCHUNKS];	/* atomic */
static struct pmu__rname *cal;	/* atomic: PMU_REGION_CAL's, made once (cal_make()) */

const char *(*pmu__region_label)(void);

unsigned pmu__region_count(void)
{
	return PMU_LOAD_ACQUIRE(nregions);
}

const struct pmu__rname *pmu__region_rname(unsigned id)
{
	struct pmu__rname **c;

	if (id == PMU_REGION_CAL)
		return PMU_LOAD_ACQUIRE(cal);
	if (id > PMU_REGION_NAMES || !(c = PMU_LOAD_ACQUIRE(chunk[id / CHUNK])))
		return NULL;
	return PMU_LOAD_ACQUIRE(c[id % CHUNK]);
}

const char *pmu__region_name(unsigned id)
{
	const struct pmu__rname *r = pmu__region_rname(id);

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

/* pmu_thread_fini(): the names go with the figures. */
void pmu__names_fini(void)
{
	int cs = pmu__lock(&names_lock);
	struct ntab *tb = tab;

	for (unsigned id = 1; id <= nregions; id++)
		free(chunk[id / CHUNK][id % CHUNK]);
	for (unsigned i = 0; i < NCHUNKS; i++) {
		free(chunk[i]);
		chunk[i] = NULL;
	}
	while (tb) {
		struct ntab *old = tb->old;

		free(tb);
		tb = old;
	}
	PMU_STORE_RELEASE(tab, NULL);
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

/* name's record in tb, or NULL and the empty slot where it would go. */
static struct pmu__rname *probe(const struct ntab *tb, const char *name, uint32_t h, unsigned *slot)
{
	struct pmu__rname *r = NULL;
	unsigned i = h;

	for (; tb; i++) {
		r = PMU_LOAD_ACQUIRE(tb->s[i & (tb->size - 1)]);
		if (!r || !strcmp(rname(r), name))
			break;
	}
	*slot = tb ? i & (tb->size - 1) : 0;
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

	PMU_STORE_RELEASE(cal, rname_new(name, sizeof(name) - 1, PMU_REGION_CAL));
}

const char *pmu__region_cal_name(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const struct pmu__rname *r;

	pthread_once(&once, cal_make);
	r = PMU_LOAD_ACQUIRE(cal);
	return r ? rname(r) : NULL;
}

/* A table of size slots holding tb's names (tb, the old one, kept in it). Under the lock. */
static struct ntab *tab_grow(struct ntab *tb, unsigned size)
{
	struct ntab *nt = calloc(1, sizeof(*nt) + size * sizeof(nt->s[0]));
	unsigned slot;

	if (!nt)
		return NULL;
	nt->size = size;
	nt->old = tb;
	for (unsigned id = 1; tb && id <= nregions; id++) {
		struct pmu__rname *r = chunk[id / CHUNK][id % CHUNK];

		probe(nt, rname(r), r->hash, &slot);
		nt->s[slot] = r;
	}
	return nt;
}

/* name (len bytes, hash h) interned under the lock, its record into *out: 0 or -errno (message set). */
static int add_locked(const char *name, size_t len, uint32_t h, struct pmu__rname **out)
{
	unsigned id = nregions + 1, slot;
	struct ntab *tb = tab;
	struct pmu__rname *r;

	if (id > PMU_REGION_NAMES)
		return pmu__err(-ENOSPC, "%s: more than %u distinct region names in this process", name,
				PMU_REGION_NAMES);
	if (!tb || 2 * id > tb->size) {
		if (!(tb = tab_grow(tb, tb ? 2 * tb->size : TAB_FIRST)))
			return pmu__err(-ENOMEM, "%s: out of memory", name);
		PMU_STORE_RELEASE(tab, tb);
	}
	if (!chunk[id / CHUNK] && !(chunk[id / CHUNK] = calloc(CHUNK, sizeof(*chunk[0]))))
		return pmu__err(-ENOMEM, "%s: out of memory", name);
	if (!(r = rname_new(name, len, id)))
		return pmu__err(-ENOMEM, "%s: out of memory", name);
	r->hash = h;
	probe(tb, name, h, &slot);
	PMU_STORE_RELEASE(chunk[id / CHUNK][id % CHUNK], r);
	PMU_STORE_RELEASE(tb->s[slot], r);
	PMU_STORE_RELEASE(nregions, id);
	*out = r;
	return 0;
}

int pmu__region_intern(const char *name, int create)
{
	size_t len = strnlen(name, PMU_REGION_NAME);
	struct pmu__rname *r;
	unsigned slot;
	uint32_t h;
	int cs, e = 0;

	if (!len)
		return pmu__err(-EINVAL, "\"\": a region name must not be empty");
	if (len == PMU_REGION_NAME)
		return pmu__err(-ENAMETOOLONG, "\"%.32s...\": region name longer than %d characters",
				name, PMU_REGION_NAME - 1);
	h = hash(name);
	r = probe(PMU_LOAD_ACQUIRE(tab), name, h, &slot);
	if (!r) {
		if (!create)
			return -ENOENT;
		cs = pmu__lock(&names_lock);
		r = probe(tab, name, h, &slot);	/* another thread may have added it */
		if (!r)
			e = add_locked(name, len, h, &r);
		pmu__unlock(&names_lock, cs);
	}
	return e < 0 ? e : (int)r->id;
}
