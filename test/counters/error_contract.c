/* SPDX-License-Identifier: MIT */
/*
 * The error contract of every public function (pmu_errmsg(3)): a failing
 * call sets the thread's message (a new one, naming the function or its
 * input) and returns the errno its man page lists under ERRORS (or sets
 * errno, for the functions that return a pointer or a count, and since 0.7
 * for all); a call that succeeds leaves errno as it was. pmu_thread_fini()
 * says what happened.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmu.h"
#include "test.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"	/* the 0.1 names keep the contract too */

#define SENTINEL EXDEV	/* errno before every call: no library call has a reason to set it */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = '\0';
	fclose(f);
	return s;
}

/* The ERRORS section of man/FN.3 (following .so stubs), or NULL where the pages are not here. */
static char *errors_of(const char *fn)
{
	char path[256], target[128];
	char *page, *e, *end;

	snprintf(path, sizeof(path), "man/%s.3", fn);
	for (int hops = 0; (page = slurp(path)) && hops < 4 && sscanf(page, ".so man3/%127s", target) == 1; hops++) {
		free(page);
		snprintf(path, sizeof(path), "man/%s", target);
	}
	if (!page)
		return NULL;
	e = strstr(page, "\n.SH ERRORS");
	if (!e) {
		free(page);
		return strdup("");
	}
	end = strstr(e + 1, "\n.SH ");
	if (end)
		*end = '\0';
	memmove(page, e, strlen(e) + 1);
	return page;
}

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case E2BIG: return "E2BIG";
	case ECHILD: return "ECHILD";
	case EEXIST: return "EEXIST";
	case EPERM: return "EPERM";
	}
	return "?";
}

static int have_pages;

/* Before a call that must fail: a message of another call, and the sentinel in errno. */
static void arm(void)
{
	struct pmu_set *s;

	CHECK(pmu_open(&s, "stale-message-event") < 0);
	errno = SENTINEL;
}

/* After it: r (or errno when the function returns no -errno) is -want, with a new message about what. */
static void failed(const char *fn, int r, int want, const char *what)
{
	const char *m = pmu_errmsg();
	char *errs;

	CHECK_MSG(r == -want, "%s: returned %d, want -%s", fn, r, errname(want));
	CHECK_MSG(errno == want, "%s: returned -%s but left errno %d (%s)", fn, errname(want), errno, strerror(errno));
	CHECK_MSG(*m && !strstr(m, "stale-message-event"), "%s failed (%d) without a message of its own (\"%s\")",
		  fn, r, m);
	CHECK_MSG(!what || strstr(m, what), "%s: message \"%s\" does not name \"%s\"", fn, m, what);
	if (have_pages && (errs = errors_of(fn))) {
		const char *n = errname(want), *p = errs;
		size_t len = strlen(n);

		while ((p = strstr(p, n)) && (p[-1] != ' ' || (p[len] >= 'A' && p[len] <= 'Z')))
			p += len;
		CHECK_MSG(p, "%s fails with %s, which man/%s.3's ERRORS does not list", fn, n, fn);
		free(errs);
	}
}

/* A pointer or count function's failure: errno is the error. */
#define FAILED_PTR(fn, cond, want, what) do { \
	int ok_ = (cond); \
	CHECK_MSG(ok_, "%s: %s", fn, #cond); \
	failed(fn, -errno, want, what); \
} while (0)

