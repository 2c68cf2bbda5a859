/* SPDX-License-Identifier: MIT */
/*
 * What the tests of pmu stat's -I, -D, -v and signals share: the tool next
 * to the tests, and a run of a command with its output captured, timed and
 * watched while it runs.
 */
#ifndef PMU_TEST_STAT_INTERVAL_H
#define PMU_TEST_STAT_INTERVAL_H

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <time.h>

#include "test.h"
#include "stat_perf.h"

static char t_self[4096], t_tool[4200];

/* Finds this test and the pmu tool built next to it; skips when it is not. */
static inline void t_find_tool(const char *argv0)
{
	char buf[4096];

	if (!realpath(argv0, t_self))
		T_SKIP("cannot resolve %s", argv0);
	snprintf(buf, sizeof(buf), "%s", t_self);
	snprintf(t_tool, sizeof(t_tool), "%s/../pmu", dirname(buf));
	if (access(t_tool, X_OK))
		T_SKIP("the pmu tool is not built next to the tests (%s)", t_tool);
}

static inline double t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A run: its standard output and error, exit status (128+N for signal N) and
 * wall time; fig is err without pmu stat's notes ("pmu stat: ..." lines,
 * such as the one saying kernel counting was refused).
 */
struct t_run {
	char out[1 << 16], err[1 << 16], fig[1 << 16];
	int status;
	bool signaled;	/* status is 128+N because signal N ended it (not an exit) */
	double elapsed;
};

static inline void t_slurp(int fd, char *buf, size_t size)
{
	ssize_t k = pread(fd, buf, size - 1, 0);

	buf[k > 0 ? k : 0] = '\0';
	close(fd);
}

/*
 * Runs argv in a process group of its own, with SIGINT as the default
 * (whatever this test inherited); during(pid, arg), when given, is called
 * while it runs. Returns the exit status.
 */
static inline int t_run(struct t_run *r, char *const argv[], void (*during)(pid_t pid, void *arg), void *arg)
{
	char of[] = "/tmp/pmu-stat-out-XXXXXX", ef[] = "/tmp/pmu-stat-err-XXXXXX";
	int ofd = mkstemp(of), efd = mkstemp(ef), status = 0;
	double t0;
	pid_t pid;

	unlink(of);
	unlink(ef);
	fflush(NULL);
	t0 = t_now();
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		dup2(ofd, 1);
		dup2(efd, 2);
		execvp(argv[0], argv);
		_exit(126);
	}
	if (pid > 0 && during)
		during(pid, arg);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = 255 << 8;
	r->elapsed = t_now() - t0;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->signaled = WIFSIGNALED(status);
	t_slurp(ofd, r->out, sizeof(r->out));
	t_slurp(efd, r->err, sizeof(r->err));
	r->fig[0] = '\0';
	for (const char *l = r->err, *e; *l; l = *e ? e + 1 : e) {
		e = l + strcspn(l, "\n");
		if (strncmp(l, "pmu stat: ", 10))
			snprintf(r->fig + strlen(r->fig), sizeof(r->fig) - strlen(r->fig), "%.*s\n", (int)(e - l), l);
	}
	return r->status;
}

/* pmu stat ARGS... (NULL-terminated, at most 30). */
#define T_STAT(r, during, arg, ...) \
	t_run((r), (char *const[]){ t_tool, "stat", __VA_ARGS__, NULL }, (during), (arg))

/* Whether perf stat can count here, for the comparisons with it. */
static inline bool t_have_perf(void)
{
	static struct t_run r;

	return t_run(&r, (char *const[]){ "perf", "stat", "-x,", "-e", "task-clock", "true", NULL }, NULL,
		     NULL) == 0;
}

/* Line n (from 0) of s, NUL-ended in buf; false past the end. */
static inline bool t_line(const char *s, int n, char *buf, size_t size)
{
	for (; n > 0 && s; n--)
		s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
	if (!s || !*s)
		return false;
	snprintf(buf, size, "%.*s", (int)strcspn(s, "\n"), s);
	return true;
}

