/* SPDX-License-Identifier: MIT */
/*
 * pmu stat's targets beside perf stat's: -p on a process woken while a
 * command runs (its page faults counted), -p until the process exits or ^C,
 * -t and --per-thread (a line per thread, comm-tid), -a/-C/-A per CPU
 * (refused with a reason where the kernel forbids it), event groups, and
 * bad lists. Only deterministic figures are compared: page faults of a
 * fixed workload, line counts, names, layouts with the numbers masked.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "pmu.h"
#include "test.h"
#include "stat_perf.h"

static char self[4096], tool[4200], dir[64];
static bool have_perf;

/*
 * --sleeper N: blocks on the fifo go, touches N pages, says so on the fifo
 * done, and exits at once (no exit handlers, which a sanitizer runtime has
 * fault pages) or, with --sleeper-stay, waits to be killed: its page faults
 * until then are a fixed number.
 */
static int sleeper(long pages, bool stay)
{
	char path[128], c;
	int fd;

	snprintf(path, sizeof(path), "%s/go", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1)
		return 1;
	close(fd);
	t_touch_pages(pages);
	snprintf(path, sizeof(path), "%s/done", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "d", 1) != 1)
		_exit(1);
	while (stay)
		pause();
	_exit(0);
}

/* --poke: wakes the sleeper and waits until it has touched its pages. */
static int poke(void)
{
	char path[128], c;
	int fd;

	snprintf(path, sizeof(path), "%s/go", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "g", 1) != 1)
		return 1;
	close(fd);
	snprintf(path, sizeof(path), "%s/done", dir);
	fd = open(path, O_RDONLY);
	return fd < 0 || read(fd, &c, 1) != 1;
}

static void *blocked(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	pause();
	return NULL;
}

/* --threads: two more threads named tgt-a and tgt-b, all blocked until killed. */
static int threads(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, blocked, "tgt-a") || pthread_create(&t, NULL, blocked, "tgt-b"))
		return 1;
	pause();
	return 0;
}

