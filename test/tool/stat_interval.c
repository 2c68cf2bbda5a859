/* SPDX-License-Identifier: MIT */
/*
 * pmu stat -I: a line per event every interval, as many intervals as the
 * run lasted (measured here, around it), perf stat's interval layout in the
 * table, -x and -j (numbers masked), the counts of the intervals adding up
 * to the command's, and -v's line per event. Nothing compares times.
 */
#include <errno.h>

#include "stat_interval.h"

/*
 * perf stat's interval layout in one output format (fmt: NULL, "-x," or
 * "-j"): every kind of line both printed alike; the counted lines in both,
 * the header in the table. A sleeping command's middle intervals count
 * nothing: both kinds are seen.
 */
static void layout(const char *fmt)
{
	static struct t_run theirs, ours;
	static char ts[KINDS][512], os[KINDS][512];
	const char *names[KINDS] = { "header", "task-clock", "task-clock <not counted>", "page-faults",
				     "page-faults <not counted>" };
	char line[1024];

	if (fmt) {
		t_run(&theirs, (char *const[]){ "perf", "stat", "-I", "100", (char *)fmt, "-e", "task-clock,page-faults",
						t_self, "--work", "--sleep", "350", NULL }, NULL, NULL);
		T_STAT(&ours, NULL, NULL, "-I", "100", (char *)fmt, "-e", "task-clock,page-faults", t_self, "--work", "--sleep",
		       "350");
	} else {
		t_run(&theirs, (char *const[]){ "perf", "stat", "-I", "100", "-e", "task-clock,page-faults", t_self,
						"--work", "--sleep", "350", NULL }, NULL, NULL);
		T_STAT(&ours, NULL, NULL, "-I", "100", "-e", "task-clock,page-faults", t_self, "--work", "--sleep", "350");
	}
	CHECK_MSG(theirs.status == 0 && ours.status == 0, "-I 100 %s: perf stat exits %d, pmu stat %d", fmt ? fmt : "",
		  theirs.status, ours.status);
	shapes(theirs.fig, ts, !fmt);
	shapes(ours.fig, os, !fmt);
	for (int k = 0; k < KINDS; k++) {
		if (k == 0 && fmt)
			continue;
		/* a count seen in every run: the first interval's (the exec's page faults) */
		if (k == 0 || k == 1 || k == 3)
			CHECK_MSG(ts[k][0] && os[k][0], "-I 100 %s: %s line: perf stat '%s', pmu stat '%s'", fmt ? fmt : "",
				  names[k], ts[k], os[k]);
		if (ts[k][0] && os[k][0])
			CHECK_MSG(!strcmp(ts[k], os[k]), "-I 100 %s, %s line:\n  perf stat: %s\n  pmu stat:  %s",
				  fmt ? fmt : "", names[k], ts[k], os[k]);
	}
	/* -x: perf's 8 fields (the timestamp, then -x's 7) on every line */
	for (int i = 0; fmt && fmt[1] == 'x' && t_line(ours.fig, i, line, sizeof(line)); i++)
		CHECK_MSG(fields(line) == 8, "-I 100 -x,: %s", line);
	for (int i = 0; fmt && fmt[1] == 'x' && t_line(theirs.fig, i, line, sizeof(line)); i++)
		CHECK_MSG(fields(line) == 8, "perf stat -I 100 -x,: %s", line);
}

/*
 * -I 100 on a command of 0.55 s: one line an interval, the last a partial
 * one; as many as the wall time measured around the run allows, whatever
 * the load (the run lasts at least as long as the command).
 */
static void line_count(void)
{
	static struct t_run r;
	char line[1024];
	double last = 0;
	int n = 0;

	CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", "100", "-x,", "-e", "page-faults", t_self, "--work", "--sleep", "550"),
		 0);
	for (; t_line(r.fig, n, line, sizeof(line)); n++) {
		double t = strtod(line, NULL);

		CHECK_MSG(fields(line) == 8 && strstr(line, ",page-faults"), "%s", line);
		CHECK_MSG(t > last && t <= r.elapsed, "timestamp %f after %f (run of %f s)", t, last, r.elapsed);
		CHECK_MSG(t_interval_not_early(n, t), "interval line %d at %f s: before its deadline", n, t);
		last = t;
	}
	CHECK_MSG(t_intervals_fit(n, last), "%d interval lines, the last at %.3f s (a run of %.3f s):\n%s", n, last,
		  r.elapsed, r.fig);
	printf("-I 100 of a 0.55 s command: %d lines in %.3f s\n", n, r.elapsed);
}

