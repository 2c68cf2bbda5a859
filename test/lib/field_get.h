/* SPDX-License-Identifier: MIT */
#ifndef PMU_TEST_FIELD_GET_H
#define PMU_TEST_FIELD_GET_H

#include "parse/format.h"

/* A field read back from the config words: the inverse of pmu__field_put(), which the library needs alone. */
static inline uint64_t field_get(const struct pmu__field *f, const uint64_t cfg[4])
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (unsigned i = 0; i < f->nr; i++) {
		unsigned n = f->r[i].hi - f->r[i].lo + 1;
		uint64_t m = n == 64 ? ~0ull : (1ull << n) - 1;

		if (shift < 64)
			v |= (cfg[f->word] >> f->r[i].lo & m) << shift;
		shift += n;
	}
	return v;
}

#endif
