/* SPDX-License-Identifier: MIT */
/*
 * Cost of one pmu_read() against what it replaces, measured in the same run
 * on the same events: raw read(2) of perf descriptors opened here, a bare
 * system call, and (where hardware counters are readable from user space) a
 * minimal hand-written seqlock + counter-register loop, the floor.
 *
 *   bench/read [--quick]          the table: ns per read (median of several
 *                                 runs, pinned to one CPU), ratio to read(2),
 *                                 instructions per read when an instructions
 *                                 counter opens (user, and user + kernel)
 *   bench/read --callgrind M [N]  N reads (default 100000) of method M only:
 *     valgrind --tool=callgrind --toggle-collect=bench_loop build/bench/read --callgrind pmu1
 *   bench/read --list             the methods
 *
 * Prints figures, never judges them. Under QEMU with -icount shift=0 the
 * guest clock advances 1 ns per guest instruction and counts are exact.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>

#include "pmu.h"
#include "counters/arch.h"
#include "../test/lib/set_peek.h"

#define SW1 "task-clock"
#define SW4 "task-clock,page-faults,context-switches,cpu-migrations"
#define MAXRUNS 31

enum method {
	M_EMPTY,	/* the loop alone: subtracted from instruction counts */
	M_PMU1, M_PMU4, M_CTR1, M_RAW1, M_RAW1T, M_RAWG4, M_GETPPID,
	M_HW1, M_HW4, M_HWCTR, M_HWCTREV, M_HWRAW1, M_HWRAW1T, M_FLOOR, M_FLOOR_FIXED, M_FLOOR4, M_FLOOR_CHECKED,
	M_N
};

static const struct {
	const char *name, *what;
} methods[M_N] = {
	[M_EMPTY] = { "empty", "empty loop" },
	[M_PMU1] = { "pmu1", "pmu_read, 1 event" },
	[M_PMU4] = { "pmu4", "pmu_read, 4 events" },
	[M_CTR1] = { "ctr1", "pmu_counter_read, 1 event" },
	[M_RAW1] = { "raw1", "raw read(2), 8 bytes" },
	[M_RAW1T] = { "raw1t", "raw read(2) + TIME_ENABLED|RUNNING" },
	[M_RAWG4] = { "rawg4", "raw PERF_FORMAT_GROUP read of 4 (+times)" },
	[M_GETPPID] = { "getppid", "getppid() (a bare syscall)" },
	[M_HW1] = { "hw1", "pmu_read, 1 hardware event" },
	[M_HW4] = { "hw4", "pmu_read, 4 hardware events" },
	[M_HWCTR] = { "hwctr", "pmu_counter_read, cycles" },
	[M_HWCTREV] = { "hwctrev", "pmu_counter_read, an event counter" },
	[M_HWRAW1] = { "hwraw1", "raw read(2) of the hw event, 8 bytes" },
	[M_HWRAW1T] = { "hwraw1t", "raw read(2) of the hw event + times" },
	[M_FLOOR] = { "floor", "floor: seqlock + counter read, switch on index" },
	[M_FLOOR_FIXED] = { "floorfix", "floor: seqlock + PMCCNTR_EL0 read, fixed" },
	[M_FLOOR4] = { "floor4", "floor: the same, 4 hardware events" },
	[M_FLOOR_CHECKED] = { "floorchk", "floor + cap, index 0, odd lock, multiplexed" },
};

static struct {
	struct pmu_set *sw1, *sw4, *hw1, *hw4;
	const struct pmu_counter *ctr;			/* what the pmu_counter_read methods read */
	const char *hw1_events, *hw4_events;
	int raw1, raw1t, rawg4, hwraw1, hwraw1t;	/* descriptors opened here */
	const struct perf_event_mmap_page *floor[4];	/* the pages of hw1 or hw4's events */
	char floor_info[64];				/* hw1's page: index and width */
	int ins_u, ins_uk;				/* instructions:u and :uk, -1 if absent */
	int ins_multiplexed;				/* loops during which they were not counting */
	int available[M_N];
	const char *why[M_N];
} B;

static uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int perf_open(struct perf_event_attr *a, int group)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* A raw descriptor for event with the attributes pmu_open() would give it. */
static int open_attr(const char *event, uint64_t fmt, int group)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	if (pmu_event_attr(event, &a) < 0)
		return -1;
	a.read_format = fmt;
	return perf_open(&a, group);
}

/* Hand-written: what any user-space read of the page must do at least. */
static inline __attribute__((always_inline)) uint64_t floor_read(const struct perf_event_mmap_page *pc)
{
	uint32_t seq, idx, shift;
	uint64_t off, pmc;

	do {
		seq = *(volatile uint32_t *)&pc->lock;
		__asm__ volatile("" ::: "memory");
		idx = pc->index;
		off = pc->offset;
		shift = 64 - pc->pmc_width;
		pmc = pmu_inl_rdpmc(idx);
		__asm__ volatile("" ::: "memory");
	} while (*(volatile uint32_t *)&pc->lock != seq);
	return off + (uint64_t)((int64_t)(pmc << shift) >> shift);
}

#if defined(__aarch64__)
/* The register named in the instruction: no dispatch on the index. */
static inline __attribute__((always_inline)) uint64_t floor_read_fixed(const struct perf_event_mmap_page *pc)
{
	uint32_t seq;
	uint64_t off, pmc;

	do {
		seq = *(volatile uint32_t *)&pc->lock;
		__asm__ volatile("" ::: "memory");
		off = pc->offset;
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(pmc));
		__asm__ volatile("" ::: "memory");
	} while (*(volatile uint32_t *)&pc->lock != seq);
	return off + pmc;
}
#else
#define floor_read_fixed floor_read	/* never selected: the method needs arm64's index 32 */
#endif

/*
 * The floor with what a correct read cannot leave out: user access and
 * index 0 (never a stale offset), a lock caught odd, a multiplexed event
 * (its count needs scaling). ~0 means "fall back".
 */
static inline __attribute__((always_inline)) uint64_t floor_read_checked(const struct perf_event_mmap_page *pc)
{
	uint32_t seq, idx, shift;
	uint64_t off, pmc, caps;

	do {
		seq = *(volatile uint32_t *)&pc->lock;
		__asm__ volatile("" ::: "memory");
		caps = pc->capabilities;
		idx = *(volatile uint32_t *)&pc->index;
		if (!(caps & (1ull << 2)) || !idx || pc->time_enabled != pc->time_running)
			return ~0ull;
		off = pc->offset;
		shift = (64 - pc->pmc_width) & 63;
		pmc = pmu_inl_rdpmc(idx);
		__asm__ volatile("" ::: "memory");
	} while (*(volatile uint32_t *)&pc->lock != seq || (seq & 1));
	return off + (uint64_t)((int64_t)(pmc << shift) >> shift);
}

