/* SPDX-License-Identifier: MIT */
/*
 * Under pmu emulate (libpmu-qemu, libpmu-valgrind), instructions is exact: a loop of N
 * iterations of 2 instructions counts 2N + a constant of the read path,
 * through pmu_read(), pmu_counter_read() and regions; a disabled counter
 * counts nothing, threads count their own, a forked child neither adds to
 * its parent's count nor reads it, in pmu_read() or regions. Natively it skips: the emulated tier
 * (test/emulated.sh) runs it under QEMU for each ISA and under Valgrind, and the arm64 tier
 * on the PMU under -icount (test/arm64/arm64_exact.c): the same slope.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "pmu.h"
#include "test.h"
#ifdef EMU_EXACT_PMU
#include "guest.h"
#define EMU_EVENT "instructions:u"
#else
#define EMU_EVENT "instructions"
#endif

/* n (at least 1) iterations of exactly 2 instructions: a decrement and a branch back. */
static void loop(long n)
{
#if defined(__x86_64__)
	__asm__ volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
	__asm__ volatile("1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__riscv)
	__asm__ volatile("1:\n\taddi %0, %0, -1\n\tbnez %0, 1b" : "+r"(n));
#else
	(void)n;
#endif
}

static uint64_t read_around(struct pmu_set *s, long n)
{
	uint64_t a = 0, b = 0;

	CHECK(pmu_read(s, &a) == 0);
	loop(n);
	CHECK(pmu_read(s, &b) == 0);
	return b - a;
}

static uint64_t counter_around(const struct pmu_counter *c, long n)
{
	uint64_t a = 0, b = 0;

	CHECK(pmu_counter_read(c, &a) == 0);
	loop(n);
	CHECK(pmu_counter_read(c, &b) == 0);
	return b - a;
}

/* d(n) = 2n + C for each n: C, the same for all. */
static uint64_t linear(const char *what, uint64_t (*f)(void *, long), void *arg)
{
	uint64_t c = f(arg, 1000) - 2000;

	for (long n = 2000; n <= 64000; n *= 4) {
		uint64_t d = f(arg, n);

		CHECK_MSG(d == 2 * (uint64_t)n + c, "%s: %ld iterations counted %" PRIu64 ", not 2 x %ld + %" PRIu64,
			  what, n, d, n, c);
	}
	printf("%s: 2 per iteration exactly, + %" PRIu64 "\n", what, c);
	return c;
}

static uint64_t by_read(void *s, long n) { return read_around(s, n); }
static uint64_t by_counter(void *c, long n) { return counter_around(c, n); }

static void *worker(void *arg)
{
	long k = (long)(intptr_t)arg;
	struct pmu_set *s;
	uint64_t *d = malloc(2 * sizeof(*d));

	if (pmu_open(&s, EMU_EVENT) < 0 || !d)
		return NULL;
	d[0] = read_around(s, 1000 * k);
	d[1] = read_around(s, 2000 * k);
	pmu_close(s);
	return d;
}

static void threads(void)
{
	pthread_t t[4];

	for (long k = 0; k < 4; k++)
		CHECK(pthread_create(&t[k], NULL, worker, (void *)(intptr_t)(k + 1)) == 0);
	for (long k = 0; k < 4; k++) {
		uint64_t *d = NULL;

		CHECK(pthread_join(t[k], (void **)&d) == 0 && d);
		if (d)
			CHECK_MSG(d[1] - d[0] == 2 * 1000 * (uint64_t)(k + 1), "thread %ld: %" PRIu64 " - %" PRIu64, k,
				  d[1], d[0]);
		free(d);
	}
}

/* The parent's count across a fork and wait, the child running n iterations (its own count checked). */
static uint64_t across_fork(struct pmu_set *s, long n)
{
	uint64_t a = 0, b = 0;
	int st = 0;
	pid_t pid;

	CHECK(pmu_read(s, &a) == 0);
	pid = fork();
	if (pid == 0) {
		struct pmu_set *c;
		uint64_t v;

		if (pmu_read(s, &v) != -ECHILD || pmu_open(&c, EMU_EVENT) < 0)
			_exit(2);
		_exit(read_around(c, n) - read_around(c, 2 * n) + 2 * (uint64_t)n == 0 ? 0 : 3);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(pmu_read(s, &b) == 0);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child: status %d", st);
	return b - a;
}

static void on_off(struct pmu_set *s)
{
	uint64_t a = 0, b = 0, d1, d2;

	CHECK(pmu_disable(s) == 0);
	d1 = read_around(s, 1);
	d2 = read_around(s, 100000);
	CHECK_MSG(d1 == 0 && d2 == 0, "disabled, it counted %" PRIu64 " and %" PRIu64, d1, d2);
	CHECK(pmu_enable(s) == 0 && pmu_reset(s) == 0 && pmu_read(s, &a) == 0);
	loop(1000);
	CHECK(pmu_read(s, &b) == 0);
	CHECK_MSG(b > 2000 && b < 4000, "after a reset, a loop of 1000: %" PRIu64 " (from %" PRIu64 ")", b, a);
}

/* One function for both regions, so that they run the same instructions but for the loop's iterations. */
static __attribute__((noinline)) void region(const char *name, long n)
{
	pmu_region_begin(name);
	loop(n);
	pmu_region_end(name);
}

/*
 * A forked child's region counts its own instructions, as the parent's
 * calls did (min to max), never its parent's: QEMU wipes no page at fork,
 * and a load of the parent's table would read the parent's thread. raw:
 * forked by the system call, without the library's fork handlers, the
 * region may fail instead (the set is the parent's), but never count.
 */
static void region_in_child(const char *name, const struct pmu_region_result *before, bool raw)
{
	int st = 0;
	pid_t pid = raw ? (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) : fork();

	if (pid == 0) {
		struct pmu_region_result rr = { .size = sizeof(rr) };
		struct pmu_results *r;
		const char *const *names;
		unsigned n, id = 0;
		uint64_t d;

		if (pmu_region_begin(name) < 0)
			_exit(raw ? 0 : 2);
		loop(1000);
		pmu_region_end(name);
		r = pmu_results_take();
		n = pmu_results_regions(r, &names);
		while (id < n && strcmp(names[id], name))
			id++;
		if (id == n || pmu_results_get(r, id, -1, &rr) < 0)
			_exit(4);
		/* fresh records (fork's handlers), or the parent's copy and one call more */
		d = rr.calls == 1 ? rr.sum[0] : rr.calls == before->calls + 1 ? rr.sum[0] - before->sum[0] : 0;
		_exit(d >= before->min[0] && d <= before->max[0] + 100 ? 0 : 3);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a region in a child forked%s: status %d",
		  raw ? " by the system call" : "", st);
}

static void regions(void)
{
	struct pmu_results *r;
	struct pmu_region_result rr[2] = { { .size = sizeof(rr[0]) }, { .size = sizeof(rr[1]) } };

	/*
	 * Names 8-aligned, of one word: compared as words. Another is compared
	 * with strcmp(), whose instructions vary with where the heap put the
	 * name's copy, which varies from run to run with the threads before.
	 */
	static const char r1000[8] __attribute__((aligned(8))) = "r1000", r5000[8] __attribute__((aligned(8))) = "r5000";

	CHECK(pmu_thread_init(EMU_EVENT) == 0);
	for (int i = 0; i < 3; i++) {
		region(r1000, 1000);
		region(r5000, 5000);
	}
	r = pmu_results_take();
	CHECK(r && pmu_results_get(r, 0, -1, &rr[0]) == 0 && pmu_results_get(r, 1, -1, &rr[1]) == 0);
	if (r) {
		uint64_t sh = rr[0].sum[0], lo = rr[1].sum[0];

		/* the same code around both loops: their calls differ by the loops alone, first calls and later */
		CHECK_MSG(lo - sh == 3 * 8000 && rr[1].min[0] - rr[0].min[0] == 8000 && rr[1].max[0] - rr[0].max[0] == 8000,
			  "regions: 3 x 1000 and 3 x 5000 iterations counted %" PRIu64 " and %" PRIu64 " (min %" PRIu64
			  " and %" PRIu64 ", max %" PRIu64 " and %" PRIu64 ")", sh, lo, rr[0].min[0], rr[1].min[0],
			  rr[0].max[0], rr[1].max[0]);
		printf("regions: 2 per iteration exactly, + %" PRIu64 " a call (%" PRIu64 " more the first)\n",
		       rr[0].min[0] - 2000, rr[0].max[0] - rr[0].min[0]);
		region_in_child(r1000, &rr[0], false);
		region_in_child(r1000, &rr[0], true);
		pmu_results_free(r);
	}
	CHECK(pmu_thread_fini() == 0);
}

int main(void)
{
	struct pmu_set *s;
	const char *why = "";

#ifdef EMU_EXACT_PMU	/* test/arm64/arm64_exact.c: the same on the arm64 tier's PMU, exact under -icount */
	if (!guest_icount())
		T_SKIP("needs QEMU -icount shift=0 for exact counts (the *-icount configurations run it)");
	if (pmu_open(&s, "instructions:u") < 0)
		T_SKIP("instructions:u does not open: %s", pmu_errmsg());
	pmu_user_read(s, 0, &why);
#else
	if (pmu_open(&s, "instructions") < 0)
		T_SKIP("instructions does not open (%s): the emulated tier runs this under pmu emulate", pmu_errmsg());
	if (pmu_user_read(s, 0, &why) != 1 || strncmp(why, "emulated (", 10)) {
		pmu_close(s);
		T_SKIP("instructions is not emulated here (%s): the emulated tier runs this under pmu emulate", why);
	}
	struct pmu_set *x;

	CHECK(pmu_open(&x, "cycles") == -EOPNOTSUPP && strstr(pmu_errmsg(), "counts instructions only"));
	CHECK(pmu_open(&x, "instructions:k") == -EOPNOTSUPP && strstr(pmu_errmsg(), "user-space instructions only"));
#endif
	printf("%s\n", why);
	linear("pmu_read", by_read, s);
	linear("pmu_counter_read", by_counter, (void *)pmu_counter(s, 0));
	{
		uint64_t f1, f2;

		across_fork(s, 1);	/* the first fork has more to do (atfork handlers' first use) */
		f1 = across_fork(s, 1);
		f2 = across_fork(s, 1000000);
		CHECK_MSG(f1 == f2, "the parent counted %" PRIu64 " across a fork whose child ran 1 iteration, %" PRIu64
			  " across one of 10^6", f1, f2);
	}
	on_off(s);
	threads();
	regions();
	pmu_close(s);
	T_DONE();
}
