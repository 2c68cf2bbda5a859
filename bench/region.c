/* SPDX-License-Identifier: MIT */
/*
 * Cost of a region pair, by name (pmu_region_begin()/pmu_region_end() with
 * one short literal) and by handle (pmu_region_enter()/pmu_region_exit()),
 * against what a pair cannot avoid: two pmu_read() of a set opened with the
 * same events, and two raw read(2) of descriptors opened here.
 *
 *   bench/region [EVENTS...]   per pair for each event list (default: 1 and
 *                              4 hardware events when they open with
 *                              user-space reads, else software ones)
 *   bench/region --only pairs|hpairs|pairs3|hpairs3|floor N EVENTS
 *                              N pairs by name, by handle (at depth 3:
 *                              inside two open regions; or N floors)
 *                              only, for callgrind:
 *     valgrind --tool=callgrind --toggle-collect=bench_pairs \
 *         build/bench/region --only pairs 100000 task-clock
 *   instructions per pair = (Ir(N2) - Ir(N1)) / (N2 - N1) (the kernel's share
 *   of read(2) is not in Ir).
 *
 * Each figure is the fewest instructions (user and kernel, from a counter
 * of this thread's; ns where none opens) per pair over 5 batches of 20,000,
 * less the same loop calling an empty function twice. Under QEMU with
 * -icount shift=0 the counts are exact guest instructions.
 *
 * The handle functions are weak references so that the same program measures
 * a library that has none (their rows then say so).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "pmu.h"

int pmu_region_register(const char *name) __attribute__((weak));
int pmu_region_enter(int handle) __attribute__((weak));
int pmu_region_exit(int handle) __attribute__((weak));

#define BATCHES 5

static int handle;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void bench_empty_fn(const char *s)
{
	__asm__ volatile("" : : "r"(s) : "memory");
}

/* The loop alone: an empty function called twice per pair. */
__attribute__((noinline)) void bench_empty(long n)
{
	for (long i = 0; i < n; i++) {
		bench_empty_fn("bench");
		bench_empty_fn("bench");
	}
}

__attribute__((noinline)) void bench_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		pmu_region_begin("bench");
		pmu_region_end("bench");
	}
}

__attribute__((noinline)) void bench_hpairs(long n)
{
	int h = handle;

	for (long i = 0; i < n; i++) {
		pmu_region_enter(h);
		pmu_region_exit(h);
	}
}

/* What begin and end must do anyway: read the counters twice. */
__attribute__((noinline)) void bench_floor(struct pmu_set *s, long n)
{
	uint64_t v[2][64];

	for (long i = 0; i < n; i++) {
		pmu_read(s, v[0]);
		pmu_read(s, v[1]);
	}
	__asm__ volatile("" : : "r"(v) : "memory");
}

static int raw_fd = -1;
static size_t raw_bytes;

__attribute__((noinline)) void bench_raw(long n)
{
	uint64_t v[64];
	long acc = 0;

	for (long i = 0; i < n; i++) {
		acc += read(raw_fd, v, raw_bytes);
		acc += read(raw_fd, v, raw_bytes);
	}
	__asm__ volatile("" : : "r"(v), "r"(acc) : "memory");
}

/*
 * Raw descriptors for the events with the attributes pmu_open() gives, as
 * one group read with its times (one event: value and times): what one
 * read(2) of the counters costs.
 */
static void raw_open(const char *events, int *fds, unsigned n)
{
	char buf[512], *save, *e;
	unsigned i = 0;

	snprintf(buf, sizeof(buf), "%s", events);
	for (e = strtok_r(buf, ",", &save); e && i < n; e = strtok_r(NULL, ",", &save), i++) {
		struct perf_event_attr a = { .size = sizeof(a) };

		if (pmu_event_attr(e, &a) < 0)
			break;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
				(n > 1 ? PERF_FORMAT_GROUP : 0);
		a.disabled = 0;
		fds[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? fds[0] : -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0)
			break;
	}
	if (i == n) {
		raw_fd = fds[0];
		raw_bytes = (n > 1 ? 3 + n : 3) * sizeof(uint64_t);
	}
}

static void raw_close(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	raw_fd = -1;
}

/*
 * Instructions (user and kernel) of this thread, when a counter for them
 * opens: guest instructions exactly under QEMU's -icount, where the guest
 * clock does not always advance by one ns per instruction (Linux 6.12).
 */
