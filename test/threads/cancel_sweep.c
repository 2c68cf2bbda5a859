/* SPDX-License-Identifier: MIT */
/*
 * A thread cancelled at each cancellation point reached inside each call,
 * in turn. The C library's cancellation points that libpmu calls (open,
 * read, write, close, fopen, fprintf, ... : the --wrap list in the Makefile)
 * are wrapped here: in the worker thread, the Nth of them cancels the
 * thread (pthread_cancel(pthread_self()) and pthread_testcancel()), for
 * N = 1, 2, ... until the call completes without reaching it. After each
 * case: the worker ended in bounded time (cancelled, or done), no descriptor
 * and no perf event mapping is left behind, and the next region pair and
 * report of the main thread work. Where libpmu defers cancellation (a lock
 * held, a set half open) the cancel acts at the worker's next cancellation
 * point instead: the test's own pthread_testcancel() after the call.
 * The calls: pmu_thread_init, a thread's first region, region begin/end by
 * name and by handle, pmu_thread_read, pmu_report in every format to a pipe,
 * pmu_report_path, pmu_results_take/get, pmu_thread_fini; and zero-code
 * mode's report at exit, in a child process re-run with PMU_EVENTS.
 * PMU_TEST_QUICK=1 (the valgrind and tsan tiers): every 7th point.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pmu.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "test.h"

#define EV "task-clock,page-faults"
#define LIMIT_S 30	/* a case that takes longer hangs */

static __thread long cp_target, cp_calls;	/* the worker's: cancel at the cp_target-th point */

static void cancel_point(void)
{
	if (cp_target && ++cp_calls == cp_target) {
		pthread_cancel(pthread_self());
		pthread_testcancel();
	}
}

/* The wrapped calls: libpmu's (and this test's) references, linked with --wrap. */
int __real_open(const char *, int, ...);
int __real_openat(int, const char *, int, ...);
ssize_t __real_read(int, void *, size_t);
int __real_close(int);
int __real_closedir(DIR *);
DIR *__real_opendir(const char *);
FILE *__real_fopen(const char *, const char *);
int __real_fclose(FILE *);
int __real_fflush(FILE *);
char *__real_fgets(char *, int, FILE *);
int __real_fputs(const char *, FILE *);
int __real_fputc(int, FILE *);
size_t __real_fwrite(const void *, size_t, size_t, FILE *);

int __wrap_open(const char *p, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	cancel_point();
	return __real_open(p, flags, mode);
}

int __wrap_openat(int dir, const char *p, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	cancel_point();
	return __real_openat(dir, p, flags, mode);
}

ssize_t __wrap_read(int fd, void *b, size_t n)
{
	cancel_point();
	return __real_read(fd, b, n);
}

int __wrap_close(int fd)
{
	cancel_point();
	return __real_close(fd);
}

int __wrap_closedir(DIR *d)
{
	cancel_point();
	return __real_closedir(d);
}

DIR *__wrap_opendir(const char *p)
{
	cancel_point();
	return __real_opendir(p);
}

FILE *__wrap_fopen(const char *p, const char *m)
{
	cancel_point();
	return __real_fopen(p, m);
}

int __wrap_fclose(FILE *f)
{
	cancel_point();
	return __real_fclose(f);
}

int __wrap_fflush(FILE *f)
{
	cancel_point();
	return __real_fflush(f);
}

char *__wrap_fgets(char *s, int n, FILE *f)
{
	cancel_point();
	return __real_fgets(s, n, f);
}

int __wrap_fputs(const char *s, FILE *f)
{
	cancel_point();
	return __real_fputs(s, f);
}

int __wrap_fputc(int c, FILE *f)
{
	cancel_point();
	return __real_fputc(c, f);
}

size_t __wrap_fwrite(const void *p, size_t s, size_t n, FILE *f)
{
	cancel_point();
	return __real_fwrite(p, s, n, f);
}

int __wrap_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	cancel_point();
	va_start(ap, fmt);
	r = vfprintf(f, fmt, ap);
	va_end(ap);
	return r;
}

/* ---- the calls ---- */

static int handle;
static FILE *pipe_w;
static char dir[] = "/tmp/pmu-cancel-XXXXXX";

static void c_first(void)
{
	pmu_region_begin("first");
	pmu_region_end("first");
}

static void c_name(void)
{
	pmu_region_begin("named");
	pmu_region_end("named");
}

static void c_handle(void)
{
	pmu_region_enter(handle);
	pmu_region_exit(handle);
}

static void c_read(void)
{
	uint64_t v[2];

	pmu_thread_read(v);
}

#define REPORT(fmt) static void c_##fmt(void) { pmu_report(pipe_w, #fmt); fflush(pipe_w); }
REPORT(table)
REPORT(csv)
REPORT(json)
REPORT(html)
REPORT(trace)

