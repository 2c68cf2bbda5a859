/* SPDX-License-Identifier: MIT */
/*
 * A program under a decimal-comma locale (de_DE) still gets csv and json
 * that parse: numbers with a point, no extra csv column. The table may
 * follow the locale. Skips where the locale is not installed.
 */
#include <locale.h>

#include "report_capture.h"

/* Commas in each line are as many as in the first (no field is quoted here). */
static int same_columns(const char *s)
{
	int first = -1, n = 0;

	for (; *s; s++) {
		if (*s == ',')
			n++;
		if (*s == '\n') {
			if (first < 0)
				first = n;
			else if (n != first)
				return 0;
			n = 0;
		}
	}
	return first > 0;
}

int main(void)
{
	const char *p;
	char *out;
	double x;
	size_t k;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	if (!setlocale(LC_ALL, "de_DE.UTF-8") && !setlocale(LC_ALL, "de_DE.utf8"))
		T_SKIP("no de_DE.UTF-8 locale here (apt-get install locales; localedef -i de_DE -f UTF-8 de_DE.UTF-8)");
	if (strcmp(localeconv()->decimal_point, ","))
		T_SKIP("de_DE's decimal point is '%s' here, not ','", localeconv()->decimal_point);
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	for (int i = 0; i < 3; i++) {
		CHECK(pmu_region_begin("work") == 0);
		t_touch_pages(1 + i);
		CHECK(pmu_region_end("work") == 0);
	}

	out = t_report("csv");
	CHECK_MSG(same_columns(out), "%s", out);
	p = strstr(out, "\nwork,total,,3,");
	CHECK_MSG(p && sscanf(p, "\nwork,total,,3,%*u,%lf,", &x) == 1 && x > 0 && strchr(p, '.'), "%s", out);
	free(out);

	out = t_report("json");
	p = strstr(out, "\"ns_per_call\": ");
	k = p ? strspn(p + 15, "0123456789.") : 0;
	CHECK_MSG(k > 2 && memchr(p + 15, '.', k) && p[15 + k] == ',', "%s", out);
	free(out);

	/* The table follows the locale, as perf stat's does. */
	out = t_report("table");
	CHECK_MSG(strstr(out, "\nwork "), "%s", out);
	free(out);

	/* The host program's locale is its own again afterwards. */
	CHECK(!strcmp(localeconv()->decimal_point, ","));
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
