/* SPDX-License-Identifier: MIT */
/*
 * The call paths for the tools that analyse trees: "folded" (by ns, by
 * an event), "hatchet" and "json-split" hold every path of the json report
 * with its figures, in the shape their readers take (tree_check.py), with
 * hostile names (';', quotes, markup, a newline, an escape) in two threads;
 * the csv's rows of paths; the HTML page's icicle; a figure the report does not count, or an unknown
 * format, refused with a message naming it, and no file made.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "report_capture.h"

#define ODD "a;b \"<i>q</i>\"\n\x1b[1m\\"

static void *nest(void *arg)
{
	(void)arg;
	pmu_region_begin("main");
	for (int i = 0; i < 3; i++) {
		pmu_region_begin("step");
		pmu_region_begin(ODD);
		t_touch_pages(4);
		pmu_region_end(ODD);
		pmu_region_begin("solve");
		t_touch_pages(2);
		pmu_region_end("solve");
		pmu_region_end("step");
	}
	pmu_region_begin("solve");
	t_touch_pages(1);
	pmu_region_end("solve");
	pmu_region_end("main");
	return NULL;
}

static void write_as(const char *dir, const char *name, const char *format)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK_MSG(pmu_report_path(path, format) == 0, "%s (%s): %s", name, format, pmu_errmsg());
}

/* format refused with a message holding want, and no file. */
static void refused(const char *dir, const char *format, const char *want)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/refused", dir);
	CHECK_MSG(pmu_report_path(path, format) == -EINVAL && strstr(pmu_errmsg(), want), "%s: %s", format,
		  pmu_errmsg());
	CHECK_MSG(access(path, F_OK) != 0, "%s: a file was made", format);
}

int main(void)
{
	char dir[4096], cmd[4300];
	pthread_t t;
	const char *html;
	int st;

	if (t_tmpdir(dir, sizeof(dir), "tree"))
		return 1;
	CHECK_MSG(pmu_thread_init("page-faults") == 0, "%s", pmu_errmsg());
	CHECK(pmu_region_histograms(1) == 0);	/* csv's distribution columns before the paths' */
	CHECK(pthread_create(&t, NULL, nest, NULL) == 0 && pthread_join(t, NULL) == 0);
	nest(NULL);
	write_as(dir, "report.json", NULL);
	write_as(dir, "tree.folded", "folded:ns");
	write_as(dir, "tree.folded-ev", "folded:page-faults");
	write_as(dir, "tree.hatchet", "hatchet");
	write_as(dir, "tree.split", "json-split");
	write_as(dir, "tree.csv", "csv");
	write_as(dir, "page.html", NULL);
	if (system("command -v python3 >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof(cmd), "python3 test/report/tree_check.py '%s'", dir);
		st = system(cmd);
		CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tree_check.py: status %d", st);
	} else {	/* the kernel tiers' guests */
		printf("no python3 here: the exports are not read back against the json report\n");
	}

	/* the icicle: each region a box titled with its figures, the odd name as text */
	html = t_file_in(dir, "page.html");
	CHECK(html && strstr(html, "<h2>Call paths</h2>") && strstr(html, "<div class=\"flame\">"));
	CHECK(html && strstr(html, "title=\"step: 6 calls, total "));
	CHECK(html && strstr(html, ">a;b &quot;&lt;i&gt;q&lt;/i&gt;&quot;\\n\\x1b[1m\\\\</div>"));
	CHECK(html && !strstr(html, "<i>q"));

	refused(dir, "folded:cycles", "folded:cycles: the report counts no figure cycles");
	refused(dir, "flame", "flame: unknown report format (use table, csv, json, html, trace, prometheus, "
		"openmetrics, folded, hatchet or json-split)");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