static void c_path(void)
{
	char p[sizeof(dir) + 16];

	snprintf(p, sizeof(p), "%s/r.json", dir);
	pmu_report_path(p, NULL);
}

static void c_results(void)
{
	struct pmu_results *r = pmu_results_take();
	struct pmu_region_result rr = { .size = sizeof(rr) };

	if (r)
		pmu_results_get(r, 0, -1, &rr);
	pmu_results_free(r);
}

static void c_init(void)
{
	pmu_thread_init(EV);
}

static void c_fini(void)
{
	pmu_thread_fini();
}

static const struct call {
	const char *name;
	void (*fn)(void);
	int warm;		/* a pair of the worker's, uncounted, first */
	int fresh;		/* from a layer not set up: the test fini's it first */
} calls[] = {
	{ "pmu_thread_init", c_init, 0, 1 },
	{ "first region", c_first, 0, 0 },
	{ "region by name", c_name, 1, 0 },
	{ "region by handle", c_handle, 1, 0 },
	{ "pmu_thread_read", c_read, 0, 0 },
	{ "pmu_report table", c_table, 1, 0 },
	{ "pmu_report csv", c_csv, 1, 0 },
	{ "pmu_report json", c_json, 1, 0 },
	{ "pmu_report html", c_html, 1, 0 },
	{ "pmu_report trace", c_trace, 1, 0 },
	{ "pmu_report_path", c_path, 1, 0 },
	{ "pmu_results", c_results, 1, 0 },
	{ "pmu_thread_fini", c_fini, 1, 0 },
};

static const struct call *cur;
static long cur_n;		/* the case's point */

static void *worker(void *arg)
{
	if (cur->warm)
		c_first();
	cp_calls = 0;
	cp_target = (long)arg;
	cur->fn();
	cp_target = 0;
	pthread_testcancel();	/* a cancel libpmu deferred acts here */
	return (void *)1;
}

/* What the main thread has and must get back: descriptors, perf event mappings. */
static int perf_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, "perf_event") != NULL;
	if (f)
		fclose(f);
	return n;
}

