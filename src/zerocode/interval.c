/* SPDX-License-Identifier: MIT */
/*
 * PMU_REPORT_INTERVAL: zero-code mode's report file written every interval
 * while the program runs, for a server that never exits. A thread of the
 * library's own sleeps to each deadline and writes the report as
 * pmu_report_path() does: a temporary file renamed into place, so a reader
 * never sees half of one. The snapshot copies each thread's figures under
 * their seqcount: a thread inside its region calls never waits for it (one
 * that starts or exits waits for the copy under the layer's lock).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/escape.h"
#include "parse/format.h"	/* pmu__show() */
#include "zerocode/zerocode.h"

static pthread_mutex_t ilock = PTHREAD_MUTEX_INITIALIZER;	/* held across a write: the exit's waits for it */
static bool stopped;
static const char *ipath;
static struct timespec every;

/* "10s", "500ms", "2m", "1.5" (seconds): into *t, from 10 ms to a day; false when it is none of them. */
static bool parse_interval(const char *v, struct timespec *t)
{
	char *end;
	double x = strtod(v, &end), scale = 1;

	if (end == v || x != x)
		return false;
	if (!strcmp(end, "ms"))
		scale = 1e-3;
	else if (!strcmp(end, "m"))
		scale = 60;
	else if (*end && strcmp(end, "s"))
		return false;
	x *= scale;
	if (!(x >= 0.01 && x <= 86400))
		return false;
	t->tv_sec = (time_t)x;
	t->tv_nsec = (long)((x - (double)t->tv_sec) * 1e9);
	return true;
}

/* One write, unless the exit's report has taken over; a failure said once until a write succeeds again. */
static void write_once(bool *failing)
{
	int old = pmu__lock(&ilock);

	if (!stopped) {
		if (pmu_report_path(ipath, NULL) < 0) {
			if (!*failing)
				pmu__print(PMU_PRINT_WARN, "libpmu: PMU_REPORT_INTERVAL: %s (tried again each "
					   "interval)\n", pmu_errmsg());
			*failing = true;
		} else {
			*failing = false;
		}
	}
	pmu__unlock(&ilock, old);
}

static void *interval_thread(void *arg)
{
	struct timespec next;
	bool failing = false;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!PMU_READ_ONCE(stopped)) {
		next.tv_sec += every.tv_sec;
		next.tv_nsec += every.tv_nsec;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		write_once(&failing);
	}
	return NULL;
}

void pmu__zero_interval_start(const char *path)
{
	const char *v = pmu__getenv("PMU_REPORT_INTERVAL");
	sigset_t all, old;
	pthread_t t;
	int e;

	if (!v || !*v)
		return;
	if (!parse_interval(v, &every)) {
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_REPORT_INTERVAL=%s: not an interval from 10ms to a day "
			   "(500ms, 10s, 2m; a number alone is seconds): the report is written at exit only\n",
			   pmu__show(&(struct pmu__shown){ 0 }, v, strlen(v)));
		return;
	}
	if (!strcmp(path, "stderr") || !strcmp(path, "-") || !strcmp(path, "stdout")) {
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_REPORT_INTERVAL needs PMU_REPORT to name a file, not %s: "
			   "the report is written at exit only\n", path);
		return;
	}
	ipath = path;
	sigfillset(&all);	/* the program's signals are for its own threads */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&t, NULL, interval_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_REPORT_INTERVAL: no thread to write the report (%s): it is "
			   "written at exit only\n", strerror(e));
		return;
	}
	pthread_detach(t);
	pthread_setname_np(t, "pmu-interval");
}

void pmu__zero_interval_stop(void)
{
	int old = pmu__lock(&ilock);	/* a write under way ends first: the exit's report is the last */

	PMU_WRITE_ONCE(stopped, true);
	pmu__unlock(&ilock, old);
}
