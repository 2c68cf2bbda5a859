/* SPDX-License-Identifier: MIT */
/*
 * A thread's call path nodes (struct pmu__acc): found by (up, id) in a
 * hash of the owner's, listed by index for the reports (accs, grown with
 * the old arrays kept), and remembered by id (acc) for the hot paths'
 * check of one pointer. Made on a path's first call in the thread, never
 * freed before the record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/escape.h"
#include "regions/region_int.h"

static unsigned hash_of(const struct pmu__acc *up, uint64_t id)
{
	uint64_t k = ((uintptr_t)up >> 4) * 0x9e3779b97f4a7c15u ^ id * 0xc2b2ae3d27d4eb4fu;

	return (unsigned)(k >> 32);
}

struct pmu__acc pmu__node_none;	/* up NULL: no frame's node */

struct pmu__acc *pmu__nodes_root(unsigned n)
{
	struct pmu__acc *a = pmu__region_acc_alloc(NULL, 0, n, false);

	if (a)
		a->id = PMU_FRAME_NONE;	/* the sentinel frame's: no region's */
	return a;
}

struct pmu__acc *pmu__nodes_find(const struct pmu__region_thr *t, const struct pmu__acc *up, unsigned id)
{
	struct pmu__acc *a = t->htab ? t->htab[hash_of(up, id) & t->hmask] : NULL;

	while (a && (a->up != up || a->id != id))
		a = a->hnext;
	return a;
}

/* Room in t's list and hash for one more node. 0 or -ENOMEM. */
static int room(struct pmu__region_thr *t)
{
	struct pmu__accv *v = t->accs, *w;
	unsigned n = t->nodes;

	if (!v || n == v->n) {
		if (!(w = calloc(1, sizeof(*w) + (n ? 2 * n : 16) * sizeof(w->v[0]))))
			return -ENOMEM;
		w->n = n ? 2 * n : 16;
		w->old = v;
		if (v)
			memcpy(w->v, v->v, n * sizeof(w->v[0]));
		PMU_STORE_RELEASE(t->accs, w);
	}
	if (n >= t->hmask) {	/* chains of one node on average at most */
		unsigned mask = t->htab ? 2 * t->hmask + 1 : 63;
		struct pmu__acc **h = calloc((size_t)mask + 1, sizeof(*h));

		if (!h)
			return -ENOMEM;
		for (unsigned i = 0; i < n; i++) {
			struct pmu__acc *a = t->accs->v[i];
			unsigned k = hash_of(a->up, a->id) & mask;

			a->hnext = h[k];
			h[k] = a;
		}
		free(t->htab);
		t->htab = h;
		t->hmask = mask;
	}
	return 0;
}

struct pmu__acc *pmu__nodes_add(struct pmu__region_thr *t, struct pmu__acc *up, unsigned id, bool hist)
{
	struct pmu__acc *a;
	unsigned k;

	if (room(t) < 0 || !(a = pmu__region_acc_alloc(pmu__region_rname(id), id, t->n, hist)))
		return NULL;
	a->up = up;
	a->idx = t->nodes;
	a->parent = up->id;	/* a frame id: the root's is PMU_FRAME_NONE */
	k = hash_of(up, id) & t->hmask;
	a->hnext = t->htab[k];
	t->htab[k] = a;
	PMU_STORE_RELEASE(t->accs->v[t->nodes], a);
	PMU_STORE_RELEASE(t->nodes, t->nodes + 1);
	return a;
}

/* PMU_PATHS when set and valid (said once when not), else the default; read once. */
unsigned pmu__paths_max(void)
{
	static unsigned max;	/* atomic: 0 until read */
	static bool said;
	unsigned m = PMU_READ_ONCE(max);
	const char *v;
	char *end;

	if (m)
		return m;
	m = PMU_PATHS_DEFAULT;
	if ((v = pmu__getenv("PMU_PATHS")) && *v) {
		unsigned long x = strtoul(v, &end, 10);

		if (*end || x < 16 || x > PMU_PATHS_LIMIT) {
			if (PMU_ONCE(said))
				pmu__print(PMU_PRINT_WARN, "libpmu: PMU_PATHS=%s: not a number of paths from 16 to %u: "
					   "%u per thread\n", pmu__show(&(struct pmu__shown){ 0 }, v, strlen(v)),
					   PMU_PATHS_LIMIT, m);
		} else {
			m = (unsigned)x;
		}
	}
	PMU_WRITE_ONCE(max, m);
	return m;
}

struct pmu__acc *pmu__nodes_other(struct pmu__region_thr *t, struct pmu__acc *up, const char *name)
{
	int id = pmu__region_intern(PMU_OTHER_PATHS, 1);
	struct pmu__acc *a;

	if (id < 0)
		return NULL;
	if (up->id == (unsigned)id)	/* inside it: the same node, as a region nested in itself */
		return up;
	if (!(a = pmu__nodes_find(t, up, (unsigned)id)) && (a = pmu__nodes_add(t, up, (unsigned)id, t->hist)) &&
	    PMU_ONCE(t->said_full))
		pmu__print(PMU_PRINT_WARN, "libpmu: %s: thread %d has %u call paths, its cap (PMU_PATHS): new "
			   "paths are counted as \"%s\" under the path around them\n", name, (int)syscall(SYS_gettid),
			   t->nodes - 1, PMU_OTHER_PATHS);
	return a;
}

void pmu__nodes_free(struct pmu__region_thr *t)
{
	for (unsigned i = 0; i < t->nodes; i++)
		pmu__region_acc_free(t->accs->v[i]);
	for (struct pmu__accv *v = t->accs, *old; v; v = old) {
		old = v->old;
		free(v);
	}
	pmu__region_acc_free(t->root);
	free(t->htab);
}