#define SUCCEEDS(call) do { \
	errno = SENTINEL; \
	int ok_ = (call); \
	CHECK_MSG(ok_, "failed: %s (%s)", #call, pmu_errmsg()); \
	CHECK_MSG(errno == SENTINEL, "%s succeeded but changed errno to %d (%s)", #call, errno, strerror(errno)); \
} while (0)

int main(void)
{
	struct pmu_set *s = NULL, *x;
	struct pmu_reading rd[2];
	uint64_t v[2], w;
	const char *why, *const *names;
	double scale, q;
	struct pmu_task *task;
	const struct pmu_counter *c;
	struct pmu_results *res;
	struct pmu_region_result rr = { .size = sizeof(rr) };
	struct pmu_thread_result tr = { .size = sizeof(tr) };
	struct perf_event_attr *attr = calloc(1, 256);
	char path[] = "/tmp/pmu-error-contract-XXXXXX";
	int fd, r;

	have_pages = access("man/pmu_open.3", R_OK) == 0;
	if (!have_pages)
		printf("man pages not here: their ERRORS sections are not compared\n");
	r = pmu_open(&s, "task-clock,page-faults");
	if (r == -EACCES || r == -EPERM || r == -ENOSYS)
		T_SKIP("perf_event_open is refused here: %s", pmu_errmsg());
	CHECK(r == 0);
	pmu_close(s);

	/* ---- success leaves errno alone ---- */
	SUCCEEDS(pmu_open(&s, "task-clock,page-faults") == 0);
	SUCCEEDS((pmu_close(pmu_open(&x, "task-clock") == 0 ? x : NULL), 1));
	{
		PMU_OPTS(o, .flags = PMU_NO_GROUP);

		SUCCEEDS(pmu_open_opts(&x, "task-clock", &o) == 0);
		pmu_close(x);
	}
	SUCCEEDS(pmu_open_opts(&x, "task-clock", NULL) == 0);
	pmu_close(x);
	SUCCEEDS(pmu_count(s) == 2);
	SUCCEEDS(pmu_name(s, 1) != NULL);
	SUCCEEDS(pmu_unit(s, 1, &scale) != NULL);
	SUCCEEDS(pmu_disable(s) == 0);
	SUCCEEDS(pmu_reset(s) == 0);
	SUCCEEDS(pmu_enable(s) == 0);
	SUCCEEDS(pmu_read(s, v) == 0);
	SUCCEEDS(pmu_read_full(s, rd) == 0);
	SUCCEEDS(pmu_user_read(s, 0, &why) >= 0);
	SUCCEEDS((c = pmu_counter(s, 0)) != NULL);
	SUCCEEDS(pmu_counter_read(c, &w) == 0);
	SUCCEEDS(pmu_counter_read_slow(c, &w) == 0);
	SUCCEEDS(pmu_errmsg() != NULL);
	attr->size = 128;
	SUCCEEDS(pmu_event_attr("page-faults:u", attr) == 0);
	if (access("test/fixtures/intel/cpu/type", R_OK) == 0) {	/* through sysfs files, some absent */
		setenv("PMU_SYSFS_DEVICES", "test/fixtures/intel", 1);
		SUCCEEDS(pmu_event_attr("cpu/event=0x3c,umask=0/", attr) == 0);
		SUCCEEDS(pmu_event_attr("cpu/config=0x12,config1=3/u", attr) == 0);
		unsetenv("PMU_SYSFS_DEVICES");
	}
	SUCCEEDS(pmu_version() != NULL);
	SUCCEEDS(pmu_version_major() == PMU_VERSION_MAJOR);
	SUCCEEDS(pmu_version_minor() == PMU_VERSION_MINOR);
	SUCCEEDS(pmu_version_patch() == PMU_VERSION_PATCH);
	SUCCEEDS(pmu_thread_init("task-clock,page-faults") == 0);
	SUCCEEDS(pmu_thread_init("task-clock,page-faults") == 0);	/* the same list again */
	SUCCEEDS(pmu_thread_read(v) == 0);
	SUCCEEDS(pmu_thread_event_count() == 2 && pmu_thread_count() == 2);
	SUCCEEDS(!strcmp(pmu_thread_event_name(1), "page-faults") && pmu_thread_name(0) != NULL);
	SUCCEEDS(pmu_region_begin("outer") == 0);
	SUCCEEDS(pmu_region_begin("inner") == 0);
	SUCCEEDS(pmu_region_end("inner") == 0);
	SUCCEEDS(pmu_region_end("outer") == 0);
	{
		FILE *f = fopen("/dev/null", "w");

		CHECK(f != NULL);
		SUCCEEDS(pmu_report(f, NULL) == 0);
		SUCCEEDS(pmu_report(f, "csv") == 0);
		SUCCEEDS(pmu_report(f, "json") == 0);
		fclose(f);
	}
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	SUCCEEDS(pmu_report_path(path, "csv") == 0);
	unlink(path);
	SUCCEEDS((res = pmu_results_take()) != NULL);
	SUCCEEDS(pmu_results_events(res, &names) == 2);
	SUCCEEDS(pmu_results_regions(res, &names) == 2);
	SUCCEEDS(pmu_results_threads(res) == 1);
	SUCCEEDS(pmu_results_thread(res, 0, &tr) == 0);
	SUCCEEDS(pmu_results_get(res, 0, -1, &rr) == 0);
	SUCCEEDS((pmu_results_free(res), 1));

	/* ---- failures set a message and the errno the man page lists ---- */
	arm(); failed("pmu_open", pmu_open(&x, NULL), EINVAL, "pmu_open");
	arm(); failed("pmu_open", pmu_open(&x, "no-such-event"), ENOENT, "no-such-event");
	{
		PMU_OPTS(o, .flags = 1u << 30);

		arm(); failed("pmu_open_opts", pmu_open_opts(&x, "task-clock", &o), EINVAL, "flags");
		o.size = 1;
		arm(); failed("pmu_open_opts", pmu_open_opts(&x, "task-clock", &o), EINVAL, "size");
	}
	arm(); failed("pmu_enable", pmu_enable(NULL), EINVAL, "pmu_enable");
	arm(); failed("pmu_disable", pmu_disable(NULL), EINVAL, "pmu_disable");
	arm(); failed("pmu_reset", pmu_reset(NULL), EINVAL, "pmu_reset");
	arm(); FAILED_PTR("pmu_count", pmu_count(NULL) == 0, EINVAL, "pmu_count");
	arm(); FAILED_PTR("pmu_name", pmu_name(NULL, 0) == NULL, EINVAL, "pmu_name");
	arm(); FAILED_PTR("pmu_name", pmu_name(s, 2) == NULL, EINVAL, "out of range");
	arm(); FAILED_PTR("pmu_unit", pmu_unit(NULL, 0, &scale) == NULL, EINVAL, "set is NULL");
	arm(); FAILED_PTR("pmu_unit", pmu_unit(s, 0, NULL) == NULL, EINVAL, "scale pointer is NULL");
	arm(); FAILED_PTR("pmu_unit", pmu_unit(s, 2, &scale) == NULL, EINVAL, "out of range");
	arm(); failed("pmu_read", pmu_read(NULL, v), EINVAL, "pmu_read");
	arm(); failed("pmu_read", pmu_read(s, NULL), EINVAL, "pmu_read");
	arm(); failed("pmu_read_full", pmu_read_full(s, NULL), EINVAL, "pmu_read_full");
	arm(); failed("pmu_user_read", pmu_user_read(s, 9, &why), EINVAL, "out of range");
	arm(); FAILED_PTR("pmu_counter", pmu_counter(s, 9) == NULL, EINVAL, "out of range");
	arm(); failed("pmu_counter_read", pmu_counter_read(NULL, &w), EINVAL, NULL);
	arm(); failed("pmu_counter_read_slow", pmu_counter_read_slow(c, NULL), EINVAL, NULL);
	attr->size = 0;
	arm(); failed("pmu_event_attr", pmu_event_attr("a,b", attr), EINVAL, "a,b");
	attr->size = 12;
	arm(); failed("pmu_event_attr", pmu_event_attr("task-clock", attr), EINVAL, "attr->size");
	attr->size = 128;
	arm(); failed("pmu_event_attr", pmu_event_attr("no-such-event", attr), ENOENT, "no-such-event");
	arm(); failed("pmu_thread_init", pmu_thread_init("instructions,task-clock"), EBUSY, "pmu_thread_init");
	arm(); failed("pmu_thread_read", pmu_thread_read(NULL), EINVAL, NULL);
	arm(); FAILED_PTR("pmu_thread_event_name", pmu_thread_event_name(5) == NULL, EINVAL, "out of range");
	arm(); FAILED_PTR("pmu_thread_name", pmu_thread_name(5) == NULL, EINVAL, "out of range");
	arm(); failed("pmu_region_begin", pmu_region_begin(NULL), EINVAL, NULL);
	arm(); failed("pmu_region_end", pmu_region_end("never-begun"), EINVAL, "never-begun");
	arm(); failed("pmu_report", pmu_report(NULL, NULL), EINVAL, "pmu_report");
	arm(); failed("pmu_report", pmu_report(stdout, "yaml"), EINVAL, "yaml");
	arm(); failed("pmu_report_path", pmu_report_path("/nonexistent/dir/r.csv", NULL), ENOENT, "/nonexistent/dir");
	res = pmu_results_take();
	CHECK(res != NULL);
	arm(); failed("pmu_results_get", pmu_results_get(res, 99, -1, &rr), EINVAL, "out of range");
	arm(); failed("pmu_results_thread", pmu_results_thread(res, 99, &tr), EINVAL, "out of range");
	tr.size = 0;
	arm(); failed("pmu_results_thread", pmu_results_thread(res, 0, &tr), EINVAL, "size");
	arm(); failed("pmu_results_quantile", pmu_results_quantile(res, 0, -1, 0, 0.5, &q), ENOENT, "PMU_HISTOGRAMS");
	arm(); failed("pmu_results_tail", pmu_results_tail(res, 0, -1, 0, &w, &q, &q), ENOENT, "PMU_HISTOGRAMS");
	pmu_results_free(res);
	arm(); failed("pmu_region_histograms", pmu_region_histograms(-1), EINVAL, "pmu_region_histograms");
	SUCCEEDS(pmu_region_histograms(1) == 0);
	SUCCEEDS((task = pmu_task_begin("task")) != NULL);
	arm(); failed("pmu_task_resume", pmu_task_resume(task), EINVAL, "task");
	SUCCEEDS(pmu_task_suspend(task) == 0);
	arm(); failed("pmu_task_suspend", pmu_task_suspend(task), EINVAL, "suspended");
	SUCCEEDS(pmu_task_read(task, &w, v, 2) == 2);
	SUCCEEDS(pmu_task_resume(task) == 0);
	SUCCEEDS(pmu_task_end(task) == 0);
	arm(); FAILED_PTR("pmu_task_begin", pmu_task_begin(NULL) == NULL, EINVAL, "pmu_task_begin");
	arm(); failed("pmu_task_end", pmu_task_end(NULL), EINVAL, "pmu_task_end");
	arm(); failed("pmu_task_read", pmu_task_read(NULL, &w, v, 2), EINVAL, "pmu_task_read");
	SUCCEEDS((res = pmu_results_take()) != NULL);
	SUCCEEDS(pmu_results_quantile(res, 2, -1, 0, 0.5, &q) == 0);	/* "task": outer, inner, then it */
	SUCCEEDS(pmu_results_tail(res, 2, -1, 0, &w, &q, &q) == 0);
	arm(); failed("pmu_results_quantile", pmu_results_quantile(res, 2, -1, 0, 2, &q), EINVAL, "q 2");
	arm(); failed("pmu_results_tail", pmu_results_tail(res, 2, -1, 9, &w, &q, &q), EINVAL, "out of range");
	pmu_results_free(res);
	pmu_close(s);

	/* pmu_thread_fini() says what happened: 0 for a finished layer and for nothing to finish. */
	SUCCEEDS(pmu_thread_fini() == 0);
	SUCCEEDS(pmu_thread_event_count() == 0);
	SUCCEEDS(pmu_thread_fini() == 0);
	arm(); failed("pmu_thread_read", pmu_thread_read(v), EINVAL, "pmu_thread_init");
	free(attr);
	T_DONE();
}
