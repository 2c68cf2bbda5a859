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

#endif
