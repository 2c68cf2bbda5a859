/* SPDX-License-Identifier: MIT */
/*
 * pmu stat -I with targets beside perf stat -I: -a -C 0 with and without -A
 * (where this user may count a CPU), -p on a process that faults pages all
 * along, with --per-thread, without a command until ^C or the process
 * exits; a group's members each with their own interval counts; -D and -v
 * with a target. Layouts are compared with the numbers masked, line counts
 * within the wall time measured around the run; no times compared.
 */
#include <errno.h>

#include "stat_interval.h"

/* Starts this program's workload args (NULL-ended); its pid. */
static pid_t spawn(char *const args[])
{
	char *argv[8] = { t_self, "--work" };
	pid_t pid;

	for (int i = 0; args[i] && i < 5; i++)
		argv[i + 2] = args[i];
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execv(t_self, argv);
		_exit(127);
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Runs "TOOL stat ARGS...", tool "perf" or pmu: args NULL-ended, at most 24. */
static int stat_as(struct t_run *r, const char *tool, char *const args[])
{
	char *argv[28] = { (char *)tool, "stat" };

	for (int i = 0; args[i] && i < 24; i++)
		argv[i + 2] = args[i];
	return t_run(r, argv, NULL, NULL);
}

/*
 * perf stat and pmu stat on args: every kind of line printed alike, the
 * counted ones and (in the table) the header seen in both; a -x line has
 * xfields fields.
 */
static void compare(const char *what, char *const args[], bool table, int xfields)
{
	static struct t_run theirs, ours;
	static char ts[KINDS][512], os[KINDS][512];
	char line[1024];

	stat_as(&theirs, "perf", args);
	stat_as(&ours, t_tool, args);
	CHECK_MSG(theirs.status == 0 && ours.status == 0, "%s: perf stat exits %d, pmu stat %d:\n%s", what,
		  theirs.status, ours.status, ours.err);
	shapes(theirs.fig, ts, table);
	shapes(ours.fig, os, table);
	for (int k = table ? 0 : 1; k < KINDS; k++) {
		if (k == 0 || k == 1 || k == 3)
			CHECK_MSG(ts[k][0] && os[k][0], "%s: line kind %d: perf stat '%s', pmu stat '%s'", what, k,
				  ts[k], os[k]);
		if (ts[k][0] && os[k][0])
			CHECK_MSG(!strcmp(ts[k], os[k]), "%s, line kind %d:\n  perf stat: %s\n  pmu stat:  %s", what, k,
				  ts[k], os[k]);
	}
	for (int i = 0; xfields && t_line(ours.fig, i, line, sizeof(line)); i++)
		CHECK_MSG(fields(line) == xfields, "%s: %s", what, line);
}

/* The interval lines of out (-x,): each with a timestamp after the last; their number. */
static int stamps(const char *what, const char *out, const char *must)
{
	char line[1024];
	double last = 0;
	int n = 0;

	for (; t_line(out, n, line, sizeof(line)); n++) {
		double t = strtod(line, NULL);

		CHECK_MSG(strstr(line, must) && t >= last && t > 0, "%s: '%s' after %f", what, line, last);
		last = t;
	}
	return n;
}

/* n lines of per lines an interval fit their last timestamp (t_intervals_fit), which the run's time bounds, none early. */
static void bounds(const char *what, int n, int per, double elapsed, const char *out)
{
	char line[1024];
	double last = n && t_line(out, n - 1, line, sizeof(line)) ? strtod(line, NULL) : 0;

	CHECK_MSG(n % per == 0 && t_intervals_fit(n / per, last) && last <= elapsed,
		  "%s: %d lines, the last at %.3f s, in a run of %.3f s:\n%s", what, n, last, elapsed, out);
	for (int i = 0; t_line(out, i, line, sizeof(line)); i++)
		CHECK_MSG(t_interval_not_early(i / per, strtod(line, NULL)), "%s: line %d before its deadline: %s",
			  what, i, line);
	printf("%s: %d intervals in %.3f s\n", what, n / per, elapsed);
}

/* Whether this user may count every task of CPU 0; why not in buf. */
static bool cpu_allowed(char *buf, size_t size)
{
	static struct t_run r;
	const char *why;

	if (T_STAT(&r, NULL, NULL, "-a", "-C", "0", "-x,", "-e", "task-clock", "true") == 0)
		return true;
	/* the event's reason, after "no event could be counted:" */
	why = strstr(r.err, ":\n  ") ? strstr(r.err, ":\n  ") + 4 : r.err;
	snprintf(buf, size, "%.*s", (int)strcspn(why, "\n"), why);
	return false;
}

/* -I with -a -C 0, with and without -A: perf's layouts, a CPU0 column with -A, every line an interval's. */
static void cpus(bool perf)
{
	static struct t_run r;
	char *fmts[] = { NULL, "-x,", "-j" };
	int n;

	for (int f = 0; perf && f < 3; f++) {
		char *agg[] = { "-I", "100", "-a", "-C", "0", "-e", "task-clock,page-faults", t_self, "--work", "--sleep",
				"350", NULL, NULL };
		char *per[] = { "-I", "100", "-a", "-A", "-C", "0", "-e", "task-clock,page-faults", t_self, "--work",
				"--sleep", "350", NULL, NULL };

		if (fmts[f]) {	/* the format goes last, before the command's NULL */
			memmove(agg + 8, agg + 7, 5 * sizeof(*agg));
			agg[7] = fmts[f];
			memmove(per + 9, per + 8, 5 * sizeof(*per));
			per[8] = fmts[f];
		}
		compare("-I 100 -a -C 0", agg, !fmts[f], f == 1 ? 8 : 0);
		compare("-I 100 -a -A -C 0", per, !fmts[f], f == 1 ? 9 : 0);
	}
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", "100", "-a", "-A", "-C", "0", "-x,", "-e", "task-clock,page-faults",
			t_self, "--work", "--sleep", "550"), 0);
	n = stamps("-I 100 -a -A -C 0", r.fig, ",CPU0,");
	bounds("-I 100 -a -A -C 0 of a 0.55 s command", n, 2, r.elapsed, r.fig);
	/* -v: one line an event and interval, the CPUs' sum */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-v", "-a", "-A", "-C", "0", "-x,", "-e", "task-clock", "true"), 0);
	CHECK_MSG(strstr(r.err, "task-clock: ") && !strstr(strstr(r.err, "task-clock: ") + 1, "task-clock: "),
		  "-v -a -A -C 0: %s", r.err);
}

