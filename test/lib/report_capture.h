/* SPDX-License-Identifier: MIT */
/* For the report tests: pmu_report() into a string. */
#ifndef PMU_TEST_REPORT_CAPTURE_H
#define PMU_TEST_REPORT_CAPTURE_H

#include "pmu.h"
#include "test.h"

/* The report in format, malloc'd (never NULL); a failure counts against the test. */
static inline char *t_report(const char *format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK_MSG(f && pmu_report(f, format) == 0, "pmu_report(%s): %s", format, pmu_errmsg());
	if (f)
		fclose(f);
	return buf ? buf : strdup("");
}

/*
 * A thread of the HTML tests: n calls of "work" (a 64 KiB buffer written),
 * then one of a region with a hostile name, <script>alert(1)</script>.
 */
#define T_HOSTILE "<script>alert(1)</script>"
static inline void *t_work_thread(void *arg)
{
	for (long i = 0; i < (long)arg; i++) {
		char *m = malloc(1 << 16);

		pmu_region_begin("work");
		if (m)
			memset(m, (int)i, 1 << 16);
		pmu_region_end("work");
		free(m);
	}
	pmu_region_begin(T_HOSTILE);
	pmu_region_end(T_HOSTILE);
	return NULL;
}

#endif
