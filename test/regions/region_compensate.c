/* SPDX-License-Identifier: MIT */
/*
 * Regions that leave out their own cost (pmu_region_compensate()): the
 * switch's errors, the default for threads to come and PMU_COMPENSATE, what
 * the reports say (table, csv, json) and figures clamped at 0 and counted.
 * Only what is deterministic: calls, flags and clamps, never times (the
 * accuracy is measured on arm64 under -icount, test/arm64/arm64_compensate.c).
 * The reads are wrapped (pmu_read, and the group read with times that regions
 * use for a group read with read(2)): while the test asks, every read adds
 * 10^9 to its counts, so that the measure finds a pair far dearer than it is.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "report_capture.h"
#include "test.h"

static bool dear;		/* reads count 10^9 more each */
static uint64_t extra;

/* A read that returned r, made dearer while the test asks. */
static int dearer(struct pmu_set *set, uint64_t *values, int r)
{
	if (dear)
		extra += 1000000000;
	for (unsigned i = 0; r == 0 && i < pmu_count(set); i++)
		values[i] += extra;
	return r;
}

int __real_pmu_read(struct pmu_set *set, uint64_t *values);
int __wrap_pmu_read(struct pmu_set *set, uint64_t *values)
{
	return dearer(set, values, __real_pmu_read(set, values));
}

int __real_pmu__read_group_times(struct pmu_set *set, uint64_t *values, uint64_t *en, uint64_t *run);
int __wrap_pmu__read_group_times(struct pmu_set *set, uint64_t *values, uint64_t *en, uint64_t *run)
{
	return dearer(set, values, __real_pmu__read_group_times(set, values, en, run));
}

static int find(const struct pmu_results *r, const char *name, int thread, struct pmu_region_result *out)
{
	const char *const *names;
	unsigned n = pmu_results_regions(r, &names);

	out->size = sizeof(*out);
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return pmu_results_get(r, i, thread, out);
	return -ENOENT;
}

static void pairs(const char *outer, int n)
{
	CHECK(pmu_region_begin(outer) == 0);
	for (int i = 0; i < n; i++) {
		CHECK(pmu_region_begin("inner") == 0);
		CHECK(pmu_region_end("inner") == 0);
	}
	CHECK(pmu_region_end(outer) == 0);
}

static void *worker(void *arg)
{
	(void)arg;
	pairs("in_thread", 10);
	return NULL;
}

/* How many threads of a snapshot are compensated, and region name's clamped calls there (~0 when absent). */
static unsigned compensated(const char *name, uint64_t *clamped)
{
	struct pmu_results *r = pmu_results_take();
	struct pmu_region_result e;
	unsigned k = 0;

	CHECK(r != NULL);
	for (unsigned i = 0; r && i < pmu_results_threads(r); i++) {
		struct pmu_thread_result t = { .size = sizeof(t) };

		CHECK(pmu_results_thread(r, i, &t) == 0);
		k += t.compensated == 1;
	}
	*clamped = r && find(r, name, -1, &e) == 0 ? e.clamped : ~0ull;
	pmu_results_free(r);
	return k;
}

static void errors(void)
{
	CHECK(pmu_region_compensate(2) == -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "2 is neither 1 (on) nor 0 (off)"), "message: %s", pmu_errmsg());
	CHECK(pmu_region_begin("open") == 0);
	CHECK(pmu_region_compensate(1) == -EBUSY);
	CHECK_MSG(strstr(pmu_errmsg(), "region open is open in this thread"), "message: %s", pmu_errmsg());
	CHECK(pmu_region_end("open") == 0);
}

