/* SPDX-License-Identifier: MIT */
/* pmu report diff's tests (stats.c): Welch's t-test of two means, Mann-Whitney U of two histograms. */
#ifndef PMU_TOOL_STATS_H
#define PMU_TOOL_STATS_H

#include <stdbool.h>

#include "regions/hist.h"

/* One side: a mean, the variance of that mean (s^2/n) and its samples n (0: unknown, a normal test). */
struct sample {
	double mean, var, n;
};

struct welch {
	double t, df;		/* df: INFINITY when a side's n is unknown */
	double p;		/* two-sided */
	double lo, hi;		/* the confidence interval of new - base, at 1 - alpha */
};

/* Two-sided p of Student's t with df degrees of freedom (df INFINITY: the normal). */
double stats_t_p(double t, double df);
/* The t with two-sided p at df: stats_t_p(x, df) == p. */
double stats_t_quantile(double p, double df);
/*
 * new against base. false when neither side has a spread (var 0 and n
 * under 2 on both): no test. Equal spreads of 0 give p 1 for equal means,
 * 0 for different ones (counts that never vary).
 */
bool stats_welch(const struct sample *base, const struct sample *new, double alpha, struct welch *w);

/*
 * Mann-Whitney U of a against b (each bucket a tie): the probability that a
 * call of b exceeds one of a (ties counting half) into *ps, and the
 * two-sided p of the normal approximation with the ties' correction. -1
 * when either is empty or every call ties.
 */
double stats_mwu(const struct pmu__shist *a, const struct pmu__shist *b, double *ps);

#endif
