/* SPDX-License-Identifier: MIT */
/* Welch's t-test and Mann-Whitney U: see stats.h. The t distribution by the regularized incomplete beta function. */
#include <math.h>

#include "stats.h"

/* The continued fraction of the incomplete beta function, by the modified Lentz method. */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), del;

		for (int k = 0; k < 2; k++) {
			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= d * c;
			num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		}
		del = d * c;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0 || x >= 1)
		return x <= 0 ? 0 : 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_p(double t, double df)
{
	if (isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	if (isinf(df))
		return erfc(fabs(t) / sqrt(2));
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

double stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;

	while (stats_t_p(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_p(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The Welch-Satterthwaite degrees of freedom; INFINITY when a side's n is unknown. */
static double welch_df(const struct sample *a, const struct sample *b)
{
	double s = a->var + b->var, da, db;

	if (!a->n || !b->n)
		return INFINITY;
	da = a->n > 1 ? a->var * a->var / (a->n - 1) : 0;
	db = b->n > 1 ? b->var * b->var / (b->n - 1) : 0;
	return da + db > 0 ? s * s / (da + db) : INFINITY;
}

bool stats_welch(const struct sample *base, const struct sample *new, double alpha, struct welch *w)
{
	double diff = new->mean - base->mean, se = sqrt(base->var + new->var), q;

	if (base->n < 2 && new->n < 2 && !base->var && !new->var)
		return false;
	w->df = welch_df(base, new);
	if (se == 0) {
		/* counts that never vary: a difference is certain */
		w->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		w->p = diff == 0 ? 1 : 0;
		w->lo = w->hi = diff;
		return true;
	}
	w->t = diff / se;
	w->p = stats_t_p(w->t, w->df);
	q = stats_t_quantile(alpha, w->df);
	w->lo = diff - q * se;
	w->hi = diff + q * se;
	return true;
}

double stats_mwu(const struct pmu__shist *a, const struct pmu__shist *b, double *ps)
{
	double na = (double)pmu__shist_total(a), nb = (double)pmu__shist_total(b), n = na + nb;
	double below = 0, u = 0, ties = 0, var, z;
	unsigned i = 0, j = 0;

	if (!na || !nb)
		return -1;
	while (i < a->len || j < b->len) {
		uint32_t x = i < a->len ? a->idx[i] : UINT32_MAX, y = j < b->len ? b->idx[j] : UINT32_MAX;
		double ca = x <= y ? (double)a->cnt[i] : 0, cb = y <= x ? (double)b->cnt[j] : 0, t = ca + cb;

		u += cb * (below + ca / 2);	/* b's calls here exceed a's below, and tie half of a's here */
		below += ca;
		ties += t * t * t - t;
		i += x <= y, j += y <= x;
	}
	*ps = u / (na * nb);
	var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (!(var > 0))
		return -1;
	z = (u - na * nb / 2) / sqrt(var);
	return erfc(fabs(z) / sqrt(2));
}
