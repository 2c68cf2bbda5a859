/* SPDX-License-Identifier: MIT */
/* Regions' histograms: their blocks, the fold of exited threads, the reports' copy, the switch (region_hist.h). */
#include <string.h>
#include <sys/mman.h>

#include "regions/region_hist.h"

static int hist_default = -1;	/* atomic: pmu_region_histograms()'s last, -1: none (PMU_HISTOGRAMS) */
static bool said_env;

struct pmu__hblk *pmu__hblk_new(unsigned n)
{
	size_t bytes = pmu__hblk_head(n) + (2 * (size_t)n + 2) * PMU_HIST_BUCKETS * sizeof(uint64_t);
	/* Mapped, not allocated: untouched pages cost no memory, and most buckets are never touched. */
	struct pmu__hblk *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (h == MAP_FAILED)
		return NULL;
	h->bytes = bytes;
	return h;
}

void pmu__hblk_free(struct pmu__hblk *h)
{
	if (h)
		munmap(h, h->bytes);
}

/* Adds counters s[lo, end) into d's. */
static void add_row(uint64_t *d, const uint64_t *s, unsigned lo, unsigned end)
{
	for (unsigned b = lo; b < end; b++)
		d[b] += s[b];
}

int pmu__hblk_fold(struct pmu__hblk **into, const struct pmu__hblk *from, unsigned n)
{
	struct pmu__hblk *d = *into;

	if (!from)
		return 0;
	if (!d && !(d = *into = pmu__hblk_new(n)))
		return -ENOMEM;
	for (unsigned f = 0; f <= n; f++) {
		unsigned lo = from->r[f].lo, end = from->r[f].end;

		if (!end)
			continue;
		add_row(pmu__hblk_cnt(d, n, f), pmu__hblk_cnt(from, n, f), lo, end);
		for (unsigned i = 0; f == 0 && i <= n; i++)	/* the sums live over ns's buckets */
			add_row(pmu__hblk_ts(d, n, i), pmu__hblk_ts(from, n, i), lo, end);
		if (!d->r[f].end || lo < d->r[f].lo)
			d->r[f].lo = lo;
		if (end > d->r[f].end)
			d->r[f].end = end;
	}
	return 0;
}

int pmu__hblk_copy(const struct pmu__hblk *h, unsigned n, struct pmu__shist *out)
{
	const uint64_t *ts[n + 1];

	for (unsigned i = 0; i <= n; i++)
		ts[i] = pmu__hblk_ts(h, n, i);
	for (unsigned f = 0; f <= n; f++) {
		unsigned end = PMU_SEQ_LD(h->r[f].end), lo = end ? PMU_SEQ_LD(h->r[f].lo) : 0;

		pmu__shist_free(&out[f]);
		out[f].nts = f ? 0 : n + 1;
		if (end && pmu__shist_from(&out[f], pmu__hblk_cnt(h, n, f), ts, f ? 0 : n + 1, lo, end - 1) < 0)
			return -ENOMEM;
	}
	return 0;
}

bool pmu__hist_wanted(void)
{
	int d = PMU_READ_ONCE(hist_default);

	return d >= 0 ? d : pmu__env_switch("PMU_HISTOGRAMS", &said_env, "regions keep no histograms");
}

void pmu__hist_set_default(bool on)
{
	PMU_WRITE_ONCE(hist_default, on);
}
