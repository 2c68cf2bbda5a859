/* SPDX-License-Identifier: MIT */
/*
 * Regions that leave out their own cost. A region around others counts
 * their begins and ends too: each thread measures, when it switches
 * compensation on, what a pair of calls by name and by handle costs a
 * region around them (ns and each event), and every region's call leaves
 * that out once per pair ended inside it (region.c's add_call()).
 *
 * The measure runs the pairs through the public calls, as a program does
 * (region.c's pmu__cal_pairs, given by region.c: this file is below it),
 * on a region of its own (PMU_REGION_CAL), which no report shows: windows
 * of 0 and of 64 pairs between two reads of the counters, the fewest of
 * each over a few tries after one to warm up; their difference is the
 * cost in 64ths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regions/region_int.h"
#include "counters/set.h"

#define CAL_PAIRS (1u << PMU_COMP_SHIFT)
#define CAL_TRIES 3

static int comp_default = -1;	/* atomic: pmu_region_compensate()'s last, -1: none (PMU_COMPENSATE) */
static bool said_env, said_fail;

/* Whether a thread's regions are compensated from its first one. */
static bool wanted(void)
{
	int d = PMU_READ_ONCE(comp_default);

	return d >= 0 ? d : pmu__env_switch("PMU_COMPENSATE", &said_env, "regions are not compensated");
}

/*
 * What m pairs cost a region around them, as ns then each event, lowered
 * into low (n + 1); v0 and v1: n values each. 0, or -errno when a pair or
 * a read failed (the calls' count tells: the pairs are not checked one by one).
 */
static int window(struct pmu__region_thr *t, pmu__cal_pairs pairs, const char *name, unsigned m, uint64_t *low,
		  uint64_t *v0, uint64_t *v1)
{
	const struct pmu__acc *a = t->acc[PMU_REGION_CAL];
	uint64_t calls = a->seq / 2, ns;
	int r = pmu_read(t->set, v0);

	ns = pmu__mono_ns();
	pairs(name, m);
	ns = pmu__mono_ns() - ns;
	if (r == 0)
		r = pmu_read(t->set, v1);
	if (r == 0 && a->seq / 2 != calls + m)
		r = -EIO;
	if (r < 0)
		return r;
	low[0] = ns < low[0] ? ns : low[0];
	for (unsigned i = 0; i < t->n; i++) {
		uint64_t x = pmu__ev_delta(v0[i], v1[i]);

		low[1 + i] = x < low[1 + i] ? x : low[1 + i];
	}
	return 0;
}

/* A pair's cost by name (name) or by handle (NULL) into cost (n + 1, in 64ths). 0 or -errno. */
static int measure(struct pmu__region_thr *t, pmu__cal_pairs pairs, const char *name, uint64_t *cost, uint64_t *buf)
{
	unsigned n = t->n;
	uint64_t *none = buf, *full = buf + n + 1, *v = buf + 2 * (n + 1);
	int r;

	/* A first window not kept: the calls' code and data warm, as in a program's loop. */
	for (unsigned i = 0; i <= n; i++)
		full[i] = UINT64_MAX;
	r = window(t, pairs, name, CAL_PAIRS, full, v, v + n);
	for (unsigned i = 0; i <= n; i++)
		none[i] = full[i] = UINT64_MAX;
	for (unsigned k = 0; r == 0 && k < CAL_TRIES; k++) {
		r = window(t, pairs, name, 0, none, v, v + n);
		if (r == 0)
			r = window(t, pairs, name, CAL_PAIRS, full, v, v + n);
	}
	for (unsigned i = 0; r == 0 && i <= n; i++)
		cost[i] = full[i] > none[i] ? full[i] - none[i] : 0;
	return r;
}

/*
 * The measure, in t (no region open): its pairs take the compensated path
 * with nothing to leave out, on the region of its own, its name in t's
 * cache, untraced. Then nothing of it stays in t. 0 or -errno.
 */
