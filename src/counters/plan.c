/* SPDX-License-Identifier: MIT */
/*
 * How a set's events become counters, groups and read paths: the event
 * list parsed into counters, the counters put into groups, and each read
 * planned at open (the group read, each event's own read, which pages may be
 * read from user space once the counters run).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/escape.h"
#include "counters/set_ops.h"
#include "parse/format.h"

/* Room for n more counters in c->attr / c->ctr, which grow as needed: most sets have a few. */
static int grow_counters(struct pmu__cold *c, unsigned n, unsigned *cap)
{
	unsigned want = c->nctr + n, m = *cap ? *cap : 8;
	struct pmu__perf_counter *ctr;
	struct pmu__attr *attr;

	if (want <= *cap)
		return 0;
	while (m < want)
		m *= 2;
	ctr = realloc(c->ctr, m * sizeof(*ctr));
	if (ctr)
		c->ctr = ctr;
	attr = ctr ? realloc(c->attr, m * sizeof(*attr)) : NULL;
	if (!attr)
		return -ENOMEM;
	c->attr = attr;
	memset(ctr + *cap, 0, (m - *cap) * sizeof(*ctr));
	*cap = m;
	return 0;
}

/* Parses events into c->attr / c->ctr / c->names. */
int pmu__parse_events(struct pmu__cold *c, const char *events)
{
	const char *p = events, *tok;
	struct pmu__event ev;
	struct pmu__shown b;
	size_t len, cap_ev = 0;
	unsigned cap_ctr = 0;
	int r;

	while ((r = pmu__event_next(&p, &tok, &len)) > 0) {
		if (c->nev == cap_ev) {
			size_t n = cap_ev ? cap_ev * 2 : 8;
			char **names = realloc(c->names, n * sizeof(*names));

			if (!names)
				return pmu__err(-ENOMEM, "%s: out of memory", pmu__show(&b, events, strlen(events)));
			c->names = names;
			cap_ev = n;
		}
		r = pmu__event_parse(tok, len, &ev);
		if (r < 0)
			return r;
		if (c->nctr + ev.n > PMU_MAX_COUNTERS)
			return pmu__err(-E2BIG, "%s: more than %d counters in one set", pmu__show(&b, tok, len),
					PMU_MAX_COUNTERS);
		if (grow_counters(c, ev.n, &cap_ctr) < 0 || !(c->names[c->nev] = strndup(tok, len)))
			return pmu__err(-ENOMEM, "%s: out of memory", pmu__show(&b, tok, len));
		for (unsigned k = 0; k < ev.n; k++) {
			c->attr[c->nctr] = ev.a[k];
			c->ctr[c->nctr].event = c->nev;
			c->ctr[c->nctr].fd = -1;
			c->ctr[c->nctr].cpu = -1;
			c->ctr[c->nctr].auto_long = ev.a[k].auto_long;
			c->nctr++;
		}
		c->nev++;
	}
	if (r < 0)
		return r;
	if (!c->nev)
		return pmu__err(-EINVAL, "\"%s\": no event named", pmu__show(&b, events, strlen(events)));
	return 0;
}

/*
 * PMU_SOCKET_WIDE: each counter of a PMU that counts per CPU (a cpumask:
 * RAPL, uncore) becomes one per CPU of its mask, which the event sums.
 */
int pmu__plan_cpus(struct pmu__cold *c, unsigned flags)
{
	struct pmu__perf_counter *ctr;
	struct pmu__attr *attr;
	int cpus[PMU_MAX_COUNTERS];
	unsigned n = 0, total, i, k;
	bool masked = false;

	if (!(flags & PMU_SOCKET_WIDE))
		return 0;
	for (i = 0; i < c->nctr; i++) {
		k = pmu__pmu_cpus(c->attr[i].pmu, cpus, PMU_MAX_COUNTERS);
		masked |= k > 0;
		n += k ? k : 1;
		if (n > PMU_MAX_COUNTERS)
			return pmu__err(-E2BIG, "%s: more than %d counters in one set, one per CPU of the %s PMU's "
					"cpumask", c->names[c->ctr[i].event], PMU_MAX_COUNTERS, c->attr[i].pmu);
	}
	if (!masked)	/* the usual set: every counter the task's, as it is */
		return 0;
	total = n;
	ctr = malloc(n * sizeof(*ctr));
	attr = malloc(n * sizeof(*attr));
	if (!ctr || !attr) {
		free(ctr);
		free(attr);
		return pmu__err(-ENOMEM, "out of memory");
	}
	for (i = 0, n = 0; i < c->nctr; i++) {
		unsigned j = 0;

		k = pmu__pmu_cpus(c->attr[i].pmu, cpus, PMU_MAX_COUNTERS);
		do {
			if (n == total)	/* the mask changed since: fewer CPUs than it had */
				break;
			ctr[n] = c->ctr[i];
			ctr[n].cpu = k ? cpus[j] : -1;
			attr[n++] = c->attr[i];
		} while (++j < k);
	}
	free(c->ctr);
	free(c->attr);
	c->ctr = ctr;
	c->attr = attr;
	c->nctr = n;
	return 0;
}

/*
 * Puts counters into groups: one per hardware PMU, software-like events join
 * the first group (the kernel moves them into the hardware context).
 * Reorders c->ctr/c->attr so that each group's counters are contiguous.
 */