static int ins_fd = -1;

static void ins_open(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_hv = 1 };

	ins_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The instruction count, or the time in ns where there is no counter. */
static uint64_t measure_now(void)
{
	uint64_t v;

	if (ins_fd >= 0 && read(ins_fd, &v, sizeof(v)) == sizeof(v))
		return v;
	return now_ns();
}

/* The fewest instructions (or ns) per iteration over BATCHES batches of n. */
#define FEWEST(expr, n) ({ \
	double b_ = 1e300; \
	for (int k_ = 0; k_ < BATCHES; k_++) { \
		uint64_t t_ = measure_now(); \
		expr; \
		double r_ = (double)(measure_now() - t_) / (double)(n); \
		if (r_ < b_) \
			b_ = r_; \
	} \
	b_; \
})

/* A figure, or "-" when there is none (negative). */
static void fig(double v)
{
	if (v >= 0)
		printf("%9.1f ", v);
	else
		printf("%9s ", "-");
}

/* The per-thread layer's pairs by name and by handle (-1: no handles), net of the empty loop. */
static void pairs(long n, double *empty, double *pair, double *hpair)
{
	bench_pairs(n / 10);	/* warm up: opens this thread's counters, interns the name */
	handle = pmu_region_register ? pmu_region_register("bench") : -1;
	if (handle >= 0)
		bench_hpairs(n / 10);
	*empty = FEWEST(bench_empty(n), n);
	*pair = FEWEST(bench_pairs(n), n) - *empty;
	*hpair = handle >= 0 ? FEWEST(bench_hpairs(n), n) - *empty : -1;
}

/*
 * The pairs count the events of pmu_thread_init() alone, then the floor a
 * set of the same events alone: hardware counters are few (QEMU: 6 and the
 * cycle counter), and two sets of 4 at once would be multiplexed.
 */
static int measure(const char *events, long n)
{
	struct pmu_set *s;
	const char *why = "";
	int user = 0, fds[64];
	unsigned ne = 0;

	if (pmu_thread_init(events) < 0 || (ne = (unsigned)pmu_thread_event_count()) == 0 || ne > 60) {
		fprintf(stderr, "%s: %s\n", events, ne > 60 ? "more than 60 events" : pmu_errmsg());
		pmu_thread_fini();
		return -1;
	}
	double empty, pair, hpair, floor_ = -1, raw = -1;

	pairs(n, &empty, &pair, &hpair);

	pmu_thread_fini();
	if (pmu_open(&s, events) < 0) {
		fprintf(stderr, "%s: %s\n", events, pmu_errmsg());
	} else {
		user = pmu_user_read(s, ne - 1, &why);
		bench_floor(s, n / 10);
		floor_ = FEWEST(bench_floor(s, n), n) - empty;
		pmu_close(s);
	}
	memset(fds, -1, sizeof(fds));
	raw_open(events, fds, ne);
	if (raw_fd >= 0)
		raw = FEWEST(bench_raw(n), n) - empty;
	raw_close(fds, ne);
	printf("%-40s %9.1f ", events, pair);
	fig(hpair);
	printf("%10.1f ", floor_);
	fig(raw);
	printf("%8.1f   %s\n", empty, user == 1 ? "user-space read" : why);
	if (hpair < 0)
		printf("%-40s %9s %s\n", "", "", "(by handle: no pmu_region_register() in this library)");
	return 0;
}

/* The pairs at depth 3: inside two regions open around them, the path's node found under theirs. */
static void measure_nested(const char *events, long n)
{
	double empty, pair, hpair;

	if (pmu_thread_init(events) < 0) {
		fprintf(stderr, "%s: %s\n", events, pmu_errmsg());
		return;
	}
	pmu_region_begin("outer");
	pmu_region_begin("middle");
	pairs(n, &empty, &pair, &hpair);
	pmu_region_end("middle");
	pmu_region_end("outer");
	printf("%-40s %9.1f ", "  at depth 3 (two regions open)", pair);
	fig(hpair);
	printf("\n");
	pmu_thread_fini();
}

/*
 * The same pairs with variable var set to value: traced (PMU_TRACE), each
 * call kept in the thread's buffer, compensated (PMU_COMPENSATE), or with
 * histograms (PMU_HISTOGRAMS): what each costs a pair, beside the line above.
 */
