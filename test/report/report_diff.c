/* SPDX-License-Identifier: MIT */
/*
 * pmu report diff on crafted inputs with known answers: Welch's test of a
 * textbook pair (t 2.455, df 24.99, p 0.02138), a change that is not
 * significant, regions on one side only, a multiplexed event, inputs from
 * another host, kernel, library and event list, pmu stat -j's lines, the
 * markdown and html, each exit status of the gate, and call paths compared
 * (their rows, gated by path).
 */
#include <math.h>

#include "test.h"
#include "tool_run.h"

static char dir[] = "/tmp/pmu-diff.XXXXXX";

struct rgn {
	const char *name;
	unsigned calls;
	double sum, sd, running;	/* the event's total, its population sd per call, its running % */
};

static const char *comp = "null";	/* the reports' "compensated" */
static const char *emul = "";		/* ", \"emulated\": ..." of a run under pmu emulate, or "" */
static int pid = 1;			/* the reports' process: runs to merge differ */
static const char *paths = "";		/* ", \"paths\": [...]", or "" */

/* A region report at dir/file, one event, as pmu_report() writes it (one thread). */
static void report(const char *file, const char *host, const char *lib, const char *event, const struct rgn *r,
		   unsigned n)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "{\"library\": \"libpmu %s\", \"pid\": %d, \"hostname\": \"%s\", \"command\": \"t\", "
		"\"kernel\": \"6.1.0\", \"start\": \"2026-12-03T00:00:00Z\", \"start_ns\": 1, \"events\": [\"%s\"], "
		"\"units\": {}, \"not_supported\": {}, \"compensated\": %s%s, \"regions\": [", lib, pid, host, event, comp,
		emul);
	for (unsigned i = 0; i < n; i++) {
		char one[1024];

		snprintf(one, sizeof(one), "\"calls\": %u, \"spans\": %u, \"ns\": %u, \"ns_per_call\": 1000.0, "
			 "\"ns_min\": 1000, \"ns_max\": 1000, \"ns_stddev\": 0.0, \"counts\": {\"%s\": %.0f}, "
			 "\"min\": {\"%s\": 0}, \"max\": {\"%s\": %.0f}, \"stddev\": {\"%s\": %.17g}, "
			 "\"running_pct\": {\"%s\": %.1f}, \"metrics\": {}", r[i].calls, r[i].calls, 1000 * r[i].calls,
			 event, r[i].sum, event, event, r[i].sum, event, r[i].sd, event, r[i].running);
		fprintf(f, "%s{\"name\": \"%s\", %s, \"threads\": [{\"tid\": 1, \"name\": \"t\", \"exited\": false, %s}]}",
			i ? ", " : "", r[i].name, one, one);
	}
	fprintf(f, "]%s}\n", paths);
	fclose(f);
}

static int diff(const char *args)
{
	return run("", tool, "report diff %s", args);
}

