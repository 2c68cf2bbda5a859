/* SPDX-License-Identifier: MIT */
/*
 * A process's snapshot as a view (view.h), for the writers a merge shares:
 * a row per region and thread, the region's total first, then each thread's
 * (rows of no call are empty). Prometheus text and OpenMetrics are written
 * from it alone (pmu_report(f, "prometheus"), "openmetrics", NAME.prom, .om).
 */
#include <unistd.h>

#include "base/internal.h"
#include "report/report.h"
#include "report/view.h"
#include "regions/results.h"
#include "counters/emulated.h"

static void snap_row(const struct pmu__view *v, unsigned i, struct pmu__vrow *r, struct pmu__vbuf *buf)
{
	const struct pmu_results *s = v->src;
	unsigned id = i / (s->nthr + 1);
	int k = (int)(i % (s->nthr + 1)) - 1;

	(void)buf;
	*r = pmu__snap_row(s, k, id);
}

struct pmu__vrow pmu__snap_row(const struct pmu_results *s, int k, unsigned id)
{
	const struct pmu__rent *d = pmu__results_ent(s, k, id);

	return (struct pmu__vrow){ s->reg[id], k < 0 ? -1 : (long)s->thr[k].tid, k < 0 ? NULL : s->thr[k].name,
				   d->calls, d->sum[0], d->sum + 1, d->dist, NULL, d->min, d->max, 0 };
}

void pmu__snap_view(const struct pmu_results *s, struct pmu__view *v)
{
	*v = (struct pmu__view){ .emulated = pmu__emulated(), .pid = (long)getpid(), .nproc = 1, .nev = s->n,
				 .ev = (const char *const *)s->ev, .refusals = true, .refused_threads = s->refused.threads,
				 .refused_calls = s->refused.calls, .nrow = (s->nthr + 1) * s->nreg, .row = snap_row,
				 .src = s };
	snprintf(v->lib, sizeof(v->lib), "libpmu %s", pmu_version());
	v->library = v->lib;
}

void pmu__report_prom(FILE *f, const struct pmu_results *s, bool om)
{
	struct pmu__view v;

	pmu__snap_view(s, &v);
	pmu__prom_write(f, &v, om);
	pmu__paths_prom(f, s, om);
	pmu__prom_end(f, om);
}
