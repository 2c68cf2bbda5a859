/* SPDX-License-Identifier: MIT */
/*
 * pmu stat -D: the events start disabled and are enabled once the delay is
 * over, the command's children with them (inherited counters follow the
 * enable); -D -1 never enables them; bad delays are refused by name.
 */
#include "stat_interval.h"

/*
 * The counted command: touches argv[0] pages at once (within the delay),
 * forks a child, and after argv[1] ms (well past the delay) the child and
 * then the parent touch argv[0] pages each.
 */
static int workload(char **argv)
{
	long pages = atol(argv[0]);
	pid_t pid;

	t_touch_pages(pages);
	pid = fork();
	usleep((useconds_t)atol(argv[1]) * 1000);
	if (pid == 0) {
		t_touch_pages(pages);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return 1;
	t_touch_pages(pages);
	return 0;
}

/* The page faults of a -x, run (page-faults or page-faults:u); -1 when not counted, -2 when absent. */
static double faults(const char *out)
{
	const char *p = strstr(out, ",page-faults");

	while (p && p > out && p[-1] != '\n')
		p--;
	return !p ? -2 : *p == '<' ? -1 : strtod(p, NULL);
}

int main(int argc, char **argv)
{
	static struct t_run r;
	long pages = t_scale(3000);
	char np[32];
	double n;

	if (argc > 3 && !strcmp(argv[1], "--work"))
		return workload(argv + 2);
	t_find_tool(argv[0]);
	snprintf(np, sizeof(np), "%ld", pages);

	/* -D 300 on a command that runs 1.3 s: what it does after the delay counts, children too */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-D", "300", "-x,", "-e", "page-faults", t_self, "--work", np, "1300"), 0);
	n = faults(r.err);
	CHECK_MSG(n >= 2.0 * (double)pages && n < 3.0 * (double)pages,
		  "-D 300: %.0f page faults; %ld pages touched before the delay ended, %ld by a child and %ld by the "
		  "command after:\n%s", n, pages, pages, pages, r.err);
	CHECK_MSG(strstr(r.err, "Events disabled\nEvents enabled\n"), "perf stat's messages: %s", r.err);
	printf("-D 300: %.0f page faults (%ld pages touched during the delay, 2 x %ld after)\n", n, pages, pages);
	/* without -D, all of them */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-x,", "-e", "page-faults", t_self, "--work", np, "10"), 0);
	CHECK_MSG(faults(r.err) >= 3.0 * (double)pages, "%s", r.err);
	/* -D 0: no delay */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-D", "0", "-x,", "-e", "page-faults", t_self, "--work", np, "10"), 0);
	CHECK_MSG(faults(r.err) >= 3.0 * (double)pages && !strstr(r.err, "Events"), "%s", r.err);
	/* -D -1: never enabled */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-D", "-1", "-x,", "-e", "page-faults,task-clock", t_self, "--work", np, "10"),
		 0);
	CHECK_MSG(faults(r.err) == -1 && strstr(r.err, "<not counted>,msec,task-clock") &&
		  strstr(r.err, "Events disabled\n") && !strstr(r.err, "Events enabled"), "-D -1: %s", r.err);
	/* with -I: the intervals begin when counting does */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-D", "300", "-I", "100", "-x,", "-e", "page-faults", t_self, "--work", np,
			"1300"), 0);
	double sum = 0;
	char line[1024];

	for (int i = 0; t_line(r.err, i, line, sizeof(line)); i++)
		if (strstr(line, ",page-faults") && strchr(line, ','))
			sum += strtod(strchr(line, ',') + 1, NULL);
	CHECK_MSG(sum >= 2.0 * (double)pages && sum < 3.0 * (double)pages, "-D 300 -I 100: %.0f page faults:\n%s", sum,
		  r.err);
	/* a command gone before the delay ends: nothing counted */
	CHECK_EQ(T_STAT(&r, NULL, NULL, "-D", "5000", "-x,", "-e", "page-faults", "true"), 0);
	CHECK_MSG(faults(r.err) == -1 && !strstr(r.err, "Events enabled"), "-D 5000 true: %s", r.err);

	/* bad delays, named */
	const char *bad[] = { "-5", "x", "", "1.5", "+1", "2147483648" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char want[64];

		snprintf(want, sizeof(want), "-D '%s': ", bad[i]);
		CHECK_EQ(T_STAT(&r, NULL, NULL, "-D", (char *)bad[i], "true"), 129);
		CHECK_MSG(strstr(r.err, want), "-D '%s': %s", bad[i], r.err);
	}
	T_DONE();
}
