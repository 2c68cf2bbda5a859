/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge over fixed reports (test/fixtures/reports: exact table,
 * csv and json, the common-events note) and over reports written by this
 * build's library in three child processes (totals, min, mean and max per
 * process checked against each file, outputs parsed back); their call
 * paths summed, the same when merged again, and a bad "paths" refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pmu.h"
#include "report/report_read.h"
#include "test.h"
#include "tool_run.h"

#define FIX "test/fixtures/reports/"


/* The whole file, NUL-terminated, into a static buffer ("" when unreadable). */
static const char *slurp(const char *path)
{
	static char buf[1 << 16];

	t_slurp(path, buf, sizeof(buf));
	return buf;
}

/* The number at obj.k1.k2... (NULL-terminated keys); -1 when absent. */
static double num(const struct pmu__json *v, ...)
{
	va_list ap;
	const char *k;
	double x;

	va_start(ap, v);
	while (v && (k = va_arg(ap, const char *)))
		v = pmu__json_get(v, k);
	va_end(ap);
	return v && pmu__json_double(v, &x) ? x : -1;
}

/* Region name of a merged json document. */
static const struct pmu__json *region(const struct pmu__json *doc, const char *name)
{
	const struct pmu__json *regs = pmu__json_get(doc, "regions");

	for (size_t i = 0; regs && i < regs->n; i++) {
		const struct pmu__json *n = pmu__json_get(&regs->v[i], "name");

		if (n && n->type == PMU_JSON_STRING && !strcmp(n->s, name))
			return &regs->v[i];
	}
	return NULL;
}

static void fixtures(void)
{
	char expect[1 << 16];
	const char *f, *at;
	struct pmu__json *doc;
	const struct pmu__json *r;

	/* exactly the outputs kept */
	CHECK_EQ(PMU("report", "merge", FIX "a.json", FIX "b.json"), 0);
	snprintf(expect, sizeof(expect), "%s", slurp(FIX "merged-ab.txt"));
	CHECK_MSG(expect[0] && !strcmp(out, expect), "table:\n%s\nexpected:\n%s", out, expect);
	CHECK_MSG(!err[0], "%s", err);
	CHECK_EQ(PMU("report", "merge", "--format", "csv", FIX "a.json", FIX "b.json"), 0);
	snprintf(expect, sizeof(expect), "%s", slurp(FIX "merged-ab.csv"));
	CHECK_MSG(expect[0] && !strcmp(out, expect), "csv:\n%s\nexpected:\n%s", out, expect);
	CHECK_EQ(PMU("report", "merge", "--format=json", FIX "a.json", FIX "b.json"), 0);
	/* the merging tool's own version heads the document */
	f = slurp(FIX "merged-ab.json");
	at = strstr(f, "@VERSION@");
	snprintf(expect, sizeof(expect), "%.*s%s%s", at ? (int)(at - f) : 0, f, pmu_version(), at ? at + 9 : "");
	CHECK_MSG(expect[0] && !strcmp(out, expect), "json:\n%s\nexpected:\n%s", out, expect);

	/* the json read back: totals, spread, and the per call ranges where both gave them */
	CHECK_MSG(pmu__json_parse("merged", out, strlen(out), &doc) == 0, "%s", pmu_errmsg());
	r = pmu__json_get(doc, "processes");
	CHECK_EQ(r ? r->n : 0, 2);
	CHECK_EQ(r && r->n == 2 ? num(&r->v[1], "pid", NULL) : 0, 202);
	r = region(doc, "compute");
	CHECK(r != NULL);
	CHECK_EQ(num(r, "processes", NULL), 2);
	CHECK_EQ(num(r, "calls", NULL), 20);
	CHECK_EQ(num(r, "ns", NULL), 4000000);
	CHECK_EQ(num(r, "counts", "task-clock", NULL), 3700000);
	CHECK_EQ(num(r, "counts", "page-faults", NULL), 192);
	CHECK_EQ(num(r, "per_process", "ns", "min", NULL), 1000000);
	CHECK_EQ(num(r, "per_process", "ns", "min_process", NULL), 0);
	CHECK_EQ(num(r, "per_process", "ns", "mean", NULL), 2000000);
	CHECK_EQ(num(r, "per_process", "ns", "max", NULL), 3000000);
	CHECK_EQ(num(r, "per_process", "ns", "max_process", NULL), 1);
	CHECK_EQ(num(r, "per_process", "counts", "page-faults", "mean", NULL), 96);
	CHECK_EQ(num(r, "ns_min", NULL), 90000);
	CHECK_EQ(num(r, "ns_max", NULL), 400000);
	CHECK_EQ(num(r, "min", "page-faults", NULL), 6);
	CHECK_EQ(num(r, "max", "task-clock", NULL), 380000);
	r = region(doc, "exchange");
	CHECK(r && !pmu__json_get(r, "ns_min") && !pmu__json_get(r, "min"));	/* b.json has none */
	r = region(doc, "io");
	CHECK_EQ(num(r, "processes", NULL), 1);
	CHECK_EQ(num(r, "per_process", "calls", "min_process", NULL), 1);
	pmu__json_free(doc);

	/* different events: merged on the common one, each left out named with the files lacking it */
	CHECK_EQ(PMU("report", "merge", "--format", "csv", FIX "a.json", FIX "b.json", FIX "c.json"), 0);
	snprintf(expect, sizeof(expect), "%s", slurp(FIX "merged-abc.csv"));
	CHECK_MSG(expect[0] && !strcmp(out, expect), "csv:\n%s\nexpected:\n%s", out, expect);
	snprintf(expect, sizeof(expect), "%s", slurp(FIX "merged-abc.stderr"));
	CHECK_MSG(expect[0] && !strcmp(err, expect), "notes:\n%s\nexpected:\n%s", err, expect);

	/* one report merges too */
	CHECK_EQ(PMU("report", "merge", FIX "c.json"), 0);
	CHECK_MSG(strstr(out, "1 process, 2 regions; events: task-clock, context-switches\n"), "%s", out);
}