int pmu__plan_groups(struct pmu__cold *c, unsigned flags)
{
	static const char one_cpu[] = "";	/* hw[g] of a group of one CPU's counter, which takes no other */
	struct pmu__perf_counter *ctr = malloc(c->nctr * sizeof(*ctr));
	struct pmu__attr *attr = malloc(c->nctr * sizeof(*attr));
	unsigned *gid = malloc(c->nctr * sizeof(*gid));
	const char **hw = malloc(c->nctr * sizeof(*hw));
	unsigned i, g, k = 0;

	c->grp = calloc(c->nctr, sizeof(*c->grp));
	if (!ctr || !attr || !gid || !hw || !c->grp) {
		free(ctr);
		free(attr);
		free(gid);
		free(hw);
		return pmu__err(-ENOMEM, "out of memory");
	}
	/*
	 * A group takes software events, and hardware events of one PMU (hw[g],
	 * NULL if none yet): by the PMU alone, whichever way the events are read
	 * (riscv's firmware events are of the cpu PMU though read through read(2)).
	 */
	c->ngroups = 0;
	for (i = 0; i < c->nctr; i++) {
		const char *pmu = pmu__type_user_readable(&c->attr[i]) ? c->attr[i].pmu : NULL;
		/* one CPU's counter (PMU_SOCKET_WIDE), an emulated one: a group of its own */
		bool cpu = c->ctr[i].cpu >= 0 || c->ctr[i].emu.on;

		for (g = 0; g < c->ngroups && !(flags & PMU_NO_GROUP) && !cpu; g++)
			if (hw[g] != one_cpu && (!pmu || !hw[g] || !strcmp(hw[g], pmu)))
				break;
		if (g == c->ngroups || (flags & PMU_NO_GROUP) || cpu) {
			g = c->ngroups++;
			hw[g] = cpu ? one_cpu : NULL;
		}
		if (pmu && !cpu)
			hw[g] = pmu;
		gid[i] = g;
	}
	for (g = 0; g < c->ngroups; g++) {
		c->grp[g].first = k;
		for (i = 0; i < c->nctr; i++) {
			if (gid[i] != g)
				continue;
			ctr[k] = c->ctr[i];
			attr[k++] = c->attr[i];
		}
		c->grp[g].n = k - c->grp[g].first;
		c->grp[g].fd = -1;
	}
	free(c->ctr);
	free(c->attr);
	free(gid);
	free(hw);
	c->ctr = ctr;
	c->attr = attr;
	return pmu__topdown_plan(c, flags);
}

/* Each event's own read(2) (pmu_counter_read): the group of its counter, and where it is there. */
void pmu__plan_event_reads(struct pmu_set *set)
{
	struct pmu__cold *c = pmu__cold(set);

	memset(set->evr_tab, 0, c->nev * sizeof(*set->evr_tab));
	for (unsigned g = 0; g < c->ngroups; g++)
		for (unsigned k = c->grp[g].first; k < c->grp[g].first + c->grp[g].n; k++) {
			struct pmu__evread *e = &set->evr_tab[c->ctr[k].event];

			e->nctr++;
			e->ctr = k;
			e->fd = c->grp[g].fd;
			e->bytes = (uint32_t)pmu__group_bytes(c->grp[g].n);
			e->pos = c->grp[g].n > 1 ? 3 + k - c->grp[g].first : 0;
		}
}

/* The common case of read(2): one group whose values are the events in order. */
void pmu__plan_group_read(struct pmu_set *set)
{
	struct pmu__cold *c = pmu__cold(set);

	uint32_t i, n = c->ngroups == 1 && c->nctr == c->nev && c->wiped ? c->nctr : 0;
	bool emu = false;

	for (i = 0; i < c->nctr; i++)
		emu |= c->ctr[i].emu.on;
	for (i = 0; i < n; i++)
		if (c->ctr[i].event != i || emu)
			n = 0;
	if (c->ntd) {	/* every read(2) of a topdown group goes through pmu__read_counters() */
		n = 0;
		set->topdown = 1;
	}
	set->group_n = n;
	set->group_fd = c->grp[0].fd;
	/* else every read checks the owner, and emulated counters have no read(2) */
	set->evr = c->wiped && !c->ntd && !emu ? set->evr_tab : NULL;
	set->group_size = pmu__group_bytes(n);
}

/*
 * Once the counters run, their pages tell what the kernel allows: unmap the
 * ones it refuses. The set reads from user space without a call when every
 * counter remains and counter i is event i.
 */
void pmu__settle_read_paths(struct pmu_set *set)
{
	struct pmu__cold *c = pmu__cold(set);
	uint32_t i, direct = c->nctr == c->nev ? c->nctr : 0;

	for (i = 0; i < c->nev; i++)
		set->ev[i].page = NULL;
	for (i = 0; i < c->nctr; i++) {
		struct pmu__perf_counter *k = &c->ctr[i];

		if (k->page && (k->why = pmu__user_read_blocker(k, k->page, &c->attr[i]))) {
			munmap(k->page, pmu__page_size());
			k->page = NULL;
		}
		if (!k->page || k->event != i)
			direct = 0;
	}
	/* An event alone on its counter may be read inline; one summed over several PMUs may not. */
	for (i = 0; i < c->nev; i++)
		if (set->evr_tab[i].nctr == 1)
			set->ev[i].page = c->ctr[set->evr_tab[i].ctr].page;
	set->direct = direct;
	set->one_group = c->ngroups == 1;
	if (c->ntd)
		pmu__topdown_settle(set);
	pmu__set_settle_timed(set);
	pmu__set_settle_emu(set);
}