/* The kinds of line: the header, then each event counted or not. */
#define KINDS 5
/*
 * Whether n interval lines fit their own last timestamp: deadlines are
 * absolute (start + k x 0.1 s), a line is printed at the first wake-up past
 * one and late wake-ups skip the deadlines they missed, so a run whose last
 * line says t has at most floor(t / 0.1) full intervals and a partial one,
 * and at least the partial one: how many a loaded machine lets through is
 * no measure. Nor is the run's wall time: the tool's start and the
 * command's exec take what they take around the counting.
 */
static inline bool t_intervals_fit(int n, double last)
{
	return n >= 1 && n <= (int)(last / 0.1) + 1;
}

/* Interval line i (from 0) comes no earlier than i deadlines: a tick never fires early. */
static inline bool t_interval_not_early(int i, double t)
{
	return t >= i * 0.1 - 1e-6;
}

static inline int kind(const char *line)
{
	int ev = strstr(line, "task-clock") ? 1 : strstr(line, "page-faults") ? 3 : -1;

	if (line[0] == '#')
		return 0;
	return ev < 0 ? -1 : ev + (strstr(line, "<not counted>") != NULL);
}

/* Each kind of line of out, masked (the first of each kind; "" for a kind absent). */
static inline void shapes(const char *out, char shape[KINDS][512], bool table)
{
	char line[1024];

	for (int k = 0; k < KINDS; k++)
		shape[k][0] = '\0';
	for (int i = 0; t_line(out, i, line, sizeof(line)); i++) {
		int k = kind(line);

		if (k >= 0 && !shape[k][0])
			mask(line, shape[k], sizeof(shape[k]), table);
	}
}

/* Fields of a -x line. */
static inline int fields(const char *line)
{
	int n = 1;

	for (; *line; line++)
		n += *line == ',';
	return n;
}

/* Event ev's count of each interval added up; -1 when a line is missing, negative or malformed. */
static inline double sum(const char *out, const char *ev, int nev, int *lines)
{
	char line[1024], stamp[64] = "";
	double total = 0;
	int i;

	for (i = 0; t_line(out, i, line, sizeof(line)); i++) {
		char *f = strchr(line, ',');
		int k = i % nev;

		/* nev lines an interval, each with its timestamp */
		if (!f || fields(line) != 8 || (k == 0 && !strncmp(stamp, line, (size_t)(f - line))) ||
		    (k > 0 && strncmp(stamp, line, (size_t)(f - line))))
			return -1;
		if (k == 0)
			snprintf(stamp, sizeof(stamp), "%.*s", (int)(f - line), line);
		if (strncmp(f + 1, "<not counted>", 13) && strstr(line, ev)) {
			if (f[1] < '0' || f[1] > '9')
				return -1;
			total += strtod(f + 1, NULL);
		}
	}
	*lines = i;
	return i % nev ? -1 : total;
}

/* The counted command, or the process counted with -p: these tests again, with --work ARGS. */
static inline int t_workload(char **argv)
{
	if (!strcmp(argv[0], "--sleep")) {
		struct timespec ts = { atol(argv[1]) / 1000, atol(argv[1]) % 1000 * 1000000 };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		return 0;
	}
	if (!strcmp(argv[0], "--touch")) {	/* argv[1] pages in argv[2] steps, 20 ms apart */
		long n = atol(argv[1]), steps = atol(argv[2]);

		for (long i = 0; i < steps; i++) {
			t_touch_pages(n / steps);
			usleep(20000);
		}
		return 0;
	}
	if (!strcmp(argv[0], "--fault")) {	/* a page every 10 ms until killed */
		for (;;) {
			t_touch_pages(1);
			usleep(10000);
		}
	}
	return 99;
}

#endif