/* Starts this program with argument arg (and n); its pid. */
static pid_t spawn(const char *arg, const char *n)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execl(self, self, arg, dir, n, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Runs argv, stderr into err: its exit status, or 128+N when killed by signal N. */
static int run_err(char *const argv[], char *err, size_t size)
{
	char ef[] = "/tmp/pmu-tgt-err-XXXXXX";
	int fd = mkstemp(ef), status = -1;
	pid_t pid;
	ssize_t k;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	k = pread(fd, err, size - 1, 0);
	err[k > 0 ? k : 0] = '\0';
	close(fd);
	unlink(ef);
	return status;
}

/* The whole file into buf. */
static void slurp(const char *file, char *buf, size_t size)
{
	int fd = open(file, O_RDONLY);
	ssize_t k = fd < 0 ? -1 : read(fd, buf, size - 1);

	buf[k > 0 ? k : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* tool (pmu stat or perf) with args, then MORE (NULL-ended) and -o file, then more args; its exit status. */
static int both_run(const char *tool_path, const char *file, const char *const *args)
{
	char *a[32] = { (char *)tool_path, "stat", "-o", (char *)file };
	int k = 4;

	while (*args && k < 31)
		a[k++] = (char *)*args++;
	a[k] = NULL;
	return run(a);
}

/* perf 6.1's --json gives an event without a metric the pair below; pmu stat leaves it out. */
static void drop_null(char *buf)
{
	static const char pair[] = ", \"metric-value\" : N, \"metric-unit\" : \"(null)\"";
	char *p;

	while ((p = strstr(buf, pair)))
		memmove(p, p + sizeof(pair) - 1, strlen(p + sizeof(pair) - 1) + 1);
}

/*
 * The layouts of perf stat and pmu stat run with args, numbers masked: equal.
 * Skipped without perf.
 */
static void same_layout(const char *what, const char *const *args)
{
	char pf[] = "/tmp/pmu-tgt-perf-XXXXXX", mf[] = "/tmp/pmu-tgt-mine-XXXXXX";
	static char theirs[16384], ours[16384];
	int rp, rm;

	if (!have_perf)
		return;
	close(mkstemp(pf));
	close(mkstemp(mf));
	rp = both_run("perf", pf, args);
	rm = both_run(tool, mf, args);
	CHECK_MSG(rp == 0 && rm == 0, "%s: perf stat exits %d, pmu stat %d", what, rp, rm);
	masked(pf, theirs, sizeof(theirs));
	masked(mf, ours, sizeof(ours));
	drop_null(theirs);
	CHECK_MSG(*theirs && !strcmp(theirs, ours), "%s: perf stat:\n%s\npmu stat:\n%s", what, theirs, ours);
	unlink(pf);
	unlink(mf);
}

/*
 * Waits (a while at most) until pid blocks in system call nr: pmu stat
 * counting waits for ^C in rt_sigtimedwait, the sleeper for its fifo in openat.
 */
static void wait_syscall(pid_t pid, long nr)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int k = 0; k < 20000; k++) {
		slurp(path, buf, sizeof(buf));
		if (buf[0] != '-' && atol(buf) == nr)
			return;
		usleep(1000);
	}
}

/* Waits (a while at most) until pid blocks opening a fifo (in openat, where wchan is not shown). */
static void wait_fifo(pid_t pid)
{
	char path[64], wchan[64], call[64];

	for (int k = 0; k < 20000; k++) {
		snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
		slurp(path, wchan, sizeof(wchan));
		snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
		slurp(path, call, sizeof(call));
		if (!strcmp(wchan, "wait_for_partner") ||
		    ((!*wchan || !strcmp(wchan, "0")) && call[0] != '-' && atol(call) == SYS_openat))
			return;
		usleep(1000);
	}
}

/* The sleeper's page faults, counted by tool with -p while poke runs (-x, output in file, fmt its format). */
static double woken(const char *tool_path, const char *file, const char *np, const char *fmt)
{
	char pid[16], layout[64];
	pid_t s = spawn("--sleeper-stay", np);
	const char *args[12];
	int rc, k = 0;

	wait_fifo(s);	/* started: what it faults from now on is its pages */
	snprintf(pid, sizeof(pid), "%d", (int)s);
	if (fmt)
		args[k++] = fmt;
	memcpy(args + k, (const char *[]){ "-e", "page-faults:u", "-p", pid, "--", self, "--poke", dir, NULL },
	       9 * sizeof(*args));
	rc = both_run(tool_path, file, args);
	kill(s, SIGKILL);
	waitpid(s, NULL, 0);
	CHECK_MSG(rc == 0, "%s stat -p %s -- poke: exit %d", tool_path, pid, rc);
	return field(file, "page-faults:u", layout, sizeof(layout));
}

/* -p while a command runs, and until the process exits or ^C. */
static void attach(long pages)
{
	char np[32], pf[] = "/tmp/pmu-tgt-perf-XXXXXX", mf[] = "/tmp/pmu-tgt-mine-XXXXXX", lt[64], lo[64];
	char theirs[4096], ours[4096], pid[16], buf[128];
	double t = -1, o;
	pid_t s, st;
	int status = 0;

	close(mkstemp(pf));
	close(mkstemp(mf));
	snprintf(np, sizeof(np), "%ld", pages);
	o = woken(tool, mf, np, "-x,");
	CHECK_MSG(o >= (double)pages, "pmu stat -p counted %.0f page-faults of a process touching %ld pages", o, pages);
	field(mf, "page-faults:u", lo, sizeof(lo));
	if (have_perf) {
		const char *fmts[] = { "-x,", "-j", NULL };

		t = woken("perf", pf, np, "-x,");
		field(pf, "page-faults:u", lt, sizeof(lt));
		CHECK_MSG(!strcmp(lt, lo), "-p -x,: perf stat: %s; pmu stat: %s", lt, lo);
		CHECK_MSG(o >= t * 0.99 && o <= t * 1.01 + 5, "-p page-faults: perf stat %.0f, pmu stat %.0f", t, o);
		for (int f = 0; f < 3; f++) {
			woken("perf", pf, np, fmts[f]);
			woken(tool, mf, np, fmts[f]);
			masked(pf, theirs, sizeof(theirs));
			masked(mf, ours, sizeof(ours));
			drop_null(theirs);
			CHECK_MSG(*theirs && !strcmp(theirs, ours), "-p %s: perf stat:\n%s\npmu stat:\n%s", fmts[f] ? fmts[f] : "table",
				  theirs, ours);
		}
	}
	printf("-p page-faults       perf stat %10.0f  pmu stat %10.0f (%ld pages touched)\n", t, o, pages);

	/* no command: until the process is gone */
	s = spawn("--sleeper", np);
	snprintf(pid, sizeof(pid), "%d", (int)s);
	st = spawn("--pmu", pid);
	wait_syscall(st, SYS_rt_sigtimedwait);
	CHECK(poke() == 0);
	waitpid(s, NULL, 0);
	CHECK(waitpid(st, &status, 0) == st && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(buf, sizeof(buf), "%s/out", dir);
	slurp(buf, theirs, sizeof(theirs));
	o = strstr(theirs, "':\n\n") ? strtod(strstr(theirs, "':\n\n") + 4, NULL) : -1;
	CHECK_MSG(o >= (double)pages, "-p until the process exits: %s", theirs);

	/* ^C: the figures, then pmu stat ends by SIGINT as perf stat does */
	s = spawn("--sleeper", np);
	snprintf(pid, sizeof(pid), "%d", (int)s);
	snprintf(ours, sizeof(ours), "%s/out", dir);
	st = spawn("--pmu", pid);
	wait_syscall(st, SYS_rt_sigtimedwait);
	kill(st, SIGINT);
	CHECK(waitpid(st, &status, 0) == st && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
	slurp(ours, theirs, sizeof(theirs));
	CHECK_MSG(strstr(theirs, "page-faults") && strstr(theirs, "process id '"), "after ^C: %s", theirs);
	kill(s, SIGKILL);
	waitpid(s, NULL, 0);
	unlink(pf);
	unlink(mf);
}

/* Waits until pid's n threads sleep, named: none runs while counted, so none is counted. */
static void wait_blocked(pid_t pid, int n)
{
	char path[64], buf[512];

	for (int k = 0; k < 20000; k++) {
		int asleep = 0, named = 0;
		struct dirent *e;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		d = opendir(path);
		while (d && (e = readdir(d))) {
			char *p;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", (int)pid, e->d_name);
			slurp(path, buf, sizeof(buf));
			p = strrchr(buf, ')');
			asleep += p && p[1] == ' ' && p[2] == 'S';
			named += strstr(buf, "(tgt-") != NULL;
		}
		if (d)
			closedir(d);
		if (asleep == n && named == n - 1)
			return;
		usleep(1000);
	}
}

/* -t one thread and --per-thread: a line per thread and event, comm-tid as perf stat names them. */
static void per_thread(void)
{
	pid_t s = spawn("--threads", "0");
	char pid[16], tid[16] = "", mf[] = "/tmp/pmu-tgt-mine-XXXXXX", out[8192], want[64];
	const char *names[] = { "stat_target", "tgt-a", "tgt-b" }, *fmts[] = { "-x,", "-j", NULL };
	struct dirent *e;
	DIR *d;
	int tids = 0, n = 0;

	close(mkstemp(mf));
	wait_blocked(s, 3);
	snprintf(pid, sizeof(pid), "%d", (int)s);
	CHECK_EQ(both_run(tool, mf, (const char *[]){ "-x,", "--per-thread", "-p", pid, "-e", "task-clock:u,page-faults:u",
						      "--", "true", NULL }), 0);
	slurp(mf, out, sizeof(out));
	for (char *p = out; (p = strstr(p, ",page-faults:u,")); p++)
		n++;
	CHECK_MSG(n == 3, "--per-thread, 3 threads: %d page-faults lines:\n%s", n, out);
	snprintf(want, sizeof(want), "/proc/%d/task", (int)s);
	d = opendir(want);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(tid, sizeof(tid), "%.15s", e->d_name);
		for (int k = 0; k < 3; k++) {
			snprintf(want, sizeof(want), "\n%s-%s,", names[k], tid);
			tids += strstr(out, want) != NULL;
		}
	}
	if (d)
		closedir(d);
	CHECK_MSG(tids == 3, "--per-thread: comm-tid of the 3 threads: %d found:\n%s", tids, out);
	/* -t: that thread alone, summed */
	CHECK_EQ(both_run(tool, mf, (const char *[]){ "-x,", "-t", tid, "-e", "task-clock:u", "--", "true", NULL }), 0);
	slurp(mf, out, sizeof(out));
	CHECK_MSG(strstr(out, "\n<not counted>,msec,task-clock:u,0,100.00,,\n") &&
		  !strstr(strstr(out, "task-clock") + 1, "task-clock"), "-t %s: %s", tid, out);
	for (int f = 0; f < 3; f++) {
		const char *modes[][3] = { { "--per-thread", "-p", pid }, { "--per-thread", "-t", tid }, { "-t", tid } };

		for (int m = 0; m < 3; m++) {
			const char *args[12];
			int k = 0;

			if (fmts[f])
				args[k++] = fmts[f];
			for (int j = 0; j < 3 && modes[m][j]; j++)
				args[k++] = modes[m][j];
			memcpy(args + k, (const char *[]){ "-e", "task-clock:u,page-faults:u", "true", NULL },
			       4 * sizeof(*args));
			snprintf(want, sizeof(want), "%s %s %s", fmts[f] ? fmts[f] : "table", modes[m][0], modes[m][1]);
			same_layout(want, args);
		}
	}
	kill(s, SIGKILL);
	waitpid(s, NULL, 0);
	unlink(mf);
}

/* -a, -C, -A beside perf; where the kernel forbids counting a CPU, the reason. */
static void cpus(void)
{
	const char *modes[][4] = { { "-a", "-C", "0" }, { "-a", "-A", "-C", "0" }, { "-C", "0" }, { "-A", "-C", "0" },
				   { "-a", "-A" }, { "-a" } };
	const char *fmts[] = { "-x,", "-j", NULL };
	char err[4096];
	long paranoid = 2;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%ld", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	if (geteuid() != 0 && paranoid > 0) {
		CHECK_EQ(run_err((char *[]){ tool, "stat", "-a", "-e", "task-clock", "true", NULL }, err, sizeof(err)), 1);
		CHECK_MSG(strstr(err, "permission denied counting every task of a CPU") &&
			  strstr(err, "perf_event_paranoid"), "%s", err);
		printf("note: -a/-C/-A layouts not compared: counting a CPU is not allowed to this user\n");
		return;
	}
	if (geteuid() == 0 && !access("/usr/bin/setpriv", X_OK) && paranoid > 0) {
		/* as an ordinary user: the reason */
		int rc = run_err((char *[]){ "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
					     "--inh-caps=-all", tool, "stat", "-C", "0", "-e", "task-clock", "true", NULL },
				 err, sizeof(err));

		if (rc == 126 || rc == 127)
			printf("note: -C refused to an ordinary user not checked (setpriv exits %d)\n", rc);
		else
			CHECK_MSG(rc == 1 && strstr(err, "permission denied counting every task of a CPU"), "%d %s",
				  rc, err);
	}
	for (int x = 0; x < 3; x++)
		for (int m = 0; m < 6; m++) {
			const char *args[12];
			char what[64];
			int k = 0;

			if (fmts[x])
				args[k++] = fmts[x];
			for (int j = 0; j < 4 && modes[m][j]; j++)
				args[k++] = modes[m][j];
			memcpy(args + k, (const char *[]){ "-e", "task-clock", "true", NULL }, 4 * sizeof(*args));
			snprintf(what, sizeof(what), "%s %s %s", fmts[x] ? fmts[x] : "table", modes[m][0],
				 modes[m][1] ? modes[m][1] : "");
			same_layout(what, args);
		}
}

/* {a,b}: one set, counted like perf stat's group; braces that do not pair, named. */
static void groups(const char *np)
{
	char mf[] = "/tmp/pmu-tgt-mine-XXXXXX", pf[] = "/tmp/pmu-tgt-perf-XXXXXX", err[4096], lt[64], lo[64];
	double t, o;

	close(mkstemp(mf));
	close(mkstemp(pf));
	CHECK_EQ(run((char *[]){ tool, "stat", "-x,", "-o", mf, "-e", "{task-clock,page-faults}:u,context-switches",
				 self, "--touch", dir, (char *)np, NULL }), 0);
	o = field(mf, "page-faults", lo, sizeof(lo));
	CHECK_MSG(o >= atof(np), "{task-clock,page-faults}:u: %.0f page-faults of %s pages touched", o, np);
	/* a group's events run together: the same times */
	CHECK_MSG(nth(mf, "task-clock", 3) == nth(mf, "page-faults", 3) && nth(mf, "task-clock", 3) > 0,
		  "the group's running times differ");
	if (have_perf) {
		CHECK_EQ(run((char *[]){ "perf", "stat", "-x,", "-o", pf, "-e",
					 "{task-clock,page-faults}:u,context-switches", self, "--touch", dir, (char *)np,
					 NULL }), 0);
		t = field(pf, "page-faults", lt, sizeof(lt));
		CHECK_MSG(!strcmp(lt, lo), "group -x,: perf stat %s; pmu stat %s", lt, lo);
		CHECK_MSG(o >= t * 0.99 && o <= t * 1.01, "{task-clock,page-faults}:u: perf stat %.0f, pmu stat %.0f", t,
			  o);
		printf("group page-faults    perf stat %10.0f  pmu stat %10.0f\n", t, o);
	}
	same_layout("{task-clock,page-faults}:u,context-switches",
		    (const char *[]){ "-e", "{task-clock,page-faults}:u,context-switches", self, "--touch", dir, np, NULL });
	same_layout("-j {task-clock,page-faults}:u", (const char *[]){ "-j", "-e", "{task-clock,page-faults}:u", self,
									"--touch", dir, np, NULL });
	/* as perf stat, events without a metric of their own (tracepoints too) per second of task-clock */
	if (access("/sys/kernel/tracing/events/sched/sched_process_exec/id", R_OK) == 0) {
		same_layout("rates", (const char *[]){ "-e", "task-clock,sched:sched_process_exec,major-faults",
						       "true", NULL });
		same_layout("-x, rates", (const char *[]){ "-x,", "-e", "task-clock,sched:sched_process_exec", "true",
							   NULL });
	}
	/* nothing runs on a list that does not pair its braces: a usage error */
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-e", "{task-clock", "true", NULL }, err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "'{task-clock': group not closed with '}'"), "%s", err);
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-e", "task-clock}", "true", NULL }, err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "'task-clock}'") && strstr(err, "brace") && !strstr(err, "did you mean"), "%s", err);
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-e", "{task-clock,{page-faults}}", "true", NULL }, err,
			 sizeof(err)), 129);
	CHECK_MSG(strstr(err, "groups do not nest"), "%s", err);
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-e", "{}", "true", NULL }, err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "'{}': an empty group"), "%s", err);
	unlink(mf);
	unlink(pf);
}

