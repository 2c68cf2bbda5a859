/* SPDX-License-Identifier: MIT */
/* Sparse log-linear histograms: quantiles, the tail, exact sums, Mann-Whitney U (hist.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic.h"
#include "base/escape.h"
#include "regions/hist.h"

uint64_t pmu__shist_total(const struct pmu__shist *h)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < h->len; k++)
		n += h->cnt[k];
	return n;
}

double pmu__shist_quantile(const struct pmu__shist *h, double q)
{
	uint64_t n = pmu__shist_total(h), rank, seen = 0;

	if (!n)
		return NAN;
	/* The least value with at least q of the calls at or below it. */
	rank = (uint64_t)(q * (double)n);
	rank += (double)rank < q * (double)n;	/* rounded up: no ceil(), no libm in libpmu.so */
	rank = rank < 1 ? 1 : rank > n ? n : rank;
	for (unsigned k = 0; k < h->len; k++)
		if ((seen += h->cnt[k]) >= rank)
			return pmu__hist_mid(h->idx[k]);
	return pmu__hist_mid(h->idx[h->len - 1]);
}

uint64_t pmu__shist_tail(const struct pmu__shist *h, uint64_t *from, double *tail, double *rest)
{
	uint64_t n = pmu__shist_total(h), need = (n + 99) / 100, in = 0;
	unsigned k = h->len;

	if (!n)
		return 0;
	while (k > 0 && in < need)
		in += h->cnt[--k];
	*from = pmu__hist_low(h->idx[k]);
	for (unsigned e = 0; e < h->nts; e++) {
		const uint64_t *s = h->ts + (size_t)e * h->len;
		double st = 0, sr = 0;

		for (unsigned j = 0; j < h->len; j++)
			*(j < k ? &sr : &st) += (double)s[j];
		tail[e] = st / (double)in;
		rest[e] = n > in ? sr / (double)(n - in) : NAN;
	}
	return in;
}

/* Event e's sum in h's bucket k (0 past the end: a bucket h has not). */
static uint64_t ts_at(const struct pmu__shist *h, unsigned e, unsigned k)
{
	return k < h->len ? h->ts[(size_t)e * h->len + k] : 0;
}

int pmu__shist_add(struct pmu__shist *dst, const struct pmu__shist *src, const int *map)
{
	size_t cap = (size_t)dst->len + src->len;
	uint32_t *idx = malloc(cap * sizeof(*idx));
	uint64_t *cnt = malloc(cap * sizeof(*cnt));
	uint64_t *ts = dst->nts ? malloc(cap * dst->nts * sizeof(*ts)) : NULL;
	unsigned i = 0, j = 0, k = 0;

	if (!cap) {
		free(idx), free(cnt), free(ts);
		return 0;
	}
	if (!idx || !cnt || (dst->nts && !ts)) {
		free(idx), free(cnt), free(ts);
		return -ENOMEM;
	}
	/* A merge of the two lists of buckets in order; a bucket both have adds. */
	while (i < dst->len || j < src->len) {
		uint32_t a = i < dst->len ? dst->idx[i] : UINT32_MAX, b = j < src->len ? src->idx[j] : UINT32_MAX;
		unsigned ii = a <= b ? i : dst->len, jj = b <= a ? j : src->len;

		idx[k] = a < b ? a : b;
		cnt[k] = (ii < dst->len ? dst->cnt[ii] : 0) + (jj < src->len ? src->cnt[jj] : 0);
		for (unsigned e = 0; e < dst->nts; e++)
			ts[e * cap + k] = ts_at(dst, e, ii) + (map && map[e] < 0 ? 0 : ts_at(src, map ? (unsigned)map[e] : e, jj));
		i += ii == i, j += jj == j, k++;
	}
	/* The sums' rows at the length k, not cap. */
	for (unsigned e = 1; e < dst->nts; e++)
		memmove(ts + (size_t)e * k, ts + e * cap, k * sizeof(*ts));
	pmu__shist_free(dst);
	*dst = (struct pmu__shist){ .len = k, .nts = dst->nts, .idx = idx, .cnt = cnt, .ts = ts };
	return 0;
}

int pmu__shist_add_set(struct pmu__shist **dst, const struct pmu__shist *src, unsigned nfig)
{
	if (!src)
		return 0;
	if (!*dst) {
		if (!(*dst = calloc(nfig, sizeof(**dst))))
			return -ENOMEM;
		(*dst)[0].nts = nfig;
	}
	for (unsigned i = 0; i < nfig; i++)
		if (pmu__shist_add(&(*dst)[i], &src[i], NULL) < 0)
			return -ENOMEM;
	return 0;
}

int pmu__shist_from(struct pmu__shist *h, const uint64_t *cnt, const uint64_t *const *ts, unsigned nts,
		    unsigned lo, unsigned hi)
{
	unsigned len = 0, k = 0;

	if (hi >= PMU_HIST_BUCKETS)
		hi = PMU_HIST_BUCKETS - 1;
	for (unsigned b = lo; b <= hi; b++)
		len += PMU_SEQ_LD(cnt[b]) != 0;
	*h = (struct pmu__shist){ .nts = nts };
	if (!len)
		return 0;
	h->idx = malloc(len * sizeof(*h->idx));
	h->cnt = malloc(len * sizeof(*h->cnt));
	h->ts = nts ? malloc((size_t)len * nts * sizeof(*h->ts)) : NULL;
	if (!h->idx || !h->cnt || (nts && !h->ts)) {
		pmu__shist_free(h);
		return -ENOMEM;
	}
	/* Within the len counted: a writer may have added buckets since (its seqcount then has the caller retry). */
	for (unsigned b = lo; b <= hi && k < len; b++) {
		uint64_t c = PMU_SEQ_LD(cnt[b]);

		if (!c)
			continue;
		h->idx[k] = b;
		h->cnt[k] = c;
		for (unsigned e = 0; e < nts; e++)
			h->ts[(size_t)e * len + k] = PMU_SEQ_LD(ts[e][b]);
		k++;
	}
	for (unsigned e = 1; e < nts && k < len; e++)	/* fewer than counted: the rows at stride k */
		memmove(h->ts + (size_t)e * k, h->ts + (size_t)e * len, k * sizeof(*h->ts));
	h->len = k;
	return 0;
}

int pmu__shist_widen(struct pmu__shist *h, unsigned nts)
{
	uint64_t *ts;

	if (nts <= h->nts)
		return 0;
	if (h->len) {
		if (!(ts = realloc(h->ts, (size_t)h->len * nts * sizeof(*ts))))
			return -ENOMEM;
		memset(ts + (size_t)h->len * h->nts, 0, (size_t)h->len * (nts - h->nts) * sizeof(*ts));
		h->ts = ts;
	}
	h->nts = nts;
	return 0;
}

void pmu__shist_free(struct pmu__shist *h)
{
	free(h->idx);
	free(h->cnt);
	free(h->ts);
	*h = (struct pmu__shist){ .nts = h->nts };
}

void pmu__hist_tail_text(FILE *f, const char *name, double tail, double rest, bool first)
{
	char e[PMU_ESC_SIZE];

	fprintf(f, "%s%s %.1f against ", first ? " " : ", ", pmu__report_esc(e, name), tail);
	if (isnan(rest))
		fputs("none", f);
	else
		fprintf(f, "%.1f", rest);
}
