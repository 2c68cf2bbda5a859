/* SPDX-License-Identifier: MIT */
/* A report's rows (view.h): their histograms, quantiles and tails, as every writer reads them. */
#include <math.h>

#include "report/view.h"

const struct pmu__shist *pmu__vrow_hist(const struct pmu__vrow *r, unsigned i)
{
	unsigned k = !i || !r->dk ? i : r->dk[i - 1];

	return r->dist && (!i || k) ? &r->dist[k] : NULL;
}

double pmu__vrow_quantile(const struct pmu__vrow *r, unsigned i, double q)
{
	const struct pmu__shist *h = pmu__vrow_hist(r, i);
	double x = h ? pmu__shist_quantile(h, q) : NAN;

	if (r->min && x < (double)r->min[i])	/* within the exact bounds (compared: no libm in the library) */
		x = (double)r->min[i];
	if (r->max && x > (double)r->max[i])
		x = (double)r->max[i];
	return x;
}

uint64_t pmu__vrow_tail(const struct pmu__vrow *r, unsigned nev, uint64_t *from, double *tail, double *rest)
{
	const struct pmu__shist *h0 = r->dist ? &r->dist[0] : NULL;
	double t[h0 ? h0->nts + 1 : 1], o[h0 ? h0->nts + 1 : 1];
	uint64_t calls = h0 ? pmu__shist_tail(h0, from, t, o) : 0;

	for (unsigned i = 0; calls && i <= nev; i++) {
		const struct pmu__shist *h = pmu__vrow_hist(r, i);
		unsigned k = h ? (unsigned)(h - r->dist) : 0;

		tail[i] = h && k < h0->nts ? t[k] : NAN;
		rest[i] = h && k < h0->nts ? o[k] : NAN;
	}
	return calls;
}

bool pmu__vrow_has_dist(const struct pmu__vrow *r)
{
	return r->calls && r->dist && pmu__shist_total(&r->dist[0]);
}