static int calibrate(struct pmu__region_thr *t, struct pmu__comp *c, pmu__cal_pairs pairs)
{
	const char *name = pmu__region_cal_name();
	unsigned n = t->n, slot = name ? cache_slot(name) : 0;
	uint64_t *buf = calloc(4 * ((size_t)n + 1), sizeof(uint64_t));
	__typeof__(t->cache[0]) saved = t->cache[slot];
	struct pmu__trace *tr = t->trace;
	struct pmu__acc **a = &t->acc[PMU_REGION_CAL];
	int r = -ENOMEM;

	if (name && buf && (*a = pmu__region_acc_alloc(pmu__region_rname(PMU_REGION_CAL), PMU_REGION_CAL, n, t->hist))) {
		(*a)->up = t->root;	/* no region open: at the top */
		t->cache[slot].p = name;
		t->cache[slot].a = *a;
		t->trace = NULL;
		t->comp = c;
		PMU_WRITE_ONCE(t->comp_on, true);
		pmu__region_rare(t);
		r = measure(t, pairs, name, c->cost, buf);
		if (r == 0)
			r = measure(t, pairs, NULL, c->cost + n + 1, buf);
		t->trace = tr;
		t->cache[slot] = saved;
		memset(c->inside, 0, sizeof(c->inside));
	}
	pmu__region_acc_free(*a);
	*a = &pmu__node_none;
	free(buf);
	return r;
}

/* Switches t's compensation on (no region open), measured the first time. 0 or -errno (then off). */
static int switch_on(struct pmu__region_thr *t, pmu__cal_pairs pairs)
{
	struct pmu__comp *c = t->comp;
	int r;

	if (!c) {
		c = calloc(1, sizeof(*c) + 2 * ((size_t)t->n + 1) * sizeof(uint64_t));
		r = c ? calibrate(t, c, pairs) : -ENOMEM;
		PMU_WRITE_ONCE(t->comp_on, false);
		pmu__region_rare(t);
		if (r < 0) {
			t->comp = NULL;
			free(c);
			return pmu__err(r, "pmu_region_compensate: the cost of a region pair could not be measured "
					"(%s): regions are not compensated", r == -ENOMEM ? "out of memory" : strerror(-r));
		}
		PMU_STORE_RELEASE(t->comp_pub, c);	/* its costs, for the reports */
	}
	PMU_WRITE_ONCE(t->comp_on, true);
	pmu__region_rare(t);
	return 0;
}

void pmu__comp_start(struct pmu__region_thr *t, pmu__cal_pairs pairs)
{
	if (wanted() && switch_on(t, pairs) < 0 && PMU_ONCE(said_fail))
		pmu__print(PMU_PRINT_WARN, "libpmu: %s\n", pmu_errmsg());
}

bool pmu__region_comp(const struct pmu__thr *thr, uint64_t *cost)
{
	const struct pmu__region_thr *t = PMU_LOAD_ACQUIRE(thr->upper);
	const struct pmu__comp *c = t ? PMU_LOAD_ACQUIRE(t->comp_pub) : NULL;

	if (!c || !PMU_READ_ONCE(t->comp_on))
		return false;
	memcpy(cost, c->cost, 2 * ((size_t)thr->n + 1) * sizeof(*cost));
	return true;
}

int pmu__comp_switch(struct pmu__region_thr *t, int on, pmu__cal_pairs pairs)
{
	if (on != 0 && on != 1)
		return pmu__err(-EINVAL, "pmu_region_compensate: %d is neither 1 (on) nor 0 (off)", on);
	if (t && t->sp->id != PMU_FRAME_NONE)
		return pmu__err(-EBUSY, "pmu_region_compensate: region %s is open in this thread (switch "
				"between regions)", pmu__region_name((unsigned)t->sp->id));
	PMU_WRITE_ONCE(comp_default, on);
	if (!t)
		return 0;
	if (on)
		return switch_on(t, pairs);
	PMU_WRITE_ONCE(t->comp_on, false);
	pmu__region_rare(t);
	return 0;
}
