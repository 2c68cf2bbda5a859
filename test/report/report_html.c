/* SPDX-License-Identifier: MIT */
/*
 * The HTML region report (pmu_report(f, "html"), PMU_REPORT=NAME.html): one
 * page that stands alone (no script, nothing fetched), the regions' figures
 * in its table as a tree (each region under the one around its first call,
 * the json's "parent"), a thread's bars and the heatmap, and every name escaped: a
 * region named <script>alert(1)</script> is text; figures in one notation.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

#include <pmu.h>

#include "report/html.h"
#include "report_capture.h"
#include "test.h"

#define QUOTES "a \"b\" & 'c'"

/* A figure's cell as the pages write it. */
static void num_is(double x, const char *want)
{
	char buf[64] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	pmu__html_num(f, x);
	fclose(f);
	CHECK_MSG(!strcmp(buf, want), "%g: \"%s\", not \"%s\"", x, buf, want);
}

int main(void)
{
	pthread_t t[4];
	char *buf;

	/* one notation down a column: a mean of ns under whole counts is no 1.25e+04 */
	num_is(1053824, "1053824");
	num_is(12498.8, "12499");
	num_is(2.5, "2.50");
	num_is(0.001234, "0.00123");
	num_is(3e17, "3e+17");
	num_is(NAN, "-");

	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	for (long i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, t_work_thread, (void *)(5 * (i + 1))) == 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pmu_region_begin(QUOTES);
	pmu_region_end(QUOTES);
	pmu_region_begin("outer");
	pmu_region_begin("inner");
	pmu_region_end("inner");
	pmu_region_end("outer");
	buf = t_report("html");
	CHECK_MSG(buf && !strncmp(buf, "<!DOCTYPE html>\n<html lang=\"en\">", 31), "%.200s", buf ? buf : "");
	CHECK_MSG(buf && strstr(buf, "<tr><td style=\"padding-left: 0.6em\">work</td><td>50</td>"),
		  "work's 50 calls in the table");
	CHECK_MSG(buf && strstr(buf, ">&lt;script&gt;alert(1)&lt;/script&gt;</td><td>4</td>"), "the hostile name as text");
	CHECK_MSG(buf && strstr(buf, ">a &quot;b&quot; &amp; &#39;c&#39;</td>"), "quotes and ampersand");
	/* the tree: inner under outer */
	CHECK_MSG(buf && strstr(buf, "<tr><td style=\"padding-left: 0.6em\">outer</td>") &&
		  strstr(buf, "<tr><td style=\"padding-left: 2.1em\">inner</td>"), "the region tree");
	CHECK_MSG(buf && !strcasestr(buf, "<script") && !strstr(buf, "http:") && !strstr(buf, "https:") &&
		  !strcasestr(buf, " src="), "no script, nothing fetched");
	CHECK_MSG(buf && strstr(buf, "<h2>Threads</h2>\n<h3>work</h3>") && strstr(buf, "<h2>Imbalance</h2>") &&
		  strstr(buf, "<table class=\"heat\">\n<tr><td>work</td>"), "bars and heatmap");
	CHECK_MSG(buf && strstr(buf, "</body>\n</html>\n"), "the page ends");
	free(buf);
	buf = t_report("json");
	CHECK_MSG(strstr(buf, "\"name\": \"inner\", \"parent\": \"outer\"") &&
		  strstr(buf, "\"name\": \"outer\", \"parent\": null"), "the json's parents");
	free(buf);
	/* by the file's name, and refused by name otherwise */
	CHECK(pmu_report(stderr, "htm") == -EINVAL && strstr(pmu_errmsg(), "htm: unknown report format (use table, "
								       "csv, json, html, trace, prometheus, openmetrics, folded, hatchet or json-split)"));
	pmu_thread_fini();
	T_DONE();
}