int main(void)
{
	/* x10 of the textbook samples: means 208.2 and 229.87, population sds 27.10 and 18.86 */
	const struct rgn base[] = { { "work", 15, 3123, 27.097847392981853, 100 }, { "same", 10, 10000, 100, 100 },
				    { "gone", 1, 5, 0, 100 } };
	const struct rgn new[] = { { "work", 15, 3448, 18.863957402647222, 100 }, { "same", 10, 10010, 100, 100 },
				   { "fresh", 1, 5, 0, 100 } };
	const struct rgn mux[] = { { "work", 15, 3448, 18.863957402647222, 50 } };
	double p, lo, hi;
	char a[PATH_MAX * 3];
	int st;

	if (find())
		T_SKIP("the pmu tool not found next to this test");
	if (!mkdtemp(dir))
		T_SKIP("mkdtemp: %s", strerror(errno));
	report("base.json", "vm", "0.6.0", "ev", base, 3);
	report("new.json", "vm", "0.6.0", "ev", new, 3);
	comp = "{\"threads\": 1, \"pair_by_name\": {\"ns\": 60.0, \"ev\": 149.0}}";
	report("mux.json", "other", "0.5.0", "ev:u", mux, 1);
	comp = "null";

	/* the textbook pair: significant; the same sum by 0.1%: not */
	snprintf(a, sizeof(a), "--format csv %s/base.json %s/new.json", dir, dir);
	CHECK_MSG((st = diff(a)) == 0, "exit %d: %s", st, err);
	const char *row = strstr(out, "\nwork,ev,");
	CHECK_MSG(row && sscanf(row, "\nwork,ev,%*[^,],%*[^,],%*[^,],%lf,%lf,%lf,yes,", &p, &lo, &hi) == 3 &&
		  fabs(p - 0.021378) < 2e-5 && lo > 1 && hi < 20 && lo < 10.4067 && hi > 10.4067, "%s", out);
	CHECK_MSG(strstr(out, "\nwork,ev,208.19999999999999,229.86666666666667,10.406660") != NULL, "%s", out);
	CHECK_MSG(strstr(out, "\nsame,ev,1000,1001,0.1") && strstr(out, "\nsame,ev,") &&
		  strstr(strstr(out, "\nsame,ev,"), ",no,"), "%s", out);
	/* regions on one side only */
	CHECK_MSG(strstr(out, "\ngone,,,,,,,,no,only in base\n") && strstr(out, "\nfresh,,,,,,,,no,only in new\n"),
		  "%s", out);
	/* multiplexed, another host, library and event list: flagged and said */
	snprintf(a, sizeof(a), "%s/base.json %s/mux.json", dir, dir);
	CHECK_MSG((st = diff(a)) == 0 && strstr(err, "note: hosts differ: vm (base), other (new)") &&
		  strstr(err, "library versions differ: libpmu 0.6.0 (base), libpmu 0.5.0 (new)") &&
		  strstr(err, "event lists (user/kernel modifiers too) differ: ev (base), ev:u (new)") &&
		  strstr(err, "compensated figures (pmu_region_compensate) differ: no (base), yes (new)") &&
		  strstr(out, "only in base") && strstr(out, "only in new"), "exit %d: %s%s", st, out, err);
	report("mux.json", "vm", "0.6.0", "ev", mux, 1);
	CHECK_MSG((st = diff(a)) == 0 && strstr(out, "multiplexed"), "exit %d: %s", st, out);
	/* markdown: a table a pull request shows, the significant change in bold */
	snprintf(a, sizeof(a), "--format markdown %s/base.json %s/new.json", dir, dir);
	CHECK_MSG(diff(a) == 0 && strstr(out, "| region | figure | base | new | change |") &&
		  strstr(out, "| work | ev | 208.2 | 229.867 | **+10.41%** |"), "%s", out);
	/* html: one page, the significant change in bold */
	snprintf(a, sizeof(a), "--format html %s/base.json %s/new.json", dir, dir);
	CHECK_MSG(diff(a) == 0 && !strncmp(out, "<!DOCTYPE html>", 15) &&
		  strstr(out, "<tr><td>work</td><td>ev</td><td>208.2</td><td>229.867</td><td><b>+10.41%</b></td>") &&
		  strstr(out, "<p>region only in base: gone</p>"), "%s", out);
	/* the gate: 1 when a significant change passes the threshold, 0 when it does not */
	snprintf(a, sizeof(a), "--fail-if ev:+5%% %s/base.json %s/new.json", dir, dir);
	CHECK_MSG((st = diff(a)) == 1 && strstr(err, "FAIL ev in work: +10.41%"), "exit %d: %s", st, err);
	snprintf(a, sizeof(a), "--fail-if work@ev:+20%% --fail-if ev:-5%% %s/base.json %s/new.json", dir, dir);
	CHECK_MSG((st = diff(a)) == 0 && strstr(err, "pass ev in same: +0.10%"), "exit %d: %s", st, err);
	snprintf(a, sizeof(a), "--fail-if ev:+0.05%% %s/base.json %s/new.json", dir, dir);
	CHECK_MSG((st = diff(a)) == 1 && strstr(err, "pass ev in same: +0.10% (threshold +0.05%, p ") &&
		  strstr(err, "not significant"), "work past the threshold (exit 1), same past it by chance: exit %d: %s",
		  st, err);
	/* a test counted once (pytest --pmu): no spread, so not gated; under pmu emulate on both sides
	 * too (the count is exact, the program may not be), saying how to get the spread */
	const struct rgn t1[] = { { "t.py::test_x[1]", 1, 100000, 0, 100 } }, t2[] = { { "t.py::test_x[1]", 1, 103000, 0, 100 } };

	report("t1.json", "vm", "0.7.0", "instructions", t1, 1);
	report("t2.json", "vm", "0.7.0", "instructions", t2, 1);
	snprintf(a, sizeof(a), "--fail-if instructions:+2%% %s/t1.json %s/t2.json", dir, dir);
	CHECK_MSG((st = diff(a)) == 0 && strstr(err, "no spread in the inputs, not gated (change +3.00%)"), "exit %d: %s",
		  st, err);
	emul = ", \"emulated\": \"QEMU 7.2.0 (libpmu-qemu)\"";
	report("t2.json", "vm", "0.7.0", "instructions", t2, 1);
	CHECK_MSG((st = diff(a)) == 0 && strstr(err, "not gated"), "one side emulated: exit %d: %s", st, err);
	report("t1.json", "vm", "0.7.0", "instructions", t1, 1);
	CHECK_MSG((st = diff(a)) == 0 && strstr(err, "no spread in the inputs, not gated (change +3.00%; emulated counts "
						      "are exact, but a program varies from run to run: repeat each side"),
		  "both emulated, one run each: exit %d: %s", st, err);
	snprintf(a, sizeof(a), "--format csv --fail-if t.py::test_x[1]@instructions:+5%% %s/t1.json %s/t2.json", dir, dir);
	CHECK_MSG((st = diff(a)) == 0 && strstr(err, "not gated") &&
		  strstr(out, ",\"no spread, one run each (emulated)\"\n"), "exit %d: %s%s", st, out, err);
	/* a suite run 3 times a side, merged: the spread between the runs is tested (a test grown by 2%
	 * fails a +1% gate, one that varies 0.5% from run to run passes it); a merge without sum_sq
	 * (pmu 0.7's) has none */
	{
		const double tx[2][3] = { { 100000, 100500, 99500 }, { 102000, 102000, 102000 } };
		const double ty[2][3] = { { 50000, 50250, 49750 }, { 50300, 49900, 50150 } };
		char m[2][PATH_MAX + 64], one[32];

		for (int side = 0; side < 2; side++) {
			char in[3][PATH_MAX + 64];

			for (int k = 0; k < 3; k++) {
				const struct rgn t[] = { { "t.py::x", 1, tx[side][k], 0, 100 }, { "t.py::y", 1, ty[side][k], 0, 100 } };

				snprintf(one, sizeof(one), "m%d%d.json", side, k);
				pid = 100 + 3 * side + k;
				report(one, "vm", "0.8.0", "instructions", t, 2);
				snprintf(in[k], sizeof(in[k]), "%s/%s", dir, one);
			}
			snprintf(m[side], sizeof(m[side]), "%s/merged%d.json", dir, side);
			st = run("", tool, "report merge -o %s %s %s %s", m[side], in[0], in[1], in[2]);
			CHECK_RUN(st == 0, "merge: exit %d", st);
		}
		pid = 1;
		snprintf(a, sizeof(a), "--fail-if instructions:+1%% %s %s", m[0], m[1]);
		st = diff(a);
		CHECK_RUN(st == 1 && strstr(err, "FAIL instructions in t.py::x: +2.00% (threshold +1%, p ") &&
			  strstr(err, "pass instructions in t.py::y: +0.23% (threshold +1%, p ") && !strstr(err, "not gated"),
			  "merged, 3 runs a side: exit %d", st);
		/* the same merged file with its sum_sq taken out, as pmu 0.7 wrote them */
		snprintf(a, sizeof(a), "sed -i 's/, \"sum_sq\": \"[0-9]*\"//' %s", m[1]);
		CHECK(system(a) == 0);	/* pmu 0.7 wrote no sum_sq */
		snprintf(a, sizeof(a), "--fail-if instructions:+1%% %s %s", m[0], m[1]);
		st = diff(a);
		CHECK_RUN(st == 0 && strstr(err, "instructions in t.py::x: no spread in the inputs, not gated"),
			  "a merge without sum_sq: exit %d", st);
	}
	emul = "";
	/* call paths, when one is nested: a row per figure of each, gated by its label "path a;b" */
	{
		const struct rgn pr[] = { { "work", 2, 100, 0, 100 }, { "in;ner", 2, 60, 0, 100 } };
		const char *fmt = ", \"paths\": [{\"path\": [\"work\"], \"calls\": 2, \"ns\": 2000, \"self_ns\": 800, "
				  "\"counts\": {\"ev\": 100}, \"self_counts\": {\"ev\": %d}}, {\"path\": [\"work\", \"in;ner\"], "
				  "\"calls\": 2, \"ns\": 1200, \"self_ns\": 1200, \"counts\": {\"ev\": %d}, \"self_counts\": {\"ev\": %d}}]";
		char pa[2][512];

		snprintf(pa[0], sizeof(pa[0]), fmt, 40, 60, 60);
		snprintf(pa[1], sizeof(pa[1]), fmt, 10, 90, 90);
		paths = pa[0];
		report("p1.json", "vm", "0.8.0", "ev", pr, 2);
		paths = pa[1];
		report("p2.json", "vm", "0.8.0", "ev", pr, 2);
		paths = "";
		snprintf(a, sizeof(a), "--format csv --fail-if 'path work;in\\x3bner@ev:+10%%' %s/p1.json %s/p2.json", dir, dir);
		st = diff(a);
		CHECK_RUN(st == 0 && strstr(out, "\npath work,self(ev),20,5,-75,") && strstr(out, "\npath work,self_ns,400,400,0,") &&
			  strstr(out, "\npath work;in\\x3bner,ev,30,45,50,") && strstr(err, "ev in path work;in\\x3bner: no spread") &&
			  strstr(out, "\nin;ner,ev,"), "paths: exit %d", st);
	}
	/* 129 for usage, 2 for an input that cannot be read */
	snprintf(a, sizeof(a), "--fail-if ev:5 %s/base.json %s/new.json", dir, dir);
	CHECK_MSG(diff(a) == 129 && strstr(err, "--fail-if 'ev:5'"), "%s", err);
	CHECK_MSG(diff("--alpha 2 a b") == 129 && diff("onlyone") == 129, "%s", err);
	snprintf(a, sizeof(a), "%s/base.json %s/missing.json", dir, dir);
	CHECK_MSG(diff(a) == 2 && strstr(err, "missing.json: No such file"), "%s", err);
	/* pmu stat -j's lines: -r's spread (variance: the sd of the mean in %), 5 runs each */
	{
		char p1[PATH_MAX + 64], p2[PATH_MAX + 64];
		FILE *f1, *f2;

		snprintf(p1, sizeof(p1), "%s/s1.json", dir);
		snprintf(p2, sizeof(p2), "%s/s2.json", dir);
		f1 = fopen(p1, "w");
		f2 = fopen(p2, "w");
		CHECK(f1 && f2);
		if (f1 && f2) {
			fputs("{\"counter-value\" : \"1000.000000\", \"unit\" : \"\", \"event\" : \"instructions:u\", "
			      "\"variance\" : 0.10, \"runs\" : 5, \"event-runtime\" : 1, \"pcnt-running\" : 100.00}\n", f1);
			fputs("{\"counter-value\" : \"1030.000000\", \"unit\" : \"\", \"event\" : \"instructions:u\", "
			      "\"variance\" : 0.10, \"runs\" : 5, \"event-runtime\" : 1, \"pcnt-running\" : 100.00}\n", f2);
		}
		if (f1)
			fclose(f1);
		if (f2)
			fclose(f2);
		snprintf(a, sizeof(a), "--format json --fail-if instructions:u:+2%% %s %s", p1, p2);
		CHECK_MSG((st = diff(a)) == 1 && strstr(out, "\"region\": \"pmu stat\", \"figure\": \"instructions:u\"") &&
			  strstr(out, "\"change_pct\": 3") && strstr(out, "\"significant\": true") &&
			  strstr(out, "\"kind\": \"stat\""), "exit %d: %s%s", st, out, err);
	}
	snprintf(a, sizeof(a), "rm -rf '%s'", dir);
	CHECK(system(a) == 0);	/* pmu 0.7 wrote no sum_sq */
	T_DONE();
}
