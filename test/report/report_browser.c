/* SPDX-License-Identifier: MIT */
/*
 * The HTML reports in a real browser, Debian's chromium headless: a
 * process's report (threads) and pmu report merge's of 16 processes. Each
 * page loads with no console message, the regions' names and figures are
 * in the rendered DOM, the hostile name is text there and no element, no
 * number in an exponent's notation, the call paths' icicle there with each
 * box's figures in its title, the merged page with a 127-byte region
 * name fits a window of 1400 pixels, and a screenshot of each is kept in build/test-output (or $PMU_TEST_OUT; a
 * directory of /tmp where the build tree is another user's).
 */
#include <pmu.h>
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "report_capture.h"
#include "test.h"
#include "tool_run.h"


static char browser[64], outdir[PATH_MAX + 32], dom[1 << 20];

#define LONG_NAME "CalcCourantConstraintForElementsOfTheMeshWithAVeryLongNameThatGoesOnBeyondWhat...#205a24ea (lulesh.cc:1812) [parallel]"

/* chromium on page: its DOM into dom, a screenshot into png. 0, or -1 (said). */
static int render(const char *page, const char *png)
{
	char cmd[12 * PATH_MAX], log[PATH_MAX + 64];
	const char *flags = "--headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 "
			    "--window-size=1280,1600";
	int st;

	snprintf(log, sizeof(log), "%s/chromium.log", outdir);
	snprintf(cmd, sizeof(cmd), "HOME='%s' timeout 120 %s %s --user-data-dir='%s/profile' --dump-dom 'file://%s' "
		 ">'%s/dom.html' 2>'%s' && HOME='%s' timeout 120 %s %s --user-data-dir='%s/profile' "
		 "--screenshot='%s' 'file://%s' >/dev/null 2>>'%s'", outdir, browser, flags, outdir, page, outdir, log,
		 outdir, browser, flags, outdir, png, page, log);
	st = system(cmd);
	CHECK_MSG(st == 0, "%s: exit %d", cmd, st);
	snprintf(cmd, sizeof(cmd), "%s/dom.html", outdir);
	t_slurp(cmd, dom, sizeof(dom));
	t_slurp(log, err, sizeof(err));
	/* no console message (no script runs) and nothing fetched */
	CHECK_MSG(!strstr(err, "CONSOLE") && !strstr(err, "Failed to load resource") && !strstr(err, "net::ERR"),
		  "%s", err);
	CHECK_MSG(access(png, R_OK) == 0, "no screenshot %s", png);
	return st == 0 ? 0 : -1;
}

/*
 * How wide page lays out in a window of 1400 pixels: a copy of it with a
 * script that puts the document's scroll width in the title. -1 when unread.
 */
static long page_width(const char *page)
{
	char copy[PATH_MAX + 96], cmd[6 * PATH_MAX], *t;
	FILE *f;

	snprintf(copy, sizeof(copy), "%s.width.html", page);
	snprintf(cmd, sizeof(cmd), "sed 's|</body>|<script>document.title = \"W\" + "
		 "document.documentElement.scrollWidth;</script></body>|' '%s' >'%s'", page, copy);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "HOME='%s' timeout 120 %s --headless --no-sandbox --disable-gpu --window-size=1400,900 "
		 "--user-data-dir='%s/profile' --dump-dom 'file://%s' 2>/dev/null", outdir, browser, outdir, copy);
	f = popen(cmd, "r");
	t = f ? fgets(dom, sizeof(dom), f) : NULL;
	while (f && fgets(dom, sizeof(dom), f) && !strstr(dom, "<title>W"))
		;
	if (f)
		pclose(f);
	t = strstr(dom, "<title>W");
	return t ? atol(t + 8) : -1;
}