static void interrupt(pid_t pid, void *arg)
{
	struct timespec ts = { 0, 350 * 1000 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	kill(pid, SIGINT);
}

/* -I with -p on a process faulting pages: perf's layouts, summed and --per-thread; the lines' count. */
static void process(bool perf)
{
	static struct t_run r;
	char pid[16];
	pid_t p = spawn((char *[]){ "--fault", NULL });
	int n;

	snprintf(pid, sizeof(pid), "%d", (int)p);
	if (perf) {
		compare("-I 100 -p PID", (char *[]){ "-I", "100", "-e", "task-clock,page-faults", "-p", pid, t_self,
						     "--work", "--sleep", "350", NULL }, true, 0);
		compare("-I 100 -p PID -x,", (char *[]){ "-I", "100", "-x,", "-e", "task-clock,page-faults", "-p", pid,
							 t_self, "--work", "--sleep", "350", NULL }, false, 8);
		compare("-I 100 -p PID -j", (char *[]){ "-I", "100", "-j", "-e", "task-clock,page-faults", "-p", pid,
							t_self, "--work", "--sleep", "350", NULL }, false, 0);
		compare("-I 100 -p PID --per-thread", (char *[]){ "-I", "100", "--per-thread", "-e",
								  "task-clock,page-faults", "-p", pid, t_self, "--work",
								  "--sleep", "350", NULL }, true, 0);
		compare("-I 100 -p PID --per-thread -x,", (char *[]){ "-I", "100", "--per-thread", "-x,", "-e",
								      "task-clock,page-faults", "-p", pid, t_self,
								      "--work", "--sleep", "350", NULL }, false, 9);
	}
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", "100", "-x,", "-e", "page-faults", "-p", pid, t_self, "--work", "--sleep",
			"550"), 0);
	n = stamps("-I 100 -p PID", r.fig, ",page-faults");
	bounds("-I 100 -p PID of a 0.55 s command", n, 1, r.elapsed, r.fig);
	/* without a command: until ^C, which ends pmu stat after the last interval */
	CHECK_EQ(T_STAT(&r, interrupt, NULL, "-I", "100", "-x,", "-e", "page-faults", "-p", pid), 128 + SIGINT);
	n = stamps("-I 100 -p PID until ^C", r.fig, ",page-faults");
	CHECK_MSG(n >= 1, "-I 100 -p PID until ^C: %s", r.err);
	/* -D: enabled after the delay, as perf says */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-D", "100", "-x,", "-e", "page-faults", "-p", pid, t_self, "--work", "--sleep",
			"300"), 0);
	CHECK_MSG(strstr(r.err, "Events disabled\n") && strstr(r.err, "Events enabled\n") &&
		  strstr(r.fig, ",page-faults"), "-D 100 -p PID:\n%s", r.err);
	stop(p);
}

