/* SPDX-License-Identifier: MIT */
/* Term lists ("event=0x3c,umask=1,any,ldlat=?") and their numbers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *p = size ? s : NULL, *end = s + size;
	struct pmu__term t;
	uint64_t v;
	int r, n = 0;

	while ((r = pmu__term_next(&p, end, &t)) > 0) {
		if (t.name < s || t.name + t.nlen > end || !t.nlen)
			abort();
		if (t.val && (t.val < s || t.val + t.vlen > end || !t.vlen))
			abort();
		if (t.val) {
			r = pmu__term_value(t.val, t.vlen, &v);
			if (r != 0 && r != 1 && r != -EINVAL && r != -ERANGE)
				abort();
		}
		if (++n > (int)size + 1)
			abort();	/* always moves forward */
	}
	if (r != 0 && r != -EINVAL)
		abort();
	return 0;
}
