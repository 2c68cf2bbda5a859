/* SPDX-License-Identifier: MIT */
/*
 * A signal handler reads what the thread it interrupts is reading (libpmu(7): the reads are
 * async-signal-safe): SIGALRM every 100 us for half a second per case, and every value either of
 * them reads is at least the one it read before, as counts of these events must be.
 *   read, full, counter  the handler's pmu_read(), pmu_read_full(), pmu_counter_read() against the
 *                        main loop's pmu_read() of the same set: one group read with read(2) in
 *                        both orders of task-clock and page-faults, each event its own group
 *                        (PMU_NO_GROUP), and where a hardware PMU lets it, cycles from user space
 *                        after pmu_reset() (32-bit counters on arm64's event counters: r11)
 *   thread               the handler's pmu_thread_read() while the loop runs a region around its
 *                        own pmu_thread_read(), with and without histograms
 * PMU_TEST_STORM_EVENTS=LIST storms that list alone, read and thread: the emulated tier runs it
 * under pmu emulate with instructions, the emulated counter.
 */
#include <pmu.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/time.h>
#include <time.h>

#include "test.h"

enum mode { M_READ, M_FULL, M_COUNTER, M_THREAD };

static struct pmu_set *set;
static enum mode mode;
static unsigned nv;
static uint64_t hlast[8];
static volatile sig_atomic_t hreads, hback, herr;

/* Values v of n, against last: how many went back; last becomes v. */
static unsigned backwards(uint64_t *last, const uint64_t *v, unsigned n)
{
	unsigned b = 0;

	for (unsigned i = 0; i < n; i++) {
		b += v[i] < last[i];
		last[i] = v[i];
	}
	return b;
}

static void on_alarm(int sig)
{
	uint64_t v[8];
	struct pmu_reading full[8];
	int r;

	(void)sig;
	switch (mode) {
	case M_READ:
		r = pmu_read(set, v);
		break;
	case M_FULL:
		r = pmu_read_full(set, full);
		for (unsigned i = 0; r == 0 && i < nv; i++)
			v[i] = full[i].value;
		break;
	case M_COUNTER:
		r = pmu_counter_read(pmu_counter(set, 0), v);
		break;
	default:
		r = pmu_thread_read(v);
		break;
	}
	if (r != 0) {
		herr = 1;
		return;
	}
	hreads++;
	hback += backwards(hlast, v, mode == M_COUNTER ? 1 : nv);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* One case: half a second of reads in this loop, the handler's meanwhile. */
static void storm(const char *what)
{
	struct itimerval on = { { 0, 100 }, { 0, 100 } }, off = { { 0, 0 }, { 0, 0 } };
	uint64_t last[8] = { 0 }, v[8];
	unsigned long reads = 0, back = 0, errs = 0;
	double end = now() + 0.5;

	memset(hlast, 0, sizeof(hlast));
	hreads = hback = herr = 0;
	CHECK(setitimer(ITIMER_REAL, &on, NULL) == 0);
	while (now() < end) {
		if (mode == M_THREAD) {
			pmu_region_begin("storm");
			errs += pmu_thread_read(v) != 0;
			pmu_region_end("storm");
		} else {
			errs += pmu_read(set, v) != 0;
		}
		back += backwards(last, v, nv);
		reads++;
	}
	CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
	printf("%-44s loop %8lu reads, %lu backwards; handler %6lu reads, %lu backwards\n", what, reads, back,
	       (unsigned long)hreads, (unsigned long)hback);
	CHECK_MSG(back == 0 && hback == 0 && !errs && !herr, "%s: %lu and %lu reads went backwards (%lu, %d failed)",
		  what, back, (unsigned long)hback, errs, (int)herr);
	CHECK_MSG(hreads > 0, "%s: the handler never read", what);
}

/* The set of events opened with flags, stormed in each mode; false when it does not open here. */
static bool sets(const char *events, unsigned flags, bool reset)
{
	static const char *const names[] = { "pmu_read", "pmu_read_full", "pmu_counter_read" };
	PMU_OPTS(o, .flags = flags);
	char what[128];

	if (pmu_open_opts(&set, events, &o) < 0)
		return false;
	if (reset)
		CHECK(pmu_reset(set) == 0);
	nv = pmu_count(set);
	for (mode = M_READ; mode <= M_COUNTER; mode++) {
		snprintf(what, sizeof(what), "%s%s%s: %s", events, flags ? " (no group)" : "", reset ? " (reset)" : "",
			 names[mode]);
		storm(what);
	}
	pmu_close(set);
	return true;
}

/* The per-thread layer of events: read by the handler while the loop runs regions, with and without histograms. */
static void thread_storm(const char *events)
{
	uint64_t v[8];

	CHECK_MSG(pmu_thread_init(events) == 0, "%s", pmu_errmsg());
	/* libpmu(7): a handler may read the layer once the thread has read through it */
	CHECK_MSG(pmu_thread_read(v) == 0, "%s", pmu_errmsg());
	mode = M_THREAD;
	nv = (unsigned)pmu_thread_event_count();
	storm("regions + pmu_thread_read");
	CHECK(pmu_region_histograms(1) == 0);
	storm("regions (histograms) + pmu_thread_read");
	CHECK(pmu_thread_fini() == 0);
}

int main(void)
{
	const char *only = getenv("PMU_TEST_STORM_EVENTS");
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the per-thread layer is already set up");
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
	if (only) {
		if (!sets(only, 0, false))
			T_SKIP("%s: %s", only, pmu_errmsg());
		thread_storm(only);
		T_DONE();
	}
	if (!sets("task-clock,page-faults", 0, false))
		T_SKIP("task-clock,page-faults: %s", pmu_errmsg());
	sets("page-faults,task-clock", 0, false);
	sets("task-clock,page-faults", PMU_NO_GROUP, false);
#ifdef __aarch64__
	if (!sets("cycles:u,r11:u", 0, true))
		printf("cycles:u,r11:u: not here (%s)\n", pmu_errmsg());
#else
	if (!sets("cycles:u", 0, true))
		printf("cycles:u: not here (%s)\n", pmu_errmsg());
#endif
	thread_storm("task-clock,page-faults");
	T_DONE();
}
