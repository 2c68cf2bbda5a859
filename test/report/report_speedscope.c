/* SPDX-License-Identifier: MIT */
/*
 * The folded report read by a reader the project did not write: speedscope
 * (npm's package) in headless Chromium opens it, and its sandwich view gives
 * each name the self and total that the collapsed stacks hold, a hostile
 * name among them (speedscope_check.py). speedscope is looked for in
 * $PMU_SPEEDSCOPE (its dist/release), else in ~/.cache/libpmu-npm, where
 * .ci/run installs it; skipped, saying so, where it or a browser is missing.
 */
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "report_capture.h"

#define ODD "<script>alert(1)</script>;\"q\""

int main(void)
{
	char rel[PATH_MAX], dir[PATH_MAX], cmd[4 * PATH_MAX], browser[32] = "";
	const char *env = getenv("PMU_SPEEDSCOPE"), *home = getenv("HOME");
	int st;

	if (env && *env)
		snprintf(rel, sizeof(rel), "%s", env);
	else
		snprintf(rel, sizeof(rel), "%s/.cache/libpmu-npm/node_modules/speedscope/dist/release", home ? home : "");
	if (access(rel, R_OK) != 0)
		T_SKIP("speedscope is not installed (npm install --prefix ~/.cache/libpmu-npm speedscope, or "
		       "PMU_SPEEDSCOPE=its dist/release): %s", rel);
	for (const char *const *b = (const char *const[]){ "chromium", "chromium-browser", NULL }; *b; b++) {
		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", *b);
		if (!browser[0] && system(cmd) == 0)
			snprintf(browser, sizeof(browser), "%s", *b);
	}
	if (!browser[0])
		T_SKIP("no browser to run speedscope in (Debian: chromium)");
	if (t_tmpdir(dir, sizeof(dir), "speedscope"))
		return 1;
	CHECK_MSG(pmu_thread_init("page-faults") == 0, "%s", pmu_errmsg());
	pmu_region_begin("main");
	for (int i = 0; i < 3; i++) {
		pmu_region_begin("step");
		pmu_region_begin(ODD);
		t_touch_pages(30);
		pmu_region_end(ODD);
		pmu_region_begin("solve");
		t_touch_pages(20);
		pmu_region_end("solve");
		pmu_region_end("step");
	}
	pmu_region_begin("solve");
	t_touch_pages(10);
	pmu_region_end("solve");
	pmu_region_end("main");
	snprintf(cmd, sizeof(cmd), "%s/profile.folded", dir);
	CHECK_MSG(pmu_report_path(cmd, "folded:ns") == 0, "%s", pmu_errmsg());
	snprintf(cmd, sizeof(cmd), "python3 test/report/speedscope_check.py '%s/profile.folded' '%s' %s '%s'", dir, rel,
		 browser, dir);
	st = system(cmd);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		T_SKIP("speedscope could not be served on loopback here");
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "speedscope_check.py: status %d", st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