/* -I with -p ends when the process does, the last interval partial. */
static void process_exits(void)
{
	static struct t_run r;
	char pid[16];
	pid_t p = spawn((char *[]){ "--sleep", "350", NULL });
	int n;

	snprintf(pid, sizeof(pid), "%d", (int)p);
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", "100", "-x,", "-e", "page-faults", "-p", pid), 0);
	n = stamps("-I 100 -p PID until it exits", r.fig, ",page-faults");
	CHECK_MSG(n >= 1, "-I 100 -p PID until it exits: %s", r.err);
	waitpid(p, NULL, 0);
}

/* A group's members each with their own intervals, page faults adding up to the whole run's. */
static void group(void)
{
	static struct t_run r;
	long pages = t_scale(4000);
	char np[32], line[1024];
	double whole = -1, parts;
	int lines = 0;

	snprintf(np, sizeof(np), "%ld", pages);
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-x,", "-e", "{task-clock,page-faults}", t_self, "--work", "--touch", np, "10"),
		 0);
	for (int i = 0; t_line(r.fig, i, line, sizeof(line)); i++)
		if (strstr(line, ",page-faults"))
			whole = strtod(line, NULL);
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-I", "50", "-x,", "-e", "{task-clock,page-faults}", t_self, "--work", "--touch",
			np, "10"), 0);
	parts = sum(r.fig, "page-faults", 2, &lines);
	CHECK_MSG(parts >= (double)pages, "the group's intervals: %.0f page faults, %ld pages touched:\n%s", parts,
		  pages, r.fig);
	CHECK_MSG(parts - whole <= whole * 0.01 + 5 && whole - parts <= whole * 0.01 + 5,
		  "the group's intervals: %.0f page faults; the whole run: %.0f", parts, whole);
	printf("-I 50 {task-clock,page-faults}: %.0f page faults in %d intervals; %.0f counted whole\n", parts,
	       lines / 2, whole);
}

int main(int argc, char **argv)
{
	char why[512];
	bool perf;

	if (argc > 2 && !strcmp(argv[1], "--work"))
		return t_workload(argv + 2);
	t_find_tool(argv[0]);
	perf = t_have_perf();
	if (!perf)
		printf("perf stat cannot count here: the layouts are not compared with it\n");
	if (cpu_allowed(why, sizeof(why)))
		cpus(perf);
	else
		printf("-I with -a -C 0 not tested: this user may not count a CPU (%s)\n", why);
	process(perf);
	process_exits();
	group();
	T_DONE();
}