/* Lists that are not: 129 naming them; a missing process named. */
static void bad_lists(void)
{
	const char *bad[][2] = { { "-p", "abc" }, { "-p", "0" }, { "-p", "" }, { "-p", "1,,2" }, { "-t", "" },
				 { "-C", "5000" }, { "-C", "1-0" }, { "-C", "" }, { "-C", "0-" } };
	char err[4096];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[64];

		CHECK_EQ(run_err((char *[]){ tool, "stat", (char *)bad[i][0], (char *)bad[i][1], "-e", "task-clock",
					     "true", NULL }, err, sizeof(err)), 129);
		snprintf(want, sizeof(want), "%s '%s': ", bad[i][0], bad[i][1]);
		CHECK_MSG(strstr(err, want), "%s %s: %s", bad[i][0], bad[i][1], err);
	}
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-p", "99999999", "true", NULL }, err, sizeof(err)), 1);
	CHECK_MSG(strstr(err, "-p 99999999: no such process"), "%s", err);
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-t", "99999999", NULL }, err, sizeof(err)), 1);
	CHECK_MSG(strstr(err, "-t 99999999: no such thread"), "%s", err);
	/* what is not done is said, never done otherwise */
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-A", "true", NULL }, err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "not supported: -A/--no-aggr without -a or -C"), "%s", err);
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-p", "1", "-C", "0", "true", NULL }, err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "not supported: -p/-t with -a/-C"), "%s", err);
	CHECK_EQ(run_err((char *[]){ tool, "stat", "-r", "2", "-a", "true", NULL }, err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "not supported: -r with"), "%s", err);
}