/* The N reads of one method; callgrind collects inside this function only. */
__attribute__((noinline)) void bench_loop(enum method m, long n)
{
	uint64_t v[8] = { 0 }, acc = 0;
	long i;

	switch (m) {
	case M_EMPTY:
		for (i = 0; i < n; i++)
			__asm__ volatile("" : : "r"(v) : "memory");
		break;
	case M_PMU1:
		for (i = 0; i < n; i++)
			pmu_read(B.sw1, v);
		break;
	case M_PMU4:
		for (i = 0; i < n; i++)
			pmu_read(B.sw4, v);
		break;
	case M_HW1:
		for (i = 0; i < n; i++)
			pmu_read(B.hw1, v);
		break;
	case M_HW4:
		for (i = 0; i < n; i++)
			pmu_read(B.hw4, v);
		break;
	case M_CTR1:
	case M_HWCTR:
	case M_HWCTREV: {
		const struct pmu_counter *c = B.ctr;

		for (i = 0; i < n; i++)
			pmu_counter_read(c, v);
		break;
	}
	case M_RAW1:
		for (i = 0; i < n; i++)
			acc += read(B.raw1, v, 8);
		break;
	case M_RAW1T:
		for (i = 0; i < n; i++)
			acc += read(B.raw1t, v, 24);
		break;
	case M_RAWG4:
		for (i = 0; i < n; i++)
			acc += read(B.rawg4, v, 7 * 8);
		break;
	case M_HWRAW1:
		for (i = 0; i < n; i++)
			acc += read(B.hwraw1, v, 8);
		break;
	case M_HWRAW1T:
		for (i = 0; i < n; i++)
			acc += read(B.hwraw1t, v, 24);
		break;
	case M_GETPPID:
		for (i = 0; i < n; i++)
			acc += getppid();
		break;
	case M_FLOOR:
		for (i = 0; i < n; i++)
			acc += floor_read(B.floor[0]);
		break;
	case M_FLOOR_FIXED:
		for (i = 0; i < n; i++)
			acc += floor_read_fixed(B.floor[0]);
		break;
	case M_FLOOR_CHECKED:
		for (i = 0; i < n; i++)
			acc += floor_read_checked(B.floor[0]);
		break;
	case M_FLOOR4:
		for (i = 0; i < n; i++) {
			v[0] = floor_read(B.floor[0]);
			v[1] = floor_read(B.floor[1]);
			v[2] = floor_read(B.floor[2]);
			v[3] = floor_read(B.floor[3]);
			__asm__ volatile("" : : "r"(v) : "memory");
		}
		break;
	default:
		break;
	}
	sink += acc + v[0];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* value, enabled, running */
static void read_count(int fd, uint64_t v[3])
{
	if (fd < 0 || read(fd, v, 3 * sizeof(v[0])) != 3 * sizeof(v[0]))
		v[0] = v[1] = v[2] = 0;
}

/* Instructions (user; user + kernel) of n reads of m, loop included. */
static void count_instructions(enum method m, long n, double *u, double *uk)
{
	uint64_t u0[3], k0[3], u1[3], k1[3];

	read_count(B.ins_u, u0);
	read_count(B.ins_uk, k0);
	bench_loop(m, n);
	read_count(B.ins_u, u1);
	read_count(B.ins_uk, k1);
	*u = (double)(u1[0] - u0[0]);
	*uk = (double)(k1[0] - k0[0]);
	/* Not on a counter all along: the figure would be an estimate. */
	if (u1[1] - u0[1] != u1[2] - u0[2] || (B.ins_uk >= 0 && k1[1] - k0[1] != k1[2] - k0[2]))
		B.ins_multiplexed++;
}

static void setup_sw(void)
{
	uint64_t t = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	static const char *const sw4[] = { "task-clock", "page-faults", "context-switches", "cpu-migrations" };
	int i, fd;

	if (pmu_open(&B.sw1, SW1) == 0)
		B.available[M_PMU1] = 1;
	else
		B.why[M_PMU1] = strdup(pmu_errmsg());
	if (B.sw1 && (B.ctr = pmu_counter(B.sw1, 0)))
		B.available[M_CTR1] = 1;
	else
		B.why[M_CTR1] = B.why[M_PMU1];
	if (pmu_open(&B.sw4, SW4) == 0)
		B.available[M_PMU4] = 1;
	else
		B.why[M_PMU4] = strdup(pmu_errmsg());
	B.raw1 = open_attr(SW1, 0, -1);
	B.raw1t = open_attr(SW1, t, -1);
	B.rawg4 = -1;
	for (i = 0; i < 4; i++) {
		fd = open_attr(sw4[i], t | PERF_FORMAT_GROUP, B.rawg4);
		if (fd < 0) {
			B.rawg4 = -1;
			break;
		}
		if (i == 0)
			B.rawg4 = fd;
	}
	B.available[M_RAW1] = B.raw1 >= 0;
	B.available[M_RAW1T] = B.raw1t >= 0;
	B.available[M_RAWG4] = B.rawg4 >= 0;
	B.available[M_GETPPID] = 1;
	B.available[M_EMPTY] = 1;
}

/* The floor reads the very pages pmu_read() reads: those of the set opened for hw1 or hw4. */
static int floor_pages(struct pmu_set *set, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (pmu__counter(set, i, NULL, &B.floor[i], NULL) < 0 || !B.floor[i] ||
		    !B.floor[i]->cap_user_rdpmc || !B.floor[i]->index)
			return -1;
	return 0;
}

/*
 * Hardware counters are few (QEMU: 6 and the cycle counter): each method's
 * are opened just before its runs and closed after, so that nothing is
 * multiplexed. 0, or -1 when they cannot be had now.
 */
static int acquire(enum method m)
{
	switch (m) {
	case M_HW1:
		return pmu_open(&B.hw1, B.hw1_events) < 0 || pmu_user_read(B.hw1, 0, NULL) != 1 ? -1 : 0;
	case M_HW4:
		return pmu_open(&B.hw4, B.hw4_events) < 0 || pmu_user_read(B.hw4, 3, NULL) != 1 ? -1 : 0;
	case M_HWRAW1:
		return (B.hwraw1 = open_attr("cycles", 0, -1)) < 0 ? -1 : 0;
	case M_HWRAW1T:
		return (B.hwraw1t = open_attr("cycles", PERF_FORMAT_TOTAL_TIME_ENABLED |
					      PERF_FORMAT_TOTAL_TIME_RUNNING, -1)) < 0 ? -1 : 0;
	case M_FLOOR:
	case M_FLOOR_CHECKED:
		return acquire(M_HW1) < 0 || floor_pages(B.hw1, 1) < 0 ? -1 : 0;
	case M_FLOOR_FIXED:
		/* Only while the event sits on the 64-bit cycle counter. */
		return acquire(M_HW1) < 0 || floor_pages(B.hw1, 1) < 0 || B.floor[0]->index != 32 ||
		       B.floor[0]->pmc_width != 64 ? -1 : 0;
	case M_FLOOR4:
		return acquire(M_HW4) < 0 || floor_pages(B.hw4, 4) < 0 ? -1 : 0;
	case M_CTR1:
		B.ctr = pmu_counter(B.sw1, 0);
		return 0;
	case M_HWCTR:
		if (acquire(M_HW1) < 0)
			return -1;
		B.ctr = pmu_counter(B.hw1, 0);
		return B.ctr->page && B.ctr->page->index ? 0 : -1;
	case M_HWCTREV:
		if (acquire(M_HW4) < 0)
			return -1;
		/* an event of the 4 on an event counter: not arm64's cycle counter (index 32) */
		for (unsigned i = 0; i < 4; i++) {
			B.ctr = pmu_counter(B.hw4, i);
			if (B.ctr->page && B.ctr->page->index && B.ctr->page->index != 32)
				return 0;
		}
		return -1;
	default:
		return 0;
	}
}

static void release(enum method m)
{
	switch (m) {
	case M_HW1:
	case M_HWCTR:
	case M_FLOOR:
	case M_FLOOR_FIXED:
	case M_FLOOR_CHECKED:
		pmu_close(B.hw1);
		B.hw1 = NULL;
		break;
	case M_HW4:
	case M_HWCTREV:
	case M_FLOOR4:
		pmu_close(B.hw4);
		B.hw4 = NULL;
		break;
	case M_HWRAW1:
		if (B.hwraw1 >= 0)
			close(B.hwraw1);
		B.hwraw1 = -1;
		break;
	case M_HWRAW1T:
		if (B.hwraw1t >= 0)
			close(B.hwraw1t);
		B.hwraw1t = -1;
		break;
	default:
		break;
	}
	memset(B.floor, 0, sizeof(B.floor));
}

/* Hardware: only where pmu_read() of cycles takes the user-space path. */
static void setup_hw(void)
{
	static const char *const lists4[] = {
		"cycles,instructions,branches,branch-misses",
		"cycles,instructions,cpu_cycles,cpu_cycles",
		"cycles,cpu_cycles,cpu_cycles,cpu_cycles",
		"cycles,instructions,dTLB-load-misses,iTLB-load-misses",	/* riscv64 under QEMU */
		"cycles,cycles,cycles,cycles",
	};
	const char *why = "";
	struct pmu_set *s;
	unsigned i;
	int m;

	B.hw1_events = "cycles";
	if (pmu_open(&s, "cycles") < 0) {
		B.why[M_HW1] = strdup(pmu_errmsg());
		return;
	}
	if (pmu_user_read(s, 0, &why) != 1) {
		B.why[M_HW1] = strdup(why);
		pmu_close(s);
		return;
	}
	pmu_close(s);
	B.available[M_HW1] = 1;
	for (i = 0; i < sizeof(lists4) / sizeof(lists4[0]) && !B.hw4_events; i++) {
		if (pmu_open(&s, lists4[i]) < 0)
			continue;
		if (pmu_user_read(s, 3, NULL) == 1)
			B.hw4_events = lists4[i];
		pmu_close(s);
	}
	B.available[M_HW4] = B.hw4_events != NULL;
	if (!B.hw4_events)
		B.why[M_HW4] = "no list of 4 hardware events opened with user-space reads";
	for (m = M_HWCTR; m <= M_FLOOR_CHECKED; m++) {
		if (((m == M_FLOOR4 || m == M_HWCTREV) && !B.hw4_events) ||
		    ((m >= M_FLOOR || m == M_HWCTR || m == M_HWCTREV) && !PMU_INL_USER_READ))
			continue;
		B.available[m] = acquire(m) == 0;
		if (m == M_FLOOR && B.floor[0])
			snprintf(B.floor_info, sizeof(B.floor_info), "index %u, pmc_width %u",
				 B.floor[0]->index, B.floor[0]->pmc_width);
		if (!B.available[m] && (m == M_HWCTR || m == M_HWCTREV))
			B.why[m] = m == M_HWCTR ? "cycles is not read from user space now" :
				   "no event of the 4 is on an event counter";
		else if (!B.available[m] && m == M_FLOOR_FIXED)
			B.why[m] = "the cycles event is not on the 64-bit cycle counter (index 32)";
		else if (!B.available[m] && m >= M_FLOOR)
			B.why[m] = "the pages cannot be read from user space";
		release(m);
	}
}

static void setup_instructions(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_hv = 1;
	a.exclude_kernel = 1;
	B.ins_u = perf_open(&a, -1);
	a.exclude_kernel = 0;
	B.ins_uk = perf_open(&a, -1);
	if (B.ins_uk < 0) {
		/* Counting the kernel may not be allowed: user space only then. */
		B.ins_uk = -1;
	}
}

static void pin(int *cpu)
{
	cpu_set_t s;

	*cpu = sched_getcpu();
	if (*cpu < 0)
		*cpu = 0;
	CPU_ZERO(&s);
	CPU_SET(*cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s) < 0)
		*cpu = -1;
}

