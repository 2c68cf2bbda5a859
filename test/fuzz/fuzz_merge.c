/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge's reader over any bytes, as one input of a merge (a
 * process's report or a merged one: regions, histograms, call paths): a
 * merge or a refusal that names the input, never a crash, a leak or a
 * read past the end. A merge made is written as json, and that merges
 * again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmu.h>

#include "report/merge.h"

static bool said(const char *msg)
{
	return !strncmp(msg, "in.json", 7);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct merge m = { 0 }, again = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int e = pmu__merge_add_buf(&m, "in.json", (const char *)data, size);

	if (e < 0) {
		if ((e != -EINVAL && e != -ENOMEM && e != -ERANGE) || !said(pmu_errmsg()))
			abort();
		pmu__merge_free(&m);
		return 0;
	}
	if (pmu__merge_done(&m) < 0) {	/* no event common to all, say */
		pmu__merge_free(&m);
		return 0;
	}
	if (!(f = open_memstream(&buf, &len)))
		abort();
	if (pmu__merge_write(f, &m, "json") < 0)
		abort();
	fclose(f);
	if (pmu__merge_add_buf(&again, "again.json", buf, len) < 0)
		abort();
	free(buf);
	pmu__merge_free(&again);
	pmu__merge_free(&m);
	return 0;
}