int main(int argc, char **argv)
{
	char buf[4096], np[32];
	long pages = t_scale(2000);

	if (argc > 2)
		snprintf(dir, sizeof(dir), "%s", argv[2]);
	if (argc > 3 && !strncmp(argv[1], "--sleeper", 9))
		return sleeper(atol(argv[3]), !strcmp(argv[1], "--sleeper-stay"));
	if (argc > 2 && !strcmp(argv[1], "--poke"))
		return poke();
	if (argc > 2 && !strcmp(argv[1], "--threads"))
		return threads();
	if (argc > 3 && !strcmp(argv[1], "--touch")) {
		t_touch_pages(atol(argv[3]));
		_exit(0);	/* a sanitizer's exit handlers would fault pages of their own */
	}
	if (argc > 3 && !strcmp(argv[1], "--pmu")) {	/* pmu stat -p PID into DIR/out, no command */
		char out[128], path[4300];

		snprintf(out, sizeof(out), "%s/out", dir);
		if (!realpath(argv[0], buf))
			return 127;
		snprintf(path, sizeof(path), "%s/../pmu", dirname(buf));
		execl(path, path, "stat", "-o", out, "-e", "page-faults:u", "-p", argv[3], (char *)NULL);
		return 127;
	}
	if (!realpath(argv[0], self))
		T_SKIP("cannot resolve %s", argv[0]);
	snprintf(buf, sizeof(buf), "%s", self);
	snprintf(tool, sizeof(tool), "%s/../pmu", dirname(buf));
	if (access(tool, X_OK))
		T_SKIP("the pmu tool is not built next to the tests (%s)", tool);
	if (run((char *[]){ tool, "stat", "-e", "page-faults", "true", NULL }) != 0)
		T_SKIP("pmu stat cannot count page-faults here");
	have_perf = run((char *[]){ "perf", "stat", "-x,", "-e", "task-clock", "true", NULL }) == 0;
	if (!have_perf)
		printf("note: perf stat cannot count here: pmu stat is checked alone\n");
	snprintf(dir, sizeof(dir), "/tmp/pmu-tgt-XXXXXX");
	if (!mkdtemp(dir))
		T_SKIP("mkdtemp: %s", strerror(errno));
	snprintf(buf, sizeof(buf), "%s/go", dir);
	mkfifo(buf, 0600);
	snprintf(buf, sizeof(buf), "%s/done", dir);
	mkfifo(buf, 0600);
	snprintf(np, sizeof(np), "%ld", pages);
	attach(pages);
	per_thread();
	cpus();
	groups(np);
	bad_lists();
	snprintf(buf, sizeof(buf), "%s/go", dir);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s/done", dir);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s/out", dir);
	unlink(buf);
	rmdir(dir);
	T_DONE();
}
