/* SPDX-License-Identifier: MIT */
/*
 * Distributions through the tools: pmu report merge adds the histograms of
 * three processes' reports exactly (every bucket's calls and sums), and a
 * merge of a merge gives what one merge of all gives; pmu report diff
 * compares quantiles with the Mann-Whitney U test, which --fail-if gates on
 * (a process whose calls fault 64 pages against 1: several times slower
 * on any machine, loaded or emulated, so the gate at +10% is no race);
 * histograms of another scheme or out of order are refused, naming the
 * file and the region.
 */
#include <errno.h>
#include <sys/wait.h>

#include "pmu.h"
#include "test.h"
#include "tool_run.h"
#include "parse/json.h"

static char dir[256];

/* A child process's report dir/pK.json: 200 calls of "work" faulting pages in, with histograms. */
static void child_report(int k, int pages)
{
	char path[512];
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/p%d.json", dir, k);
		if (pmu_thread_init("page-faults") < 0 || pmu_region_histograms(1) < 0)
			_exit(2);
		for (int i = 0; i < 200; i++) {
			pmu_region_begin("work");
			t_touch_pages(pages);
			pmu_region_end("work");
		}
		_exit(pmu_report_path(path, "json") < 0 ? 3 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The "dist" of region "work" in the json file at path (the tree in *root, to free). */
static const struct pmu__json *work_dist(const char *path, struct pmu__json **root)
{
	const struct pmu__json *regs;

	*root = NULL;
	CHECK_MSG(pmu__json_load(path, root) == 0, "%s", pmu_errmsg());
	regs = *root ? pmu__json_get(*root, "regions") : NULL;
	for (size_t i = 0; regs && i < regs->n; i++)
		if (!strcmp(pmu__json_get(&regs->v[i], "name")->s, "work"))
			return pmu__json_get(&regs->v[i], "dist");
	return NULL;
}

/* Calls over the ns buckets of a dist. */
static uint64_t dist_calls(const struct pmu__json *d)
{
	const struct pmu__json *b = pmu__json_get(pmu__json_get(d, "ns"), "buckets");
	uint64_t n = 0, x;

	for (size_t k = 0; b && k < b->n; k++)
		n += pmu__json_u64(&b->v[k].v[1], &x) ? x : 0;
	return n;
}

/* Two dists' ns buckets (index, calls and every sum) equal. */
static bool same_buckets(const struct pmu__json *a, const struct pmu__json *b)
{
	const struct pmu__json *x = pmu__json_get(pmu__json_get(a, "ns"), "buckets");
	const struct pmu__json *y = pmu__json_get(pmu__json_get(b, "ns"), "buckets");

	if (!x || !y || x->n != y->n)
		return false;
	for (size_t k = 0; k < x->n; k++)
		for (size_t j = 0; j < x->v[k].n; j++)
			if (j >= y->v[k].n || strcmp(x->v[k].v[j].s, y->v[k].v[j].s))
				return false;
	return true;
}

static void check_merge(void)
{
	char p[3][300], m01[300], all[300], mm[300];
	struct pmu__json *ra, *rb;
	const struct pmu__json *da, *db;

	for (int k = 0; k < 3; k++)
		snprintf(p[k], sizeof(p[k]), "%s/p%d.json", dir, k);
	snprintf(m01, sizeof(m01), "%s/m01.json", dir);
	snprintf(all, sizeof(all), "%s/all.json", dir);
	snprintf(mm, sizeof(mm), "%s/mm.json", dir);
	CHECK_RUN(PMU("report", "merge", "--format", "json", "-o", m01, p[0], p[1]) == 0, "merge of two");
	CHECK_RUN(PMU("report", "merge", "--format", "json", "-o", all, p[0], p[1], p[2]) == 0, "merge of three");
	CHECK_RUN(PMU("report", "merge", "--format", "json", "-o", mm, m01, p[2]) == 0, "merge of a merge");
	da = work_dist(all, &ra);
	db = work_dist(mm, &rb);
	CHECK_MSG(da && dist_calls(da) == 600, "merged histograms: %llu calls", (unsigned long long)dist_calls(da));
	CHECK_MSG(da && db && same_buckets(da, db), "a merge of a merge differs from one merge");
	pmu__json_free(ra);
	pmu__json_free(rb);
	CHECK_RUN(PMU("report", "merge", p[0], p[1], p[2]) == 0 && strstr(out, "slowest 1% of work (3 processes)"),
		  "the merged table's tail");
	/* the merged csv keeps them: the columns of a process's csv, on each region's total row */
	CHECK_RUN(PMU("report", "merge", "--format", "csv", p[0], p[1], p[2]) == 0 &&
		  strstr(out, ",ns_p50,ns_p90,ns_p99,ns_p99.9,") && strstr(out, ",tail_calls,tail_ns_from,tail(ns),rest(ns)"),
		  "the merged csv's distribution columns");
	CHECK_MSG(strstr(out, "\nwork,3,total,,600,"), "%s", out);
	/* and the metrics formats: summaries over the 600 calls */
	CHECK_RUN(PMU("report", "merge", "--format", "openmetrics", p[0], p[1], p[2]) == 0 &&
		  strstr(out, "pmu_region_call_seconds_count{region=\"work\",thread=\"total\"} 600\n") &&
		  strstr(out, "pmu_info{library=\"libpmu ") && strstr(out, "processes=\"3\"") && strstr(out, "# EOF\n"),
		  "the merged OpenMetrics summaries");
}

static void check_diff(void)
{
	char a[300], b[300];

	snprintf(a, sizeof(a), "%s/p0.json", dir);
	snprintf(b, sizeof(b), "%s/p2.json", dir);
	CHECK_RUN(PMU("report", "diff", a, a) == 0 && strstr(out, "ns_p99") && strstr(out, "Mann-Whitney U"),
		  "a report against itself");
	CHECK_RUN(PMU("report", "diff", "--format", "json", a, b) == 0 &&
		  strstr(out, "\"figure\": \"ns_p50\"") && strstr(out, "\"test\": \"mann-whitney-u\""), "diff json");
	CHECK_RUN(PMU("report", "diff", "--fail-if", "work@ns_p50:+10%", a, b) == 1 && strstr(err, "FAIL ns_p50"),
		  "the gate on a quantile");
	CHECK_RUN(PMU("report", "diff", "--fail-if", "work@ns_p50:+10%", a, a) == 0, "no change, no failure");
}

/* p0.json with from replaced by to (once), written to name: refused by merge, with why. */
static void check_bad(const char *name, const char *from, const char *to, const char *why)
{
	static char text[1 << 20];
	char src[300], dst[300], *at;
	FILE *f;

	snprintf(src, sizeof(src), "%s/p0.json", dir);
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	t_slurp(src, text, sizeof(text) - 256);
	at = strstr(text, from);
	CHECK_MSG(at, "no %s in the report", from);
	if (!at || !(f = fopen(dst, "w")))
		return;
	fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	fclose(f);
	CHECK_RUN(PMU("report", "merge", dst) == 1 && strstr(err, name) && strstr(err, "region \"work\"") &&
		  strstr(err, why), "%s", name);
}

int main(void)
{
	if (find() < 0)
		T_SKIP("the pmu tool is not built beside the test");
	if (t_tmpdir(dir, sizeof(dir), "dist-tools"))
		T_SKIP("no temporary directory");
	child_report(0, 1);
	child_report(1, 1);
	child_report(2, 64);
	check_merge();
	check_diff();
	check_bad("scheme.json", "\"log-linear-64\"", "\"log-linear-32\"", "this pmu reads");
	check_bad("order.json", "\"buckets\": [[", "\"buckets\": [[4000, 1, 0, 0], [", "out of order or past");
	T_DONE();
}
