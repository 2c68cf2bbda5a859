/* SPDX-License-Identifier: MIT */
/*
 * A process's snapshot as a view (view.h), for prom.c's writers
 * (pmu_report(f, "prometheus"), "openmetrics", PMU_REPORT=NAME.prom): a row
 * per region with calls, its total first, then each thread's.
 */
#include <stdlib.h>
#include <unistd.h>

#include "base/internal.h"
#include "report/report.h"
#include "report/view.h"
#include "regions/results.h"
#include "counters/emulated.h"

int pmu__report_prom(FILE *f, const struct pmu_results *s, bool om)
{
	char lib[32];
	struct pmu__view v = { lib, pmu__emulated(), (long)getpid(), 1, s->n, (const char *const *)s->ev,
			       true, s->refused.threads, s->refused.calls, 0, NULL };
	struct pmu__vrow *row = calloc((size_t)(s->nthr + 1) * s->nreg + 1, sizeof(*row));

	if (!row)
		return pmu__err(-ENOMEM, "pmu_report: out of memory");
	snprintf(lib, sizeof(lib), "libpmu %s", pmu_version());
	for (unsigned id = 0; id < s->nreg; id++)
		for (int k = -1; k < (int)s->nthr; k++) {
			const struct pmu__rent *d = pmu__results_ent(s, k, id);

			if (d->calls)
				row[v.nrow++] = (struct pmu__vrow){ s->reg[id], k < 0 ? -1 : (long)s->thr[k].tid,
					k < 0 ? NULL : s->thr[k].name, d->calls, d->sum[0], d->sum + 1, d->dist, NULL,
					d->min, d->max };
		}
	v.row = row;
	pmu__prom_write(f, &v, om);
	free(row);
	return 0;
}