static void machine(void)
{
	struct utsname u;
	char line[256], model[256] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (p && (!strncmp(line, "model name", 10) || !strncmp(line, "CPU part", 8))) {
			snprintf(model, sizeof(model), "%s", p + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	uname(&u);
	printf("machine: %s, Linux %s, %ld CPUs%s%s\n", u.machine, u.release, sysconf(_SC_NPROCESSORS_ONLN),
	       *model ? ", " : "", model);
}

static int by_name(const char *name)
{
	for (int m = 0; m < M_N; m++)
		if (!strcmp(methods[m].name, name))
			return m;
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: read [--quick] | --callgrind METHOD [N] | --list\n");
}

int main(int argc, char **argv)
{
	const char *q = getenv("PMU_TEST_QUICK");
	int quick = q && *q && *q != '0', cpu, m, r;
	long n;
	int runs;
	double ns[M_N][MAXRUNS], med[M_N], best[M_N], ins_u[M_N], ins_uk[M_N];

	B.raw1 = B.raw1t = B.rawg4 = B.hwraw1 = B.hwraw1t = B.ins_u = B.ins_uk = -1;
	if (argc >= 2 && !strcmp(argv[1], "--list")) {
		for (m = 0; m < M_N; m++)
			printf("%-10s %s\n", methods[m].name, methods[m].what);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--quick"))
		quick = 1;
	else if (argc >= 3 && !strcmp(argv[1], "--callgrind")) {
		m = by_name(argv[2]);
		n = argc >= 4 ? atol(argv[3]) : 100000;
		if (m < 0 || n <= 0) {
			usage(stderr);
			return 2;
		}
		setup_sw();
		if (m >= M_HW1)
			setup_hw();
		if (!B.available[m] || acquire(m) < 0) {
			fprintf(stderr, "%s: not available here: %s\n", methods[m].name,
				B.why[m] ? B.why[m] : m > M_HW1 && B.why[M_HW1] ? B.why[M_HW1] :
				"could not be set up");
			return 1;
		}
		bench_loop(m, 10);	/* warm: lazy binding, first faults */
		bench_loop(m, n);
		release(m);
		return 0;
	} else if (argc >= 2) {
		usage(stderr);
		return 2;
	}

	/* Many short runs, interleaved: a busy machine disturbs some runs, not one method. */
	n = quick ? 2000 : 20000;
	runs = quick ? 3 : MAXRUNS;
	pin(&cpu);
	setup_instructions();
	setup_sw();
	setup_hw();

	machine();
	printf("%s, median of %d runs of %ld reads, interleaved%s\n",
	       cpu >= 0 ? "pinned to one CPU" : "not pinned (sched_setaffinity failed)", runs, n,
	       quick ? " (--quick)" : "");
	printf("software events: \"%s\" and \"%s\"; %s\n", SW1, SW4,
	       pmu_user_read(B.sw1, 0, NULL) == 1 ? "pmu_read reads them from user space" :
	       "pmu_read reads them through read(2)");
	if (B.available[M_HW1]) {
		printf("hardware events: \"%s\" and \"%s\", read from user space\n", B.hw1_events,
		       B.hw4_events ? B.hw4_events : "(none)");
		if (*B.floor_info)
			printf("floor: hand-written reads of the same pages; cycles: page %s\n", B.floor_info);
	} else {
		printf("hardware events: none read from user space here (%s)\n",
		       B.why[M_HW1] ? B.why[M_HW1] : "?");
	}

	for (r = 0; r < runs; r++) {
		for (m = 0; m < M_N; m++) {
			uint64_t t;

			if (!B.available[m])
				continue;
			if (acquire(m) < 0) {
				B.available[m] = 0;
				B.why[m] = "could not be opened again";
				release(m);
				continue;
			}
			bench_loop(m, n / 10 + 1);	/* warm up */
			t = now_ns();
			bench_loop(m, n);
			ns[m][r] = (double)(now_ns() - t) / (double)n;
			release(m);
		}
	}
	for (m = 0; m < M_N; m++) {
		if (!B.available[m])
			continue;
		qsort(ns[m], runs, sizeof(double), cmp_double);
		med[m] = ns[m][runs / 2];
		best[m] = ns[m][0];
	}

	/* Instructions per read: difference of n and 0 reads, less the empty loop's per-iteration cost. */
	if (B.ins_u >= 0) {
		double u0, k0, u, k;

		for (m = 0; m < M_N; m++) {
			if (!B.available[m] || acquire(m) < 0) {
				release(m);
				ins_u[m] = ins_uk[m] = -1;
				continue;
			}
			bench_loop(m, n / 10 + 1);
			count_instructions(m, 0, &u0, &k0);
			count_instructions(m, n, &u, &k);
			release(m);
			ins_u[m] = (u - u0) / (double)n;
			ins_uk[m] = (k - k0) / (double)n;
		}
		for (m = M_EMPTY + 1; m < M_N; m++) {
			if (!B.available[m])
				continue;
			ins_u[m] -= ins_u[M_EMPTY];
			ins_uk[m] -= ins_uk[M_EMPTY];
		}
	}

	printf("\n%-44s %9s %9s %10s %10s %8s %12s %12s\n", "method", "ns/read", "best", "x read(2)",
	       "x same raw", "x floor", "instr/read u", "instr u+k");
	for (m = M_PMU1; m < M_N; m++) {
		int base = m >= M_HW1 ? M_HWRAW1 : M_RAW1, same = -1;
		int fl = m == M_HW1 ? M_FLOOR : m == M_HW4 ? M_FLOOR4 :
			 m == M_HWCTR || m == M_HWCTREV ? M_FLOOR_CHECKED : -1;
		char what[64];

		if (m == M_PMU1 || m == M_CTR1)
			same = M_RAW1T;
		else if (m == M_PMU4)
			same = M_RAWG4;
		else if (m == M_HW1)
			same = M_HWRAW1T;
		if (!B.available[m]) {
			if (B.why[m] && (m == M_HW1 || m == M_PMU1 || m == M_PMU4 || B.available[M_HW1]))
				printf("%-44s %9s   (%s)\n", methods[m].what, "-", B.why[m]);
			continue;
		}
		snprintf(what, sizeof(what), "%s", methods[m].what);
		printf("%-44s %9.1f %9.1f", what, med[m], best[m]);
		if (B.available[base])
			printf(" %10.3f", med[m] / med[base]);
		else
			printf(" %10s", "-");
		if (same >= 0 && B.available[same])
			printf(" %10.3f", med[m] / med[same]);
		else
			printf(" %10s", "");
		if (fl >= 0 && B.available[fl] && B.ins_u >= 0 && ins_u[fl] > 0)
			printf(" %8.2f", ins_u[m] / ins_u[fl]);
		else if (fl >= 0 && B.available[fl])
			printf(" %8.2f", med[m] / med[fl]);
		else
			printf(" %8s", "");
		if (B.ins_u >= 0) {
			printf(" %12.1f", ins_u[m]);
			if (B.ins_uk >= 0)
				printf(" %12.1f", ins_uk[m]);
		}
		printf("\n");
	}
	printf("\nns/read: median of the runs; best: the fastest run\n");
	printf("x read(2): against the raw 8-byte read(2) of the same kind of event (software: %s; "
	       "hardware: cycles)\n", SW1);
	printf("x floor: pmu_read of hardware events against the hand-written floor on the same pages "
	       "(by user instructions when counted, else by ns)\n");
	printf("x same raw: against the raw read(2) that returns what pmu_read needs (1 event with times; "
	       "a group of 4 with times)\n");
	if (B.ins_u >= 0)
		printf("instr/read: from instructions:u and instructions:uk counters around each loop, "
		       "net of the empty loop (%.1f u per iteration)%s\n", ins_u[M_EMPTY],
		       B.ins_multiplexed ? "; WARNING: the counters were multiplexed, figures are estimates" : "");
	else
		printf("instr/read: no instructions counter here; bench/callgrind.sh gives user-space "
		       "instructions per read\n");
	pmu_close(B.sw1);
	pmu_close(B.sw4);
	return 0;
}