/* The environment's default, in a child: PMU_COMPENSATE=value, compensated or not, and what stderr says. */
static void env_child(const char *value, unsigned want, const char *said)
{
	char err[512] = "";
	int fd[2], st = 0;
	ssize_t len;
	pid_t pid;

	CHECK(pipe(fd) == 0);
	pid = fork();
	if (pid == 0) {
		uint64_t cl;

		dup2(fd[1], STDERR_FILENO);
		setenv("PMU_COMPENSATE", value, 1);
		if (pmu_thread_init("task-clock") < 0)
			_exit(3);
		pairs("child", 0);
		_exit(compensated("child", &cl) == want && cl == 0 ? 0 : 2);
	}
	close(fd[1]);
	len = read(fd[0], err, sizeof(err) - 1);
	err[len > 0 ? len : 0] = '\0';
	close(fd[0]);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "PMU_COMPENSATE=%s: child status %d", value, st);
	CHECK_MSG(said ? strstr(err, said) != NULL : !err[0], "PMU_COMPENSATE=%s: stderr \"%s\"", value, err);
}

int main(void)
{
	pthread_t th;
	uint64_t cl;
	char *out;

	env_child("1", 1, NULL);
	env_child("0", 0, NULL);
	env_child("yes\x1b[2J", 0, "PMU_COMPENSATE=yes\\x1b[2J: neither 1 (on) nor 0 (off)");

	/* Before pmu_thread_init(): the default of the threads to come, the main one too. */
	CHECK(pmu_region_compensate(1) == 0);
	if (pmu_thread_init("task-clock,page-faults") < 0)
		T_SKIP("task-clock does not open here: %s", pmu_errmsg());
	errors();
	/* (clamps only where deterministic: a region with nothing but pairs inside may come out below 0) */
	pairs("outer", 100);
	CHECK(compensated("outer", &cl) == 1);
	CHECK(pthread_create(&th, NULL, worker, NULL) == 0 && pthread_join(th, NULL) == 0);
	CHECK(compensated("in_thread", &cl) == 2);

	/* Off: this thread's calls from now on; the reports say whether compensated now. */
	CHECK(pmu_region_compensate(0) == 0);
	CHECK(compensated("outer", &cl) == 1);
	out = t_report("json");
	CHECK_MSG(strstr(out, "\"compensated\": {\"threads\": 1,"), "json, 1 of 2 threads compensated: %s", out);
	free(out);
	out = t_report(NULL);
	CHECK_MSG(strstr(out, "compensated (1 of 2 threads)"), "table, 1 of 2 threads compensated: %s", out);
	free(out);
	CHECK(pmu_region_compensate(1) == 0);	/* the default again, for the threads to come */

	/* A cost far above what a pair costs: an outer region with pairs inside comes out below 0. */
	CHECK(pmu_thread_fini() == 0);
	dear = true;
	CHECK(pmu_thread_init("task-clock,page-faults") == 0);
	pairs("first", 0);	/* the thread's first region: measured now */
	dear = false;
	pairs("clamped", 2);
	pairs("alone", 0);
	CHECK(compensated("clamped", &cl) == 1);
	CHECK_MSG(cl == 1, "clamped: %llu calls clamped, not 1", (unsigned long long)cl);
	CHECK(compensated("alone", &cl) == 1 && cl == 0);

	out = t_report(NULL);
	CHECK_MSG(strstr(out, "compensated (1 of 1 threads): each region leaves out the region calls inside it"),
		  "table: %s", out);
	CHECK_MSG(strstr(out, "\nclamped: 1 call clamped: a figure came out below 0 and counts 0\n"), "table: %s", out);
	free(out);
	out = t_report("csv");
	/* clamped, then the call paths' columns (path, self ns, two selves), empty on a region's row */
	CHECK_MSG(strstr(out, ",clamped,path,self_ns,") && strstr(out, ",1,,,,\n"), "csv: %s", out);
	free(out);
	out = t_report("json");
	CHECK_MSG(strstr(out, "\"compensated\": {\"threads\": 1, \"pair_by_name\": {\"ns\": "), "json: %s", out);
	CHECK_MSG(strstr(out, "\"clamped\": 1, \"counts\": {\"task-clock\": 0, \"page-faults\": 0}"),
		  "json: the clamped region: %s", out);
	free(out);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
