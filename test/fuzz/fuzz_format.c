/* SPDX-License-Identifier: MIT */
/* sysfs format specs ("config1:0-7,32-35") and packing values into them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/field_get.h"
#include "parse/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu__field f, g;
	uint64_t cfg[4], v = 0;
	char buf[512];

	if (pmu__format_parse((const char *)data, size, &f) < 0)
		return 0;
	if (f.word > 3 || f.width < 1 || f.width > 64 || f.nr < 1 || f.nr > PMU_FIELD_RANGES ||
	    (unsigned)__builtin_popcountll(f.mask) != f.width)
		abort();
	/* printing and parsing again gives the same field */
	pmu__field_str(&f, buf, sizeof(buf));
	if (pmu__format_parse(buf, strlen(buf), &g) < 0 || g.word != f.word || g.mask != f.mask ||
	    g.width != f.width || g.nr != f.nr || memcmp(g.r, f.r, sizeof(f.r[0]) * f.nr))
		abort();
	for (size_t i = 0; i < size && i < 8; i++)
		v = v << 8 | data[i];
	if (f.width < 64)
		v &= (1ull << f.width) - 1;
	memset(cfg, 0x5a, sizeof(cfg));
	if (pmu__field_put(&f, v, cfg) || field_get(&f, cfg) != v)
		abort();
	for (unsigned w = 0; w < 4; w++)
		if ((cfg[w] ^ 0x5a5a5a5a5a5a5a5aull) & ~(w == f.word ? f.mask : 0))
			abort();
	if (f.width < 64 && pmu__field_put(&f, 1ull << f.width, cfg) != -ERANGE)
		abort();
	return 0;
}
