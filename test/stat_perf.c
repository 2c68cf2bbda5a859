/* SPDX-License-Identifier: MIT */
/*
 * pmu stat against perf stat on the same deterministic command: the
 * software counts agree (page-faults within 1%, the scheduler's small
 * counts within a few), with and without modifiers.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

static char self[4096], tool[4200];

static int workload(long pages)
{
	long ps = sysconf(_SC_PAGESIZE);
	pid_t pid = fork();
	char *m;

	/* The parent and a child each touch pages: perf stat and pmu stat both follow children. */
	m = mmap(NULL, (size_t)(pages * ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; m != MAP_FAILED && i < pages; i++)
		m[i * ps] = 1;
	if (pid == 0)
		_exit(0);
	/* Ten sleeps: at least ten context switches, which only kernel counting sees. */
	for (int i = 0; i < 10; i++)
		usleep(100);
	return pid > 0 && waitpid(pid, NULL, 0) == pid ? 0 : 1;
}

/* Runs argv with stdout and stderr to /dev/null; its exit status. */
static int run(char *const argv[])
{
	int status, fd;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The value of event ev in the -x, output in file; -1 when absent. */
static double field(const char *file, const char *ev)
{
	char line[512], key[128];
	double v = -1;
	FILE *f = fopen(file, "r");

	snprintf(key, sizeof(key), ",%s,", ev);
	while (f && fgets(line, sizeof(line), f)) {
		char *k = strstr(line, key);

		/* value,unit,event,...: the event is the third field */
		if (k && line[0] != '<' && strchr(line, ',') && strchr(strchr(line, ',') + 1, ',') == k)
			v = strtod(line, NULL);
	}
	if (f)
		fclose(f);
	return v;
}

static double median3(double *v)
{
	double a = v[0], b = v[1], c = v[2];

	return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

/* Counts the workload 3 times with each tool; compares the medians of each event. */
static void compare(const char *events, const char *const *names, const double *tolerance, const char *np)
{
	char pf[] = "/tmp/pmu-perf-XXXXXX", mf[] = "/tmp/pmu-mine-XXXXXX";
	int a = mkstemp(pf), b = mkstemp(mf);
	double theirs[8][3], ours[8][3];

	close(a);
	close(b);
	for (int r = 0; r < 3; r++) {
		char *perf[] = { "perf", "stat", "-x,", "-o", pf, "-e", (char *)events, "--", self, "--work",
				 (char *)np, NULL };
		char *mine[] = { tool, "stat", "-x,", "-o", mf, "-e", (char *)events, "--", self, "--work",
				 (char *)np, NULL };

		CHECK_EQ(run(perf), 0);
		CHECK_EQ(run(mine), 0);
		for (int i = 0; names[i]; i++) {
			theirs[i][r] = field(pf, names[i]);
			ours[i][r] = field(mf, names[i]);
		}
	}
	for (int i = 0; names[i]; i++) {
		double t = median3(theirs[i]), o = median3(ours[i]);
		double tol = tolerance[i] < 1 ? tolerance[i] * t : tolerance[i];

		CHECK_MSG(t >= 0 && o >= 0, "%s: perf %.0f, pmu %.0f", names[i], t, o);
		CHECK_MSG(o >= t - tol && o <= t + tol, "%s (-e %s): perf stat %.0f, pmu stat %.0f", names[i],
			  events, t, o);
		printf("%-20s perf stat %10.0f  pmu stat %10.0f\n", names[i], t, o);
	}
	unlink(pf);
	unlink(mf);
}

int main(int argc, char **argv)
{
	char buf[4096], np[32];
	long pages = t_scale(4000);

	if (argc > 2 && !strcmp(argv[1], "--work"))
		return workload(atol(argv[2]));
	if (!realpath(argv[0], self))
		T_SKIP("cannot resolve %s", argv[0]);
	snprintf(buf, sizeof(buf), "%s", self);
	snprintf(tool, sizeof(tool), "%s/../pmu", dirname(buf));
	if (access(tool, X_OK))
		T_SKIP("the pmu tool is not built next to the tests (%s)", tool);
	if (run((char *[]){ "perf", "stat", "-x,", "-e", "task-clock", "true", NULL }) != 0)
		T_SKIP("perf is not installed or cannot count here (perf stat -e task-clock true failed)");
	snprintf(np, sizeof(np), "%ld", pages);

	/*
	 * page-faults: 1%; context switches and migrations: the scheduler's, a
	 * few either way (counted in the kernel: 0 if pmu stat counted user space only).
	 */
	compare("task-clock,context-switches,cpu-migrations,page-faults",
		(const char *[]){ "page-faults", "context-switches", "cpu-migrations", "task-clock", NULL },
		(const double[]){ 0.01, 5, 5, 1e18 }, np);
	compare("page-faults:u,minor-faults:u,major-faults:u",
		(const char *[]){ "page-faults:u", "minor-faults:u", "major-faults:u", NULL },
		(const double[]){ 0.01, 0.01, 5 }, np);
	T_DONE();
}
