/* SPDX-License-Identifier: MIT */
/*
 * A merge as a view (view.h): a row per region, its totals over the
 * processes, for the writers a process's report shares (prom.c,
 * report_dist.c), and what it says of emulation.
 */
#include <stdio.h>

#include "report/merge.h"

/* The processes whose instructions were emulated (pmu emulate), and the first one's description. */
unsigned pmu__merge_emulated(const struct merge *m, const char **desc)
{
	unsigned k = 0;

	*desc = NULL;
	for (unsigned i = 0; i < m->nproc; i++)
		if (m->proc[i].emulated && k++ == 0)
			*desc = m->proc[i].emulated;
	return k;
}

/* Region r as a view's row (view.h): its totals over the processes, c and k per common event. */
struct pmu__vrow pmu__merge_row(const struct merge *m, const struct mregion *r, uint64_t *c, unsigned *k)
{
	for (unsigned e = 0; e < m->ncommon; e++) {
		c[e] = r->ev[m->common[e]].tot;
		k[e] = pmu__merge_dist_has(&r->dist, m->common[e]) ? 1 + m->common[e] : 0;
	}
	return (struct pmu__vrow){ r->name, -1, NULL, r->calls.tot, r->ns.tot, c, r->dist.hproc ? r->dist.hist : NULL,
				   k, NULL, NULL, r->dist.hproc };
}

static void merge_vrow(const struct pmu__view *v, unsigned i, struct pmu__vrow *r, struct pmu__vbuf *buf)
{
	const struct merge *m = v->src;

	*r = pmu__merge_row(m, &m->reg[i], buf->ev, buf->dk);
}

void pmu__merge_view(const struct merge *m, struct pmu__view *v, const char **ev)
{
	const char *emu;

	pmu__merge_emulated(m, &emu);
	for (unsigned e = 0; e < m->ncommon; e++)
		ev[e] = m->ev[m->common[e]];
	*v = (struct pmu__view){ .emulated = emu, .pid = -1, .nproc = m->nproc, .nev = m->ncommon, .ev = ev,
				 .nrow = m->nreg, .row = merge_vrow, .src = m };
	snprintf(v->lib, sizeof(v->lib), "libpmu %s", pmu_version());
	v->library = v->lib;
}