/* Child k: regions "step" (k + 1) * 2 calls, "once" 1, with pages touched; its json report at path. */
static void child(int k, const char *path)
{
	if (pmu_thread_init("page-faults,task-clock") < 0)
		_exit(3);
	for (int i = 0; i < (k + 1) * 2; i++) {
		pmu_region_begin("step");
		t_touch_pages(4 * (k + 1));
		pmu_region_end("step");
	}
	pmu_region_begin("once");
	pmu_region_end("once");
	_exit(pmu_report_path(path, NULL) < 0 ? 4 : 0);
}

static void generated(void)
{
	char dir[] = "/tmp/pmu-merge-XXXXXX", path[3][64], o[80], *p;
	uint64_t pf[3], sum = 0, lo = UINT64_MAX, hi = 0;
	struct pmu__json *doc;
	const struct pmu__json *r;

	CHECK(mkdtemp(dir) != NULL);
	for (int k = 0; k < 3; k++) {
		int st;
		pid_t pid;

		snprintf(path[k], sizeof(path[k]), "%s/p%d.json", dir, k);
		fflush(NULL);
		pid = fork();
		if (pid == 0)
			child(k, path[k]);
		waitpid(pid, &st, 0);
		CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: status %d", k, st);
	}
	for (int k = 0; k < 3; k++) {
		struct pmu__rep rep;

		CHECK_MSG(pmu__rep_read(path[k], &rep) == 0, "%s", pmu_errmsg());
		pf[k] = rep.nreg && !strcmp(rep.reg[0].name, "step") ? rep.reg[0].counts[0] : 0;
		sum += pf[k];
		lo = pf[k] < lo ? pf[k] : lo;
		hi = pf[k] > hi ? pf[k] : hi;
		if (rep.doc)
			pmu__rep_free(&rep);
	}
	CHECK_MSG(hi >= 12, "child 2 touched 12 pages 6 times: %" PRIu64 " page faults", hi);

	snprintf(o, sizeof(o), "%s/merged.json", dir);
	CHECK_EQ(PMU("report", "merge", "-o", o, path[0], path[1], path[2]), 0);
	CHECK_MSG(!out[0] && !err[0], "%s%s", out, err);
	CHECK_MSG(pmu__json_load(o, &doc) == 0, "%s", pmu_errmsg());
	CHECK_EQ(pmu__json_get(doc, "processes") ? pmu__json_get(doc, "processes")->n : 0, 3);
	r = region(doc, "step");
	CHECK_EQ(num(r, "processes", NULL), 3);
	CHECK_EQ(num(r, "calls", NULL), 2 + 4 + 6);
	CHECK_EQ(num(r, "per_process", "calls", "min", NULL), 2);
	CHECK_EQ(num(r, "per_process", "calls", "min_process", NULL), 0);
	CHECK_EQ(num(r, "per_process", "calls", "mean", NULL), 4);
	CHECK_EQ(num(r, "per_process", "calls", "max", NULL), 6);
	CHECK_EQ(num(r, "per_process", "calls", "max_process", NULL), 2);
	CHECK_EQ(num(r, "counts", "page-faults", NULL), sum);
	CHECK_EQ(num(r, "per_process", "counts", "page-faults", "min", NULL), lo);
	CHECK_EQ(num(r, "per_process", "counts", "page-faults", "max", NULL), hi);
	r = region(doc, "once");
	CHECK_EQ(num(r, "calls", NULL), 3);
	CHECK_EQ(num(r, "per_process", "calls", "max", NULL), 1);
	pmu__json_free(doc);

	/* the csv: a header, then total, min, mean and max of each region */
	snprintf(o, sizeof(o), "%s/merged.csv", dir);
	CHECK_EQ(PMU("report", "merge", "-o", o, path[0], path[1], path[2]), 0);
	snprintf(out, sizeof(out), "%s", slurp(o));
	CHECK_MSG(!strncmp(out, "region,processes,figure,process,calls,ns,ns_per_call,page-faults,task-clock\n", 76),
		  "%s", out);
	CHECK_MSG((p = strstr(out, "\nstep,3,total,,12,")) && strstr(out, "\nstep,3,mean,,4.0,") &&
		  strstr(out, "\nonce,3,max,"), "%s", out);
	int lines = 0;
	for (p = out; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK_EQ(lines, 1 + 2 * 4);
	unlink(o);

	/* the table: from any other name */
	CHECK_EQ(PMU("report", "merge", path[0], path[1], path[2]), 0);
	CHECK_MSG(!strncmp(out, "libpmu merged report: 3 processes, 2 regions; events: page-faults, task-clock\n", 78),
		  "%s", out);
	CHECK_MSG(strstr(out, "\nstep       3  total           12 ") && strstr(out, "\nonce       3  total            3 "),
		  "%s", out);

	/* the same report twice is one process given twice */
	CHECK_EQ(PMU("report", "merge", path[0], path[1], path[0]), 1);
	CHECK_MSG(strstr(err, "p0.json: the same process as ") && !out[0], "%s", err);
	for (int k = 0; k < 3; k++)
		unlink(path[k]);
	snprintf(o, sizeof(o), "%s/merged.json", dir);
	unlink(o);
	CHECK_MSG(rmdir(dir) == 0, "%s: %s", dir, strerror(errno));
}

/* Child k: "outer" once, "in" k + 1 times inside it (a page each), with histograms; its json report at path. */
static void nest_child(int k, const char *path)
{
	if (pmu_thread_init("page-faults") < 0 || pmu_region_histograms(1) < 0)
		_exit(3);
	pmu_region_begin("outer");
	t_touch_pages(1);
	for (int i = 0; i <= k; i++) {
		pmu_region_begin("in");
		t_touch_pages(1);
		pmu_region_end("in");
	}
	pmu_region_end("outer");
	_exit(pmu_report_path(path, NULL) < 0 ? 4 : 0);
}

/* The path named top (and in, when not NULL) of the json report at path: its member key (of "counts" when ev). */
static double path_fig(const char *file, const char *top, const char *in, const char *key, bool ev)
{
	struct pmu__json *doc;
	const struct pmu__json *ps;
	double x = -1;

	if (pmu__json_load(file, &doc) < 0)
		return -2;
	ps = pmu__json_get(doc, "paths");
	for (size_t i = 0; ps && i < ps->n; i++) {
		const struct pmu__json *nm = pmu__json_get(&ps->v[i], "path");

		if (nm && nm->n == (in ? 2u : 1u) && !strcmp(nm->v[0].s, top) && (!in || !strcmp(nm->v[1].s, in)))
			x = ev ? num(&ps->v[i], "counts", key, NULL) : num(&ps->v[i], key, NULL);
	}
	pmu__json_free(doc);
	return x;
}

/* s with its first from as to, in a static buffer ("" when s has no from). */
static const char *replaced(const char *s, const char *from, const char *to)
{
	static char buf[1 << 16];
	const char *at = strstr(s, from);

	if (!at)
		return "";
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	return buf;
}

static void paths(void)
{
	char dir[] = "/tmp/pmu-merge-paths-XXXXXX", path[3][80], o[3][80], want[160], *bad;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	for (int k = 0; k < 3; k++) {
		int st;
		pid_t pid;

		snprintf(path[k], sizeof(path[k]), "%s/p%d.json", dir, k);
		snprintf(o[k], sizeof(o[k]), "%s/m%d.json", dir, k);
		fflush(NULL);
		if ((pid = fork()) == 0)
			nest_child(k, path[k]);
		waitpid(pid, &st, 0);
		CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: status %d", k, st);
	}
	CHECK_EQ(PMU("report", "merge", "-o", o[0], path[0], path[1], path[2]), 0);
	CHECK_EQ(path_fig(o[0], "outer", NULL, "calls", false), 3);
	CHECK_EQ(path_fig(o[0], "outer", "in", "calls", false), 1 + 2 + 3);
	CHECK_EQ(path_fig(o[0], "outer", "in", "self_ns", false), path_fig(o[0], "outer", "in", "ns", false));
	CHECK_EQ(path_fig(o[0], "outer", NULL, "ns", false), path_fig(path[0], "outer", NULL, "ns", false) +
		 path_fig(path[1], "outer", NULL, "ns", false) + path_fig(path[2], "outer", NULL, "ns", false));
	CHECK_MSG(path_fig(o[0], "outer", "in", "page-faults", true) >= 6, "%g page faults in 6 calls of a page",
		  path_fig(o[0], "outer", "in", "page-faults", true));
	/* each path's histograms, of the 3 processes: as many calls as the path's */
	snprintf(out, sizeof(out), "%s", slurp(o[0]));
	CHECK_MSG((bad = strstr(out, "{\"path\": [\"outer\", \"in\"]")) &&
		  strstr(bad, "\"dist\": {\"scheme\": ") && strstr(bad, "\"processes\": 3, \"events\": [\"page-faults\"]"),
		  "%s", out);
	/* merged again: a merge of p0 and p1, with p2, gives the same paths, histograms included */
	CHECK_EQ(PMU("report", "merge", "-o", o[1], path[0], path[1]), 0);
	CHECK_EQ(PMU("report", "merge", "-o", o[2], o[1], path[2]), 0);
	snprintf(out, sizeof(out), "%s", slurp(o[0]));
	snprintf(err, sizeof(err), "%s", slurp(o[2]));
	CHECK_MSG(strstr(out, "\"paths\": [") && !strcmp(strstr(out, "\"paths\": ["), strstr(err, "\"paths\": [") ?: ""),
		  "one merge:\n%s\na merge of a merge:\n%s", out, err);
	CHECK_EQ(PMU("report", "merge", path[0], path[1]), 0);
	CHECK_MSG(strstr(out, "\ncall paths: total and self") && strstr(out, "\n  in "), "%s", out);
	/* the trees' formats: collapsed stacks weighed by self ns, the merged json's */
	snprintf(want, sizeof(want), "outer;in %.0f\n", path_fig(o[0], "outer", "in", "self_ns", false));
	CHECK_EQ(PMU("report", "merge", "--format", "folded", path[0], path[1], path[2]), 0);
	CHECK_MSG(strstr(out, want) && !strncmp(out, "outer ", 6), "%s", out);
	CHECK_EQ(PMU("report", "merge", "--format", "hatchet", path[0], path[1], path[2]), 0);
	CHECK_MSG(strstr(out, "{\"frame\": {\"name\": \"in\", \"type\": \"region\"}, \"metrics\": {\"calls\": 6, "), "%s", out);
	/* reports without paths (libpmu 0.3's fixtures): their trees refused, and no file made */
	snprintf(want, sizeof(want), "%s/m.folded", dir);
	CHECK_EQ(PMU("report", "merge", "-o", want, FIX "a.json", FIX "b.json"), 1);
	CHECK_MSG(strstr(err, "folded: the merged reports have no call paths") && access(want, F_OK) != 0, "%s", err);
	/* a path of no names: refused, naming the file and the line */
	CHECK((bad = t_file(path[0])) != NULL);
	CHECK(bad && (f = fopen(path[0], "w")) && fputs(replaced(bad, "{\"path\": [\"outer\"]", "{\"path\": []"), f) >= 0 &&
	      fclose(f) == 0);
	CHECK_EQ(PMU("report", "merge", path[0], path[1]), 1);
	CHECK_MSG(strstr(err, "p0.json:") && strstr(err, "\"path\" has 0 names (1 to 65)") && !out[0], "%s", err);
	for (int k = 0; k < 3; k++)
		CHECK(unlink(path[k]) == 0 && unlink(o[k]) == 0);
	CHECK_MSG(rmdir(dir) == 0, "%s: %s", dir, strerror(errno));
}

int main(void)
{
	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");
	if (access(FIX "a.json", R_OK))
		T_SKIP("run from the source tree (" FIX ")");
	fixtures();
	generated();
	paths();
	T_DONE();
}
