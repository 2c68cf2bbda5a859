/* SPDX-License-Identifier: MIT */
/*
 * pmu stat and SIGINT: the command gets it (^C reaches the whole process
 * group; kill reaches the command alone), pmu stat stays to print what was
 * counted, names the signal on standard error as perf stat does ("CMD:
 * Interrupt"), then, when the ^C reached it too, ends by SIGINT itself as
 * perf stat does (a shell loop around it stops), else exits 128+2. With -I
 * too, whose last interval is printed.
 */
#include <errno.h>

#include "stat_interval.h"

static char piddir[256], pidfile[300];

/* The counted command: touches 100 pages, writes its pid to argv[0], then sleeps until a signal ends it. */
static int workload(char **argv)
{
	char tmp[80];
	FILE *f;

	t_touch_pages(100);	/* before the pid: counted whenever the signal comes */
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[0]);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) || rename(tmp, argv[0]))
		return 1;
	for (int i = 0; i < 600; i++)	/* a minute at most */
		usleep(100000);
	return 0;
}

/* The command's pid, once it runs (10 s at most); 0 if it never does. */
static pid_t command_pid(void)
{
	for (int i = 0; i < 1000; i++) {
		FILE *f = fopen(pidfile, "r");
		int pid = 0;

		if (f) {
			if (fscanf(f, "%d", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		if (pid > 0)
			return pid;
		usleep(10000);
	}
	return 0;
}

/* ^C at a terminal: SIGINT to pmu stat's process group, once the command runs. */
static void to_group(pid_t pid, void *arg)
{
	(void)arg;
	if (command_pid())
		kill(-pid, SIGINT);
	else
		kill(-pid, SIGKILL);
}

/* kill -INT of the command alone. */
static void to_command(pid_t pid, void *arg)
{
	pid_t c = command_pid();

	(void)arg;
	if (c)
		kill(c, SIGINT);
	else
		kill(-pid, SIGKILL);
}

static void check(void (*during)(pid_t, void *), const char *how, const char *interval)
{
	static struct t_run r;
	char want[4200];

	unlink(pidfile);
	if (interval)
		T_STAT(&r, during, NULL, "-I", (char *)interval, "-x,", "-e", "page-faults", t_self, "--work", pidfile);
	else
		T_STAT(&r, during, NULL, "-x,", "-e", "page-faults", t_self, "--work", pidfile);
	snprintf(want, sizeof(want), "%s: Interrupt\n", t_self);
	CHECK_MSG(r.status == 130, "%s%s%s: exit %d\n%s", how, interval ? " -I " : "", interval ? interval : "",
		  r.status, r.err);
	CHECK_MSG(strstr(r.err, want), "%s: the signal is not named:\n%s", how, r.err);
	CHECK_MSG(r.signaled == (during == to_group), "%s: %s", how,
		  r.signaled ? "pmu stat was killed, the ^C was not its own" : "pmu stat exited, not ended by its ^C");
	/* the counts: the command's 100 pages at least, in the whole or in the intervals */
	double sum = 0;
	char line[1024];

	for (int i = 0; t_line(r.err, i, line, sizeof(line)); i++) {
		char *p = interval ? strchr(line, ',') : line;

		if (p && strstr(line, ",page-faults"))
			sum += strtod(p + (interval != NULL), NULL);
	}
	CHECK_MSG(sum >= 100, "%s%s: %.0f page faults counted:\n%s", how, interval ? " -I" : "", sum, r.err);
	unlink(pidfile);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--work"))
		return workload(argv + 2);
	t_find_tool(argv[0]);
	if (t_tmpdir(piddir, sizeof(piddir), "stat-pid"))
		T_DONE();
	snprintf(pidfile, sizeof(pidfile), "%s/pid", piddir);	/* the workload writes it, through pid.tmp */
	check(to_group, "SIGINT to the process group", NULL);
	check(to_command, "SIGINT to the command", NULL);
	check(to_group, "SIGINT to the process group", "100");
	check(to_command, "SIGINT to the command", "50");
	rmdir(piddir);
	T_DONE();
}