/* The intervals' page faults add up to the whole run's, at least the pages touched. */
static void deltas(void)
{
	static struct t_run r;
	long pages = t_scale(4000);
	char np[32];
	double whole, parts;
	int lines = 0;

	snprintf(np, sizeof(np), "%ld", pages);
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-x,", "-e", "page-faults", t_self, "--work", "--touch", np, "10"), 0);
	whole = strtod(r.fig, NULL);
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", "50", "-x,", "-e", "page-faults,task-clock", t_self, "--work", "--touch",
			np, "10"), 0);
	parts = sum(r.fig, "page-faults", 2, &lines);
	CHECK_MSG(parts >= (double)pages, "the intervals' page faults add up to %.0f, %ld pages touched:\n%s", parts,
		  pages, r.fig);
	/* a fixed program's page faults repeat, within a few */
	CHECK_MSG(parts - whole <= whole * 0.01 + 5 && whole - parts <= whole * 0.01 + 5, "intervals: %.0f page faults; the whole run: %.0f", parts,
		  whole);
	printf("-I 50 page-faults: %.0f in %d intervals; %.0f counted whole\n", parts, lines / 2, whole);
}

/* -v: a line per event on standard error, with its read path and why; the figures unchanged. */
static void verbose(void)
{
	static struct t_run r, plain;
	const char *ev[] = { "task-clock", "page-faults", "cycles" };
	char line[1024], a[4096] = "", b[4096] = "";

	CHECK_EQ(T_STAT(&plain, NULL, NULL, "-e", "task-clock,page-faults,cycles", t_self, "--work", "--sleep", "10"),
		 0);
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-v", "-e", "task-clock,page-faults,cycles", t_self, "--work", "--sleep", "10"),
		 0);
	for (int k = 0; k < 3; k++) {
		int n = 0;

		for (int i = 0; t_line(r.err, i, line, sizeof(line)); i++) {
			char name[64];
			unsigned long long v, e, g;
			int used = 0;

			if (strncmp(line, ev[k], strlen(ev[k])) || !strchr(line, ':') || strstr(line, "pmu stat: "))
				continue;
			n++;
			if (strstr(line, "<not supported> ("))
				continue;
			/* "name: value enabled running (path: why)" */
			CHECK_MSG(sscanf(line, "%63[^ ] %llu %llu %llu (%n", name, &v, &e, &g, &used) == 4 && used &&
				  (!strncmp(line + used, "read(2): ", 9) || !strncmp(line + used, "user-space read: ", 17)) &&
				  line[strlen(line) - 1] == ')' && strlen(line + used) > 20, "-v: %s", line);
		}
		CHECK_MSG(n == 1, "-v: %d lines for %s:\n%s", n, ev[k], r.err);
	}
	/* the table as without -v */
	for (int i = 0; t_line(plain.err, i, line, sizeof(line)); i++)
		mask(line, a + strlen(a), sizeof(a) - strlen(a), false);
	for (int i = 0, on = 0; t_line(r.err, i, line, sizeof(line)); i++) {
		on |= strstr(line, "Performance counter stats") != NULL;
		if (on)
			mask(line, b + strlen(b), sizeof(b) - strlen(b), false);
	}
	CHECK_MSG(*a && !strcmp(a, b), "-v changed the figures:\n%s\n%s", plain.err, r.err);
	/* with -I, every interval's */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-v", "-I", "100", "-x,", "-e", "page-faults", t_self, "--work", "--sleep",
			"250"), 0);
	int counts = 0, readings = 0;

	for (int i = 0; t_line(r.err, i, line, sizeof(line)); i++) {
		counts += strstr(line, ",page-faults") != NULL;
		readings += strncmp(line, "page-faults", 11) == 0;
	}
	CHECK_MSG(counts >= 2 && readings == counts, "-v -I 100: %d intervals, %d readings:\n%s", counts, readings,
		  r.err);
}

/* Values -I refuses, naming them; perf stat 6.1 takes any interval from 1 ms (-I 5 too). */
static void bad_values(bool perf)
{
	static struct t_run r;
	const char *bad[] = { "0", "abc", "-5", "", "10x", " 10", "2147483648" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char want[64];

		snprintf(want, sizeof(want), "-I '%s': ", bad[i]);
		CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", (char *)bad[i], "true"), 129);
		CHECK_MSG(strstr(r.err, want), "-I '%s': %s", bad[i], r.err);
	}
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", "100", "-r", "2", "true"), 129);
	CHECK_MSG(strstr(r.err, "-I and -r"), "%s", r.err);
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", "5", "-x,", "-e", "page-faults", t_self, "--work", "--sleep", "60"), 0);
	CHECK_MSG(strstr(r.fig, ",page-faults") && fields(r.fig) > 8, "-I 5: %s", r.fig);
	if (perf) {
		static struct t_run p;

		CHECK_EQ(t_run(&p, (char *const[]){ "perf", "stat", "-I", "5", "-x,", "-e", "page-faults", t_self,
						    "--work", "--sleep", "60", NULL }, NULL, NULL), 0);
		CHECK_MSG(strstr(p.fig, ",page-faults") && fields(p.fig) > 8, "perf stat -I 5: %s", p.fig);
	}
}

int main(int argc, char **argv)
{
	bool perf;

	if (argc > 2 && !strcmp(argv[1], "--work"))
		return t_workload(argv + 2);
	t_find_tool(argv[0]);
	perf = t_have_perf();
	if (perf) {
		layout(NULL);
		layout("-x,");
		layout("-j");
	} else {
		printf("perf stat cannot count here: the layouts are not compared with it\n");
	}
	line_count();
	deltas();
	verbose();
	bad_values(perf);
	T_DONE();
}