static void measure_with(const char *events, long n, const char *label, const char *var, const char *value)
{
	char calls[32];

	snprintf(calls, sizeof(calls), "%ld", n * (BATCHES + 2));
	setenv(var, value, 1);
	setenv("PMU_TRACE_CALLS", calls, 1);
	if (pmu_thread_init(events) < 0) {
		fprintf(stderr, "%s: %s\n", events, pmu_errmsg());
	} else {
		double empty, pair, hpair;

		pairs(n, &empty, &pair, &hpair);
		printf("%-40s %9.1f ", label, pair);
		fig(hpair);
		printf("\n");
		pmu_thread_fini();
	}
	unsetenv(var);
	unsetenv("PMU_TRACE_CALLS");
}

/* The first list of 4 whose events open with every one read from user space. */
static const char *hw4(void)
{
	static const char *const lists[] = {
		"cycles,instructions,r11,r8",				/* arm64 */
		"cycles,instructions,dTLB-load-misses,iTLB-load-misses",	/* riscv64 under QEMU */
		"cycles,instructions,branches,branch-misses",
	};

	for (unsigned i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct pmu_set *s;
		int ok;

		if (pmu_open(&s, lists[i]) < 0)
			continue;
		ok = pmu_user_read(s, 3, NULL) == 1;
		pmu_close(s);
		if (ok)
			return lists[i];
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = 20000;
	static const char *const sw[] = { "task-clock", "task-clock,page-faults,context-switches,cpu-migrations",
					  NULL };
	struct pmu_set *s;
	int user1 = 0;

	if (argc == 5 && !strcmp(argv[1], "--only")) {
		n = atol(argv[3]);
		if (pmu_thread_init(argv[4]) < 0 || pmu_open(&s, argv[4]) < 0) {
			fprintf(stderr, "%s\n", pmu_errmsg());
			return 1;
		}
		if (argv[2][strlen(argv[2]) - 1] == '3') {	/* pairs3, hpairs3: inside two open regions */
			pmu_region_begin("outer");
			pmu_region_begin("middle");
			argv[2][strlen(argv[2]) - 1] = '\0';
		}
		bench_pairs(1);
		handle = pmu_region_register ? pmu_region_register("bench") : -1;
		if (!strcmp(argv[2], "hpairs")) {
			if (handle < 0) {
				fprintf(stderr, "no pmu_region_register() in this library\n");
				return 1;
			}
			bench_hpairs(1);
			bench_hpairs(n);
		} else if (!strcmp(argv[2], "pairs")) {
			bench_pairs(n);
		} else {
			bench_floor(s, n);
		}
		pmu_close(s);
		return 0;
	}
	ins_open();
	printf("region pair: the fewest %s per pair over %d batches of %ld, less the loop calling an empty "
	       "function twice\n", ins_fd >= 0 ? "instructions (user + kernel)" : "ns", BATCHES, n);
	printf("%-40s %9s %9s %10s %9s %8s   %s\n", "events", "by name", "by handle", "2 pmu_read", "2 read(2)",
	       "loop", "read path");
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			measure(argv[i], n);
		return 0;
	}
	if (pmu_open(&s, "cycles") == 0) {
		user1 = pmu_user_read(s, 0, NULL) == 1;
		pmu_close(s);
	}
	if (user1) {
		const char *l4 = hw4();

		measure("cycles", n);
		measure_nested("cycles", n);
		measure_with("cycles", n, "  traced (PMU_TRACE)", "PMU_TRACE", "/dev/null");
		measure_with("cycles", n, "  compensated (PMU_COMPENSATE)", "PMU_COMPENSATE", "1");
		measure_with("cycles", n, "  histograms (PMU_HISTOGRAMS)", "PMU_HISTOGRAMS", "1");
		if (l4)
			measure(l4, n);
	}
	for (int i = 0; sw[i]; i++)
		measure(sw[i], n);
	measure_nested(sw[0], n);
	measure_with(sw[0], n, "  traced (PMU_TRACE)", "PMU_TRACE", "/dev/null");
	measure_with(sw[0], n, "  compensated (PMU_COMPENSATE)", "PMU_COMPENSATE", "1");
	measure_with(sw[0], n, "  histograms (PMU_HISTOGRAMS)", "PMU_HISTOGRAMS", "1");
	return 0;
}
