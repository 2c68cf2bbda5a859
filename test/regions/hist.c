/* SPDX-License-Identifier: MIT */
/*
 * The log-linear histograms (src/regions/hist.c) against exact answers: every
 * value lies in its bucket, whose midpoint is within 1/128 of it; quantiles
 * of skewed samples within 1% of the sorted samples'; sums of histograms
 * equal the histogram of the union; the tail of a known mix; Mann-Whitney U
 * on a textbook pair.
 */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "regions/hist.h"
#include "../tools/stats.h"

#define N 100000

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static void check_bucket(uint64_t v)
{
	unsigned b = pmu__hist_bucket(v);
	uint64_t lo = pmu__hist_low(b), w = pmu__hist_width(b);

	CHECK_MSG(b < PMU_HIST_BUCKETS && lo <= v && v - lo < w, "%llu: bucket %u [%llu, +%llu)",
		  (unsigned long long)v, b, (unsigned long long)lo, (unsigned long long)w);
	CHECK_MSG(fabs(pmu__hist_mid(b) - (double)v) <= (double)v / 128, "%llu: midpoint %g",
		  (unsigned long long)v, pmu__hist_mid(b));
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Skewed samples (log-uniform over 2^4..2^40) into a dense histogram; their quantiles against the sorted ones. */
static void check_quantiles(uint64_t *dense, uint64_t *v)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1 };
	struct pmu__shist h;

	for (unsigned i = 0; i < N; i++) {
		v[i] = (next() >> 24) >> (next() % 36);
		dense[pmu__hist_bucket(v[i])]++;
	}
	CHECK_EQ(pmu__shist_from(&h, dense, NULL, 0, 0, PMU_HIST_BUCKETS - 1), 0);
	CHECK_EQ(pmu__shist_total(&h), (uint64_t)N);
	qsort(v, N, sizeof(*v), cmp);
	for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want = (double)v[(size_t)ceil(qs[i] * N) - 1], got = pmu__shist_quantile(&h, qs[i]);

		CHECK_MSG(fabs(got - want) <= want / 100, "q %g: %g, the samples' %g", qs[i], got, want);
	}
	pmu__shist_free(&h);
}

/* Two halves' histograms added equal the whole's, event sums included. */
static void check_add(void)
{
	static uint64_t c[3][PMU_HIST_BUCKETS], s[3][PMU_HIST_BUCKETS];
	struct pmu__shist h[3] = { { .nts = 1 }, { .nts = 1 }, { .nts = 1 } }, sum = { .nts = 1 };

	for (unsigned i = 0; i < N; i++) {
		uint64_t x = next() >> (next() % 60);
		unsigned b = pmu__hist_bucket(x), half = i & 1;

		c[half][b]++, c[2][b]++;
		s[half][b] += x & 0xffff, s[2][b] += x & 0xffff;
	}
	for (unsigned k = 0; k < 3; k++) {
		const uint64_t *row = s[k];

		CHECK_EQ(pmu__shist_from(&h[k], c[k], &row, 1, 0, PMU_HIST_BUCKETS - 1), 0);
	}
	CHECK_EQ(pmu__shist_add(&sum, &h[0], NULL), 0);
	CHECK_EQ(pmu__shist_add(&sum, &h[1], NULL), 0);
	CHECK_EQ(sum.len, h[2].len);
	for (unsigned k = 0; k < sum.len && k < h[2].len; k++)
		CHECK(sum.idx[k] == h[2].idx[k] && sum.cnt[k] == h[2].cnt[k] && sum.ts[k] == h[2].ts[k]);
	for (unsigned k = 0; k < 3; k++)
		pmu__shist_free(&h[k]);
	pmu__shist_free(&sum);
}

/* 990 calls of 1,000 ns with 10 of an event, 10 of 100,000 ns with 500: the tail is the 10. */
static void check_tail(void)
{
	static uint64_t c[PMU_HIST_BUCKETS], s[PMU_HIST_BUCKETS];
	const uint64_t *row = s;
	struct pmu__shist h;
	double tail, rest;
	uint64_t from = 0;

	c[pmu__hist_bucket(1000)] = 990, s[pmu__hist_bucket(1000)] = 9900;
	c[pmu__hist_bucket(100000)] = 10, s[pmu__hist_bucket(100000)] = 5000;
	CHECK_EQ(pmu__shist_from(&h, c, &row, 1, 0, PMU_HIST_BUCKETS - 1), 0);
	CHECK_EQ(pmu__shist_tail(&h, &from, &tail, &rest), (uint64_t)10);
	CHECK(from <= 100000 && from > 99000);
	CHECK_MSG(tail == 500 && rest == 10, "tail %g, rest %g", tail, rest);
	pmu__shist_free(&h);
}

/* {1,2,3} against {4,5,6}: U = 9 of 9, z = 4.5 / sqrt(5.25), p = 0.0495 (no continuity correction). */
static void check_mwu(void)
{
	uint32_t ia[] = { 1, 2, 3 }, ib[] = { 4, 5, 6 }, ic[] = { 1, 2, 3 };
	uint64_t ones[] = { 1, 1, 1 };
	struct pmu__shist a = { 3, 0, ia, ones, NULL }, b = { 3, 0, ib, ones, NULL }, c = { 3, 0, ic, ones, NULL };
	struct pmu__shist empty = { 0 };
	double ps, p = stats_mwu(&a, &b, &ps);

	CHECK_MSG(fabs(p - 0.0495) < 0.0005 && ps == 1, "p %g, P(b > a) %g", p, ps);
	p = stats_mwu(&a, &c, &ps);
	CHECK_MSG(fabs(p - 1) < 1e-9 && ps == 0.5, "identical: p %g, P %g", p, ps);
	CHECK(stats_mwu(&a, &empty, &ps) == -1);
}

int main(void)
{
	static uint64_t dense[PMU_HIST_BUCKETS], v[N];
	uint64_t edges[] = { 0, 1, 63, 64, 127, 128, 129, 255, 256, 1000, 1ull << 32, (1ull << 63) - 1, 1ull << 63,
			     UINT64_MAX };

	for (unsigned i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check_bucket(edges[i]);
	for (unsigned i = 0; i < 1000000; i++)
		check_bucket(next() >> (next() % 64));
	CHECK_EQ(pmu__hist_bucket(UINT64_MAX), (unsigned)PMU_HIST_BUCKETS - 1);
	for (uint64_t v0 = 0; v0 < 5000; v0++)	/* increasing, no bucket skipped */
		CHECK(pmu__hist_bucket(v0 + 1) - pmu__hist_bucket(v0) <= 1);
	check_quantiles(dense, v);
	check_add();
	check_tail();
	check_mwu();
	T_DONE();
}