/* 16 processes, each its own regions and report, merged by the tool into merged.html. */
static void merged_page(void)
{
	char page[PATH_MAX + 64], png[PATH_MAX + 64];
	long w;

	for (int p = 0; p < 16; p++) {
		pid_t pid = fork();

		if (pid == 0) {
			char name[PATH_MAX + 64];

			snprintf(name, sizeof(name), "%s/proc-%%p.json", outdir);
			if (pmu_thread_init("task-clock,page-faults") < 0)
				_exit(1);
			t_work_thread((void *)(long)(p + 1));
			pmu_region_begin(LONG_NAME);	/* as libpmu-omp names C++ constructs: 127 bytes */
			pmu_region_end(LONG_NAME);
			_exit(pmu_report_path(name, NULL) < 0);
		}
		CHECK(pid > 0);
	}
	while (wait(NULL) > 0)
		;
	CHECK_MSG(run("", tool, "report merge -o '%s/merged.html' %s/proc-*.json", outdir, outdir) == 0, "%s", err);
	snprintf(page, sizeof(page), "%s/merged.html", outdir);
	snprintf(png, sizeof(png), "%s/merged.png", outdir);
	if (render(page, png) == 0)
		CHECK_MSG(strstr(dom, "16 processes, 3 regions") && strstr(dom, "<td>work</td><td>16</td><td>136</td>") &&
			  strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;") && !strcasestr(dom, "<script") &&
			  strstr(dom, "<table class=\"heat\">") && !strstr(dom, "e+0"), "%.3000s", dom);
	/* a 127-byte region name and the processes' names: the page still fits a window of 1400 pixels */
	w = page_width(page);
	CHECK_MSG(w > 0 && w <= 1400, "the merged page lays out %ld pixels wide in a window of 1400", w);
	printf("the merged page, with a region name of 127 bytes, is %ld pixels wide in a window of 1400\n", w);
}

int main(void)
{
	char page[PATH_MAX + 64], png[PATH_MAX + 64], cmd[3 * PATH_MAX];
	pthread_t t[4];
	const char *o = getenv("PMU_TEST_OUT");

	if (find())
		T_SKIP("the pmu tool not found next to this test");
	for (const char *const *b = (const char *const[]){ "chromium", "chromium-browser", "google-chrome", NULL }; *b;
	     b++) {
		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", *b);
		if (!browser[0] && system(cmd) == 0)
			snprintf(browser, sizeof(browser), "%s", *b);
	}
	if (!browser[0])
		T_SKIP("no browser to render the HTML reports in (Debian: chromium)");
	snprintf(outdir, sizeof(outdir), "%s", o && *o ? o : tool);
	if (!(o && *o))	/* build/pmu: build/test-output */
		snprintf(strrchr(outdir, '/') ? strrchr(outdir, '/') + 1 : outdir, 16, "test-output");
	mkdir(outdir, 0777);
	if (access(outdir, W_OK) != 0) {	/* a build tree of another user's (the unprivileged tier): a directory of ours */
		snprintf(outdir, sizeof(outdir), "/tmp/pmu-test-output.XXXXXX");
		if (!mkdtemp(outdir))
			T_SKIP("no directory to keep the pages and screenshots in: %s", strerror(errno));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/proc-*.json '%s'/profile", outdir, outdir);
	CHECK(system(cmd) == 0);
	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	for (long i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, t_work_thread, (void *)(5 * (i + 1))) == 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pmu_region_begin("solver");	/* nested paths: the icicle */
	t_work_thread((void *)3L);
	pmu_region_end("solver");
	snprintf(page, sizeof(page), "%s/report.html", outdir);
	snprintf(png, sizeof(png), "%s/report.png", outdir);
	CHECK_MSG(pmu_report_path(page, NULL) == 0, "%s", pmu_errmsg());
	pmu_thread_fini();
	if (render(page, png) == 0)
		CHECK_MSG(strstr(dom, ">work</td><td>53</td>") && strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;") &&
			  !strcasestr(dom, "<script") && strstr(dom, "<h2>Imbalance</h2>") &&
			  strstr(dom, "<div class=\"flame\">") && strstr(dom, "title=\"work: 3 calls, total ") &&
			  strstr(dom, "\">&lt;script&gt;alert(1)&lt;/script&gt;</div><div class=\"fk\">"), "%.3000s", dom);
	merged_page();
	printf("screenshots: %s/report.png %s/merged.png\n", outdir, outdir);
	T_DONE();
}