static void *drain(void *arg)
{
	char buf[4096];

	while (read(*(int *)arg, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

static void on_alarm(int sig)
{
	char m[160];
	int n = snprintf(m, sizeof(m), "cancel_sweep: the main thread's calls hung after the case %s, point %ld\n",
			 cur ? cur->name : "(none)", cur_n);

	(void)sig;
	if (write(2, m, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

/* One case; whether the worker was cancelled (-1: it hung, said). */
static int one_case(long n)
{
	struct timespec dl;
	pthread_t t;
	void *ret = NULL;

	CHECK(pthread_create(&t, NULL, worker, (void *)n) == 0);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += LIMIT_S;
	if (pthread_timedjoin_np(t, &ret, &dl) != 0) {
		fprintf(stderr, "%s: the thread cancelled at point %ld did not end in %d s\n", cur->name, n, LIMIT_S);
		t_failures++;
		return -1;
	}
	return ret == PTHREAD_CANCELED;
}

/*
 * Each case from the same start, so that it reaches the same points: the
 * layer set up anew (no thread of an earlier case in the reports), the main
 * thread's set open, a region registered; or, for pmu_thread_init, no layer.
 */
static void before_case(void)
{
	pmu_thread_fini();
	if (cur->fresh)
		return;
	CHECK_MSG(pmu_thread_init(EV) == 0, "%s", pmu_errmsg());
	handle = pmu_region_register("by handle");
	c_first();
}

/* After a case: the main thread's calls work, and nothing is left behind. */
static void after_case(long n, int fds, int maps)
{
	FILE *nul = fopen("/dev/null", "w");

	alarm(LIMIT_S);
	if (cur->fresh || cur->fn == c_fini) {
		pmu_thread_fini();
		CHECK_MSG(pmu_thread_init(EV) == 0, "%s, point %ld: %s", cur->name, n, pmu_errmsg());
		c_first();
	}
	CHECK_MSG(pmu_region_begin("check") == 0 && pmu_region_end("check") == 0, "%s, point %ld: %s", cur->name, n,
		  pmu_errmsg());
	CHECK_MSG(nul && pmu_report(nul, "json") == 0, "%s, point %ld: %s", cur->name, n, pmu_errmsg());
	if (nul)
		fclose(nul);
	if (cur->fresh)	/* back to no layer, as before the case */
		pmu_thread_fini();
	alarm(0);
	CHECK_MSG(t_fd_count() == fds, "%s, point %ld: %d descriptors, %d before", cur->name, n, t_fd_count(), fds);
	CHECK_MSG(perf_maps() == maps, "%s, point %ld: %d perf mappings, %d before", cur->name, n, perf_maps(), maps);
}

/* No temporary report file is left in dir. */
static void no_temporary(const char *what)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		CHECK_MSG(e->d_name[0] != '.' || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."),
			  "%s: %s/%s left behind", what, dir, e->d_name);
	if (d)
		closedir(d);
}

/* Every point of one call, in turn; the count of points. */
static long sweep(const struct call *c, long step)
{
	long n, cancelled = 0;

	cur = c;
	for (n = 1; n < 100000 && !t_failures; n += step) {
		int fds, maps, r;

		cur_n = n;
		before_case();
		fds = t_fd_count();
		maps = perf_maps();
		r = one_case(n);
		if (r < 0)
			break;
		after_case(n, fds, maps);
		no_temporary(c->name);
		if (!r)
			break;	/* done without reaching point n */
		cancelled++;
	}
	printf("%-20s cancelled at each of %ld points (every %ld)%s\n", c->name, cancelled, step,
	       t_failures ? ": FAILED" : "");
	return cancelled;
}

/* ---- zero-code mode's report at exit, in a child process ---- */

static int report_fd = -1;	/* the child's: where it says how many points its exit reached */
static char self_exe[4096];	/* this program (valgrind shows its own as /proc/self/exe) */

/* Runs after zero-code mode's handler at exit (a destructor of the program's own). */
__attribute__((destructor)) static void say_reached(void)
{
	char buf[32];
	int n;

	if (report_fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%ld\n", cp_calls);
	if (write(report_fd, buf, (size_t)n) != n)
		_exit(3);
}

/* The child: zero-code mode set up from the environment; exit() cancelled at point n. */
static int exit_child(long n, int fd)
{
	report_fd = fd;
	pmu_region_begin("child");
	pmu_region_end("child");
	cp_calls = 0;
	cp_target = n;
	exit(0);
}

/* One run of the child; the points its exit reached (-1: it did not end in time, said). */
static long exit_case(long n)
{
	char arg[32], rep[sizeof(dir) + 16], got[32] = "";
	int p[2], st = 0;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%ld", n);
	snprintf(rep, sizeof(rep), "%s/zero.json", dir);
	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		char fd[16];

		snprintf(fd, sizeof(fd), "%d", p[1]);
		setenv("PMU_EVENTS", EV, 1);
		setenv("PMU_REPORT", rep, 1);
		execl(self_exe, "cancel_sweep", "exit", arg, fd, (char *)NULL);
		_exit(2);
	}
	close(p[1]);
	alarm(LIMIT_S);
	if (read(p[0], got, sizeof(got) - 1) < 0)
		got[0] = '\0';
	close(p[0]);
	if (waitpid(pid, &st, 0) != pid || !alarm(0)) {
		fprintf(stderr, "zero-code exit: the child cancelled at point %ld did not end in %d s\n", n, LIMIT_S);
		t_failures++;
		return -1;
	}
	no_temporary("zero-code exit");
	return *got ? atol(got) : 0;
}

static void sweep_exit(long step)
{
	long n, reached = 0;

	for (n = 1; n < 10000 && !t_failures; n += step) {
		long r = exit_case(n);

		if (r < 0 || r < n)
			break;
		reached++;
	}
	printf("%-20s cancelled at each of %ld points (every %ld)%s\n", "zero-code exit", reached, step,
	       t_failures ? ": FAILED" : "");
}

int main(int argc, char **argv)
{
	long step = t_scale(20) == 1 ? 7 : 1, total = 0;
	struct sigaction sa = { .sa_handler = on_alarm };

	if (argc == 4 && !strcmp(argv[1], "exit"))
		return exit_child(atol(argv[2]), atoi(argv[3]));
	T_SKIP_CANCEL_UNDER_ASAN();
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) <= 0)
		T_SKIP("/proc/self/exe: %s", strerror(errno));
	sigaction(SIGALRM, &sa, NULL);
	CHECK(mkdtemp(dir) != NULL);
	setenv("PMU_TRACE", "/dev/null", 1);
	setenv("PMU_TRACE_CALLS", "64", 1);
	if (pmu_thread_init(EV) < 0)
		T_SKIP("%s: %s", EV, pmu_errmsg());
	{
		int p[2];
		pthread_t d;

		CHECK(pipe(p) == 0 && pthread_create(&d, NULL, drain, &p[0]) == 0);
		pipe_w = fdopen(p[1], "w");
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && !t_failures; i++)
			total += sweep(&calls[i], step);
		fclose(pipe_w);
		pthread_join(d, NULL);
		close(p[0]);
	}
	pmu_thread_fini();
	if (!t_failures)
		sweep_exit(step);
	printf("%ld cases, each a thread cancelled at one point\n", total);
	if (!t_failures) {
		char cmd[sizeof(dir) + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		CHECK(system(cmd) == 0);
	}
	T_DONE();
}
